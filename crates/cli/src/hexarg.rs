//! Hex arguments with errors that name the argument.

use zeroize::Zeroizing;

use crate::error::CliError;

/// Decodes a hex argument; `what` names it in the error ("--key").
pub fn decode(what: &str, text: &str) -> Result<Zeroizing<Vec<u8>>, CliError> {
    let cleaned: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    hex::decode(&cleaned)
        .map(Zeroizing::new)
        .map_err(|e| CliError::usage(format!("{what}: not valid hex ({e})")))
}
