//! `lorawan encode` and `lorawan decode` as the CLI takes and shows them: hex
//! in, a PHYPayload or its fields out (`link::lorawan_frame` does the work).

use link::lorawan::DataRate;
use link::lorawan_frame::{self, MAX_FOPTS, Opened, SessionKeys, Uplink};
use serde_json::{Value, json};

use crate::Error;

/// An uplink as given on the command line.
pub struct EncodeRequest<'a> {
    pub confirmed: bool,
    pub adr: bool,
    pub ack: bool,
    pub dev_addr: &'a str,
    pub f_cnt: u32,
    pub f_port: Option<u8>,
    /// FPort 224 is the test protocol and 225-255 are reserved (LoRaWAN 1.0.x §4.3.2).
    pub allow_reserved_port: bool,
    pub payload: &'a str,
    pub f_opts: &'a str,
}

/// The session keys from 32 hex digits each.
pub fn keys(nwk_s_key: &str, app_s_key: &str) -> Result<SessionKeys, Error> {
    let key = |flag: &str, text: &str| -> Result<[u8; 16], Error> {
        let bytes = bytes(flag, text)?;
        <[u8; 16]>::try_from(bytes.as_slice()).map_err(|_| {
            Error::invalid(format!(
                "{flag}: give 16 bytes (32 hex digits), not {}",
                bytes.len()
            ))
        })
    };
    Ok(SessionKeys {
        nwk_s_key: key("--nwk-s-key", nwk_s_key)?,
        app_s_key: key("--app-s-key", app_s_key)?,
    })
}

fn bytes(flag: &str, text: &str) -> Result<Vec<u8>, Error> {
    payload::decode_hex(text).map_err(|e| Error::invalid(format!("{flag}: not hex ({e})")))
}

/// MAC commands for FOpts from hex (`--f-opts`), at most 15 bytes.
pub fn f_opts(text: &str) -> Result<Vec<u8>, Error> {
    let b = bytes("--f-opts", text)?;
    if b.len() > MAX_FOPTS {
        return Err(Error::invalid(format!(
            "--f-opts: FOpts holds at most {MAX_FOPTS} bytes, not {}",
            b.len()
        )));
    }
    Ok(b)
}

/// The real uplinks that carry `data` at `rate`, in the sealing core's
/// fragments when it needs several (`DataRate::message_with_fopts`: `f_opts`
/// in the first frame),
/// on FPort 1 with consecutive counters, under fresh random session keys: the
/// keys change the frames' content, not their length. A frame whose length
/// differs from the model's is an error, so the model can never drift from
/// the frames it stands for.
pub fn message_frames(data: &[u8], rate: &DataRate, f_opts: &[u8]) -> Result<Vec<Vec<u8>>, Error> {
    let msg = rate
        .message_with_fopts(
            crate::message::message_len(data.len())?,
            f_opts.len() as u32,
        )
        .map_err(Error::invalid)?;
    let mut keys = SessionKeys {
        nwk_s_key: [0; 16],
        app_s_key: [0; 16],
    };
    getrandom::fill(&mut keys.nwk_s_key)
        .and_then(|()| getrandom::fill(&mut keys.app_s_key))
        .map_err(|e| Error::failed(format!("operating system random generator: {e}")))?;
    let room = (rate.max_payload as usize).saturating_sub(f_opts.len());
    let mut frames = Vec::with_capacity(msg.frame_payloads.len());
    let mut chunk = vec![0u8; room.max(data.len())];
    for (i, &model) in msg.frame_bytes.iter().enumerate() {
        // The message whole, or its i-th fragment as the sealing core cuts it.
        let n = seal::fragment::write(data, room, 0, i, &mut chunk)
            .map_err(|e| Error::invalid(e.to_string()))?;
        let up = Uplink {
            confirmed: false,
            dev_addr: 0x2600_0001,
            adr: false,
            ack: false,
            f_cnt: i as u32,
            f_opts: if i == 0 { f_opts.to_vec() } else { Vec::new() },
            f_port: Some(1),
            frm_payload: chunk[..n].to_vec(),
        };
        let frame = lorawan_frame::encode(&up, &keys).map_err(Error::invalid)?;
        if frame.len() != model as usize {
            return Err(Error::failed(format!(
                "frame {i}: the link model counts {model} B, the real frame has {} B",
                frame.len()
            )));
        }
        frames.push(frame);
    }
    Ok(frames)
}

/// The PHYPayload of `req`, in hex.
pub fn encode(req: &EncodeRequest, keys: &SessionKeys) -> Result<String, Error> {
    let addr = bytes("--dev-addr", req.dev_addr)?;
    let dev_addr = <[u8; 4]>::try_from(addr.as_slice())
        .map(u32::from_be_bytes)
        .map_err(|_| Error::invalid("--dev-addr: give 4 bytes (8 hex digits), e.g. 26011BDA"))?;
    if let Some(port @ 224..) = req.f_port
        && !req.allow_reserved_port
    {
        let what = if port == 224 {
            "is LoRaWAN's test protocol"
        } else {
            "is reserved for future use"
        };
        return Err(Error::invalid(format!(
            "--f-port {port} {what} (LoRaWAN 1.0.x §4.3.2); applications use 1-223, or add --allow-reserved-port"
        )));
    }
    let up = Uplink {
        confirmed: req.confirmed,
        dev_addr,
        adr: req.adr,
        ack: req.ack,
        f_cnt: req.f_cnt,
        f_opts: bytes("--f-opts", req.f_opts)?,
        f_port: req.f_port,
        frm_payload: bytes("--payload", req.payload)?,
    };
    let frame = lorawan_frame::encode(&up, keys).map_err(Error::invalid)?;
    Ok(hex::encode_upper(frame))
}

pub fn decode(phy: &str, keys: &SessionKeys, last_f_cnt: Option<u32>) -> Result<Opened, Error> {
    let phy = bytes("PHYPAYLOAD", phy)?;
    lorawan_frame::decode(&phy, keys, last_f_cnt).map_err(Error::invalid)
}

/// An opened frame whose MIC does not verify is refused (after it is shown).
pub fn check_mic(o: &Opened) -> Result<(), Error> {
    match o.mic_ok {
        true => Ok(()),
        false => Err(Error::invalid(
            "the MIC does not verify: tampered, or not this NwkSKey",
        )),
    }
}

/// DevAddr as it is written (big-endian hex), the payload in hex. With a
/// failed MIC the payload was not decrypted: `frm_payload` (always plaintext
/// otherwise) is null and the bytes as sent are in `frm_payload_encrypted`.
pub fn json(o: &Opened) -> Value {
    let u = &o.uplink;
    let (plain, encrypted) = match o.mic_ok {
        true => (Some(hex::encode_upper(&u.frm_payload)), None),
        false => (None, Some(hex::encode_upper(&u.frm_payload))),
    };
    json!({
        "dev_addr": format!("{:08X}", u.dev_addr),
        "confirmed": u.confirmed,
        "adr": u.adr,
        "ack": u.ack,
        "f_cnt": u.f_cnt,
        "f_opts": hex::encode_upper(&u.f_opts),
        "f_port": u.f_port,
        "frm_payload": plain,
        "frm_payload_encrypted": encrypted,
        "mic_ok": o.mic_ok,
    })
}

pub fn text(o: &Opened) -> String {
    let u = &o.uplink;
    let payload = if o.mic_ok {
        hex::encode_upper(&u.frm_payload)
    } else {
        "(left encrypted: the MIC does not verify)".into()
    };
    format!(
        "{} uplink from {:08X}, FCnt {}, FPort {}, FOpts {}\nFRMPayload {payload}\nMIC {}\n",
        if u.confirmed {
            "confirmed"
        } else {
            "unconfirmed"
        },
        u.dev_addr,
        u.f_cnt,
        u.f_port.map_or("none".into(), |p| p.to_string()),
        if u.f_opts.is_empty() {
            "none".into()
        } else {
            hex::encode_upper(&u.f_opts)
        },
        if o.mic_ok { "ok" } else { "FAILED" },
    )
}
