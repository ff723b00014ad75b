//! LoRaWAN 1.0.x uplink data frames, built and opened for real (LoRaWAN 1.0.3,
//! sections 4.3 and 4.4):
//!
//! `PHYPayload = MHDR | DevAddr | FCtrl | FCnt(16) | FOpts | [FPort | FRMPayload] | MIC`
//!
//! FRMPayload is encrypted with the AppSKey (FPort > 0) or the NwkSKey (FPort 0)
//! as `payload XOR AES(K, A_i)`. The MIC is the first four bytes of
//! AES-CMAC(NwkSKey, B_0 | msg). Both blocks carry the full 32-bit frame
//! counter, of which only the low 16 bits travel. The MIC is the network's
//! key only, so the network operator can read and forge application data;
//! an end-to-end sealed message inside FRMPayload is what protects it.

use aes::Aes128;
use cipher::{BlockCipherEncrypt, KeyInit};
use cmac::{Cmac, Mac};
use subtle::ConstantTimeEq;
use zeroize::{Zeroize, ZeroizeOnDrop};

use crate::error::LinkError;

/// MHDR | FHDR without FOpts | MIC: the bytes every uplink carries.
pub const MIN_FRAME: usize = 1 + 7 + MIC_LEN;
pub const MAX_FOPTS: usize = 15;
pub const MIC_LEN: usize = 4;
const UNCONFIRMED_UP: u8 = 0x40;
const CONFIRMED_UP: u8 = 0x80;

/// The two 1.0.x session keys of one device.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct SessionKeys {
    pub nwk_s_key: [u8; 16],
    pub app_s_key: [u8; 16],
}

/// An uplink's fields, with FRMPayload in the clear.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Uplink {
    pub confirmed: bool,
    pub dev_addr: u32,
    pub adr: bool,
    pub ack: bool,
    /// The full 32-bit counter; its low 16 bits are sent.
    pub f_cnt: u32,
    /// MAC commands piggybacked in the header, at most 15 bytes.
    pub f_opts: Vec<u8>,
    /// None: no FPort and no FRMPayload.
    pub f_port: Option<u8>,
    pub frm_payload: Vec<u8>,
}

/// An opened uplink: its fields, and whether the MIC verified.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opened {
    pub uplink: Uplink,
    pub mic_ok: bool,
}

impl Uplink {
    /// Bytes on air: the frame's length without building it.
    pub fn frame_len(&self) -> usize {
        phy_len(
            self.f_opts.len(),
            self.f_port.map(|_| self.frm_payload.len()),
        )
    }

    fn check(&self) -> Result<(), LinkError> {
        if self.f_opts.len() > MAX_FOPTS {
            return Err(LinkError::invalid(format!(
                "FOpts holds at most {MAX_FOPTS} bytes, not {}",
                self.f_opts.len()
            )));
        }
        match self.f_port {
            None if !self.frm_payload.is_empty() => Err(LinkError::invalid(
                "a FRMPayload needs an FPort (0 for MAC commands, 1-223 for applications)",
            )),
            Some(0) if !self.f_opts.is_empty() => Err(LinkError::invalid(
                "FPort 0 carries MAC commands in FRMPayload, so FOpts must be empty",
            )),
            _ => Ok(()),
        }
    }
}

/// PHYPayload bytes of an uplink with `f_opts` bytes of FOpts and, when it has
/// an FPort, `frm_payload` bytes of FRMPayload.
pub fn phy_len(f_opts: usize, frm_payload: Option<usize>) -> usize {
    MIN_FRAME + f_opts + frm_payload.map_or(0, |n| 1 + n)
}

/// Builds the PHYPayload of `up` under `keys`.
pub fn encode(up: &Uplink, keys: &SessionKeys) -> Result<Vec<u8>, LinkError> {
    up.check()?;
    let mut frame = Vec::with_capacity(up.frame_len());
    frame.push(if up.confirmed {
        CONFIRMED_UP
    } else {
        UNCONFIRMED_UP
    });
    frame.extend_from_slice(&up.dev_addr.to_le_bytes());
    frame.push(u8::from(up.adr) << 7 | u8::from(up.ack) << 5 | up.f_opts.len() as u8);
    frame.extend_from_slice(&(up.f_cnt as u16).to_le_bytes());
    frame.extend_from_slice(&up.f_opts);
    if let Some(port) = up.f_port {
        frame.push(port);
        let mut payload = up.frm_payload.clone();
        crypt(payload_key(port, keys), up.dev_addr, up.f_cnt, &mut payload);
        frame.extend_from_slice(&payload);
    }
    let mic = mic(&keys.nwk_s_key, up.dev_addr, up.f_cnt, &frame)?;
    frame.extend_from_slice(&mic);
    Ok(frame)
}

/// Opens a PHYPayload. `last_f_cnt` is the highest counter seen from this
/// device, from which the full counter is rebuilt (`full_f_cnt`); None for a
/// device's first frame. A frame whose MIC fails is returned with
/// `mic_ok: false` and its payload left encrypted: it is not the device's.
pub fn decode(
    phy: &[u8],
    keys: &SessionKeys,
    last_f_cnt: Option<u32>,
) -> Result<Opened, LinkError> {
    if phy.len() < MIN_FRAME {
        return Err(LinkError::invalid(format!(
            "a LoRaWAN uplink has at least {MIN_FRAME} bytes, not {}",
            phy.len()
        )));
    }
    let confirmed = match phy[0] {
        UNCONFIRMED_UP => false,
        CONFIRMED_UP => true,
        other => {
            return Err(LinkError::invalid(format!(
                "MHDR 0x{other:02x} is not a LoRaWAN 1.0 data uplink (0x40 or 0x80)"
            )));
        }
    };
    let (msg, mic_bytes) = phy.split_at(phy.len() - 4);
    let dev_addr = u32::from_le_bytes([msg[1], msg[2], msg[3], msg[4]]);
    let f_ctrl = msg[5];
    let f_cnt16 = u16::from_le_bytes([msg[6], msg[7]]);
    let opts_len = usize::from(f_ctrl & 0x0f);
    let Some(f_opts) = msg.get(8..8 + opts_len) else {
        return Err(LinkError::invalid(format!(
            "FCtrl announces {opts_len} bytes of FOpts, but the frame ends first"
        )));
    };
    let rest = &msg[8 + opts_len..];
    let f_cnt = match last_f_cnt {
        Some(last) => full_f_cnt(last, f_cnt16),
        None => u32::from(f_cnt16),
    };
    let mic_ok = bool::from(mic(&keys.nwk_s_key, dev_addr, f_cnt, msg)?.ct_eq(mic_bytes));
    let (f_port, mut frm_payload) = match rest.split_first() {
        Some((&port, payload)) => (Some(port), payload.to_vec()),
        None => (None, Vec::new()),
    };
    if let (Some(port), true) = (f_port, mic_ok) {
        crypt(payload_key(port, keys), dev_addr, f_cnt, &mut frm_payload);
    }
    let uplink = Uplink {
        confirmed,
        dev_addr,
        adr: f_ctrl & 0x80 != 0,
        ack: f_ctrl & 0x20 != 0,
        f_cnt,
        f_opts: f_opts.to_vec(),
        f_port,
        frm_payload,
    };
    if mic_ok {
        uplink.check()?;
    }
    Ok(Opened { uplink, mic_ok })
}

/// The 32-bit counter nearest above `last` whose low 16 bits are `sent`: a
/// frame counter only grows, so a smaller value wrapped its low half.
pub fn full_f_cnt(last: u32, sent: u16) -> u32 {
    let candidate = (last & 0xffff_0000) | u32::from(sent);
    if candidate < last {
        candidate.wrapping_add(0x1_0000)
    } else {
        candidate
    }
}

fn payload_key(port: u8, keys: &SessionKeys) -> &[u8; 16] {
    if port == 0 {
        &keys.nwk_s_key
    } else {
        &keys.app_s_key
    }
}

/// A_i and B_0 share one layout: tag, 4 zero bytes, direction (0 = up),
/// DevAddr, the full FCnt, a zero byte, and a last byte.
fn block(tag: u8, dev_addr: u32, f_cnt: u32, last: u8) -> [u8; 16] {
    let mut b = [0u8; 16];
    b[0] = tag;
    b[6..10].copy_from_slice(&dev_addr.to_le_bytes());
    b[10..14].copy_from_slice(&f_cnt.to_le_bytes());
    b[15] = last;
    b
}

/// XORs `data` with AES(K, A_1) | AES(K, A_2) | ...: encryption and decryption alike.
fn crypt(key: &[u8; 16], dev_addr: u32, f_cnt: u32, data: &mut [u8]) {
    let aes = Aes128::new(key.into());
    for (i, chunk) in data.chunks_mut(16).enumerate() {
        let mut s = block(0x01, dev_addr, f_cnt, (i + 1) as u8).into();
        aes.encrypt_block(&mut s);
        for (d, k) in chunk.iter_mut().zip(s.iter()) {
            *d ^= k;
        }
    }
}

fn mic(nwk: &[u8; 16], dev_addr: u32, f_cnt: u32, msg: &[u8]) -> Result<[u8; 4], LinkError> {
    let len = u8::try_from(msg.len())
        .map_err(|_| LinkError::invalid(format!("a {}-byte uplink is too long", msg.len())))?;
    let mut cmac = <Cmac<Aes128> as KeyInit>::new(nwk.into());
    cmac.update(&block(0x49, dev_addr, f_cnt, len));
    cmac.update(msg);
    let tag = cmac.finalize().into_bytes();
    Ok([tag[0], tag[1], tag[2], tag[3]])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_counter_is_rebuilt_across_the_16_bit_wrap() {
        assert_eq!(full_f_cnt(0, 5), 5);
        assert_eq!(full_f_cnt(0xfffe, 0xffff), 0xffff);
        assert_eq!(full_f_cnt(0xffff, 0x0001), 0x1_0001);
        assert_eq!(full_f_cnt(0x1_2345, 0x2345), 0x1_2345);
        assert_eq!(full_f_cnt(0x2_0010, 0x0005), 0x3_0005);
    }
}
