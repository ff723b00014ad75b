//! The real message a device sends: a seeded sample reading (crates/payload),
//! serialized, then sealed (crates/seal) under an ephemeral random key. The size of a
//! sealed message does not depend on the key, so a throw-away key gives the true size.

use measure::Measurement;
use payload::{Encoding, Format, Sample};
use seal::{Container, HostSealer, NoncePolicy, Scheme, SealError, SealKey};

use crate::Error;

/// The sample sealed when only --scheme is given (study 003's ten-thermometer chain).
pub const DEFAULT_SAMPLE: &str = "chain:10";

/// What to seal: the command line's message flags, as values.
#[derive(Clone, Debug, Default)]
pub struct MessageSpec {
    /// Seal a real message with this scheme: aead:AEAD, etm:CIPHER+MAC, hmac:MAC or
    /// enc:CIPHER (e.g. aead:aes-128-gcm), under an ephemeral random key.
    pub scheme: Option<String>,
    /// The reading to send: chain:N (study 003's thermometer chain), record:KB or
    /// random:N [default with --scheme: chain:10].
    pub sample: Option<String>,
    /// How the reading is serialized: json, json-pretty, yaml, yaml-min, cbor, msgpack
    /// [default: json].
    pub serialization: Option<String>,
    /// Container of the sealed message: json, binary or cose [default: json].
    pub container: Option<String>,
    /// Transport encoding of a binary or cose message: raw, hex, base64, base64url
    /// [default: raw].
    pub encoding: Option<String>,
    /// Seed of the sample generator (the same seed gives the same reading).
    pub seed: u64,
    /// Seal even with a legacy, broken or unauthenticated scheme (to cost study 004's DES…).
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
    pub container: Container,
    pub encoding: Encoding,
    /// The message as it leaves the device: container bytes, transport-encoded.
    pub bytes: Vec<u8>,
    /// Why the scheme is unsafe, when --allow-insecure let it through.
    pub insecurity: Vec<String>,
    key: SealKey,
    allow_insecure: bool,
}

/// A CPU time for one seal, measured on this machine.
pub struct HostTime {
    pub measurement: Measurement,
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

    /// "chain:10 as json (seed 1)".
    pub fn describe_plaintext(&self) -> String {
        match self.format {
            Some(f) => format!("{} serialized as {f} (seed {})", self.sample, self.seed),
            None => format!("{} (seed {})", self.sample, self.seed),
        }
    }
}

fn seal_message(args: &MessageSpec, scheme: &str, plaintext: &[u8]) -> Result<Sealed, Error> {
    let scheme = Scheme::parse(scheme).map_err(|e| Error::invalid(format!("--scheme: {e}")))?;
    let container: Container = args
        .container
        .as_deref()
        .unwrap_or("json")
        .parse()
        .map_err(|e: SealError| Error::invalid(format!("--container: {e}")))?;
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
    let key = SealKey::generate(scheme.clone(), NoncePolicy::Random)?;
    let raw = seal::seal_with_key(&key, args.allow_insecure, container, plaintext, b"")?;
    Ok(Sealed {
        scheme,
        container,
        encoding,
        bytes: encoding.encode(&raw),
        insecurity,
        key,
        allow_insecure: args.allow_insecure,
    })
}

impl Sealed {
    /// "aead:aes-128-gcm in a json container" (+ ", hex-encoded").
    pub fn describe(&self) -> String {
        let mut s = format!("{} in a {} container", self.scheme, self.container);
        if self.encoding != Encoding::Raw {
            s.push_str(&format!(", {}-encoded", self.encoding));
        }
        s
    }

    /// A sealer under this message's key, its key schedule done.
    pub fn sealer(&self) -> Result<HostSealer, Error> {
        Ok(HostSealer::new(&self.key, self.allow_insecure)?)
    }

    /// Measures one seal of `plaintext` on this machine: a fresh random nonce, the
    /// sealing itself and the transport encoding. The key schedule is done once
    /// beforehand, as a device keeps its key schedule between messages.
    pub fn measure_seal(&self, plaintext: &[u8], quick: bool) -> Result<HostTime, Error> {
        let mut sealer = self.sealer()?;
        let measurement = crate::frame::time_sealing(
            &mut sealer,
            &self.scheme,
            self.container,
            self.encoding,
            crate::frame::config(quick),
            || plaintext.to_vec(),
        )?;
        Ok(HostTime { measurement })
    }
}

/// A message length as the link models take it; longer than they can carry is
/// the user's to fix.
pub fn message_len(len: usize) -> Result<u32, Error> {
    u32::try_from(len).map_err(|_| Error::invalid(format!("a {len}-byte message is too large")))
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
