//! Study 003's temperature-chain reading (its Appendix A), serialized on
//! the device as the host's `payload` crate serializes it to JSON:
//! `{"t":…,"id":"Logger1","s_t":"tc","s_d":[{"d":0,"t":12.5},…]}`, with
//! integral temperatures as integers (`12`, not `12.0`), as ArduinoJson
//! writes them. A test holds the two to the same bytes.

use crate::container::write::Writer;
use crate::error::Error;

/// The most thermometers the study's chains had.
pub const MAX_THERMOMETERS: usize = 25;

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
