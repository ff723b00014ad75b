//! The sender's options as a user gives them (`send`, and the forwarding
//! flags `device-send` shares), with their defaults and the rules of which
//! apply where, turned into the sender's settings: [`SendConfig`] for a
//! stream or broker, [`CoapSendConfig`] for `coap://` with OSCORE.

use std::io::BufReader;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use seal::host::container::MessageContainer;
use seal::host::oscore::{self, OscoreKey};
use serde::Serialize;

use crate::coap::{self, CoapSendConfig, CoapSendReport, Keying};
use crate::schc_send::{SchcSendConfig, SchcSendReport};
use crate::{
    Endpoint, Envelope, Framing, LiveError, PayloadType, Readings, SendConfig, SendReport,
};

fn usage(e: impl std::fmt::Display) -> LiveError {
    LiveError::Usage(e.to_string())
}

/// Where and how messages are forwarded: what `send` and `device-send` share
/// (with the `cli` feature, their flags: each field's comment is its help).
#[derive(Clone, Debug)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct SenderOptions {
    /// Where to send: serial:/dev/ttyUSB0@115200, pty:/dev/pts/N, udp://HOST:PORT, tcp://HOST:PORT, mqtt://HOST:PORT/TOPIC, amqp://HOST:PORT/EXCHANGE, coap://HOST:PORT.
    #[cfg_attr(feature = "cli", arg(long))]
    pub to: String,
    /// Message container: json, binary, cose, or oscore (to coap://).
    #[cfg_attr(feature = "cli", arg(long, default_value_t = SenderOptions::default().container))]
    pub container: String,
    /// Framing on byte streams: line or len (default: line for json, len otherwise).
    #[cfg_attr(feature = "cli", arg(long))]
    pub framing: Option<Framing>,
    /// Messages per second (default: as fast as possible).
    #[cfg_attr(feature = "cli", arg(long))]
    pub rate: Option<f64>,
    /// Mix in bad messages to test a gateway, e.g. tampered=10%,replayed=5%,truncated=5%,lost-fragment=5%.
    #[cfg_attr(feature = "cli", arg(long, default_value = ""))]
    pub inject: String,
    /// Seed for generated readings and for --inject.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = SenderOptions::default().seed))]
    pub seed: u64,
    /// Append each message sent to this file (one per line, hex for binary containers).
    #[cfg_attr(feature = "cli", arg(long))]
    pub save: Option<PathBuf>,
    /// MQTT, AMQP: wrap each message as a network server's uplink: chirpstack, tts or raw.
    #[cfg_attr(feature = "cli", arg(long, default_value = "raw"))]
    pub envelope: Envelope,
    /// AMQP: the routing key of every message (default: ChirpStack's for the device,
    /// application.00000000-0000-0000-0000-000000000000.device.DEVEUI.event.up).
    #[cfg_attr(feature = "cli", arg(long))]
    pub routing_key: Option<String>,
    /// With --envelope: the first uplink's frame counter, so a later run continues a device's count.
    #[cfg_attr(feature = "cli", arg(long = "first-fcnt", default_value_t = 0))]
    pub first_f_cnt: u32,
    /// TCP, MQTT, AMQP: seconds to wait at the end for the gateway's (broker's) acknowledgements.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = SenderOptions::default().ack_wait))]
    pub ack_wait: f64,
    /// --container oscore over serial:/pty: each request SCHC-compressed in RFC 9011's frames, ACKs read back (schc or schc:RULES).
    #[cfg_attr(feature = "cli", arg(long, value_name = "SCHC"))]
    pub compression: Option<String>,
    /// A link with frames (lorawan-eu868-dr0, sigfox-rc1, ble-1m-27, ...): a longer message goes in fragments, one frame each.
    #[cfg_attr(feature = "cli", arg(long))]
    pub link: Option<String>,
}

impl Default for SenderOptions {
    fn default() -> Self {
        SenderOptions {
            to: String::new(),
            container: "json".into(),
            framing: None,
            rate: None,
            inject: String::new(),
            seed: 1,
            save: None,
            envelope: Envelope::Raw,
            routing_key: None,
            first_f_cnt: 0,
            ack_wait: 5.0,
            link: None,
            compression: None,
        }
    }
}

impl SenderOptions {
    /// The container named, parsed.
    pub fn container(&self) -> Result<MessageContainer, LiveError> {
        self.container.parse().map_err(usage)
    }

    /// The sender's settings: ciphertext payloads of 12-byte packets,
    /// timestamped, not presealed (`send` changes those). Not yet checked
    /// ([`SendConfig::check`]).
    pub fn config(&self) -> Result<SendConfig, LiveError> {
        if self.compression.is_some() {
            return Err(usage(
                "--compression schc compresses OSCORE requests: use it with send --container oscore",
            ));
        }
        let container = self.container()?.require_sealed().map_err(usage)?;
        Ok(SendConfig {
            to: self.to.parse()?,
            framing: self.framing.unwrap_or(Framing::for_container(container)),
            container,
            payload: PayloadType::Ciphertext,
            packet: 12,
            rate: self.rate,
            inject: self.inject.parse().map_err(usage)?,
            seed: self.seed,
            timestamp: true,
            ack_wait: self.ack_wait()?,
            presealed: false,
            save: self.save.clone(),
            envelope: self.envelope,
            routing_key: self.routing_key.clone(),
            first_f_cnt: self.first_f_cnt,
            frame: self.frame()?,
        })
    }

    /// `--link`: the message bytes one frame of that link carries (a
    /// LoRaWAN data rate's FRMPayload, a Sigfox message, a BLE notification,
    /// ...), the frames a message longer than one is cut for
    /// (`LinkSpec::fragment_frame`).
    fn frame(&self) -> Result<Option<usize>, LiveError> {
        let Some(spec) = self.link_spec()? else {
            return Ok(None);
        };
        match spec.fragment_frame().map_err(usage)? {
            Some(frame) => Ok(Some(frame as usize)),
            None => Err(LiveError::Usage(format!(
                "--link {}: a {} link's packets carry one byte stream, which the framing already delimits, so nothing is cut in fragments; --link takes a link with frames (lorawan-eu868-dr0, sigfox-rc1, ble-1m-27, ieee802154, ...)",
                spec.name,
                spec.kind()
            ))),
        }
    }

    /// `--link`, looked up in the built-in catalogue.
    fn link_spec(&self) -> Result<Option<link::LinkSpec>, LiveError> {
        let Some(name) = &self.link else {
            return Ok(None);
        };
        let catalogue = link::catalogue::Catalogue::builtin().map_err(usage)?;
        catalogue.get(name).cloned().map(Some).map_err(usage)
    }

    /// `--container oscore`: the CoAP client's settings, a reading serialized
    /// as `format` per request.
    pub fn coap_config(&self, format: &str, timestamp: bool) -> Result<CoapSendConfig, LiveError> {
        let to: Endpoint = self.to.parse()?;
        if self.framing.is_some() || self.envelope != Envelope::Raw || self.routing_key.is_some() {
            return Err(usage(
                "--framing, --envelope and --routing-key do not apply to coap://: one request per datagram",
            ));
        }
        if let Some(link) = &self.link {
            return Err(usage(format!(
                "--link {link}: coap:// sends each OSCORE request whole in one datagram, not in the sealing core's fragments; to cost it on {link}: link --link {link} --scheme oscore:ALG --container oscore"
            )));
        }
        Ok(CoapSendConfig {
            to: coap::coap_addr(&to)?,
            uri_path: oscore::DEFAULT_URI_PATH.into(),
            content_format: oscore::content_format(format),
            rate: self.rate,
            inject: self.inject.parse().map_err(usage)?,
            seed: self.seed,
            timestamp,
            ack_wait: self.ack_wait()?,
            save: self.save.clone(),
        })
    }

    fn ack_wait(&self) -> Result<Duration, LiveError> {
        if !(self.ack_wait >= 0.0 && self.ack_wait.is_finite()) {
            return Err(usage("--ack-wait must be a number of seconds"));
        }
        Ok(Duration::from_secs_f64(self.ack_wait))
    }
}

/// `send`: what to send, beside where and how.
#[derive(Clone, Debug)]
pub struct SendOptions {
    pub sender: SenderOptions,
    /// A sealing key, an OSCORE context, or with `edhoc` EDHOC credentials;
    /// none for plaintext.
    pub key_file: Option<PathBuf>,
    /// Generated readings (chain:10, ...), instead of `input`.
    pub sample: Option<String>,
    /// How many generated readings.
    pub count: u64,
    /// Readings one per line from a file; `None` or `-`: standard input.
    pub input: Option<PathBuf>,
    /// Serialization of generated readings.
    pub format: String,
    pub payload: PayloadType,
    /// The radio packet `padded` fills up to.
    pub packet_size: u32,
    /// Add "sent_us" to JSON readings.
    pub timestamp: bool,
    /// oscore: the Uri-Path each reading is POSTed to.
    pub uri_path: String,
    /// oscore: an EDHOC handshake with the gateway first.
    pub edhoc: bool,
    /// The input lines are sealed messages already: sent verbatim.
    pub presealed: bool,
}

impl Default for SendOptions {
    fn default() -> Self {
        SendOptions {
            sender: SenderOptions::default(),
            key_file: None,
            sample: None,
            count: 10,
            input: None,
            format: "json".into(),
            payload: PayloadType::Ciphertext,
            packet_size: 12,
            timestamp: true,
            uri_path: oscore::DEFAULT_URI_PATH.into(),
            edhoc: false,
            presealed: false,
        }
    }
}

/// What a run of `send` sent, and what came back.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum Sent {
    Stream(SendReport),
    Coap(CoapSendReport),
    Schc(SchcSendReport),
}

impl Sent {
    pub fn sent(&self) -> u64 {
        match self {
            Sent::Stream(r) => r.sent,
            Sent::Coap(r) => r.sent,
            Sent::Schc(r) => r.sent,
        }
    }

    /// Why the run fell short: the gateway (or broker) acknowledged less
    /// than was sent, or than was good (coap://, within the ack wait).
    pub fn shortfall(&self) -> Option<String> {
        match self {
            Sent::Stream(r) => shortfall(r),
            Sent::Coap(r) => (r.acked < r.good).then(|| {
                format!(
                    "the gateway confirmed {} of {} requests within --ack-wait",
                    r.acked, r.good
                )
            }),
            // Each fragmented packet's last ACK said it was whole.
            Sent::Schc(r) => (r.gave_up > 0).then(|| {
                format!(
                    "{} of {} readings were given up after every ACK round",
                    r.gave_up, r.sent
                )
            }),
        }
    }
}

/// A stream's or broker's shortfall: fewer acknowledged than sent.
pub fn shortfall(report: &SendReport) -> Option<String> {
    let acked = report.acked.filter(|a| *a < report.transmitted)?;
    let what = if report.transmitted == report.sent {
        "messages"
    } else {
        "uplinks (fragments counted one by one)"
    };
    Some(format!(
        "the gateway acknowledged {acked} of {} {what}",
        report.transmitted
    ))
}

impl SendOptions {
    /// Seals the readings and sends them until done or `stop`.
    pub fn run(&self, stop: &AtomicBool) -> Result<Sent, LiveError> {
        if let (Ok(MessageContainer::Oscore), Some(c)) =
            (self.sender.container(), &self.sender.compression)
        {
            return self.run_schc(c, stop).map(Sent::Schc);
        }
        if let Ok(MessageContainer::Oscore) = self.sender.container() {
            return self.run_oscore(stop).map(Sent::Coap);
        }
        if self.edhoc || self.uri_path != oscore::DEFAULT_URI_PATH {
            return Err(usage("--edhoc and --uri-path are for --container oscore"));
        }
        let mut config = self.sender.config()?;
        let key = match &self.key_file {
            Some(p) => Some(seal::SealKey::load(p).map_err(usage)?),
            None => None,
        };
        let readings = self.readings()?;
        config.payload = self.payload;
        config.packet = self.packet_size;
        config.timestamp = self.timestamp;
        config.presealed = self.presealed;
        config.check()?;
        crate::send(&config, key.as_ref(), readings, stop).map(Sent::Stream)
    }

    /// `--container oscore --to coap://…`: each reading an OSCORE-protected POST.
    fn run_oscore(&self, stop: &AtomicBool) -> Result<CoapSendReport, LiveError> {
        if self.presealed || self.payload != PayloadType::Ciphertext {
            return Err(usage(
                "--container oscore seals every reading itself: no --presealed or --payload",
            ));
        }
        let key_file = self.key_file.as_ref().ok_or_else(|| {
            usage("--container oscore needs --key-file (a context from keygen --scheme oscore:ALG)")
        })?;
        if self.sender.compression.is_some() {
            return Err(usage(
                "--compression schc goes over serial:/pty:, not coap://",
            ));
        }
        let mut config = self.sender.coap_config(&self.format, self.timestamp)?;
        config.uri_path.clone_from(&self.uri_path);
        if self.edhoc {
            let credentials = handshake::credentials::EdhocKeys::load(key_file).map_err(usage)?;
            coap::send(&config, Keying::Edhoc(&credentials), self.readings()?, stop)
        } else {
            let key = OscoreKey::load(key_file).map_err(usage)?;
            coap::send(&config, Keying::Context(&key), self.readings()?, stop)
        }
    }

    /// `--container oscore --compression schc --link L --to serial:…|pty:…`:
    /// each reading an OSCORE-protected POST, compressed, in RFC 9011's frames.
    fn run_schc(&self, compression: &str, stop: &AtomicBool) -> Result<SchcSendReport, LiveError> {
        let to: Endpoint = self.sender.to.parse()?;
        crate::endpoint::check_pairing(&to, true, true, "send")?;
        let Endpoint::Serial { path, baud } = &to else {
            unreachable!("check_pairing keeps SCHC to serial endpoints");
        };
        if self.presealed || self.payload != PayloadType::Ciphertext || self.edhoc {
            return Err(usage(
                "--compression schc seals every reading itself with a context file: no --presealed, --payload or --edhoc",
            ));
        }
        let needs = "--compression schc needs --link with a LoRaWAN data rate (RFC 9011's profile): its frame size";
        match self.sender.link_spec()? {
            Some(spec) if spec.lorawan.is_some() => {}
            Some(spec) => {
                return Err(usage(format!(
                    "{needs}; {} is a {} link",
                    spec.name,
                    spec.kind()
                )));
            }
            None => return Err(usage(needs)),
        }
        let frame = self.sender.frame()?.ok_or_else(|| usage(needs))?;
        let key_file = self.key_file.as_ref().ok_or_else(|| {
            usage("--container oscore needs --key-file (a context from keygen --scheme oscore:ALG)")
        })?;
        let key = OscoreKey::load(key_file).map_err(usage)?;
        let inject: crate::inject::Mix = self.sender.inject.parse().map_err(usage)?;
        if inject.tampered + inject.replayed + inject.truncated > 0.0 {
            return Err(usage(
                "--compression schc: --inject takes lost-fragment only",
            ));
        }
        let (rules, _) = schc::rules_file::named(compression).map_err(LiveError::Usage)?;
        let config = SchcSendConfig {
            rules,
            frame,
            uri_path: self.uri_path.clone(),
            content_format: oscore::content_format(&self.format),
            timestamp: self.timestamp,
            inject,
            seed: self.sender.seed,
            ack_wait: self.sender.ack_wait()?,
        };
        let port = serial::open_serial(path, *baud)?;
        crate::schc_send::send(&config, &key, self.readings()?, port, stop)
    }

    /// Generated readings, or one per line of the input file or standard input.
    pub fn readings(&self) -> Result<Readings<'static>, LiveError> {
        Ok(match (&self.sample, &self.input) {
            (Some(sample), _) => Readings::Sample {
                sample: payload::Sample::parse(sample).map_err(usage)?,
                format: self.format.parse().map_err(usage)?,
                count: self.count,
                seed: self.sender.seed,
            },
            (None, Some(path)) if path.as_os_str() != "-" => {
                let file = std::fs::File::open(path)
                    .map_err(|e| usage(format!("{}: {e}", path.display())))?;
                Readings::Lines(Box::new(BufReader::new(file)))
            }
            _ => Readings::Lines(Box::new(BufReader::new(std::io::stdin()))),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn to(to: &str) -> SenderOptions {
        SenderOptions {
            to: to.into(),
            ..SenderOptions::default()
        }
    }

    #[test]
    fn defaults_are_the_senders() {
        let config = to("udp://127.0.0.1:9").config().unwrap();
        assert_eq!(config.container, seal::Container::Json);
        assert_eq!(config.framing, Framing::Line);
        assert_eq!((config.packet, config.seed), (12, 1));
        assert_eq!(config.ack_wait, Duration::from_secs(5));
        assert!(config.timestamp && !config.presealed);
        let binary = SenderOptions {
            container: "binary".into(),
            ..to("tcp://127.0.0.1:9")
        };
        assert_eq!(binary.config().unwrap().framing, Framing::Len);
        let send = SendOptions::default();
        assert_eq!((send.count, send.packet_size), (10, 12));
        assert_eq!(send.uri_path, oscore::DEFAULT_URI_PATH);
    }

    #[test]
    fn a_stream_takes_no_oscore_container_and_a_sane_ack_wait() {
        let oscore = SenderOptions {
            container: "oscore".into(),
            ..to("udp://127.0.0.1:9")
        };
        let err = oscore.config().err().unwrap();
        assert!(err.is_usage());
        assert!(
            err.to_string()
                .starts_with("--container: unknown container 'oscore'")
        );
        for bad in [-1.0, f64::NAN, f64::INFINITY] {
            let o = SenderOptions {
                ack_wait: bad,
                ..to("udp://127.0.0.1:9")
            };
            let err = o.config().err().unwrap().to_string();
            assert_eq!(err, "--ack-wait must be a number of seconds");
        }
        let bad_mix = SenderOptions {
            inject: "lost=5%".into(),
            ..to("udp://127.0.0.1:9")
        };
        assert!(bad_mix.config().err().unwrap().is_usage());
    }

    #[test]
    fn coap_refuses_stream_and_broker_flags() {
        let coap = to("coap://127.0.0.1:5683");
        let config = coap.coap_config("cbor", true).unwrap();
        assert_eq!(config.uri_path, oscore::DEFAULT_URI_PATH);
        assert_eq!(config.content_format, oscore::content_format("cbor"));
        for o in [
            SenderOptions {
                framing: Some(Framing::Len),
                ..coap.clone()
            },
            SenderOptions {
                routing_key: Some("k".into()),
                ..coap.clone()
            },
        ] {
            let err = o.coap_config("json", true).err().unwrap().to_string();
            assert!(err.contains("do not apply to coap://"), "{err}");
        }
        assert!(to("udp://127.0.0.1:9").coap_config("json", true).is_err());
        // coap:// sends each request whole: --link is refused, not ignored.
        let linked = SenderOptions {
            link: Some("sigfox-rc1".into()),
            ..coap.clone()
        };
        let err = linked.coap_config("json", true).err().unwrap();
        assert!(err.is_usage() && err.to_string().contains("whole"), "{err}");
    }

    #[test]
    fn link_gives_the_frame_of_every_link_with_frames_and_refuses_a_serial_radio() {
        let with = |link: &str| SenderOptions {
            link: Some(link.into()),
            ..to("udp://127.0.0.1:9")
        };
        for (link, frame) in [
            ("lorawan-eu868-dr0", 51),
            ("sigfox-rc1", 12),
            ("ble-1m-27", 20),
        ] {
            assert_eq!(with(link).config().unwrap().frame, Some(frame), "{link}");
        }
        let err = with("slice-of-radio").config().err().unwrap();
        assert!(
            err.is_usage() && err.to_string().contains("byte stream"),
            "{err}"
        );
        assert!(with("carrier-pigeon").config().err().unwrap().is_usage());
    }

    #[test]
    fn oscore_flags_are_refused_elsewhere_and_oscore_needs_its_context() {
        let stop = AtomicBool::new(false);
        let edhoc = SendOptions {
            edhoc: true,
            sender: to("udp://127.0.0.1:9"),
            ..SendOptions::default()
        };
        let err = edhoc.run(&stop).unwrap_err().to_string();
        assert_eq!(err, "--edhoc and --uri-path are for --container oscore");
        let oscore = SenderOptions {
            container: "oscore".into(),
            ..to("coap://127.0.0.1:5683")
        };
        let presealed = SendOptions {
            presealed: true,
            sender: oscore.clone(),
            ..SendOptions::default()
        };
        let err = presealed.run(&stop).unwrap_err().to_string();
        assert!(err.contains("no --presealed or --payload"), "{err}");
        let keyless = SendOptions {
            sender: oscore,
            ..SendOptions::default()
        };
        let err = keyless.run(&stop).unwrap_err().to_string();
        assert!(
            err.starts_with("--container oscore needs --key-file"),
            "{err}"
        );
    }

    #[test]
    fn shortfalls_say_how_many_were_acknowledged() {
        let mut r = SendReport {
            sent: 10,
            transmitted: 10,
            acked: Some(10),
            ..SendReport::default()
        };
        assert_eq!(shortfall(&r), None);
        // In fragments, each uplink is acknowledged: 10 messages of 3 are 30.
        let fragmented = SendReport {
            transmitted: 30,
            acked: Some(10),
            ..r.clone()
        };
        assert_eq!(
            shortfall(&fragmented).unwrap(),
            "the gateway acknowledged 10 of 30 uplinks (fragments counted one by one)"
        );
        r.acked = Some(7);
        let sent = Sent::Stream(r);
        assert_eq!(sent.sent(), 10);
        assert_eq!(
            sent.shortfall().unwrap(),
            "the gateway acknowledged 7 of 10 messages"
        );
        let coap = Sent::Coap(CoapSendReport {
            sent: 5,
            good: 4,
            acked: 3,
            ..CoapSendReport::default()
        });
        assert_eq!(
            coap.shortfall().unwrap(),
            "the gateway confirmed 3 of 4 requests within --ack-wait"
        );
    }
}
