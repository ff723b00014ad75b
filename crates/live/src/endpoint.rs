//! Where the gateway listens and where `send` sends: parsed from one string; which
//! container an endpoint carries ([`check_pairing`]); the receive buffer of a UDP
//! socket either side reads ([`enlarge_receive_buffer`]).
//!
//! - `serial:/dev/ttyUSB0@115200`: a serial device, set to raw 8N1 at the given baud.
//! - `pty:/dev/pts/7`: a pseudo-terminal (or any tty) left at its baud; the radio
//!   emulator prints such paths.
//! - `udp://127.0.0.1:9000`: one datagram is one message, no framing.
//! - `tcp://127.0.0.1:9000`: a byte stream; the gateway listens, `send` connects.
//! - `mqtt://127.0.0.1:1883/TOPIC`: a broker; the gateway subscribes to the topic
//!   filter, `send` publishes to the topic ([`crate::mqtt`]).
//! - `amqp://127.0.0.1:5672/NAME`: an AMQP 0-9-1 broker; the gateway consumes the
//!   durable queue NAME, `send` publishes to the exchange NAME ([`crate::amqp`]). The
//!   port defaults to AMQP's 5672.
//! - `coap://127.0.0.1:5683`: CoAP over UDP carrying OSCORE requests; the gateway
//!   answers each one ([`crate::verify::oscore`]); `send` is its client
//!   ([`crate::coap`]). The port defaults to CoAP's 5683.

use std::fmt;
use std::net::{SocketAddr, ToSocketAddrs, UdpSocket};
use std::path::PathBuf;
use std::str::FromStr;

use crate::amqp::AmqpUrl;
use crate::coap_wire;
use crate::error::LiveError;
use crate::mqtt::MqttUrl;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Endpoint {
    Serial { path: PathBuf, baud: Option<u32> },
    Udp(SocketAddr),
    Tcp(SocketAddr),
    Mqtt(MqttUrl),
    Amqp(AmqpUrl),
    Coap(SocketAddr),
}

impl Endpoint {
    /// Refuses an endpoint whose client this build leaves out (cargo features `mqtt`,
    /// `amqp`; the ARM board binaries are built without them), saying so.
    pub fn check_built(&self) -> Result<(), LiveError> {
        match self {
            #[cfg(not(feature = "mqtt"))]
            Endpoint::Mqtt(_) => Err(LiveError::not_built(self, "MQTT", "mqtt")),
            #[cfg(not(feature = "amqp"))]
            Endpoint::Amqp(_) => Err(LiveError::not_built(self, "AMQP", "amqp")),
            _ => Ok(()),
        }
    }

    /// True when bytes arrive as a stream and messages need framing.
    pub fn is_stream(&self) -> bool {
        !matches!(
            self,
            Endpoint::Udp(_) | Endpoint::Mqtt(_) | Endpoint::Amqp(_) | Endpoint::Coap(_)
        )
    }
}

/// `--container oscore` and `coap://` go together: OSCORE requests are CoAP
/// messages, and a CoAP listener has nothing else to open. With `schc`
/// (`--compression schc`) the OSCORE requests go compressed over a serial
/// radio instead, as RFC 9011 frames them ([`crate::schc_radio`]).
pub fn check_pairing(
    endpoint: &Endpoint,
    oscore: bool,
    schc: bool,
    role: &str,
) -> Result<(), LiveError> {
    let coap = matches!(endpoint, Endpoint::Coap(_));
    let serial = matches!(endpoint, Endpoint::Serial { .. });
    let usage = |why: String| Err(LiveError::Usage(why));
    match (coap, oscore, schc) {
        (_, false, true) => usage(format!(
            "--compression schc compresses OSCORE requests: {role} needs --container oscore"
        )),
        (_, true, true) if !serial => usage(format!(
            "--compression schc sends RFC 9011's frames over a serial radio: use serial:PATH or pty:PATH, not {endpoint}"
        )),
        (true, false, false) => usage(format!(
            "{endpoint} carries OSCORE requests: {role} needs --container oscore and an OSCORE context (keygen --scheme oscore:ALG)"
        )),
        (false, true, false) => usage(format!(
            "--container oscore is carried by CoAP (coap://HOST:PORT), or compressed over a serial radio (--compression schc); not {endpoint}"
        )),
        _ => Ok(()),
    }
}

fn socket(text: &str, rest: &str) -> Result<SocketAddr, LiveError> {
    let bad = |why: &str| LiveError::Usage(format!("endpoint '{text}': {why}"));
    let rest = rest.trim_end_matches('/');
    if rest.is_empty() {
        return Err(bad("expected HOST:PORT"));
    }
    let mut addrs = rest
        .to_socket_addrs()
        .map_err(|e| bad(&format!("not a HOST:PORT ({e})")))?;
    addrs.next().ok_or_else(|| bad("host has no address"))
}

impl FromStr for Endpoint {
    type Err = LiveError;

    fn from_str(text: &str) -> Result<Self, LiveError> {
        let bad = |why: &str| LiveError::Usage(format!("endpoint '{text}': {why}"));
        if let Some(rest) = text.strip_prefix("udp://") {
            return Ok(Endpoint::Udp(socket(text, rest)?));
        }
        if let Some(rest) = text.strip_prefix("tcp://") {
            return Ok(Endpoint::Tcp(socket(text, rest)?));
        }
        if let Some(rest) = text.strip_prefix("coap://") {
            let rest = rest.trim_end_matches('/');
            // A host alone (or a bracketed IPv6 address alone) takes CoAP's default port.
            let has_port = match rest.rfind(']') {
                Some(end) => rest[end..].contains(':'),
                None => rest.contains(':'),
            };
            let with_port = if has_port || rest.is_empty() {
                rest.to_string()
            } else {
                format!("{rest}:{}", coap_wire::DEFAULT_PORT)
            };
            return Ok(Endpoint::Coap(socket(text, &with_port)?));
        }
        if text.starts_with("mqtt://") {
            return Ok(Endpoint::Mqtt(text.parse()?));
        }
        if text.starts_with("amqp://") {
            return Ok(Endpoint::Amqp(text.parse()?));
        }
        if let Some(rest) = text.strip_prefix("pty:") {
            if rest.is_empty() {
                return Err(bad("expected pty:/dev/pts/N"));
            }
            return Ok(Endpoint::Serial {
                path: rest.into(),
                baud: None,
            });
        }
        if let Some(rest) = text.strip_prefix("serial:") {
            let (path, baud) = match rest.rsplit_once('@') {
                Some((path, baud)) => {
                    let baud = baud
                        .parse::<u32>()
                        .ok()
                        .filter(|b| *b > 0)
                        .ok_or_else(|| bad("baud after '@' must be a positive number"))?;
                    (path, Some(baud))
                }
                None => (rest, Some(115_200)),
            };
            if path.is_empty() {
                return Err(bad("expected serial:/dev/ttyUSB0@115200"));
            }
            return Ok(Endpoint::Serial {
                path: path.into(),
                baud,
            });
        }
        Err(bad(
            "use serial:PATH[@BAUD], pty:PATH, udp://HOST:PORT, tcp://HOST:PORT, mqtt://HOST:PORT/TOPIC, amqp://HOST[:PORT]/NAME or coap://HOST[:PORT]",
        ))
    }
}

impl fmt::Display for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Endpoint::Serial { path, baud: None } => write!(f, "pty:{}", path.display()),
            Endpoint::Serial {
                path,
                baud: Some(b),
            } => write!(f, "serial:{}@{b}", path.display()),
            Endpoint::Udp(a) => write!(f, "udp://{a}"),
            Endpoint::Tcp(a) => write!(f, "tcp://{a}"),
            Endpoint::Mqtt(u) => write!(f, "{u}"),
            Endpoint::Amqp(u) => write!(f, "{u}"),
            Endpoint::Coap(a) => write!(f, "coap://{a}"),
        }
    }
}

/// A UDP socket either side reads from (the gateway's `udp://` and `coap://` inputs,
/// `send`'s CoAP client reading answers): bursts at tens of thousands of datagrams per
/// second overflow Linux's default 208 KiB socket buffer; ask for 16 MiB (forced when
/// privileged, else up to rmem_max).
pub fn enlarge_receive_buffer(socket: &UdpSocket) {
    use std::os::fd::AsRawFd;
    let size: libc::c_int = 16 << 20;
    for opt in [libc::SO_RCVBUFFORCE, libc::SO_RCVBUF] {
        // SAFETY: a valid socket fd and a pointer to a c_int of the stated size.
        let rc = unsafe {
            libc::setsockopt(
                socket.as_raw_fd(),
                libc::SOL_SOCKET,
                opt,
                (&size as *const libc::c_int).cast(),
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            )
        };
        if rc == 0 {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_transport() {
        assert_eq!(
            "serial:/dev/ttyUSB0@115200".parse::<Endpoint>().unwrap(),
            Endpoint::Serial {
                path: "/dev/ttyUSB0".into(),
                baud: Some(115_200)
            }
        );
        assert_eq!(
            "serial:/dev/ttyAMA0".parse::<Endpoint>().unwrap(),
            Endpoint::Serial {
                path: "/dev/ttyAMA0".into(),
                baud: Some(115_200)
            }
        );
        assert_eq!(
            "pty:/dev/pts/4".parse::<Endpoint>().unwrap(),
            Endpoint::Serial {
                path: "/dev/pts/4".into(),
                baud: None
            }
        );
        assert_eq!(
            "udp://127.0.0.1:9000".parse::<Endpoint>().unwrap(),
            Endpoint::Udp("127.0.0.1:9000".parse().unwrap())
        );
        assert_eq!(
            "tcp://[::1]:9001".parse::<Endpoint>().unwrap(),
            Endpoint::Tcp("[::1]:9001".parse().unwrap())
        );
        assert_eq!(
            "tcp://[::1]:9001".parse::<Endpoint>().unwrap().to_string(),
            "tcp://[::1]:9001"
        );
        assert_eq!(
            "coap://127.0.0.1".parse::<Endpoint>().unwrap(),
            Endpoint::Coap("127.0.0.1:5683".parse().unwrap())
        );
        assert_eq!(
            "coap://[::1]:5700/"
                .parse::<Endpoint>()
                .unwrap()
                .to_string(),
            "coap://[::1]:5700"
        );
        assert_eq!(
            "coap://[::1]".parse::<Endpoint>().unwrap(),
            Endpoint::Coap("[::1]:5683".parse().unwrap())
        );
        let amqp = "amqp://127.0.0.1:5672/uplinks".parse::<Endpoint>().unwrap();
        assert_eq!(
            amqp,
            Endpoint::Amqp(crate::amqp::AmqpUrl {
                host: "127.0.0.1".into(),
                port: 5672,
                name: "uplinks".into()
            })
        );
        assert_eq!(amqp.to_string(), "amqp://127.0.0.1:5672/uplinks");
        assert!(!amqp.is_stream());
        assert_eq!(
            "amqp://[::1]/amq.topic"
                .parse::<Endpoint>()
                .unwrap()
                .to_string(),
            "amqp://[::1]:5672/amq.topic"
        );
    }

    #[test]
    fn rejects_malformed_endpoints() {
        for bad in [
            "",
            "/dev/ttyUSB0",
            "serial:",
            "serial:/dev/x@fast",
            "serial:/dev/x@0",
            "pty:",
            "udp://",
            "udp://127.0.0.1",
            "tcp://127.0.0.1:notaport",
            "http://127.0.0.1:80",
            "mqtt://127.0.0.1:1883",
            "amqp://127.0.0.1:5672",
            "amqp://127.0.0.1:5672/a/b",
            "amqps://127.0.0.1:5671/q",
            "coap://",
            "coap://127.0.0.1:x",
        ] {
            assert!(bad.parse::<Endpoint>().is_err(), "{bad} should be rejected");
        }
        let err = "http://127.0.0.1:80".parse::<Endpoint>().unwrap_err();
        assert!(err.to_string().contains("amqp://HOST[:PORT]/NAME"), "{err}");
    }

    #[test]
    fn oscore_goes_over_coap_or_compressed_over_a_serial_radio() {
        let coap: Endpoint = "coap://127.0.0.1:5683".parse().unwrap();
        let udp: Endpoint = "udp://127.0.0.1:5683".parse().unwrap();
        let pty: Endpoint = "pty:/dev/pts/9".parse().unwrap();
        assert!(check_pairing(&coap, true, false, "gateway").is_ok());
        assert!(check_pairing(&udp, false, false, "gateway").is_ok());
        assert!(check_pairing(&pty, true, true, "gateway").is_ok());
        assert!(check_pairing(&coap, false, false, "gateway").is_err());
        assert!(check_pairing(&udp, true, false, "gateway").is_err());
        assert!(check_pairing(&pty, true, false, "gateway").is_err());
        assert!(check_pairing(&pty, false, true, "gateway").is_err());
        assert!(check_pairing(&udp, true, true, "gateway").is_err());
        assert!(check_pairing(&coap, true, true, "gateway").is_err());
    }

    #[test]
    fn a_client_left_out_of_the_build_is_refused_as_such() {
        for (text, support, built) in [
            ("mqtt://127.0.0.1:1883/t", "MQTT", cfg!(feature = "mqtt")),
            ("amqp://127.0.0.1/q", "AMQP", cfg!(feature = "amqp")),
        ] {
            let endpoint: Endpoint = text.parse().unwrap();
            match endpoint.check_built() {
                Ok(()) => assert!(built, "{text}"),
                Err(e) => {
                    assert!(!built && e.is_usage(), "{text}: {e:?}");
                    assert!(
                        e.to_string().contains(&format!("no {support} support")),
                        "{e}"
                    );
                }
            }
        }
        assert!(
            "udp://127.0.0.1:1"
                .parse::<Endpoint>()
                .unwrap()
                .check_built()
                .is_ok()
        );
    }
}
