//! Decompression (RFC 8724 §7.3): the rule the packet's first bits name,
//! each field rebuilt by its action in rule order, the payload from the bits
//! left (less fewer than 8 bits of zero padding), and the CoAP message
//! written back.

use alloc::vec::Vec;

use crate::bits::{Bits, Reader};
use crate::coap::{self, Field};
use crate::compress::read_size;
use crate::error::SchcError;
use crate::rule::{Action, Direction, Entry, FieldId, Length, Nature, RuleSet};

/// The CoAP message `packet` (rule id first, zero-padded) was compressed from,
/// going `way`.
pub fn decompress(rules: &RuleSet, packet: &[u8], way: Direction) -> Result<Vec<u8>, SchcError> {
    decompress_with(rules, packet, way, coap::message)
}

/// What writes the packet back from its fields and payload.
pub(crate) type Writer = fn(&[Field], &[u8]) -> Result<Vec<u8>, SchcError>;

/// The fields and payload a rule rebuilds, written by `write` (a CoAP
/// message's writer, or an OSCORE plaintext's: [`crate::inner`]); a packet
/// under the no-compression rule is its bytes after the rule id.
pub(crate) fn decompress_with(
    rules: &RuleSet,
    packet: &[u8],
    way: Direction,
    write: Writer,
) -> Result<Vec<u8>, SchcError> {
    let all = Bits::from_bytes(packet);
    let rule = rules.by_prefix(&all).ok_or(SchcError::UnknownRuleId)?;
    let mut r = Reader::new(packet);
    r.read(rule.id.len());
    let Nature::Compression(entries) = &rule.nature else {
        return payload(&mut r);
    };
    let mut fields: Vec<Field> = Vec::new();
    for e in entries.iter().filter(|e| e.direction.applies_to(way)) {
        let value = field_value(e, &mut r, &fields)?;
        fields.push(Field {
            id: e.field,
            position: e.position,
            value,
        });
    }
    let payload = payload(&mut r)?;
    write(&fields, &payload)
}

/// The whole bytes left; the bits after them are padding, which must be zero.
fn payload(r: &mut Reader<'_>) -> Result<Vec<u8>, SchcError> {
    let whole = r.remaining() / 8;
    let bytes = r.read(whole * 8).unwrap_or_default();
    let pad = r.remaining();
    if r.read_uint(pad) != Some(0) {
        return Err(SchcError::Inconsistent("padding that is not zero"));
    }
    Ok(bytes.as_padded_bytes().to_vec())
}

fn field_value(e: &Entry, r: &mut Reader<'_>, so_far: &[Field]) -> Result<Bits, SchcError> {
    let truncated = SchcError::Truncated("a field's residue");
    Ok(match e.action {
        Action::NotSent => e.target_value().clone(),
        Action::ValueSent => {
            let n = residue_bits(e.length, 0, r, so_far)?;
            r.read(n).ok_or(truncated)?
        }
        Action::MappingSent => {
            let index = r.read_uint(e.index_bits()).ok_or(truncated)?;
            e.target
                .get(index as usize)
                .cloned()
                .ok_or(SchcError::Inconsistent("a mapping index past its list"))?
        }
        Action::Lsb => {
            let x = e.msb();
            let n = residue_bits(e.length, x, r, so_far)?;
            let mut value = e.target_value().slice(0, x);
            value.push(&r.read(n).ok_or(truncated)?);
            value
        }
    })
}

/// Bits of a residue: sent as its size for a variable length, else the
/// field's length less the `msb` bits the rule holds.
fn residue_bits(
    length: Length,
    msb: usize,
    r: &mut Reader<'_>,
    so_far: &[Field],
) -> Result<usize, SchcError> {
    let known = |bits: Option<usize>| {
        bits.and_then(|n| n.checked_sub(msb))
            .ok_or(SchcError::Inconsistent(
                "a field shorter than its rule's MSB",
            ))
    };
    match length {
        Length::Fixed(n) => known(Some(n)),
        Length::Var | Length::VarBit => {
            let unit = length.size_unit().unwrap_or(1);
            let size = read_size(r).ok_or(SchcError::Truncated("a field's size"))?;
            Ok(size * unit)
        }
        Length::Tkl => {
            let tkl = earlier(so_far, FieldId::CoapTkl)
                .ok_or(SchcError::Inconsistent("a token before its length (TKL)"))?;
            known(tkl.checked_mul(8))
        }
        Length::OscorePiv => {
            let flags = so_far
                .iter()
                .find(|f| f.id == FieldId::OscoreFlags)
                .ok_or(SchcError::Inconsistent("a partial IV before its flags"))?;
            let n = match flags.value.as_padded_bytes().first() {
                Some(&f) if flags.value.len() == 8 => {
                    coap::oscore_flags(f)
                        .map_err(|_| SchcError::Inconsistent("a reserved OSCORE flag"))?
                        .0
                }
                _ => 0,
            };
            known(Some(n * 8))
        }
    }
}

fn earlier(so_far: &[Field], id: FieldId) -> Option<usize> {
    so_far
        .iter()
        .find(|f| f.id == id)
        .and_then(|f| f.value.to_uint())
        .map(|v| v as usize)
}
