//! The page's readings sealed with the sealing core alone (no OS, no key
//! files): the same seeded sample and serialization as the host's
//! `cost::message::Sealer`, sealed under the core's public known-answer key
//! and a counter nonce. A sealed message's length depends on the scheme,
//! container and reading, never on the key or nonce, so its sizes are the
//! host's (`tests/sizes.rs` holds them equal). SCHC compression needs rule
//! files and the host's OSCORE layer: refused here, never guessed.

use cost_engine::Error;
use cost_engine::message::{Ask, Messages, Sealed};
use payload::{Format, Sample};
use seal::Scheme;
use seal::oscore::reading;
use seal::reading::known_answer;

/// Seals the engine's messages in the page; no host time (a browser times
/// nothing the ranking could use).
pub struct PageSealer;

/// The reading and how it was serialized, as `cost::message::Message` makes it.
fn plaintext(sample: &str, serialization: Option<&str>) -> Result<(Vec<u8>, String), Error> {
    let parsed = parse_sample(sample)?;
    let format = match (&parsed, serialization) {
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
    let bytes = parsed
        .bytes(format.unwrap_or(Format::JsonMin), SEED)
        .map_err(|e| Error::invalid(format!("--sample {parsed}: {e}")))?;
    let said = match format {
        Some(f) => format!("{parsed} serialized as {f} (seed {SEED})"),
        None => format!("{parsed} (seed {SEED})"),
    };
    Ok((bytes, said))
}

/// The seed the host's ranking seals with (`cost::message::Sealer`).
const SEED: u64 = 1;

fn parse_sample(sample: &str) -> Result<Sample, Error> {
    Sample::parse(sample).map_err(|e| Error::invalid(format!("--sample: {e}")))
}

fn refuse_compression(compression: Option<&str>) -> Result<(), Error> {
    match compression {
        None => Ok(()),
        Some(c) => Err(Error::invalid(format!(
            "--compression {c}: the page cannot compress (SCHC rules and the host's OSCORE layer are not in it); run `ciphermeter recommend --compression {c}`"
        ))),
    }
}

/// A json, binary or cose message: the core's seal under the known-answer key.
fn seal_container(
    scheme: &Scheme,
    container: seal::Container,
    text: &[u8],
) -> Result<usize, Error> {
    let spec = scheme.spec();
    let sealer = seal::Sealer::new(
        spec,
        &known_answer::KEY_ID,
        &known_answer::KEY[..spec.key_len()],
    )
    .map_err(|e| Error::failed(format!("{}: {e:?}", scheme.name())))?;
    let mut nonce = vec![0u8; spec.nonce_len()];
    known_answer::nonce(&spec, &mut nonce);
    let mut out = vec![0u8; sealer.seal_buffer_len(container, text, b"")];
    sealer
        .seal(container, &nonce, text, b"", &mut out)
        .map_err(|e| Error::invalid(format!("{}: {e:?}", scheme.name())))
}

/// The reading as the device's OSCORE build protects it (a CoAP POST at the
/// known-answer sequence number), as the host's `oscore_request` writes it.
fn seal_oscore(scheme: &Scheme, text: &[u8]) -> Result<usize, Error> {
    let alg = seal::oscore_build::alg_name(scheme.name()).and_then(seal::oscore::Alg::from_name);
    let alg = alg.ok_or_else(|| Error::invalid(format!("{} is no OSCORE build", scheme.name())))?;
    let ctx = reading::known_answer::context(alg)
        .map_err(|e| Error::failed(format!("--container oscore: {e:?}")))?;
    let format = match core::str::from_utf8(text).map(|t| t.starts_with('{')) {
        Ok(true) => reading::JSON,
        _ => reading::OCTETS,
    };
    let path = reading::DEFAULT_URI_PATH;
    let mut out = vec![0u8; reading::max_len(&ctx, text.len(), path)];
    let seq = reading::known_answer::SEQUENCE;
    reading::seal_reading(&ctx, seq, text, path, format, &mut out)
        .map(|(n, _)| n)
        .map_err(|e| Error::invalid(format!("--container oscore: {e:?}")))
}

impl Messages for PageSealer {
    fn check(&self, sample: &str, compression: Option<&str>) -> Result<(), Error> {
        parse_sample(sample)?;
        refuse_compression(compression)
    }

    fn seal(&self, ask: &Ask) -> Result<Sealed, Error> {
        refuse_compression(ask.compression)?;
        let (text, said) = plaintext(ask.sample, ask.serialization)?;
        let (scheme, bytes) = match ask.container.sealed() {
            Some(core) => {
                let scheme = Scheme::parse(ask.scheme)
                    .map_err(|e| Error::invalid(format!("--scheme: {e}")))?;
                let n = seal_container(&scheme, core, &text)?;
                (scheme, n)
            }
            None => {
                let scheme = Scheme::oscore(ask.scheme)
                    .map_err(|e| Error::invalid(format!("--scheme: {e}")))?;
                let n = seal_oscore(&scheme, &text)?;
                (scheme, n)
            }
        };
        Ok(Sealed {
            scheme,
            container: ask.container,
            plaintext_bytes: text.len(),
            sample_description: said,
            bytes,
            schc: None,
        })
    }

    fn host_time(&self, _: &Ask) -> Result<Option<(f64, f64, f64, u64)>, Error> {
        Ok(None)
    }
}
