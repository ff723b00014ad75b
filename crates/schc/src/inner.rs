//! RFC 8824 §7.2's inner compression: an OSCORE plaintext (the inner code,
//! the class E options, the payload after its marker) compressed before it is
//! encrypted, and decompressed after it is decrypted, by its own rules. The
//! compressed plaintext is the rule id, the residue and the payload at bit
//! level, zero-padded to whole bytes; the AEAD runs over it.
//!
//! Inner rules sit in the same rule set as the outer ones, with their own
//! rule ids: an inner rule describes the code and options alone, so it never
//! matches a whole CoAP message, and an outer rule never matches a plaintext.
//! A plaintext no inner rule describes goes whole under the no-compression
//! rule, as any packet does.

use alloc::vec::Vec;

use crate::coap;
use crate::compress::{Compressed, compress_fields};
use crate::decompress::decompress_with;
use crate::error::SchcError;
use crate::rule::{Direction, FieldId, Nature, Rule, RuleSet};

/// The OSCORE plaintext `plaintext`, going `way`, compressed by the first
/// inner rule that matches (else whole under the no-compression rule).
pub fn compress(
    rules: &RuleSet,
    plaintext: &[u8],
    way: Direction,
) -> Result<Compressed, SchcError> {
    compress_fields(rules, coap::plaintext_fields(plaintext), plaintext, way)
}

/// The OSCORE plaintext a compressed plaintext `packet` (rule id first,
/// zero-padded) was compressed from, going `way`.
pub fn decompress(rules: &RuleSet, packet: &[u8], way: Direction) -> Result<Vec<u8>, SchcError> {
    decompress_with(rules, packet, way, coap::plaintext)
}

/// Whether `rule` compresses OSCORE plaintexts: a compression rule of the
/// code and options alone.
pub fn is_inner(rule: &Rule) -> bool {
    match &rule.nature {
        Nature::Compression(entries) => entries.iter().all(|e| plaintext_field(e.field)),
        Nature::NoCompression => false,
    }
}

/// Whether the rule set has an inner rule: with one, both ends compress
/// inside OSCORE; without, the plaintext is left as RFC 8613 writes it.
pub fn has_inner_rules(rules: &RuleSet) -> bool {
    rules.rules().iter().any(is_inner)
}

fn plaintext_field(id: FieldId) -> bool {
    matches!(id, FieldId::CoapCode | FieldId::CoapOption(_))
}
