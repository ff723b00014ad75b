//! Protecting and verifying CoAP messages (RFC 8613 §5, §8): the inner
//! (class E) options and the payload are encrypted behind the code; the
//! outer message keeps the class U options, gets the OSCORE option and the
//! outer code (POST for a request, 2.04 Changed for a response).

use super::OscoreError;
use super::coap::{
    self, CoapOption, Message, Parsed, code, option, options_len, write_head, write_options,
};
use super::context::{Bytes, Context, MAX_ID, MAX_ID_CONTEXT, partial_iv, sequence_of};
use super::replay::ReplayWindow;
use crate::container::cbor::{self, ARRAY, UINT};
use crate::container::write::Writer;

const OSCORE_VERSION: usize = 1;
const PAYLOAD_MARKER: u8 = 0xff;
/// Flag bits of the OSCORE option's first byte (§6.1).
const FLAG_KID: u8 = 0x08;
const FLAG_KID_CONTEXT: u8 = 0x10;
const FLAG_RESERVED: u8 = 0xe0;

/// Options the outer message keeps (class U, §4.1); every other is class E.
fn outer(number: u16) -> bool {
    matches!(
        number,
        option::URI_HOST | option::URI_PORT | option::PROXY_URI | option::PROXY_SCHEME
    )
}

/// The OSCORE option's fields (§6.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OptionValue<'a> {
    pub partial_iv: Option<&'a [u8]>,
    pub kid_context: Option<&'a [u8]>,
    pub kid: Option<&'a [u8]>,
}

impl<'a> OptionValue<'a> {
    pub fn encoded_len(&self) -> usize {
        let fields = self.partial_iv.map_or(0, |p| p.len())
            + self.kid_context.map_or(0, |c| 1 + c.len())
            + self.kid.map_or(0, |k| k.len());
        let empty = self.partial_iv.is_none() && self.kid_context.is_none() && self.kid.is_none();
        if empty { 0 } else { 1 + fields }
    }

    pub fn write(&self, w: &mut Writer<'_>) {
        if self.encoded_len() == 0 {
            return;
        }
        let mut flags = self.partial_iv.map_or(0, |p| p.len() as u8);
        if self.kid.is_some() {
            flags |= FLAG_KID;
        }
        if self.kid_context.is_some() {
            flags |= FLAG_KID_CONTEXT;
        }
        w.byte(flags);
        if let Some(p) = self.partial_iv {
            w.bytes(p);
        }
        if let Some(c) = self.kid_context {
            w.byte(c.len() as u8);
            w.bytes(c);
        }
        if let Some(k) = self.kid {
            w.bytes(k);
        }
    }

    pub fn parse(value: &'a [u8]) -> Result<OptionValue<'a>, OscoreError> {
        let bad = OscoreError::BadOption;
        let Some((&flags, mut rest)) = value.split_first() else {
            return Ok(OptionValue::default());
        };
        if flags & FLAG_RESERVED != 0 {
            return Err(bad("reserved flag bits set"));
        }
        let n = (flags & 7) as usize;
        if n > 5 {
            return Err(bad("Partial IV over 5 bytes"));
        }
        fn take<'v>(rest: &mut &'v [u8], k: usize) -> Result<&'v [u8], OscoreError> {
            let (head, tail) = rest
                .split_at_checked(k)
                .ok_or(OscoreError::BadOption("ends inside a field"))?;
            *rest = tail;
            Ok(head)
        }
        let partial_iv = if n > 0 {
            Some(take(&mut rest, n)?)
        } else {
            None
        };
        let kid_context = if flags & FLAG_KID_CONTEXT != 0 {
            let s = take(&mut rest, 1)?[0] as usize;
            Some(take(&mut rest, s)?)
        } else {
            None
        };
        // The kid is the rest; without its flag, nothing may follow.
        let kid = if flags & FLAG_KID != 0 {
            Some(core::mem::take(&mut rest))
        } else {
            None
        };
        if !rest.is_empty() {
            return Err(bad("bytes after the fields its flags announce"));
        }
        Ok(OptionValue {
            partial_iv,
            kid_context,
            kid,
        })
    }
}

/// The request a response answers: its kid and Partial IV, which the
/// response's AAD (and, without its own Partial IV, its nonce) reuse.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RequestId {
    pub kid: Bytes<MAX_ID>,
    pub partial_iv: Bytes<5>,
}

/// The external AAD of §5.4 inside COSE's Enc_structure:
/// `["Encrypt0", h'', bstr([1, [alg], request_kid, request_piv, h''])]`.
pub fn write_aad(w: &mut Writer<'_>, ctx: &Context, request: &RequestId) {
    let kid = request.kid.as_slice();
    let piv = request.partial_iv.as_slice();
    let alg = ctx.alg.cose() as usize;
    let array = 1
        + cbor::head_len(OSCORE_VERSION)
        + 1
        + cbor::head_len(alg)
        + cbor::head_len(kid.len())
        + kid.len()
        + cbor::head_len(piv.len())
        + piv.len()
        + 1;
    cbor::head(w, ARRAY, 3);
    cbor::tstr(w, "Encrypt0");
    cbor::bstr(w, &[]);
    cbor::head(w, cbor::BYTES, array);
    cbor::head(w, ARRAY, 5);
    cbor::head(w, UINT, OSCORE_VERSION);
    cbor::head(w, ARRAY, 1);
    cbor::head(w, UINT, alg);
    cbor::bstr(w, kid);
    cbor::bstr(w, piv);
    cbor::bstr(w, &[]);
}

/// The longest AAD: the ids and Partial IV at their limits.
const MAX_AAD: usize = 1 + 9 + 1 + 2 + 1 + 1 + 1 + 2 + 1 + MAX_ID + 1 + 5 + 1;

fn aad<'b>(ctx: &Context, request: &RequestId, buf: &'b mut [u8; MAX_AAD]) -> &'b [u8] {
    let mut w = Writer::new(buf);
    write_aad(&mut w, ctx, request);
    let n = w.done().expect("MAX_AAD holds every AAD");
    &buf[..n]
}

/// The plaintext of §5.3: the inner code, the class E options, the payload.
fn plaintext_len(msg: &Message<'_>) -> Result<usize, OscoreError> {
    let inner = options_len(msg.options.iter().copied().filter(|o| !outer(o.number)))?;
    let payload = if msg.payload.is_empty() {
        0
    } else {
        1 + msg.payload.len()
    };
    Ok(1 + inner + payload)
}

/// Outer options, in order, with the OSCORE option among them.
fn outer_options<'o>(
    msg: &'o Message<'o>,
    oscore: &'o [u8],
) -> impl Iterator<Item = CoapOption<'o>> + Clone + 'o {
    let before = msg
        .options
        .iter()
        .copied()
        .filter(|o| outer(o.number) && o.number <= option::OSCORE);
    let after = msg
        .options
        .iter()
        .copied()
        .filter(|o| outer(o.number) && o.number > option::OSCORE);
    before
        .chain(core::iter::once(CoapOption {
            number: option::OSCORE,
            value: oscore,
        }))
        .chain(after)
}

/// Writes the protected message for `msg` into `out`: the outer code, the
/// OSCORE option `value`, then the encrypted inner message under `nonce`.
fn protect(
    ctx: &Context,
    msg: &Message<'_>,
    outer_code: u8,
    value: &OptionValue<'_>,
    nonce: &[u8],
    request: &RequestId,
    out: &mut [u8],
) -> Result<usize, OscoreError> {
    if msg.options.iter().any(|o| o.number == option::OSCORE) {
        return Err(OscoreError::Malformed(
            "the message already has an OSCORE option",
        ));
    }
    if msg.options.iter().any(|o| o.number == option::OBSERVE) {
        return Err(OscoreError::Malformed("Observe is not supported"));
    }
    let mut oscore = [0u8; 1 + 5 + 1 + MAX_ID_CONTEXT + MAX_ID];
    let oscore_len = {
        let mut w = Writer::new(&mut oscore);
        value.write(&mut w);
        w.done().map_err(OscoreError::Core)?
    };
    let plain = plaintext_len(msg)?;
    let tag = ctx.alg.tag_len();
    let mut w = Writer::new(out);
    write_head(&mut w, msg.mtype, outer_code, msg.message_id, msg.token)?;
    let options = outer_options(msg, &oscore[..oscore_len]);
    options_len(options.clone())?;
    write_options(&mut w, options);
    w.byte(PAYLOAD_MARKER);
    let start = w.position();
    // The inner message, in place, then encrypted there.
    w.byte(msg.code);
    write_options(
        &mut w,
        msg.options.iter().copied().filter(|o| !outer(o.number)),
    );
    if !msg.payload.is_empty() {
        w.byte(PAYLOAD_MARKER);
        w.bytes(msg.payload);
    }
    w.advance(tag);
    let end = w.done().map_err(|_| {
        OscoreError::Core(crate::error::Error::BufferTooSmall {
            need: start + plain + tag,
        })
    })?;
    debug_assert_eq!(end, start + plain + tag);
    let mut aad_buf = [0u8; MAX_AAD];
    let aad = aad(ctx, request, &mut aad_buf);
    let (body, tag_out) = out[start..end].split_at_mut(plain);
    ctx.seal(nonce, aad, body, tag_out)?;
    Ok(end)
}

/// Protects a request with the sender's next sequence number, which the
/// caller has reserved (and persisted) first: a number is never used twice.
/// Returns the message's length and the request's id for its response.
pub fn protect_request(
    ctx: &Context,
    sequence: u64,
    msg: &Message<'_>,
    out: &mut [u8],
) -> Result<(usize, RequestId), OscoreError> {
    let piv = partial_iv(sequence)?;
    let kid = ctx.sender_id;
    let value = OptionValue {
        partial_iv: Some(piv.as_slice()),
        kid_context: ctx.id_context.as_ref().map(|c| c.as_slice()),
        kid: Some(kid.as_slice()),
    };
    let request = RequestId {
        kid,
        partial_iv: piv,
    };
    let nonce = ctx.nonce(kid.as_slice(), piv.as_slice())?;
    let n = protect(
        ctx,
        msg,
        code::POST,
        &value,
        nonce.as_slice(),
        &request,
        out,
    )?;
    Ok((n, request))
}

/// Protects a response to `request`. With `sequence`, the response carries
/// its own Partial IV and nonce (§8.3, C.8); without, it reuses the request's
/// nonce (C.7), which only a first response to that request may do.
pub fn protect_response(
    ctx: &Context,
    request: &RequestId,
    sequence: Option<u64>,
    msg: &Message<'_>,
    out: &mut [u8],
) -> Result<usize, OscoreError> {
    match sequence {
        Some(s) => {
            let piv = partial_iv(s)?;
            let value = OptionValue {
                partial_iv: Some(piv.as_slice()),
                ..OptionValue::default()
            };
            let nonce = ctx.nonce(ctx.sender_id.as_slice(), piv.as_slice())?;
            protect(
                ctx,
                msg,
                code::CHANGED,
                &value,
                nonce.as_slice(),
                request,
                out,
            )
        }
        None => {
            let nonce = ctx.nonce(request.kid.as_slice(), request.partial_iv.as_slice())?;
            protect(
                ctx,
                msg,
                code::CHANGED,
                &OptionValue::default(),
                nonce.as_slice(),
                request,
                out,
            )
        }
    }
}

/// A verified message: the inner code, the class E options (encoded), the
/// payload, and the outer message's header and class U options.
#[derive(Clone, Copy, Debug)]
pub struct Unprotected<'a> {
    pub outer: Parsed<'a>,
    pub code: u8,
    pub options_raw: &'a [u8],
    pub payload: &'a [u8],
}

impl<'a> Unprotected<'a> {
    pub fn options(&self) -> coap::OptionIter<'a> {
        Parsed {
            options_raw: self.options_raw,
            ..self.outer
        }
        .options()
    }
}

/// Decrypts the ciphertext of `outer` into `buf` and reads the inner message.
fn open_into<'b>(
    ctx: &Context,
    outer: Parsed<'_>,
    nonce: &[u8],
    request: &RequestId,
    buf: &'b mut [u8],
) -> Result<(u8, &'b [u8], &'b [u8]), OscoreError> {
    let tag = ctx.alg.tag_len();
    let sealed = outer.payload;
    if sealed.len() < tag + 1 {
        return Err(OscoreError::DecryptionFailed);
    }
    let body_len = sealed.len() - tag;
    let body =
        buf.get_mut(..body_len)
            .ok_or(OscoreError::Core(crate::error::Error::BufferTooSmall {
                need: body_len,
            }))?;
    body.copy_from_slice(&sealed[..body_len]);
    let mut aad_buf = [0u8; MAX_AAD];
    let aad = aad(ctx, request, &mut aad_buf);
    if let Err(e) = ctx.open(nonce, aad, body, &sealed[body_len..]) {
        zeroize::Zeroize::zeroize(body);
        return Err(e);
    }
    let body = &buf[..body_len];
    let (options_raw, payload) = coap::split_options(&body[1..])?;
    Ok((body[0], options_raw, payload))
}

/// The message's one OSCORE option, read.
pub fn oscore_option<'m>(outer: &Parsed<'m>) -> Result<OptionValue<'m>, OscoreError> {
    let mut found = None;
    for o in outer.options() {
        let o = o?;
        if o.number == option::OSCORE {
            if found.is_some() {
                return Err(OscoreError::BadOption("two OSCORE options"));
            }
            found = Some(o.value);
        }
    }
    OptionValue::parse(found.ok_or(OscoreError::NotOscore)?)
}

/// Verifies a request (§8.2) against the recipient's context and replay
/// window, decrypting into `buf`. The window records the request only once
/// its tag verified. Returns the inner request and its id for the response.
pub fn unprotect_request<'m, 'b>(
    ctx: &Context,
    window: &mut ReplayWindow,
    message: &'m [u8],
    buf: &'b mut [u8],
) -> Result<(Unprotected<'b>, RequestId, u64), OscoreError>
where
    'm: 'b,
{
    let outer = coap::parse(message)?;
    let value = oscore_option(&outer)?;
    let (Some(piv), Some(kid)) = (value.partial_iv, value.kid) else {
        return Err(OscoreError::BadOption(
            "a request needs a kid and a Partial IV",
        ));
    };
    if kid != ctx.recipient_id.as_slice()
        || value
            .kid_context
            .is_some_and(|c| Some(c) != ctx.id_context.as_ref().map(|c| c.as_slice()))
    {
        return Err(OscoreError::UnknownContext);
    }
    let sequence = sequence_of(piv)?;
    window.check(sequence)?;
    let request = RequestId {
        kid: Bytes::new(kid).expect("checked against the context"),
        partial_iv: Bytes::new(piv).expect("at most 5 bytes"),
    };
    let nonce = ctx.nonce(kid, piv)?;
    let (code, options_raw, payload) = open_into(ctx, outer, nonce.as_slice(), &request, buf)?;
    window.accept(sequence);
    Ok((
        Unprotected {
            outer,
            code,
            options_raw,
            payload,
        },
        request,
        sequence,
    ))
}

/// Verifies a response to `request` (§8.4).
pub fn unprotect_response<'m, 'b>(
    ctx: &Context,
    request: &RequestId,
    message: &'m [u8],
    buf: &'b mut [u8],
) -> Result<Unprotected<'b>, OscoreError>
where
    'm: 'b,
{
    let outer = coap::parse(message)?;
    let value = oscore_option(&outer)?;
    let nonce = match value.partial_iv {
        Some(piv) => ctx.nonce(ctx.recipient_id.as_slice(), piv)?,
        None => ctx.nonce(request.kid.as_slice(), request.partial_iv.as_slice())?,
    };
    let (code, options_raw, payload) = open_into(ctx, outer, nonce.as_slice(), request, buf)?;
    Ok(Unprotected {
        outer,
        code,
        options_raw,
        payload,
    })
}
