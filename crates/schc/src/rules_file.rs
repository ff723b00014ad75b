//! Rule files in RFC 9363's data model, as RFC 7951 encodes YANG in JSON:
//! `{"ietf-schc:schc": {"rule": [...]}}`, each rule with `rule-id-value`,
//! `rule-id-length`, `rule-nature` and its `entry` list (`field-id`,
//! `field-length`, `field-position`, `direction-indicator`, `target-value`,
//! `matching-operator`, `matching-operator-value`, `comp-decomp-action`).
//! Binary values are base64; a fixed-length field's value is right-aligned
//! in whole bytes; MSB's length is its `matching-operator-value`, a
//! big-endian integer.
//!
//! The OSCORE option's four fields take RFC 9363's names
//! (`fid-coap-option-oscore-flags`, `-piv`, `-kidctx`, `-kid`). Two field
//! lengths of draft-ietf-schc-8824-update have no YANG name yet; this crate
//! reads them as `ciphermeter:fl-oscore-piv` (the partial IV's length, from
//! the flags) and `ciphermeter:fl-variable-bits` (a variable length counted
//! in bits).
//!
//! Anything else is refused with its name and place: a rule file is read
//! whole or not at all.

use alloc::format;
use alloc::string::String;
#[cfg(feature = "std")]
use alloc::string::ToString;
use alloc::vec::Vec;
#[cfg(feature = "std")]
use std::path::Path;

use base64::Engine;
use serde_json::{Map, Value};

use crate::bits::Bits;
use crate::error::SchcError;
use crate::rule::{
    Action, Direction, Entry, FieldId, Length, Matching, Nature, Rule, RuleSet, natural_length,
};

/// Option names RFC 9363 gives a field id, by number (RFC 7252 §12.2 and later).
const OPTIONS: &[(&str, u16)] = &[
    ("if-match", 1),
    ("uri-host", 3),
    ("etag", 4),
    ("if-none-match", 5),
    ("observe", 6),
    ("uri-port", 7),
    ("location-path", 8),
    ("uri-path", 11),
    ("content-format", 12),
    ("max-age", 14),
    ("uri-query", 15),
    ("accept", 17),
    ("location-query", 20),
    ("block2", 23),
    ("block1", 27),
    ("size2", 28),
    ("proxy-uri", 35),
    ("proxy-scheme", 39),
    ("size1", 60),
    ("no-response", 258),
];

fn bad(why: impl Into<String>) -> SchcError {
    SchcError::BadRule(why.into())
}

#[cfg(feature = "std")]
/// What `--compression` names, for every command that takes it: `schc`
/// (the default rules) or `schc:RULES` (a rule file); the rules, and how
/// the answer names them (`default` or the file).
pub fn named(text: &str) -> Result<(RuleSet, String), String> {
    let (rules, label) = match text.strip_prefix("schc") {
        Some("") => (default_rules(), "default".to_string()),
        Some(rest) if rest.len() > 1 && rest.starts_with(':') => {
            let path = Path::new(&rest[1..]);
            (load(path), path.display().to_string())
        }
        _ => {
            return Err(format!(
                "--compression: unknown '{text}'; expected schc or schc:RULES (a rule file)"
            ));
        }
    };
    let rules = rules.map_err(|e| format!("--compression {text}: {e}"))?;
    // RFC 9011 §5.2: a rule id is the FPort, 1 to 223; 20 is fragmentation's.
    for rule in rules.rules() {
        let id = rule.id.to_uint().unwrap_or(0);
        if rule.id.len() != 8 || !(1..=223).contains(&id) || id == 20 {
            return Err(format!(
                "--compression {text}: rule {id} ({} bits) cannot be an FPort: RFC 9011 takes 8-bit rule ids from 1 to 223, 20 being fragmentation's",
                rule.id.len()
            ));
        }
    }
    Ok((rules, label))
}

/// Reads a rule file.
#[cfg(feature = "std")]
pub fn load(path: &Path) -> Result<RuleSet, SchcError> {
    let text =
        std::fs::read_to_string(path).map_err(|e| bad(format!("{}: {e}", path.display())))?;
    parse(&text).map_err(|e| match e {
        SchcError::BadRule(why) => bad(format!("{}: {why}", path.display())),
        other => other,
    })
}

/// The rules of a rule file's text.
pub fn parse(text: &str) -> Result<RuleSet, SchcError> {
    let root: Value = serde_json::from_str(text).map_err(|e| bad(format!("not JSON: {e}")))?;
    let schc = object(&root, "the file")?
        .iter()
        .find(|(k, _)| unprefixed(k) == "schc")
        .map(|(_, v)| v)
        .ok_or_else(|| bad("no \"ietf-schc:schc\" at the top"))?;
    let rules = object(schc, "schc")?
        .get("rule")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("schc has no \"rule\" list"))?;
    let rules = rules
        .iter()
        .enumerate()
        .map(|(i, r)| rule(r).map_err(|e| prefix(e, &format!("rule {}", i + 1))))
        .collect::<Result<Vec<_>, _>>()?;
    RuleSet::new(rules)
}

fn prefix(e: SchcError, place: &str) -> SchcError {
    match e {
        SchcError::BadRule(why) => bad(format!("{place}: {why}")),
        other => other,
    }
}

fn unprefixed(name: &str) -> &str {
    name.rsplit(':').next().unwrap_or(name)
}

fn object<'a>(v: &'a Value, what: &str) -> Result<&'a Map<String, Value>, SchcError> {
    v.as_object()
        .ok_or_else(|| bad(format!("{what} is not an object")))
}

/// Refuses keys the data model does not have here.
fn only(o: &Map<String, Value>, known: &[&str]) -> Result<(), SchcError> {
    match o.keys().find(|k| !known.contains(&unprefixed(k))) {
        Some(k) => Err(bad(format!(
            "unknown key \"{k}\" (known: {})",
            known.join(", ")
        ))),
        None => Ok(()),
    }
}

fn uint(o: &Map<String, Value>, key: &str) -> Result<Option<u64>, SchcError> {
    o.get(key)
        .map(|v| {
            v.as_u64()
                .ok_or_else(|| bad(format!("{key} is not a whole number")))
        })
        .transpose()
}

fn identity<'a>(o: &'a Map<String, Value>, key: &str) -> Result<Option<&'a str>, SchcError> {
    o.get(key)
        .map(|v| {
            v.as_str()
                .map(unprefixed)
                .ok_or_else(|| bad(format!("{key} is not a name")))
        })
        .transpose()
}

fn rule(v: &Value) -> Result<Rule, SchcError> {
    let o = object(v, "a rule")?;
    only(
        o,
        &["rule-id-value", "rule-id-length", "rule-nature", "entry"],
    )?;
    let value = uint(o, "rule-id-value")?.ok_or_else(|| bad("no rule-id-value"))?;
    let length = uint(o, "rule-id-length")?.ok_or_else(|| bad("no rule-id-length"))?;
    if !(1..=32).contains(&length) || value >> length != 0 {
        return Err(bad(format!(
            "rule id {value} does not fit its {length} bits (1 to 32)"
        )));
    }
    let id = Bits::from_uint(value, length as usize);
    let nature = match identity(o, "rule-nature")?.unwrap_or("nature-compression") {
        "nature-compression" => {
            let entries = o
                .get("entry")
                .and_then(Value::as_array)
                .ok_or_else(|| bad("a compression rule without an \"entry\" list"))?;
            Nature::Compression(
                entries
                    .iter()
                    .enumerate()
                    .map(|(i, e)| entry(e).map_err(|err| prefix(err, &format!("entry {}", i + 1))))
                    .collect::<Result<_, _>>()?,
            )
        }
        "nature-no-compression" => Nature::NoCompression,
        "nature-fragmentation" => {
            return Err(bad("fragmentation rules are not read from rule files here"));
        }
        other => return Err(bad(format!("unknown rule-nature \"{other}\""))),
    };
    Ok(Rule { id, nature })
}

fn field_id(name: &str) -> Result<FieldId, SchcError> {
    Ok(match name {
        "fid-coap-version" => FieldId::CoapVersion,
        "fid-coap-type" => FieldId::CoapType,
        "fid-coap-tkl" => FieldId::CoapTkl,
        "fid-coap-code" => FieldId::CoapCode,
        "fid-coap-mid" => FieldId::CoapMid,
        "fid-coap-token" => FieldId::CoapToken,
        "fid-coap-option-oscore-flags" => FieldId::OscoreFlags,
        "fid-coap-option-oscore-piv" => FieldId::OscorePiv,
        "fid-coap-option-oscore-kidctx" => FieldId::OscoreKidCtx,
        "fid-coap-option-oscore-kid" => FieldId::OscoreKid,
        other => {
            let option = other.strip_prefix("fid-coap-option-");
            match option.and_then(|o| OPTIONS.iter().find(|(n, _)| *n == o)) {
                Some(&(_, number)) => FieldId::CoapOption(number),
                None => return Err(bad(format!("unknown field-id \"{other}\""))),
            }
        }
    })
}

fn entry(v: &Value) -> Result<Entry, SchcError> {
    let o = object(v, "an entry")?;
    only(
        o,
        &[
            "field-id",
            "field-length",
            "field-position",
            "direction-indicator",
            "target-value",
            "matching-operator",
            "matching-operator-value",
            "comp-decomp-action",
        ],
    )?;
    let field = field_id(identity(o, "field-id")?.ok_or_else(|| bad("no field-id"))?)?;
    let length = match o.get("field-length") {
        Some(Value::Number(n)) => Length::Fixed(
            n.as_u64()
                .filter(|&n| n <= 64 * 8)
                .ok_or_else(|| bad("field-length is not a number of bits"))? as usize,
        ),
        Some(Value::String(s)) => match unprefixed(s) {
            "fl-variable" => Length::Var,
            "fl-token-length" => Length::Tkl,
            "fl-oscore-piv" => Length::OscorePiv,
            "fl-variable-bits" => Length::VarBit,
            other => return Err(bad(format!("unknown field-length \"{other}\""))),
        },
        Some(_) => return Err(bad("field-length is neither bits nor a name")),
        None => match natural_length(field) {
            Some(n) => Length::Fixed(n),
            None => Length::Var,
        },
    };
    let position = uint(o, "field-position")?.unwrap_or(1);
    let position = u8::try_from(position).map_err(|_| bad("field-position over 255"))?;
    let direction = match identity(o, "direction-indicator")?.unwrap_or("di-bidirectional") {
        "di-bidirectional" => Direction::Bi,
        "di-up" => Direction::Up,
        "di-down" => Direction::Down,
        other => return Err(bad(format!("unknown direction-indicator \"{other}\""))),
    };
    let target = values(o, "target-value")?
        .into_iter()
        .map(|bytes| match length {
            Length::Fixed(n) => Bits::right_aligned(&bytes, n)
                .ok_or_else(|| bad(format!("a target value that does not fit {n} bits"))),
            _ => Ok(Bits::from_bytes(&bytes)),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let matching =
        match identity(o, "matching-operator")?.ok_or_else(|| bad("no matching-operator"))? {
            "mo-equal" => Matching::Equal,
            "mo-ignore" => Matching::Ignore,
            "mo-match-mapping" => Matching::MatchMapping,
            "mo-msb" => {
                let x = values(o, "matching-operator-value")?;
                let [x] = x.as_slice() else {
                    return Err(bad(
                        "mo-msb needs one matching-operator-value, its length in bits",
                    ));
                };
                let x = x.iter().fold(0usize, |v, b| {
                    v.saturating_mul(256).saturating_add(usize::from(*b))
                });
                Matching::Msb(x)
            }
            other => return Err(bad(format!("unknown matching-operator \"{other}\""))),
        };
    let action =
        match identity(o, "comp-decomp-action")?.ok_or_else(|| bad("no comp-decomp-action"))? {
            "cda-not-sent" => Action::NotSent,
            "cda-value-sent" => Action::ValueSent,
            "cda-mapping-sent" => Action::MappingSent,
            "cda-lsb" => Action::Lsb,
            other => {
                return Err(bad(format!(
                    "comp-decomp-action \"{other}\" is not one CoAP's fields take here \
                 (cda-not-sent, cda-value-sent, cda-mapping-sent, cda-lsb)"
                )));
            }
        };
    Ok(Entry {
        field,
        length,
        position,
        direction,
        target,
        matching,
        action,
    })
}

/// A list of `{"index": i, "value": base64}` in index order.
fn values(o: &Map<String, Value>, key: &str) -> Result<Vec<Vec<u8>>, SchcError> {
    let Some(list) = o.get(key) else {
        return Ok(Vec::new());
    };
    let list = list
        .as_array()
        .ok_or_else(|| bad(format!("{key} is not a list")))?;
    let mut out: Vec<(u64, Vec<u8>)> = Vec::new();
    for item in list {
        let item = object(item, key)?;
        only(item, &["index", "value"])?;
        let index = uint(item, "index")?.ok_or_else(|| bad(format!("{key} without an index")))?;
        let value = item
            .get("value")
            .and_then(Value::as_str)
            .ok_or_else(|| bad(format!("{key} {index} has no value")))?;
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(value)
            .map_err(|e| bad(format!("{key} {index} is not base64: {e}")))?;
        out.push((index, bytes));
    }
    out.sort_by_key(|(i, _)| *i);
    if out
        .iter()
        .enumerate()
        .any(|(i, (index, _))| *index != i as u64)
    {
        return Err(bad(format!("{key}'s indexes are not 0, 1, 2, ...")));
    }
    Ok(out.into_iter().map(|(_, v)| v).collect())
}

/// The rules ciphermeter's OSCORE readings and their 2.04 answers take by
/// default (`data/schc/default-rules.json`, docs/schc.md): rule 100 + n for
/// a partial IV and token of n = 1 to 3 bytes (sequence numbers below 2^24),
/// rule 22 (RFC 9011's choice) for anything else, sent whole.
pub fn default_rules() -> Result<RuleSet, SchcError> {
    parse(DEFAULT_RULES).map_err(|e| prefix(e, "data/schc/default-rules.json"))
}

const DEFAULT_RULES: &str = include_str!("../../../data/schc/default-rules.json");
