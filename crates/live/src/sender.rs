//! `send`: seals readings and writes them to a transport, at a rate or as fast as
//! possible, in one of study 000's three payload types.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpStream, UdpSocket};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use seal::{Container, HostSealer, SealKey};
use serde::Serialize;

use crate::amqp;
use crate::clock::now_us;
use crate::endpoint::{Endpoint, check_pairing};
#[cfg(any(feature = "mqtt", feature = "amqp"))]
use crate::envelope::uplink_id;
use crate::envelope::{Envelope, UplinkMeta};
use crate::error::LiveError;
use crate::framing::{Framing, encode};
use crate::inject::{Injector, Kind, Mix, tamper, truncate};
#[cfg(feature = "mqtt")]
use crate::mqtt::Publisher;
use serial::open_serial;

/// Study 000's three payload types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PayloadType {
    /// The reading as it is: no protection (a gateway refuses it).
    Plaintext,
    /// The sealed message.
    Ciphertext,
    /// The sealed message, framed and filled up to whole radio packets so the radio
    /// never waits for its partial-packet timeout.
    Padded,
}

impl std::str::FromStr for PayloadType {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "plaintext" => Ok(PayloadType::Plaintext),
            "ciphertext" => Ok(PayloadType::Ciphertext),
            "padded" => Ok(PayloadType::Padded),
            _ => Err(format!(
                "unknown payload type '{s}': use plaintext, ciphertext or padded"
            )),
        }
    }
}

/// Where readings come from.
pub enum Readings<'a> {
    /// `count` generated readings (`--sample`), reading `i` from seed `seed + i`.
    Sample {
        sample: payload::Sample,
        format: payload::Format,
        count: u64,
        seed: u64,
    },
    /// One reading per line of a file or standard input.
    Lines(Box<dyn BufRead + Send>),
    /// Messages sealed elsewhere (a device's UART), as they are: no hex, no sealing.
    Sealed(Box<dyn Iterator<Item = Result<Vec<u8>, LiveError>> + 'a>),
}

impl Readings<'_> {
    pub(crate) fn next(&mut self, i: u64) -> Result<Option<Vec<u8>>, LiveError> {
        match self {
            Readings::Sample {
                sample,
                format,
                count,
                seed,
            } => {
                if i >= *count {
                    return Ok(None);
                }
                sample
                    .bytes(*format, seed.wrapping_add(i))
                    .map(Some)
                    .map_err(|e| LiveError::Usage(e.to_string()))
            }
            Readings::Sealed(messages) => messages.next().transpose(),
            Readings::Lines(input) => {
                let mut line = Vec::new();
                loop {
                    line.clear();
                    let n = input
                        .read_until(b'\n', &mut line)
                        .map_err(|e| LiveError::io("reading input", e))?;
                    if n == 0 {
                        return Ok(None);
                    }
                    while line.last().is_some_and(|b| b.is_ascii_whitespace()) {
                        line.pop();
                    }
                    if !line.is_empty() {
                        return Ok(Some(line));
                    }
                }
            }
        }
    }
}

pub struct SendConfig {
    pub to: Endpoint,
    pub framing: Framing,
    pub container: Container,
    pub payload: PayloadType,
    /// Radio packet size for `padded`.
    pub packet: u32,
    /// Messages per second; `None` as fast as possible.
    pub rate: Option<f64>,
    pub inject: Mix,
    pub seed: u64,
    /// Add `"sent_us"` (Unix µs) to JSON object readings so the gateway can store latency.
    pub timestamp: bool,
    /// TCP: wait this long at the end for the gateway's acknowledgements.
    pub ack_wait: Duration,
    /// The readings are sealed messages already (e.g. a file from `save`): send them as they are.
    pub presealed: bool,
    /// Append every message sent (one per line; hex unless the container is text) to this file,
    /// before it goes out, so it can be sent again verbatim with `presealed`.
    pub save: Option<std::path::PathBuf>,
    /// MQTT, AMQP: how each message is wrapped, as a network server publishes an uplink.
    pub envelope: Envelope,
    /// AMQP: the routing key of every message; `None` is ChirpStack's key for the
    /// device ([`amqp_routing_key`]).
    pub routing_key: Option<String>,
    /// The first uplink's frame counter (FCntUp); a later run continues a device's count.
    pub first_f_cnt: u32,
    /// The largest message one frame carries (`--link`: a LoRaWAN data rate,
    /// a Sigfox, BLE, 802.15.4 or cellular link): a longer one goes in the
    /// sealing core's fragments, each its own uplink or datagram, as a device
    /// sends it.
    pub frame: Option<usize>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SendReport {
    pub sent: u64,
    pub good: u64,
    pub tampered: u64,
    pub replayed: u64,
    pub truncated: u64,
    /// With `--link`: uplinks sent as fragments, fragments the radio lost
    /// (`--inject lost-fragment=P%`), messages that lost some of theirs (the
    /// gateway counts them `incomplete`), and messages that lost all (which it
    /// never sees: only its `lost_uplinks` show them).
    pub fragments: u64,
    pub fragments_lost: u64,
    pub incomplete: u64,
    pub vanished: u64,
    /// What went out: one per whole message, one per fragment not lost. A
    /// broker or the gateway acknowledges each of these.
    pub transmitted: u64,
    pub bytes: u64,
    /// TCP: messages the gateway acknowledged as committed; MQTT: messages the broker
    /// acknowledged (PUBACK); AMQP: messages the broker confirmed, routed to a queue.
    pub acked: Option<u64>,
    pub micros: u64,
}

impl SendConfig {
    /// Refuses settings that cannot be sent with, saying what is valid.
    pub fn check(&self) -> Result<(), LiveError> {
        if self.rate.is_some_and(|r| !r.is_finite() || r <= 0.0) {
            return Err(LiveError::Usage(
                "--rate must be a positive number of messages per second".into(),
            ));
        }
        if self.packet == 0 {
            return Err(LiveError::Usage("--packet-size must be positive".into()));
        }
        self.to.check_built()?;
        check_pairing(&self.to, false, false, "send")?;
        let broker = matches!(self.to, Endpoint::Mqtt(_) | Endpoint::Amqp(_));
        if self.envelope != Envelope::Raw && !broker {
            return Err(LiveError::Usage(format!(
                "--envelope is for mqtt:// and amqp:// destinations, not {}",
                self.to
            )));
        }
        if self.routing_key.is_some() && !matches!(self.to, Endpoint::Amqp(_)) {
            return Err(LiveError::Usage(format!(
                "--routing-key is for amqp:// destinations, not {}",
                self.to
            )));
        }
        if self.routing_key.as_ref().is_some_and(|k| k.len() > 255) {
            return Err(LiveError::Usage(
                "--routing-key is longer than 255 bytes".into(),
            ));
        }
        if self.first_f_cnt != 0 && self.envelope == Envelope::Raw {
            return Err(LiveError::Usage(
                "--first-fcnt numbers uplinks in an --envelope (chirpstack or tts)".into(),
            ));
        }
        Ok(())
    }
}

/// A message as the uplinks a device sends on frames of `frame` bytes: whole
/// when it fits, else the sealing core's fragments, tagged with `tag` (mod 16).
fn cut(message: &[u8], frame: usize, tag: u64) -> Result<Vec<Vec<u8>>, LiveError> {
    let refused = |e: seal::fragment::FragmentError| LiveError::Usage(format!("--link: {e}"));
    let n = seal::fragment::count(message.len(), frame).map_err(refused)?;
    let mut out = vec![0u8; frame.max(message.len())];
    (0..n)
        .map(|index| {
            let len = seal::fragment::write(message, frame, tag as u8, index, &mut out)
                .map_err(refused)?;
            Ok(out[..len].to_vec())
        })
        .collect()
}

/// Wraps the `i`-th uplink as a network server's and publishes it; its size.
#[cfg(any(feature = "mqtt", feature = "amqp"))]
fn publish_uplink(
    link: &Link,
    config: &SendConfig,
    wire: &[u8],
    device: &str,
    i: u64,
) -> Result<usize, LiveError> {
    let uplink = config.envelope.wrap(
        wire,
        &UplinkMeta {
            id: &uplink_id(config.seed, i),
            device,
            f_cnt: config.first_f_cnt.wrapping_add(i as u32),
            f_port: 1,
        },
    );
    let n = uplink.len();
    link.publish(uplink)?;
    Ok(n)
}

/// A connected transport to write framed messages to.
enum Link {
    Udp(UdpSocket),
    Stream(Box<dyn Write + Send>),
    #[cfg(feature = "mqtt")]
    Mqtt(Publisher),
    #[cfg(feature = "amqp")]
    Amqp(Box<amqp::Publisher>),
}

impl Link {
    /// Publishes an uplink to a broker; other links carry no published messages.
    #[cfg(any(feature = "mqtt", feature = "amqp"))]
    fn publish(&self, uplink: Vec<u8>) -> Result<(), LiveError> {
        match self {
            #[cfg(feature = "mqtt")]
            Link::Mqtt(p) => p.publish(uplink),
            #[cfg(feature = "amqp")]
            Link::Amqp(p) => p.publish(uplink),
            Link::Udp(_) | Link::Stream(_) => Err(LiveError::Usage(
                "only mqtt:// and amqp:// take published uplinks".into(),
            )),
        }
    }
}

/// A UDP socket on an ephemeral port of `addr`'s family, connected to it.
pub(crate) fn udp_to(addr: std::net::SocketAddr, scheme: &str) -> Result<UdpSocket, LiveError> {
    let local = if addr.is_ipv4() {
        "0.0.0.0:0"
    } else {
        "[::]:0"
    };
    let s = UdpSocket::bind(local).map_err(|e| LiveError::io("udp", e))?;
    s.connect(addr)
        .map_err(|e| LiveError::io(format!("{scheme} {addr}"), e))?;
    Ok(s)
}

/// `--save FILE`, opened for appending.
pub(crate) fn open_save(
    path: Option<&std::path::Path>,
) -> Result<Option<std::fs::File>, LiveError> {
    path.map(|path| {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| LiveError::io(path.display(), e))
    })
    .transpose()
}

/// The routing key ChirpStack's AMQP integration would publish `device`'s uplinks with:
/// `application.APP.device.DEVEUI.event.up`, the DevEUI the ChirpStack envelope gives the
/// device and [`amqp::SEND_APPLICATION_ID`] as the application.
pub fn amqp_routing_key(device: &str) -> String {
    let meta = UplinkMeta {
        id: "",
        device,
        f_cnt: 0,
        f_port: 1,
    };
    let chirpstack = Envelope::ChirpStack;
    let dev_eui = chirpstack
        .open(&chirpstack.wrap(b"", &meta))
        .ok()
        .and_then(|up| up.device)
        .expect("the ChirpStack envelope names the device's DevEUI");
    amqp::chirpstack_routing_key(amqp::SEND_APPLICATION_ID, &dev_eui)
}

fn connect(config: &SendConfig, device: &str) -> Result<(Link, Option<TcpStream>), LiveError> {
    let to = &config.to;
    Ok(match to {
        Endpoint::Udp(addr) => (Link::Udp(udp_to(*addr, "udp")?), None),
        Endpoint::Tcp(addr) => {
            let s =
                TcpStream::connect(addr).map_err(|e| LiveError::io(format!("tcp {addr}"), e))?;
            let _ = s.set_nodelay(true);
            let reader = s.try_clone().map_err(|e| LiveError::io("tcp", e))?;
            (
                Link::Stream(Box::new(std::io::BufWriter::new(s))),
                Some(reader),
            )
        }
        Endpoint::Serial { path, baud } => {
            (Link::Stream(Box::new(open_serial(path, *baud)?)), None)
        }
        #[cfg(feature = "mqtt")]
        Endpoint::Mqtt(url) => (Link::Mqtt(Publisher::connect(url)?), None),
        #[cfg(not(feature = "mqtt"))]
        Endpoint::Mqtt(_) => return Err(LiveError::not_built(to, "MQTT", "mqtt")),
        #[cfg(not(feature = "amqp"))]
        Endpoint::Amqp(_) => {
            let _ = device;
            return Err(LiveError::not_built(to, "AMQP", "amqp"));
        }
        #[cfg(feature = "amqp")]
        Endpoint::Amqp(url) => {
            let key = match &config.routing_key {
                Some(k) => k.clone(),
                None => amqp_routing_key(device),
            };
            let mut p = amqp::Publisher::connect(url, &key)?;
            // As ChirpStack's integration labels its JSON events.
            if config.envelope != Envelope::Raw {
                p.set_content_type("application/json");
            }
            (Link::Amqp(Box::new(p)), None)
        }
        Endpoint::Coap(_) => {
            return Err(LiveError::Usage(format!(
                "{to} carries OSCORE requests: send needs --container oscore"
            )));
        }
    })
}

/// Sends every reading; `stop` ends early (Ctrl-C). With TCP, counts the gateway's acks.
pub fn send(
    config: &SendConfig,
    key: Option<&SealKey>,
    mut readings: Readings,
    stop: &AtomicBool,
) -> Result<SendReport, LiveError> {
    if config.payload == PayloadType::Padded && !config.to.is_stream() {
        return Err(LiveError::Usage(
            "--payload padded fills radio packets; it needs a stream transport (serial, pty or tcp), not udp".into(),
        ));
    }
    let text = config.container.is_text();
    let mut sealer = match (config.payload, key) {
        (PayloadType::Plaintext, _) => None,
        _ if config.presealed => None,
        (_, Some(k)) => Some((
            HostSealer::new(k, false).map_err(|e| LiveError::Usage(e.to_string()))?,
            seal::source_for(k).map_err(|e| LiveError::Usage(e.to_string()))?,
            k.scheme.nonce_len(),
        )),
        (_, None) => return Err(LiveError::Usage("sealing needs --key-file".into())),
    };
    let device = key.map_or_else(|| "unknown".to_string(), |k| hex::encode(&k.key_id));
    let (mut link, ack_stream) = connect(config, &device)?;
    let acked = Arc::new(AtomicU64::new(0));
    let ack_reader = ack_stream.map(|s| {
        let acked = acked.clone();
        std::thread::spawn(move || read_acks(s, &acked))
    });

    let mut save = open_save(config.save.as_deref())?;
    let pad_to = (config.payload == PayloadType::Padded).then_some(config.packet);
    let mut injector = Injector::new(config.inject, config.seed);
    let mut history: Vec<Vec<u8>> = Vec::new();
    let mut report = SendReport::default();
    let start = Instant::now();
    let mut i = 0u64;
    // Uplinks (or datagrams) sent: a message in fragments takes several.
    let mut uplink = 0u64;
    while !stop.load(Ordering::Relaxed) {
        let Some(mut reading) = readings.next(i)? else {
            break;
        };
        if config.presealed && !text && !matches!(readings, Readings::Sealed(_)) {
            reading = payload::decode_hex(&reading).map_err(|e| {
                LiveError::Usage(format!(
                    "line {}: presealed binary messages must be hex: {e}",
                    i + 1
                ))
            })?;
        } else if config.timestamp && !config.presealed {
            reading = with_timestamp(reading, now_us());
        }
        let message = match &mut sealer {
            None => reading,
            Some((sealer, nonces, nonce_len)) => {
                let nonce = nonces
                    .next_nonce(*nonce_len)
                    .map_err(|e| LiveError::Io(e.to_string()))?;
                sealer
                    .seal(config.container, &nonce, &reading, b"")
                    .map_err(|e| LiveError::Usage(e.to_string()))?
            }
        };
        let kind = injector.next_kind(!history.is_empty());
        let wire = match kind {
            Kind::Good => {
                if history.len() < 4096 {
                    history.push(message.clone());
                } else {
                    let at = injector.pick(history.len());
                    history[at] = message.clone();
                }
                message
            }
            Kind::Tampered => tamper(&message, config.container, i)?,
            Kind::Replayed => history[injector.pick(history.len())].clone(),
            Kind::Truncated => {
                let keep = injector.pick(message.len());
                truncate(&message, keep)
            }
        };
        if let Some(rate) = config.rate {
            let due = start + Duration::from_secs_f64(i as f64 / rate);
            let now = Instant::now();
            if due > now {
                std::thread::sleep(due - now);
            }
        }
        if let Some(file) = &mut save {
            let mut line = if text {
                wire.clone()
            } else {
                hex::encode(&wire).into_bytes()
            };
            line.push(b'\n');
            file.write_all(&line)
                .map_err(|e| LiveError::io("--save", e))?;
        }
        // The message whole, or its fragments for the link's frames; a
        // fragment the radio loses still used its uplink's frame counter.
        let uplinks = match config.frame {
            // Tagged with the message's number (from --first-fcnt, where a later
            // run continues), so that the 16 messages after one never share its
            // tag: an uplink's number would repeat the tag every other message
            // of 8 fragments, every message of 16.
            Some(frame) => cut(&wire, frame, u64::from(config.first_f_cnt) + i)?,
            None => vec![wire],
        };
        let fragmented = uplinks.len() > 1;
        let mut bytes = 0;
        let mut lost = 0;
        for one in &uplinks {
            // This uplink's number, which only a broker's envelope carries.
            #[cfg_attr(not(any(feature = "amqp", feature = "mqtt")), allow(unused_variables))]
            let u = uplink;
            uplink += 1;
            if fragmented {
                if injector.loses_fragment() {
                    report.fragments_lost += 1;
                    lost += 1;
                    continue;
                }
                report.fragments += 1;
            }
            report.transmitted += 1;
            bytes += match &mut link {
                #[cfg(feature = "amqp")]
                Link::Amqp(_) => publish_uplink(&link, config, one, &device, u)?,
                #[cfg(feature = "mqtt")]
                Link::Mqtt(_) => publish_uplink(&link, config, one, &device, u)?,
                Link::Udp(s) => {
                    s.send(one).map_err(|e| LiveError::io("udp send", e))?;
                    one.len()
                }
                Link::Stream(w) => {
                    let framed = encode(one, config.framing, pad_to)
                        .map_err(|e| LiveError::Usage(e.to_string()))?;
                    if let Err(e) = w.write_all(&framed) {
                        report.acked = ack_reader.as_ref().map(|_| acked.load(Ordering::Relaxed));
                        return Err(LiveError::Io(format!(
                            "connection lost after {} messages ({} acknowledged): {e}",
                            report.sent,
                            report.acked.unwrap_or(0)
                        )));
                    }
                    // Rate-limited senders must not sit on bytes in a buffer.
                    if config.rate.is_some() {
                        let _ = w.flush();
                    }
                    framed.len()
                }
            };
        }
        match lost {
            0 => {}
            n if n == uplinks.len() => report.vanished += 1,
            _ => report.incomplete += 1,
        }
        report.sent += 1;
        report.bytes += bytes as u64;
        match kind {
            Kind::Good => report.good += 1,
            Kind::Tampered => report.tampered += 1,
            Kind::Replayed => report.replayed += 1,
            Kind::Truncated => report.truncated += 1,
        }
        i += 1;
    }
    match link {
        Link::Stream(mut w) => w.flush().map_err(|e| LiveError::io("flush", e))?,
        #[cfg(feature = "mqtt")]
        Link::Mqtt(p) => report.acked = Some(p.finish(report.transmitted, config.ack_wait)),
        #[cfg(feature = "amqp")]
        Link::Amqp(p) => {
            let confirms = p.finish_counts(report.transmitted, config.ack_wait);
            if confirms.unroutable > 0 {
                eprintln!(
                    "send: {} messages were taken by no queue: nothing bound to {} matches \
                     their routing key (start the gateway first: it declares and binds its queue)",
                    confirms.unroutable, config.to
                );
            }
            if confirms.nacked > 0 {
                eprintln!("send: the broker refused {} messages", confirms.nacked);
            }
            report.acked = Some(confirms.confirmed);
        }
        Link::Udp(_) => {}
    }
    if ack_reader.is_some() {
        let deadline = Instant::now() + config.ack_wait;
        while acked.load(Ordering::Relaxed) < report.transmitted && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        report.acked = Some(acked.load(Ordering::Relaxed));
    }
    report.micros = start.elapsed().as_micros() as u64;
    Ok(report)
}

fn read_acks(stream: TcpStream, acked: &AtomicU64) {
    for line in BufReader::new(stream).lines() {
        let Ok(line) = line else { return };
        if let Some(n) = line
            .strip_prefix("ack ")
            .and_then(|n| n.trim().parse::<u64>().ok())
        {
            acked.fetch_max(n, Ordering::Relaxed);
        }
    }
}

/// `{"sent_us":N,…}`: the send time leads a JSON object reading; others pass unchanged.
pub fn with_timestamp(reading: Vec<u8>, sent_us: i64) -> Vec<u8> {
    if reading.first() != Some(&b'{') || reading.len() < 2 {
        return reading;
    }
    let mut out = format!("{{\"sent_us\":{sent_us}").into_bytes();
    if reading[1..].first() != Some(&b'}') {
        out.push(b',');
    }
    out.extend_from_slice(&reading[1..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamp_joins_json_objects_only() {
        assert_eq!(
            with_timestamp(b"{\"a\":1}".to_vec(), 5),
            b"{\"sent_us\":5,\"a\":1}"
        );
        assert_eq!(with_timestamp(b"{}".to_vec(), 5), b"{\"sent_us\":5}");
        assert_eq!(with_timestamp(b"23.5".to_vec(), 5), b"23.5");
    }

    #[test]
    fn payload_types_parse() {
        assert_eq!(
            "padded".parse::<PayloadType>().unwrap(),
            PayloadType::Padded
        );
        assert!("hex".parse::<PayloadType>().is_err());
    }
}
