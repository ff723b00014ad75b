//! What `keygen`, `seal`, `open` and `frame-bench` share: argument parsing,
//! bounded standard input, and the SealError → exit status mapping.

use std::io::Read;

use payload::{Encoding, Format};
use seal::{Container, SealError};

use crate::error::CliError;

/// Input, the key file and the arguments are the user's to fix (exit 2); I/O is not (exit 1).
pub fn seal_err(e: SealError) -> CliError {
    if e.is_user_error() {
        CliError::usage(e)
    } else {
        CliError::failed(e)
    }
}

pub fn container(text: &str) -> Result<Container, CliError> {
    text.parse().map_err(|_| {
        CliError::usage(format!(
            "--container: unknown container '{text}'; expected json, binary or cose"
        ))
    })
}

pub fn encoding(text: &str) -> Result<Encoding, CliError> {
    text.parse()
        .map_err(|e| CliError::usage(format!("--encoding: {e}")))
}

/// `raw` means "the bytes as given"; anything else is a serialization format.
pub fn format(text: &str) -> Result<Option<Format>, CliError> {
    if text == "raw" {
        return Ok(None);
    }
    text.parse()
        .map(Some)
        .map_err(|e| CliError::usage(format!("--format: {e}, or raw for bytes as they are")))
}

/// Whether the message as sent is text (and so ends with a newline on a terminal).
pub fn is_text(container: Container, encoding: Encoding) -> bool {
    encoding != Encoding::Raw || container.is_text()
}

/// Reads all of standard input, refusing more than `max` bytes.
pub fn read_stdin(max: usize, what: &str) -> Result<Vec<u8>, CliError> {
    let mut buf = Vec::new();
    std::io::stdin()
        .lock()
        .take(max as u64 + 1)
        .read_to_end(&mut buf)?;
    if buf.len() > max {
        return Err(CliError::usage(format!(
            "{what} on standard input is larger than {max} bytes"
        )));
    }
    Ok(buf)
}

/// Removes the one line ending a text message was printed with.
pub fn strip_line_end(mut bytes: Vec<u8>) -> Vec<u8> {
    if bytes.last() == Some(&b'\n') {
        bytes.pop();
        if bytes.last() == Some(&b'\r') {
            bytes.pop();
        }
    }
    bytes
}
