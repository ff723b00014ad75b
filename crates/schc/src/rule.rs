//! Rules (RFC 8724 §7.1): a rule id, and for a compression rule the field
//! descriptors in header order, each with its length, position, direction,
//! target value, matching operator and compression/decompression action.
//! A rule set is checked once, when it is made: every later step may rely on
//! it.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::bits::Bits;
use crate::error::SchcError;

/// The fields RFC 8824 compresses, with the OSCORE option split in four
/// (its §6.4, as draft-ietf-schc-8824-update orders them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FieldId {
    CoapVersion,
    CoapType,
    CoapTkl,
    CoapCode,
    CoapMid,
    CoapToken,
    /// Any option but OSCORE's, by number.
    CoapOption(u16),
    OscoreFlags,
    OscorePiv,
    OscoreKidCtx,
    OscoreKid,
}

/// A field's length (RFC 8724 §7.1 "FL").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Length {
    /// Always this many bits.
    Fixed(usize),
    /// Variable, its size sent in bytes (RFC 9363 `fl-variable`).
    Var,
    /// Variable, its size sent in bits (draft-ietf-schc-8824-update `var_bit`).
    VarBit,
    /// The token's: TKL bytes, known from the TKL field (RFC 9363 `fl-token-length`).
    Tkl,
    /// The OSCORE partial IV's: n bytes, from the flags (draft-ietf-schc-8824-update `osc.piv`).
    OscorePiv,
}

impl Length {
    /// The unit a variable size is sent in, bits; none where no size is sent.
    pub fn size_unit(self) -> Option<usize> {
        match self {
            Length::Var => Some(8),
            Length::VarBit => Some(1),
            Length::Fixed(_) | Length::Tkl | Length::OscorePiv => None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// From the device (uplink).
    Up,
    /// To the device (downlink).
    Down,
    Bi,
}

impl Direction {
    /// Whether a descriptor for `self` applies to a packet going `way`.
    pub fn applies_to(self, way: Direction) -> bool {
        self == Direction::Bi || self == way
    }
}

/// Matching operators (RFC 8724 §7.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Matching {
    Equal,
    Ignore,
    /// The first this many bits equal the target value's.
    Msb(usize),
    /// Equal to one of the target values.
    MatchMapping,
}

/// Compression/decompression actions (RFC 8724 §7.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    NotSent,
    ValueSent,
    MappingSent,
    Lsb,
}

/// One field descriptor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub field: FieldId,
    pub length: Length,
    /// Which occurrence of the field (1 for the first; repeated options count up).
    pub position: u8,
    pub direction: Direction,
    /// The target value; for match-mapping, the list (index order).
    pub target: Vec<Bits>,
    pub matching: Matching,
    pub action: Action,
}

impl Entry {
    /// The single target value.
    pub fn target_value(&self) -> &Bits {
        &self.target[0]
    }

    /// The bits MSB holds (0 for another operator).
    pub fn msb(&self) -> usize {
        match self.matching {
            Matching::Msb(x) => x,
            _ => 0,
        }
    }

    /// Bits a mapping index takes: the fewest that count every value.
    pub fn index_bits(&self) -> usize {
        let n = self.target.len();
        (usize::BITS - (n.max(1) - 1).leading_zeros()) as usize
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Nature {
    Compression(Vec<Entry>),
    /// The packet goes whole after the rule id (RFC 8724 §7.3): for what no
    /// compression rule matches.
    NoCompression,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    pub id: Bits,
    pub nature: Nature,
}

/// Rules checked together: no rule id is a prefix of another's, and every
/// descriptor can be carried out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleSet {
    rules: Vec<Rule>,
}

impl RuleSet {
    pub fn new(rules: Vec<Rule>) -> Result<RuleSet, SchcError> {
        for (i, a) in rules.iter().enumerate() {
            if a.id.is_empty() {
                return Err(SchcError::BadRule(String::from("a rule id of no bits")));
            }
            for b in &rules[i + 1..] {
                if a.id.starts_with(&b.id) || b.id.starts_with(&a.id) {
                    return Err(SchcError::BadRule(format!(
                        "rule ids {} and {} cannot be told apart (one is a prefix of the other)",
                        describe(&a.id),
                        describe(&b.id)
                    )));
                }
            }
            if let Nature::Compression(entries) = &a.nature {
                for e in entries {
                    check(e).map_err(|why| {
                        SchcError::BadRule(format!(
                            "rule {}: {:?} (position {}): {why}",
                            describe(&a.id),
                            e.field,
                            e.position
                        ))
                    })?;
                }
            }
        }
        if rules
            .iter()
            .filter(|r| r.nature == Nature::NoCompression)
            .count()
            > 1
        {
            return Err(SchcError::BadRule(String::from(
                "more than one no-compression rule",
            )));
        }
        Ok(RuleSet { rules })
    }

    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// The rule whose id starts `packet`.
    pub fn by_prefix(&self, packet: &Bits) -> Option<&Rule> {
        self.rules.iter().find(|r| packet.starts_with(&r.id))
    }
}

/// A rule id as the RFCs write it: value/length.
pub fn describe(id: &Bits) -> String {
    match id.to_uint() {
        Some(v) => format!("{v}/{}", id.len()),
        None => format!("of {} bits", id.len()),
    }
}

/// A field's length where RFC 7252 fixes it: the CoAP header's fields.
pub fn natural_length(field: FieldId) -> Option<usize> {
    match field {
        FieldId::CoapVersion | FieldId::CoapType => Some(2),
        FieldId::CoapTkl => Some(4),
        FieldId::CoapCode => Some(8),
        FieldId::CoapMid => Some(16),
        _ => None,
    }
}

fn check(e: &Entry) -> Result<(), &'static str> {
    let fixed = match e.length {
        Length::Fixed(n) => Some(n),
        _ => None,
    };
    if let Some(n) = natural_length(e.field)
        && fixed != Some(n)
    {
        return Err(
            "a CoAP header field takes its own length (version 2, type 2, TKL 4, code 8, message id 16 bits)",
        );
    }
    let length_fits = match e.length {
        Length::Tkl => e.field == FieldId::CoapToken,
        Length::OscorePiv => e.field == FieldId::OscorePiv,
        _ => true,
    };
    if !length_fits {
        return Err("fl-token-length is the token's, fl-oscore-piv the partial IV's");
    }
    if e.position == 0 {
        return Err("position 0: fields are counted from 1");
    }
    match e.matching {
        Matching::Equal | Matching::Msb(_) if e.target.len() != 1 => {
            return Err("equal and MSB take one target value");
        }
        Matching::MatchMapping if e.target.is_empty() => {
            return Err("match-mapping needs a list of target values");
        }
        Matching::Msb(x) => {
            if fixed.is_some_and(|n| x > n) {
                return Err("MSB longer than the field");
            }
            if e.target_value().len() < x {
                return Err("the target value is shorter than its MSB");
            }
            if e.length == Length::Var && x % 8 != 0 {
                return Err("MSB of a field sized in bytes must be whole bytes");
            }
        }
        _ => {}
    }
    if let Some(n) = fixed {
        let wrong = |t: &Bits| t.len() != n;
        if matches!(e.matching, Matching::Equal | Matching::MatchMapping)
            && e.target.iter().any(wrong)
        {
            return Err("a target value not as long as the field");
        }
    }
    let fine = match e.action {
        Action::NotSent => e.matching == Matching::Equal,
        Action::MappingSent => e.matching == Matching::MatchMapping,
        Action::Lsb => matches!(e.matching, Matching::Msb(_)),
        Action::ValueSent => e.matching != Matching::MatchMapping,
    };
    if !fine {
        return Err(
            "the action does not go with the matching operator (not-sent: equal; mapping-sent: \
             match-mapping; LSB: MSB)",
        );
    }
    Ok(())
}
