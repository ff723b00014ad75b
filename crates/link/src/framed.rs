//! A link that sends a message as whole frames at a fixed bit rate: 802.15.4, BLE,
//! Sigfox, and (roughly) NB-IoT and LTE-M.

use serde::{Deserialize, Serialize};

use crate::figure::Figure;
use crate::time::Micros;

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FramedLink {
    pub bitrate_bps: Figure<u64>,
    /// Message bytes one frame can carry.
    pub max_payload: Figure<u32>,
    /// Bytes each frame adds on air (preamble, headers, MIC, CRC).
    pub overhead_bytes: Figure<u32>,
    /// Times each frame is sent (Sigfox: 3).
    pub repetitions: Figure<u32>,
    /// Radio-on time per message that is not frame bits (cellular attach/RRC), transmitting.
    #[serde(default)]
    pub fixed_tx_us: Option<Figure<u64>>,
    /// Receive time after each frame (acknowledgement, empty PDU).
    #[serde(default)]
    pub rx_per_frame_us: Option<Figure<u64>>,
    /// Receive time once per message (downlink windows, paging).
    #[serde(default)]
    pub rx_per_message_us: Option<Figure<u64>>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FramedCost {
    pub frames: Vec<u32>,
    pub on_air_bytes: u32,
    pub airtime: Micros,
    pub rx_time: Micros,
}

impl FramedLink {
    /// The cost of `frames`, the bytes each frame carries (a message cut by
    /// `fragments::sizes`, fragment headers included).
    pub fn cost(&self, frames: Vec<u32>) -> FramedCost {
        let reps = self.repetitions.value.max(1);
        let on_air_bytes: u32 = frames
            .iter()
            .map(|p| p + self.overhead_bytes.value)
            .sum::<u32>()
            * reps;
        let bits = u64::from(on_air_bytes) * 8;
        let fixed = self.fixed_tx_us.as_ref().map_or(0, |f| f.value);
        let airtime = Micros::for_bits(bits, self.bitrate_bps.value) + Micros::from_us(fixed);
        let per_frame = self.rx_per_frame_us.as_ref().map_or(0, |f| f.value);
        let per_msg = self.rx_per_message_us.as_ref().map_or(0, |f| f.value);
        let rx_time = Micros::from_us(per_frame * frames.len() as u64 * u64::from(reps) + per_msg);
        FramedCost {
            frames,
            on_air_bytes,
            airtime,
            rx_time,
        }
    }
}
