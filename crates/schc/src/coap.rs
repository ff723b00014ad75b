//! A CoAP message as SCHC sees it (RFC 8824): the header fields, each option
//! as one field (repeated ones by position), the OSCORE option as its four
//! parts (§6.4), and the payload. The payload marker is no field: it is never
//! sent, and comes back with a payload. Parsing and writing the message are
//! the sealing core's (`seal::oscore::coap`).

use alloc::string::ToString;
use alloc::vec;
use alloc::vec::Vec;

use seal::oscore::coap::{self as wire, CoapOption, Message, MessageType};

use crate::bits::Bits;
use crate::error::SchcError;
use crate::rule::FieldId;

/// The OSCORE option's number (RFC 8613 §2).
pub const OSCORE: u16 = 9;

/// One field of a message: which, which occurrence, and its value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    pub id: FieldId,
    pub position: u8,
    pub value: Bits,
}

/// A message's fields in order, and its payload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fields {
    pub fields: Vec<Field>,
    pub payload: Vec<u8>,
}

fn malformed(why: impl ToString) -> SchcError {
    SchcError::Malformed(why.to_string())
}

/// The fields of the CoAP message `packet`.
pub fn fields(packet: &[u8]) -> Result<Fields, SchcError> {
    let m = wire::parse(packet).map_err(malformed)?;
    let mut fields = vec![
        field(FieldId::CoapVersion, 1, Bits::from_uint(1, 2)),
        field(FieldId::CoapType, 1, Bits::from_uint(m.mtype as u64, 2)),
        field(
            FieldId::CoapTkl,
            1,
            Bits::from_uint(m.token.len() as u64, 4),
        ),
        field(FieldId::CoapCode, 1, Bits::from_uint(m.code.into(), 8)),
        field(
            FieldId::CoapMid,
            1,
            Bits::from_uint(m.message_id.into(), 16),
        ),
    ];
    if !m.token.is_empty() {
        fields.push(field(FieldId::CoapToken, 1, Bits::from_bytes(m.token)));
    }
    push_options(&mut fields, m.options())?;
    Ok(Fields {
        fields,
        payload: m.payload.to_vec(),
    })
}

/// The fields of an OSCORE plaintext (RFC 8613 §5.3, RFC 8824 §7.2): the
/// inner code, the class E options, and the payload after its marker.
pub fn plaintext_fields(plaintext: &[u8]) -> Result<Fields, SchcError> {
    let (&code, rest) = plaintext
        .split_first()
        .ok_or_else(|| malformed("an empty OSCORE plaintext"))?;
    let (options_raw, payload) = wire::split_options(rest).map_err(malformed)?;
    let parsed = wire::Parsed {
        mtype: MessageType::NonConfirmable,
        code,
        message_id: 0,
        token: &[],
        options_raw,
        payload,
    };
    let mut fields = vec![field(FieldId::CoapCode, 1, Bits::from_uint(code.into(), 8))];
    push_options(&mut fields, parsed.options())?;
    Ok(Fields {
        fields,
        payload: payload.to_vec(),
    })
}

/// Each option as a field (repeated ones by position), OSCORE's as its four parts.
fn push_options<'a>(
    fields: &mut Vec<Field>,
    options: impl Iterator<Item = Result<CoapOption<'a>, seal::oscore::OscoreError>>,
) -> Result<(), SchcError> {
    let mut seen: Vec<(u16, u8)> = Vec::new();
    for option in options {
        let option = option.map_err(malformed)?;
        if option.number == OSCORE {
            fields.extend(oscore_fields(option.value)?);
            continue;
        }
        let position = match seen.iter_mut().find(|(n, _)| *n == option.number) {
            Some((_, count)) => {
                *count = count
                    .checked_add(1)
                    .ok_or_else(|| malformed("over 255 of one option"))?;
                *count
            }
            None => {
                seen.push((option.number, 1));
                1
            }
        };
        fields.push(field(
            FieldId::CoapOption(option.number),
            position,
            Bits::from_bytes(option.value),
        ));
    }
    Ok(())
}

fn field(id: FieldId, position: u8, value: Bits) -> Field {
    Field {
        id,
        position,
        value,
    }
}

/// The OSCORE option's value (RFC 8613 §6.1) as flags, partial IV, kid
/// context (with its size byte) and kid; all four empty for an empty value.
fn oscore_fields(value: &[u8]) -> Result<[Field; 4], SchcError> {
    let part = |id, bytes: &[u8]| field(id, 1, Bits::from_bytes(bytes));
    let Some((&flags, rest)) = value.split_first() else {
        return Ok([
            part(FieldId::OscoreFlags, &[]),
            part(FieldId::OscorePiv, &[]),
            part(FieldId::OscoreKidCtx, &[]),
            part(FieldId::OscoreKid, &[]),
        ]);
    };
    let (n, h, k) = oscore_flags(flags)?;
    let (piv, rest) = rest
        .split_at_checked(n)
        .ok_or_else(|| malformed("the OSCORE option ends inside its partial IV"))?;
    let (ctx, kid) = if h {
        let s = *rest
            .first()
            .ok_or_else(|| malformed("the OSCORE option ends before its kid context"))?;
        rest.split_at_checked(1 + usize::from(s))
            .ok_or_else(|| malformed("the OSCORE option ends inside its kid context"))?
    } else {
        (&[][..], rest)
    };
    if !k && !kid.is_empty() {
        return Err(malformed("the OSCORE option has bytes after its fields"));
    }
    Ok([
        part(FieldId::OscoreFlags, &[flags]),
        part(FieldId::OscorePiv, piv),
        part(FieldId::OscoreKidCtx, ctx),
        part(FieldId::OscoreKid, kid),
    ])
}

/// (n, h, k) of an OSCORE flags byte; reserved bits and n of 6 or 7 are refused.
pub fn oscore_flags(flags: u8) -> Result<(usize, bool, bool), SchcError> {
    let n = usize::from(flags & 7);
    if flags & 0xe0 != 0 || n > 5 {
        return Err(malformed(
            "an OSCORE flags byte with reserved bits or n over 5",
        ));
    }
    Ok((n, flags & 0x10 != 0, flags & 0x08 != 0))
}

fn inconsistent(why: &'static str) -> SchcError {
    SchcError::Inconsistent(why)
}

/// The CoAP message of `fields` and `payload`.
pub fn message(fields: &[Field], payload: &[u8]) -> Result<Vec<u8>, SchcError> {
    let one = |id| fields.iter().find(|f| f.id == id).map(|f| &f.value);
    let uint = |id, what| one(id).and_then(Bits::to_uint).ok_or(inconsistent(what));
    if uint(FieldId::CoapVersion, "no CoAP version")? != 1 {
        return Err(inconsistent("not CoAP version 1"));
    }
    let mtype = match uint(FieldId::CoapType, "no CoAP type")? {
        0 => MessageType::Confirmable,
        1 => MessageType::NonConfirmable,
        2 => MessageType::Acknowledgement,
        _ => MessageType::Reset,
    };
    let tkl = uint(FieldId::CoapTkl, "no token length")? as usize;
    if tkl > 8 {
        return Err(inconsistent("a token over 8 bytes"));
    }
    let token = match one(FieldId::CoapToken) {
        Some(t) => t
            .whole_bytes()
            .ok_or(inconsistent("a token of part of a byte"))?,
        None => &[],
    };
    if token.len() != tkl {
        return Err(inconsistent("the token is not as long as its TKL"));
    }
    let oscore = oscore_value(fields)?;
    let options = options(fields, oscore.as_deref())?;
    let message = Message {
        mtype,
        code: code(fields)?,
        message_id: u16::try_from(uint(FieldId::CoapMid, "no message id")?)
            .map_err(|_| inconsistent("a message id over 16 bits"))?,
        token,
        options: &options,
        payload,
    };
    encode(&message)
}

/// The OSCORE plaintext of `fields` (the inner code and options) and
/// `payload`: what an inner rule (RFC 8824 §7.2) rebuilds. A field of the
/// outer header is refused: its rule is not one for a plaintext.
pub fn plaintext(fields: &[Field], payload: &[u8]) -> Result<Vec<u8>, SchcError> {
    if fields
        .iter()
        .any(|f| !matches!(f.id, FieldId::CoapCode | FieldId::CoapOption(_)))
    {
        return Err(inconsistent(
            "a rule of a whole CoAP message, not of an OSCORE plaintext",
        ));
    }
    write_plaintext(code(fields)?, &options(fields, None)?, payload)
}

/// An OSCORE plaintext from its code, options (in number order) and payload.
pub fn write_plaintext(
    code: u8,
    options: &[CoapOption<'_>],
    payload: &[u8],
) -> Result<Vec<u8>, SchcError> {
    let message = Message {
        mtype: MessageType::NonConfirmable,
        code,
        message_id: 0,
        token: &[],
        options,
        payload,
    };
    // The plaintext is the message less its header (4 bytes, no token) but its code.
    let mut out = encode(&message)?;
    out.drain(..4);
    out.insert(0, code);
    Ok(out)
}

fn code(fields: &[Field]) -> Result<u8, SchcError> {
    let value = fields.iter().find(|f| f.id == FieldId::CoapCode);
    let value = value
        .and_then(|f| f.value.to_uint())
        .ok_or(inconsistent("no CoAP code"))?;
    u8::try_from(value).map_err(|_| inconsistent("a code over 8 bits"))
}

/// The options of `fields`, and the OSCORE option's `oscore` value, in number order.
fn options<'f>(
    fields: &'f [Field],
    oscore: Option<&'f [u8]>,
) -> Result<Vec<CoapOption<'f>>, SchcError> {
    let mut options: Vec<CoapOption<'_>> = Vec::new();
    for f in fields {
        if let FieldId::CoapOption(number) = f.id {
            let value = f
                .value
                .whole_bytes()
                .ok_or(inconsistent("an option value of part of a byte"))?;
            options.push(CoapOption { number, value });
        }
    }
    if let Some(value) = oscore {
        options.push(CoapOption {
            number: OSCORE,
            value,
        });
    }
    // Rules list options in number order; a stable sort keeps repeated ones in theirs.
    options.sort_by_key(|o| o.number);
    Ok(options)
}

fn encode(message: &Message<'_>) -> Result<Vec<u8>, SchcError> {
    let room = 4
        + message.token.len()
        + message
            .options
            .iter()
            .map(|o| 5 + o.value.len())
            .sum::<usize>()
        + 1
        + message.payload.len();
    let mut out = vec![0u8; room];
    let len = wire::encode(message, &mut out)
        .map_err(|_| inconsistent("the options cannot be written"))?;
    out.truncate(len);
    Ok(out)
}

/// The OSCORE option's value from its four parts, checked against its flags;
/// none when the message has no OSCORE option.
fn oscore_value(fields: &[Field]) -> Result<Option<Vec<u8>>, SchcError> {
    let part = |id| {
        fields
            .iter()
            .find(|f| f.id == id)
            .map(|f| f.value.whole_bytes())
    };
    let parts = [
        part(FieldId::OscoreFlags),
        part(FieldId::OscorePiv),
        part(FieldId::OscoreKidCtx),
        part(FieldId::OscoreKid),
    ];
    if parts.iter().all(Option::is_none) {
        return Ok(None);
    }
    let [
        Some(Some(flags)),
        Some(Some(piv)),
        Some(Some(ctx)),
        Some(Some(kid)),
    ] = parts
    else {
        return Err(inconsistent(
            "an OSCORE option without all four of its parts in whole bytes",
        ));
    };
    let Some(&f) = flags.first() else {
        return if piv.is_empty() && ctx.is_empty() && kid.is_empty() {
            Ok(Some(Vec::new()))
        } else {
            Err(inconsistent("OSCORE parts without a flags byte"))
        };
    };
    let (n, h, k) = oscore_flags(f).map_err(|_| inconsistent("a reserved OSCORE flag"))?;
    let ctx_fits = if h {
        ctx.first()
            .is_some_and(|&s| usize::from(s) + 1 == ctx.len())
    } else {
        ctx.is_empty()
    };
    if flags.len() != 1 || piv.len() != n || !ctx_fits || (!k && !kid.is_empty()) {
        return Err(inconsistent("OSCORE parts that disagree with their flags"));
    }
    Ok(Some([flags, piv, ctx, kid].concat()))
}
