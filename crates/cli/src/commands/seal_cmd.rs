//! `ciphermeter seal`: a reading serialized, sealed under a key file's nonce policy,
//! framed in a container and printed in a transport encoding.

use std::io::Write;
use std::path::PathBuf;

use clap::Args as ClapArgs;
use payload::{Encoding, Format};
use seal::host::container::MessageContainer;
use seal::host::oscore;
use seal::{SealKey, limits, seal_with_backend};

use crate::args::{encoding, read_stdin, serialization};
use crate::error::CliError;

#[derive(ClapArgs)]
pub struct Args {
    /// Key file from `ciphermeter keygen --scheme S`.
    #[arg(long)]
    key_file: PathBuf,
    /// The scheme you expect the key file to hold (checked, not required).
    #[arg(long)]
    scheme: Option<String>,
    /// Container: json, binary, cose, or oscore (a CoAP POST protected with OSCORE,
    /// under a context from `keygen --scheme oscore:ALG`).
    #[arg(long, default_value = "json")]
    container: String,
    /// oscore: the Uri-Path the reading is POSTed to.
    #[arg(long, default_value = seal::host::oscore::DEFAULT_URI_PATH)]
    uri_path: String,
    /// Serialization of the reading: json, json-pretty, yaml, yaml-min, cbor, msgpack, or raw
    /// (standard input sealed byte for byte).
    #[arg(long, default_value = "json")]
    serialization: String,
    /// Old spelling of --serialization.
    #[arg(long, hide = true, conflicts_with = "serialization")]
    format: Option<String>,
    /// Transport encoding of the message: raw, hex, base64, base64url.
    #[arg(long, default_value = "raw")]
    encoding: String,
    /// Seal a generated reading (chain:N, record:KB, random:N) instead of standard input.
    #[arg(long)]
    sample: Option<String>,
    /// Seed of --sample.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Associated data: sent in clear, authenticated (e.g. the reading's header fields).
    #[arg(long)]
    aad: Option<String>,
    /// Seal with a legacy, broken or unauthenticated scheme anyway.
    #[arg(long)]
    allow_insecure: bool,
    /// Whose code seals: a backend of the sealing core (rustcrypto, ciphermeter,
    /// mbedtls, monocypher, aws-lc); the bytes are the same. Default: aws-lc where
    /// it has the scheme (the fastest here), else rustcrypto.
    #[arg(long = "impl", value_name = "IMPL")]
    implementation: Option<String>,
}

impl Args {
    /// --serialization, or its old spelling --format (with a note).
    fn serialization(&self) -> &str {
        crate::renamed::old(self.format.as_deref(), "--format", "--serialization")
            .unwrap_or(&self.serialization)
    }
}

pub fn run(args: Args) -> Result<(), CliError> {
    let chosen = args.implementation.as_deref();
    let chosen = chosen
        .map(device_facts::implementation::sealing_backend)
        .transpose()?;
    let Some(container) = args.container.parse::<MessageContainer>()?.sealed() else {
        oscore::check_backend(chosen)?;
        return seal_oscore(&args);
    };
    let encoding = encoding(&args.encoding)?;
    let format = serialization(args.serialization())?;
    let key = SealKey::load(&args.key_file)?;
    key.check_scheme(args.scheme.as_deref())?;
    let plaintext = reading(&args, format)?;
    let backend = chosen.unwrap_or_else(|| seal::Backend::host_default(&key.scheme.spec()));
    let aad = args.aad.as_deref().unwrap_or("").as_bytes();
    let sealed = seal_with_backend(
        &key,
        backend,
        args.allow_insecure,
        container,
        &plaintext,
        aad,
    );
    print_message(&sealed?, container.into(), encoding)
}

/// An OSCORE-protected POST of the reading, under the context's next sequence number.
fn seal_oscore(args: &Args) -> Result<(), CliError> {
    let encoding = encoding(&args.encoding)?;
    let format = serialization(args.serialization())?;
    let key = oscore::OscoreKey::load(&args.key_file)?;
    key.check_scheme(args.scheme.as_deref())?;
    if args.aad.is_some() {
        return Err(CliError::usage(
            "--aad: OSCORE authenticates its own fields; send extra data inside the reading",
        ));
    }
    let plaintext = reading(args, format)?;
    let content_format = oscore::content_format(args.serialization());
    let sealed = oscore::seal_reading(&key, &plaintext, &args.uri_path, content_format)?;
    print_message(&sealed.bytes, MessageContainer::Oscore, encoding)
}

/// The message in its transport encoding, a text one ending its line.
fn print_message(
    message: &[u8],
    container: MessageContainer,
    encoding: Encoding,
) -> Result<(), CliError> {
    let out = encoding.encode_printed(message, container.is_text());
    Ok(std::io::stdout().lock().write_all(&out)?)
}

/// The plaintext: a generated sample, or standard input (a JSON reading, re-serialized).
fn reading(args: &Args, format: Option<Format>) -> Result<Vec<u8>, CliError> {
    let reading = match &args.sample {
        Some(spec) => payload::plaintext::from_sample(spec, args.seed, format),
        None => payload::plaintext::from_input(read_stdin(limits::BODY, "the reading")?, format),
    };
    reading.map_err(CliError::Usage)
}
