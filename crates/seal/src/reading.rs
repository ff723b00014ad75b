//! Study 003's temperature-chain reading (its Appendix A), serialized on
//! the device as the host's `payload` crate serializes it to JSON:
//! `{"t":…,"id":"Logger1","s_t":"tc","s_d":[{"d":0,"t":12.5},…]}`, with
//! integral temperatures as integers (`12`, not `12.0`), as ArduinoJson
//! writes them. A test holds the two to the same bytes.

use crate::container::write::Writer;
use crate::error::Error;

/// The most thermometers the study's chains had.
pub const MAX_THERMOMETERS: usize = 25;

/// Study 003's chain lengths (thermometers per reading), 66..470 bytes of
/// JSON: the lengths the device tables measure the seal path at.
pub const CHAINS: [usize; 6] = [1, 3, 5, 10, 15, 25];

/// Readings below the smallest chain's JSON (64 B) that devices measure too,
/// in bytes already serialized: a LoRaWAN reading is often 2-20 bytes, and a
/// cost below the smallest measured size would otherwise be a guess.
pub const SMALL_READINGS: [usize; 7] = [1, 4, 8, 16, 24, 32, 48];

/// One reading: a time, a logger number and (depth in m, temperature in
/// tenths of a degree) per thermometer.
pub struct ChainReading {
    pub time: u32,
    pub logger: u8,
    pub depths: [(u8, i16); MAX_THERMOMETERS],
    pub len: usize,
}

impl ChainReading {
    /// A reproducible reading of `thermometers` (at most 25) from `seed`:
    /// the same on the host and on every device.
    pub fn sample(thermometers: usize, seed: u32) -> ChainReading {
        let len = thermometers.min(MAX_THERMOMETERS);
        let mut depths = [(0u8, 0i16); MAX_THERMOMETERS];
        let mut x = seed;
        for (i, d) in depths.iter_mut().enumerate().take(len) {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            // Lake water: 4 to 20 °C.
            *d = (i as u8, 40 + ((x >> 16) % 161) as i16);
        }
        ChainReading {
            time: 1_555_666_777u32.wrapping_add(seed),
            logger: 1 + (seed % 9) as u8,
            depths,
            len,
        }
    }

    /// Writes the JSON into `out`; returns its length.
    /// The reading the device tables time at `thermometers` (one of
    /// [`CHAINS`]: the sample seeded by its place there), taken `tick`
    /// seconds later: the same length and work, another message. A device
    /// that sends these is charged exactly what its table row says.
    pub fn measured(thermometers: usize, tick: u32) -> ChainReading {
        let seed = CHAINS.iter().position(|&n| n == thermometers).unwrap_or(0);
        let mut r = ChainReading::sample(thermometers, seed as u32);
        r.time = r.time.wrapping_add(tick);
        r
    }

    pub fn to_json(&self, out: &mut [u8]) -> Result<usize, Error> {
        let mut w = Writer::new(out);
        w.text("{\"t\":");
        uint(&mut w, self.time);
        w.text(",\"id\":\"Logger");
        uint(&mut w, u32::from(self.logger));
        w.text("\",\"s_t\":\"tc\",\"s_d\":[");
        for (i, &(d, t)) in self.depths[..self.len].iter().enumerate() {
            if i > 0 {
                w.byte(b',');
            }
            w.text("{\"d\":");
            uint(&mut w, u32::from(d));
            w.text(",\"t\":");
            tenths(&mut w, t);
            w.byte(b'}');
        }
        w.text("]}");
        w.done()
    }
}

fn uint(w: &mut Writer<'_>, mut n: u32) {
    let mut digits = [0u8; 10];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    w.bytes(&digits[i..]);
}

/// Tenths as a JSON number: 125 → 12.5, -3 → -0.3, 120 → 12.
fn tenths(w: &mut Writer<'_>, t: i16) {
    if t < 0 {
        w.byte(b'-');
    }
    let a = u32::from(t.unsigned_abs());
    uint(w, a / 10);
    if a % 10 != 0 {
        w.bytes(&[b'.', b'0' + (a % 10) as u8]);
    }
}

/// The fixed case a device and the host both seal, to show they write the
/// same bytes (crates/mcu/tests/device_costs.rs `SEAL_PATHS`): a public test key, never
/// for real messages.
pub mod known_answer {
    use crate::counter::counter_nonce;
    use crate::spec::Spec;

    /// 64 bytes; a scheme takes the first `Spec::key_len`.
    pub const KEY: [u8; 64] = [
        0xe2, 0xb3, 0xc8, 0xa1, 0xf0, 0x4d, 0x9e, 0x7c, 0x6b, 0x5a, 0x49, 0x38, 0x27, 0x16, 0x05,
        0xf4, 0xe3, 0xd2, 0xc1, 0xb0, 0xa9, 0xf8, 0xe7, 0xd6, 0xc5, 0xb4, 0xa3, 0x92, 0x81, 0x70,
        0x6f, 0x5e, 0x4d, 0x3c, 0x2b, 0x1a, 0x09, 0xf8, 0xe7, 0xd6, 0xc5, 0xb4, 0xa3, 0x92, 0x81,
        0x70, 0xf6, 0xe5, 0xd4, 0xc3, 0xb2, 0xa1, 0x90, 0x8f, 0x7e, 0x6d, 0x5c, 0x4b, 0x3a, 0x29,
        0x18, 0x07, 0x06, 0x05,
    ];

    pub const KEY_ID: [u8; 8] = [0xa0, 1, 2, 3, 4, 5, 6, 7];

    /// The reading: three thermometers from seed 42.
    pub const THERMOMETERS: usize = 3;
    pub const SEED: u32 = 42;

    /// Counter value 7 where the scheme takes counter nonces, else bytes
    /// 0, 7, 14, … (a device draws those from its random generator).
    pub fn nonce(spec: &Spec<'_>, nonce: &mut [u8]) {
        if spec.allows_counter_nonces() {
            counter_nonce(7, nonce).ok();
        } else {
            for (i, b) in nonce.iter_mut().enumerate() {
                *b = (i as u8).wrapping_mul(7);
            }
        }
    }
}
