//! An image and its signature delivered to the device on one link, in the
//! way updates travel there: LoRaWAN by FUOTA (TS004 fragments, with
//! redundancy, to a TS005 class C multicast group), BLE by MCUmgr's SMP
//! image upload (one request per ATT write), 802.15.4 by CoAP block-wise
//! transfer (RFC 7959, one block a frame). Frames and time on air come from
//! the link catalogue's own models (`lorawan`, `downlink`); only what each
//! update protocol adds per frame is data/firmware-update.toml's.

use link::{LinkSpec, Micros};
use serde::Serialize;

use super::facts::{Coap, Facts, Fuota, Smp};
use crate::Error;

/// What delivering `bytes` costs on the link.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Delivery {
    /// How the image travels, in words.
    pub method: String,
    /// Image plus signature.
    pub bytes: u32,
    /// Image bytes each frame carries.
    pub chunk_bytes: u32,
    /// Frames carrying the image once.
    pub data_frames: u32,
    /// FUOTA's coded redundancy frames (none elsewhere).
    pub redundancy_frames: u32,
    pub frames: u32,
    /// Every frame's bytes on air (LoRaWAN: PHYPayload).
    pub on_air_bytes: u64,
    /// The sender's transmitter-on time, seconds.
    pub airtime_s: f64,
    /// The device's receiver-on time, seconds.
    pub receive_s: f64,
}

/// The delivery of `bytes` on `link`; `redundancy_percent` is FUOTA's.
pub fn deliver(
    link: &LinkSpec,
    bytes: u32,
    redundancy_percent: u32,
    facts: &Facts,
) -> Result<Delivery, Error> {
    if let Some(w) = &link.lorawan {
        return fuota(w, bytes, redundancy_percent, &facts.fuota);
    }
    match link.protocol.as_ref().map(|p| p.kind()) {
        Some("ble-connection") => smp(link, bytes, &facts.smp),
        Some("ieee802154") => coap(link, bytes, &facts.coap),
        _ => Err(Error::invalid(format!(
            "update-cost knows how an update travels on LoRaWAN (FUOTA), BLE (SMP over GATT) and 802.15.4 (CoAP block-wise) links; '{}' is a {} link",
            link.name,
            link.kind()
        ))),
    }
}

/// TS004 fragments of equal size (the last padded: FragSessionSetupReq's Padding)
/// at the multicast session's data rate, plus ⌈M × r⌉ coded fragments. A
/// class C device keeps its receiver on for the whole session, which the
/// gateway's duty cycle stretches to time on air ÷ duty cycle.
fn fuota(
    w: &link::catalogue::LorawanSpec,
    bytes: u32,
    redundancy: u32,
    f: &Fuota,
) -> Result<Delivery, Error> {
    // The multicast session sends at the downlink rate the link's uplink
    // rate maps to with no offset (EU868: the same DR).
    let dr = w.region.rx1_data_rate(w.dr, 0).map_err(Error::invalid)?;
    let header = f.header_bytes.value;
    let chunk = dr
        .max_payload
        .checked_sub(header)
        .filter(|&c| c > 0)
        .ok_or_else(|| {
            Error::invalid(format!(
                "{} DR{} carries {} B, no room after TS004's {header}-byte fragment header",
                w.region, dr.dr, dr.max_payload
            ))
        })?;
    let data = bytes.div_ceil(chunk);
    let coded = (u64::from(data) * u64::from(redundancy)).div_ceil(100) as u32;
    let frames = data + coded;
    if frames > f.max_fragments.value {
        return Err(Error::invalid(format!(
            "{bytes} B in {chunk}-byte fragments at {} DR{} is {frames} fragments ({data} + {coded} redundancy); TS004 numbers at most {}: choose a faster data rate or less redundancy",
            w.region, dr.dr, f.max_fragments.value
        )));
    }
    let phy = link::lorawan_frame::phy_len(0, Some((chunk + header) as usize)) as u32;
    let each = dr
        .downlink_phy()
        .airtime(phy)
        .map_err(Error::invalid)?
        .total;
    let airtime = each.times(u64::from(frames));
    let duty = f.multicast_duty_cycle.iter().find(|d| d.region == w.region);
    let receive = match duty {
        Some(d) => airtime.as_secs() * 100.0 / d.percent.value,
        None => airtime.as_secs(),
    };
    Ok(Delivery {
        method: format!(
            "LoRaWAN FUOTA: TS004 fragments ({header}-byte header, {redundancy} % redundancy) to a TS005 class C multicast group at {} DR{} (SF{}/{}){}",
            w.region,
            dr.dr,
            dr.sf,
            dr.bandwidth,
            duty.map_or_else(String::new, |d| format!(
                ", the gateway at {} % duty cycle",
                d.percent.value
            ))
        ),
        bytes,
        chunk_bytes: chunk,
        data_frames: data,
        redundancy_frames: coded,
        frames,
        on_air_bytes: u64::from(phy) * u64::from(frames),
        airtime_s: airtime.as_secs(),
        receive_s: receive,
    })
}

/// CBOR's head for an unsigned integer or a length (RFC 8949 §3).
fn cbor_head(value: u64) -> u32 {
    match value {
        0..=23 => 1,
        24..=0xff => 2,
        0x100..=0xffff => 3,
        0x1_0000..=0xffff_ffff => 5,
        _ => 9,
    }
}

/// The largest chunk with `fixed` bytes before its byte-string head that
/// fits `room`.
fn largest_chunk(room: u32, fixed: u32) -> u32 {
    let mut c = room.saturating_sub(fixed + 1);
    while c > 0 && fixed + cbor_head(u64::from(c)) + c > room {
        c -= 1;
    }
    c
}

/// SMP image upload requests, each filling one ATT write of the link's
/// frame: header, a CBOR map {"off": offset, "data": chunk}, the first
/// also "len". Offsets are counted at their widest (the last one's).
fn smp(link: &LinkSpec, bytes: u32, s: &Smp) -> Result<Delivery, Error> {
    let room = frame_room(link)?;
    let fixed = s.header_bytes.value
        + 1
        + s.off_key_bytes.value
        + cbor_head(u64::from(bytes))
        + s.data_key_bytes.value;
    let first_extra = s.len_key_bytes.value + cbor_head(u64::from(bytes));
    let chunk = largest_chunk(room, fixed);
    let first = largest_chunk(room, fixed + first_extra);
    if first == 0 {
        return Err(Error::invalid(format!(
            "an SMP upload request needs more than {room} B: '{}' frames carry {room} B an ATT write; use a link with LE Data Length Extension (e.g. ble-1m-251)",
            link.name
        )));
    }
    let rest = bytes.saturating_sub(first);
    let requests = 1 + rest.div_ceil(chunk);
    let last_data = if rest == 0 {
        bytes
    } else {
        rest - (requests - 2) * chunk
    };
    let extra = if requests == 1 { first_extra } else { 0 };
    let last = fixed + extra + cbor_head(u64::from(last_data)) + last_data;
    let full = fixed + cbor_head(u64::from(chunk)) + chunk;
    framed(
        link,
        bytes,
        chunk,
        requests,
        full,
        last,
        format!(
            "MCUmgr SMP image upload over GATT: one request per ATT write of {room} B ({} B of image each)",
            chunk
        ),
    )
}

/// CoAP Block1 requests, one block a frame: the largest power-of-two block
/// (RFC 7959 §2.2) that fits the frame after the request's header.
fn coap(link: &LinkSpec, bytes: u32, c: &Coap) -> Result<Delivery, Error> {
    let room = frame_room(link)?;
    let space = room.saturating_sub(c.overhead()).min(c.max_block.value);
    if space < 16 {
        return Err(Error::invalid(format!(
            "'{}' frames carry {room} B: after CoAP's {} B there is no room for RFC 7959's smallest block (16 B)",
            link.name,
            c.overhead()
        )));
    }
    let block = 1u32 << (31 - space.leading_zeros());
    let requests = bytes.div_ceil(block);
    let last = c.overhead() + (bytes - (requests - 1) * block);
    framed(
        link,
        bytes,
        block,
        requests,
        c.overhead() + block,
        last,
        format!(
            "CoAP block-wise transfer (RFC 7959 Block1): one {block}-byte block per frame, {} B of CoAP each",
            c.overhead()
        ),
    )
}

fn frame_room(link: &LinkSpec) -> Result<u32, Error> {
    link.framed
        .as_ref()
        .map(|f| f.max_payload.value)
        .ok_or_else(|| Error::invalid(format!("link '{}' has no frames", link.name)))
}

/// `requests` requests of `full` bytes, the last of `last`, each costed as
/// the link sends a message down to the device (`link::downlink`).
fn framed(
    link: &LinkSpec,
    bytes: u32,
    chunk: u32,
    requests: u32,
    full: u32,
    last: u32,
    method: String,
) -> Result<Delivery, Error> {
    let one = |n: u32| link::downlink::cost(link, n).map_err(Error::invalid);
    let (f, l) = (one(full)?, one(last)?);
    let many = u64::from(requests - 1);
    let frames = f.frames * (requests - 1) + l.frames;
    let on_air = u64::from(f.on_air_bytes) * many + u64::from(l.on_air_bytes);
    let airtime: Micros = f.airtime.times(many) + l.airtime;
    let receive: Micros = f.rx_time.times(many) + l.rx_time;
    Ok(Delivery {
        method,
        bytes,
        chunk_bytes: chunk,
        data_frames: frames,
        redundancy_frames: 0,
        frames,
        on_air_bytes: on_air,
        airtime_s: airtime.as_secs(),
        receive_s: receive.as_secs(),
    })
}
