//! Compression (RFC 8724 §7.3): the first rule whose descriptors (those of the
//! packet's direction) name the packet's fields in order and whose matching
//! operators all hold; then its id, each field's residue in rule order, and
//! the payload, at bit level. A packet no rule matches goes whole under the
//! no-compression rule.

use alloc::vec::Vec;

use crate::bits::Bits;
use crate::coap::{self, Field};
use crate::error::SchcError;
use crate::rule::{Action, Direction, Entry, Length, Matching, Nature, Rule, RuleSet};

/// A compressed packet: its rule's id, then residue and payload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Compressed {
    pub rule_id: Bits,
    /// The whole SCHC packet, rule id first, unpadded.
    pub bits: Bits,
}

impl Compressed {
    /// The packet in bytes, zero-padded at the end (RFC 8724 §9).
    pub fn to_bytes(&self) -> Vec<u8> {
        self.bits.as_padded_bytes().to_vec()
    }

    /// The packet after its rule id, zero-padded: a LoRaWAN FRMPayload, the
    /// rule id going in FPort (RFC 9011 §5.2; its rule ids are 8 bits).
    pub fn after_rule_id(&self) -> Vec<u8> {
        self.bits
            .slice(self.rule_id.len(), self.bits.len())
            .as_padded_bytes()
            .to_vec()
    }
}

/// The CoAP message `packet`, going `way`, compressed by the first rule that matches.
pub fn compress(rules: &RuleSet, packet: &[u8], way: Direction) -> Result<Compressed, SchcError> {
    compress_fields(rules, coap::fields(packet), packet, way)
}

/// `packet` compressed from its `parsed` fields (a CoAP message's, or an
/// OSCORE plaintext's: [`crate::inner`]), or whole under the no-compression
/// rule when none matches.
pub(crate) fn compress_fields(
    rules: &RuleSet,
    parsed: Result<coap::Fields, SchcError>,
    packet: &[u8],
    way: Direction,
) -> Result<Compressed, SchcError> {
    if let Ok(parsed) = &parsed {
        for rule in rules.rules() {
            if let Nature::Compression(entries) = &rule.nature {
                let entries: Vec<&Entry> = entries
                    .iter()
                    .filter(|e| e.direction.applies_to(way))
                    .collect();
                // A match whose residue cannot be written (a value too long
                // to size) leaves the packet to the next rule, or whole.
                if let Some(Ok(mut bits)) = residue(rule, &entries, &parsed.fields) {
                    bits.push(&Bits::from_bytes(&parsed.payload));
                    return Ok(Compressed {
                        rule_id: rule.id.clone(),
                        bits,
                    });
                }
            }
        }
    }
    // Not CoAP, or no rule matched: whole, if the rules allow it.
    let Some(rule) = rules
        .rules()
        .iter()
        .find(|r| r.nature == Nature::NoCompression)
    else {
        return Err(parsed.err().unwrap_or(SchcError::NoRule));
    };
    let mut bits = rule.id.clone();
    bits.push(&Bits::from_bytes(packet));
    Ok(Compressed {
        rule_id: rule.id.clone(),
        bits,
    })
}

/// The rule id and residues, when `entries` match `fields`; an error for a
/// match whose residue cannot be written (a value too long to size).
fn residue(rule: &Rule, entries: &[&Entry], fields: &[Field]) -> Option<Result<Bits, SchcError>> {
    if entries.len() != fields.len() {
        return None;
    }
    let matched = entries
        .iter()
        .zip(fields)
        .all(|(e, f)| e.field == f.id && e.position == f.position && matches(e, &f.value));
    if !matched {
        return None;
    }
    let mut bits = rule.id.clone();
    for (e, f) in entries.iter().zip(fields) {
        if let Err(e) = push_residue(&mut bits, e, &f.value) {
            return Some(Err(e));
        }
    }
    Some(Ok(bits))
}

fn matches(e: &Entry, value: &Bits) -> bool {
    let sized = match e.length {
        Length::Fixed(n) => value.len() == n,
        Length::Var => value.len().is_multiple_of(8),
        Length::VarBit | Length::Tkl | Length::OscorePiv => true,
    };
    sized
        && match e.matching {
            Matching::Equal => value == e.target_value(),
            Matching::Ignore => true,
            Matching::Msb(x) => {
                let lsb = value.len().checked_sub(x);
                let whole = e.length != Length::Var || lsb.is_some_and(|n| n % 8 == 0);
                lsb.is_some() && whole && value.slice(0, x) == e.target_value().slice(0, x)
            }
            Matching::MatchMapping => e.target.contains(value),
        }
}

fn push_residue(bits: &mut Bits, e: &Entry, value: &Bits) -> Result<(), SchcError> {
    match e.action {
        Action::NotSent => {}
        Action::ValueSent => push_sized(bits, e.length, value)?,
        Action::MappingSent => {
            let index = e.target.iter().position(|t| t == value).unwrap_or(0);
            bits.push_uint(index as u64, e.index_bits());
        }
        Action::Lsb => {
            // RuleSet::new pairs LSB with MSB.
            push_sized(bits, e.length, &value.slice(e.msb(), value.len()))?;
        }
    }
    Ok(())
}

/// `value`, after its size where the field's length is variable (RFC 8724 §7.5.2).
fn push_sized(bits: &mut Bits, length: Length, value: &Bits) -> Result<(), SchcError> {
    if let Some(unit) = length.size_unit() {
        push_size(bits, value.len() / unit)?;
    }
    bits.push(value);
    Ok(())
}

/// A variable length: 4 bits up to 14, then 0b1111 and 8 bits up to 254,
/// then twelve 1 bits and 16 bits (RFC 8724 §7.5.2).
fn push_size(bits: &mut Bits, size: usize) -> Result<(), SchcError> {
    match size {
        0..=14 => bits.push_uint(size as u64, 4),
        15..=254 => {
            bits.push_uint(0xf, 4);
            bits.push_uint(size as u64, 8);
        }
        255..=0xffff => {
            bits.push_uint(0xfff, 12);
            bits.push_uint(size as u64, 16);
        }
        _ => {
            return Err(SchcError::Malformed(alloc::string::String::from(
                "a field over 65,535 units long",
            )));
        }
    }
    Ok(())
}

/// Reads a variable length written by [`push_size`].
pub(crate) fn read_size(r: &mut crate::bits::Reader<'_>) -> Option<usize> {
    let four = r.read_uint(4)?;
    if four < 15 {
        return Some(four as usize);
    }
    let eight = r.read_uint(8)?;
    if eight < 255 {
        return Some(eight as usize);
    }
    r.read_uint(16).map(|v| v as usize)
}
