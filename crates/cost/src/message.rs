//! The real message a device sends: a seeded sample reading (crates/payload),
//! serialized, then sealed (crates/seal) under an ephemeral random key. The size of a
//! sealed message does not depend on the key, so a throw-away key gives the true size.

use measure::Measurement;
use payload::{Encoding, Format, Sample};
use seal::host::container::MessageContainer;
use seal::{HostSealer, NoncePolicy, Scheme, SealError, SealKey};

use crate::Error;
pub use cost_engine::choices::Wrap;
use cost_engine::on_air::message_cost;
pub use cost_engine::on_air::message_len;
pub use cost_engine::schc_packet::{Compression, SCHC_CPU_NOTE, SchcPacket};
use link::{LinkCost, LinkSpec, SendOptions};

/// The sample sealed when only --scheme is given (study 003's ten-thermometer chain).
pub const DEFAULT_SAMPLE: &str = "chain:10";

/// What to seal: the command line's message flags (`link`, `energy`), as
/// values (with the `cli` feature, the flags: each field's comment is its help).
#[derive(Clone, Debug, Default)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct MessageSpec {
    /// Seal a real message with this scheme: aead:AEAD, etm:CIPHER+MAC, hmac:MAC or
    /// enc:CIPHER (e.g. aead:aes-128-gcm), under an ephemeral random key.
    #[cfg_attr(feature = "cli", arg(long))]
    pub scheme: Option<String>,
    /// The reading to send: chain:N (study 003's thermometer chain), record:KB or
    /// random:N [default with --scheme: chain:10].
    #[cfg_attr(feature = "cli", arg(long))]
    pub sample: Option<String>,
    /// Serialization: json, json-pretty, yaml, yaml-min, cbor, msgpack [default: json].
    #[cfg_attr(feature = "cli", arg(long))]
    pub serialization: Option<String>,
    /// Container of the sealed message: json, binary, cose, or oscore (--scheme oscore:ALG) [default: json].
    #[cfg_attr(feature = "cli", arg(long))]
    pub container: Option<String>,
    /// The oscore container's message compressed: schc (default rules) or schc:RULES (a rule file).
    #[cfg_attr(feature = "cli", arg(long, value_name = "SCHC"))]
    pub compression: Option<String>,
    /// Transport encoding of a binary or cose message: raw, hex, base64, base64url [default: raw].
    #[cfg_attr(feature = "cli", arg(long))]
    pub encoding: Option<String>,
    /// Seed of the sample generator (the same seed gives the same reading).
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 1))]
    pub seed: u64,
    /// Seal even with a legacy, broken or unauthenticated scheme (to cost study 004's DES…).
    #[cfg_attr(feature = "cli", arg(long))]
    pub allow_insecure: bool,
}

impl MessageSpec {
    /// Whether the user asked for a real message rather than a byte count.
    pub fn given(&self) -> bool {
        self.scheme.is_some() || self.sample.is_some()
    }
}

/// The serialized reading and, with a scheme, the same reading sealed.
pub struct Message {
    pub sample: Sample,
    /// None for `random:N`, which is not serialized.
    pub format: Option<Format>,
    pub seed: u64,
    pub plaintext: Vec<u8>,
    pub sealed: Option<Sealed>,
}

pub struct Sealed {
    pub scheme: Scheme,
    pub container: MessageContainer,
    pub encoding: Encoding,
    /// The message as it leaves the device: container bytes, transport-encoded.
    pub bytes: Vec<u8>,
    /// Why the scheme is unsafe, when --allow-insecure let it through.
    pub insecurity: Vec<String>,
    /// The message compressed with SCHC (`--compression schc`): what the
    /// radio carries instead of `bytes` (`crate::on_air`).
    pub schc: Option<SchcPacket>,
    /// None for the oscore container, which no `HostSealer` seals.
    key: Option<SealKey>,
    allow_insecure: bool,
}

/// `--compression`: `schc` (the default rules) or `schc:RULES` (a rule file,
/// RFC 9363's JSON); the message `bytes` (its plaintext compressed by the
/// inner rules, if any) compressed uplink. `uncompressed` is the length of
/// the message RFC 8613 writes, before any compression.
fn compress(
    text: &str,
    (rules, label): (&schc::RuleSet, &str),
    bytes: &[u8],
    uncompressed: usize,
) -> Result<SchcPacket, Error> {
    let packet = schc::compress(rules, bytes, schc::Direction::Up)
        .map_err(|e| Error::invalid(format!("--compression {text}: {e}")))?;
    Ok(SchcPacket {
        rule_id: packet.rule_id.to_uint().unwrap_or(0),
        rule_id_bits: packet.rule_id.len(),
        packet: packet.bits,
        rules: label.to_string(),
        uncompressed_bytes: uncompressed,
        inner: schc::inner::has_inner_rules(rules),
    })
}

/// A CPU time for one seal, measured on this machine.
pub struct HostTime {
    pub measurement: Measurement,
}

/// A host measurement as the engine takes it: median, 95 % interval, samples (µs).
pub fn host_us(m: &Measurement) -> (f64, f64, f64, u64) {
    (
        m.ns.median / 1e3,
        m.ns.ci95_low / 1e3,
        m.ns.ci95_high / 1e3,
        m.ns.samples as u64,
    )
}

impl HostTime {
    pub fn median_us(&self) -> f64 {
        self.measurement.ns.median / 1000.0
    }
}

impl Message {
    /// Builds the message from the arguments; every bad value is a usage error (exit 2).
    pub fn build(args: &MessageSpec) -> Result<Message, Error> {
        let spec = args.sample.as_deref().unwrap_or(DEFAULT_SAMPLE);
        let sample = Sample::parse(spec).map_err(|e| {
            Error::invalid(format!(
                "--sample: {e} (expected chain:N with N in 1..=1000, record:KB or random:N)"
            ))
        })?;
        let format = match (&sample, &args.serialization) {
            (Sample::Random(_), Some(_)) => {
                return Err(Error::invalid(
                    "--serialization does not apply to random:N samples, which are bytes already",
                ));
            }
            (Sample::Random(_), None) => None,
            (_, Some(f)) => Some(
                f.parse::<Format>()
                    .map_err(|e| Error::invalid(format!("--serialization: {e}")))?,
            ),
            (_, None) => Some(Format::JsonMin),
        };
        let plaintext = sample
            .bytes(format.unwrap_or(Format::JsonMin), args.seed)
            .map_err(|e| Error::invalid(format!("--sample {sample}: {e}")))?;
        let sealed = match &args.scheme {
            Some(s) => Some(seal_message(args, s, &plaintext)?),
            None => {
                for (flag, given) in [
                    ("--container", args.container.is_some()),
                    ("--compression", args.compression.is_some()),
                    ("--encoding", args.encoding.is_some()),
                    ("--allow-insecure", args.allow_insecure),
                ] {
                    if given {
                        return Err(Error::invalid(format!(
                            "{flag} applies to a sealed message: add --scheme (e.g. --scheme aead:aes-128-gcm)"
                        )));
                    }
                }
                None
            }
        };
        Ok(Message {
            sample,
            format,
            seed: args.seed,
            plaintext,
            sealed,
        })
    }

    /// The sealed message as the engine takes it (none without a scheme).
    pub fn facts(&self) -> Option<cost_engine::message::Sealed> {
        let s = self.sealed.as_ref()?;
        Some(cost_engine::message::Sealed {
            scheme: s.scheme.clone(),
            container: s.container,
            plaintext_bytes: self.plaintext.len(),
            sample_description: self.describe_plaintext(),
            bytes: s.bytes.len(),
            schc: s.schc.clone(),
        })
    }

    /// "chain:10 as json (seed 1)".
    pub fn describe_plaintext(&self) -> String {
        match self.format {
            Some(f) => format!("{} serialized as {f} (seed {})", self.sample, self.seed),
            None => format!("{} (seed {})", self.sample, self.seed),
        }
    }
}

fn seal_message(args: &MessageSpec, scheme: &str, plaintext: &[u8]) -> Result<Sealed, Error> {
    let container: MessageContainer = args
        .container
        .as_deref()
        .unwrap_or("json")
        .parse()
        .map_err(|e: SealError| Error::invalid(e.to_string()))?;
    let oscore_scheme = scheme.trim().to_ascii_lowercase().starts_with("oscore:");
    let scheme = match (container.is_oscore(), oscore_scheme) {
        (true, true) => Scheme::oscore(scheme),
        (false, false) => Scheme::parse(scheme),
        (true, false) => {
            return Err(Error::invalid(format!(
                "--container oscore takes an OSCORE scheme: --scheme {}",
                seal::oscore_build::names()
                    .collect::<Vec<_>>()
                    .join(", --scheme ")
            )));
        }
        (false, true) => {
            return Err(Error::invalid(format!(
                "--scheme {scheme} protects CoAP requests: use it with --container oscore"
            )));
        }
    }
    .map_err(|e| Error::invalid(format!("--scheme: {e}")))?;
    let encoding: Encoding = match &args.encoding {
        Some(e) => e
            .parse()
            .map_err(|e| Error::invalid(format!("--encoding: {e}")))?,
        None => Encoding::Raw,
    };
    if container.is_text() && encoding != Encoding::Raw {
        return Err(Error::invalid(format!(
            "--encoding {encoding} does not apply to the {container} container, which is text already; \
             use it with --container binary or cose"
        )));
    }
    let insecurity = scheme.insecurity();
    let rules = match (&args.compression, container.is_oscore()) {
        (Some(_), true) if encoding != Encoding::Raw => {
            return Err(Error::invalid(format!(
                "--encoding {encoding} does not apply to a SCHC packet, which is bits on the radio"
            )));
        }
        (Some(c), true) => Some((c, schc::rules_file::named(c).map_err(Error::invalid)?)),
        (Some(_), false) => {
            return Err(Error::invalid(format!(
                "--compression schc compresses CoAP headers: use it with --container oscore, not {container}"
            )));
        }
        (None, _) => None,
    };
    let (key, raw, schc) = match (container.sealed(), &rules) {
        (Some(core), _) => {
            let key = SealKey::generate(scheme.clone(), NoncePolicy::Random)?;
            let raw = seal::seal_with_key(&key, args.allow_insecure, core, plaintext, b"")?;
            (Some(key), raw, None)
        }
        (None, None) => (None, oscore_request(&scheme, plaintext, None)?, None),
        (None, Some((text, (set, label)))) => {
            let raw = oscore_request(&scheme, plaintext, Some(set))?;
            let uncompressed = oscore_request(&scheme, plaintext, None)?.len();
            let packet = compress(text, (set, label), &raw, uncompressed)?;
            (None, raw, Some(packet))
        }
    };
    Ok(Sealed {
        scheme,
        container,
        encoding,
        bytes: encoding.encode(&raw),
        insecurity,
        schc,
        key,
        allow_insecure: args.allow_insecure,
    })
}

impl Sealed {
    /// "aead:aes-128-gcm in the json container" (+ ", hex-encoded").
    pub fn describe(&self) -> String {
        let mut s = format!("{} in the {} container", self.scheme, self.container);
        if self.encoding != Encoding::Raw {
            s.push_str(&format!(", {}-encoded", self.encoding));
        }
        if let Some(p) = &self.schc {
            s.push_str(&format!(", compressed: {}", p.describe()));
        }
        s
    }

    /// A sealer under this message's key, its key schedule done; none for
    /// the oscore container, which this host does not time yet.
    pub fn sealer(&self) -> Result<HostSealer, Error> {
        let key = self.key.as_ref().ok_or_else(|| {
            Error::invalid(
                "this host does not time OSCORE yet: the oscore container is costed with a simulated device's own seal path (or --cpu-us)",
            )
        })?;
        Ok(HostSealer::new(key, self.allow_insecure)?)
    }

    /// Measures one seal of `plaintext` on this machine: a fresh random nonce, the
    /// sealing itself and the transport encoding. The key schedule is done once
    /// beforehand, as a device keeps its key schedule between messages.
    pub fn measure_seal(&self, plaintext: &[u8], quick: bool) -> Result<HostTime, Error> {
        let mut sealer = self.sealer()?;
        let container = self.container.require_sealed()?;
        let measurement = crate::frame::time_sealing(
            &mut sealer,
            &self.scheme,
            container,
            self.encoding,
            crate::frame::config(quick),
            || plaintext.to_vec(),
        )?;
        Ok(HostTime { measurement })
    }
}

/// The reading as the device's OSCORE build protects it (`oscore::reading`):
/// a CoAP POST under a throw-away context, at the device's known-answer
/// sequence number (a one-byte Partial IV; a device past 255 messages
/// sends one more byte, past 65,535 two). With `rules`, its plaintext is
/// compressed by their inner rules, as `send` and the gateway do it
/// (`schc::oscore`).
fn oscore_request(
    scheme: &Scheme,
    plaintext: &[u8],
    rules: Option<&schc::RuleSet>,
) -> Result<Vec<u8>, Error> {
    use seal::oscore::reading;
    let alg = seal::oscore_build::alg_name(scheme.name()).and_then(seal::oscore::Alg::from_name);
    let alg = alg.ok_or_else(|| Error::invalid(format!("{} is no OSCORE build", scheme.name())))?;
    let mut secret = [0u8; 16];
    seal::host::keyfile::fill_random(&mut secret)?;
    let key = seal::host::oscore::OscoreKey::from_secrets(
        alg,
        &secret,
        &[],
        &reading::known_answer::SENDER_ID,
        &reading::known_answer::RECIPIENT_ID,
    )?;
    let format = match std::str::from_utf8(plaintext).map(|t| t.starts_with('{')) {
        Ok(true) => reading::JSON,
        _ => reading::OCTETS,
    };
    let seq = reading::known_answer::SEQUENCE;
    let path = reading::DEFAULT_URI_PATH;
    let sealed = match rules {
        Some(rules) => schc::oscore::seal_reading(rules, &key, seq, plaintext, path, format),
        None => seal::host::oscore::seal_request(&key, seq, plaintext, path, format)
            .map_err(|e| e.to_string()),
    };
    sealed
        .map(|s| s.bytes)
        .map_err(|e| Error::invalid(format!("--container oscore: {e}")))
}

/// How the host time came about, for the report.
pub fn host_time_label() -> &'static str {
    "host-measured on this machine, scaled by nothing"
}

/// A note when the binary is a debug build, whose timings mean little.
pub fn build_note() -> Option<&'static str> {
    cfg!(debug_assertions).then_some(
        "this ciphermeter is a debug build: host times are far slower than a release build's",
    )
}

/// What `sealed` costs on `spec`, sent as `options` say.
pub fn sealed_cost(
    spec: &LinkSpec,
    sealed: &Sealed,
    options: &SendOptions,
) -> Result<LinkCost, Error> {
    message_cost(spec, sealed.bytes.len(), sealed.schc.as_ref(), options)
}

/// What seals and times the engine's messages here (`cost_engine::message`):
/// each reading sealed for real under a throw-away key, its seal timed on
/// this machine (`quick`: fewer samples).
pub struct Sealer {
    pub quick: bool,
}

impl Sealer {
    fn build(ask: &cost_engine::message::Ask) -> Result<Message, Error> {
        Message::build(&MessageSpec {
            scheme: Some(ask.scheme.to_string()),
            sample: Some(ask.sample.to_string()),
            serialization: ask.serialization.map(str::to_string),
            container: Some(ask.container.as_str().to_string()),
            compression: ask.compression.map(str::to_string),
            seed: 1,
            // Measuring legacy schemes is allowed; they are marked, never recommended by default.
            allow_insecure: true,
            ..MessageSpec::default()
        })
    }
}

impl cost_engine::message::Messages for Sealer {
    fn check(&self, sample: &str, compression: Option<&str>) -> Result<(), Error> {
        Sample::parse(sample).map_err(|e| Error::invalid(format!("--sample: {e}")))?;
        if let Some(text) = compression {
            schc::rules_file::named(text).map_err(Error::invalid)?;
        }
        Ok(())
    }

    fn seal(&self, ask: &cost_engine::message::Ask) -> Result<cost_engine::message::Sealed, Error> {
        Self::build(ask)?
            .facts()
            .ok_or_else(|| Error::failed("no sealed message"))
    }

    fn host_time(
        &self,
        ask: &cost_engine::message::Ask,
    ) -> Result<Option<(f64, f64, f64, u64)>, Error> {
        let message = Self::build(ask)?;
        let sealed = message
            .sealed
            .as_ref()
            .ok_or_else(|| Error::failed("no sealed message"))?;
        let time = sealed.measure_seal(&message.plaintext, self.quick)?;
        Ok(Some(host_us(&time.measurement)))
    }
}
