//! Hardware crypto engines of catalogued devices, from published figures
//! (`data/engines/`, one file per engine, each figure with its source):
//! what each engine does, how fast its sources say it is, and what it
//! cannot do. Nothing here is simulated: a cost built on an engine is the
//! device's measured software around it plus these figures, and says so.

use serde::Deserialize;

use crate::FactsError;

/// The engine files, as shipped (`tests::every_file_is_listed`).
const FILES: [(&str, &str); 6] = [
    (
        "nrf52840-cryptocell-310.json",
        include_str!("../../../data/engines/nrf52840-cryptocell-310.json"),
    ),
    (
        "esp32-c3-aes-sha.json",
        include_str!("../../../data/engines/esp32-c3-aes-sha.json"),
    ),
    (
        "stm32wl-aes-pka.json",
        include_str!("../../../data/engines/stm32wl-aes-pka.json"),
    ),
    (
        "stm32l0-aes.json",
        include_str!("../../../data/engines/stm32l0-aes.json"),
    ),
    (
        "nrf54l15-cracen.json",
        include_str!("../../../data/engines/nrf54l15-cracen.json"),
    ),
    (
        "stm32u585-aes-hash-pka.json",
        include_str!("../../../data/engines/stm32u585-aes-hash-pka.json"),
    ),
];

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Engine {
    /// Short name (`cryptocell-310`).
    pub engine: String,
    pub title: String,
    /// The device profiles (`data/devices/`) whose chip has it.
    pub devices: Vec<String>,
    /// The interface teams reach it through.
    pub driver: String,
    /// The CPU waits for it (its time is the CPU's active time).
    pub blocking: bool,
    #[serde(rename = "use")]
    pub usage: String,
    /// The AES-128 block rate.
    pub aes128: Option<Rate>,
    /// The AES modes it runs (ecb, cbc, ctr, ccm).
    pub modes: Vec<String>,
    /// Where GCM's GHASH runs.
    pub ghash: Ghash,
    pub ghash_source: String,
    /// AES-128-GCM whole as published on the chip (the engine's AES and the
    /// driver's software GHASH together), where a source measured it.
    #[serde(default)]
    pub aes128_gcm: Option<Rate>,
    pub sha256: Option<Rate>,
    /// What the CPU pays for each request before the engine's per-block
    /// rate (a key or chaining value loaded, the request set up), where a
    /// source publishes it apart from the rate.
    #[serde(default)]
    pub setup_cycles: Option<Setup>,
    /// P-256 operations, each a published time.
    pub p256: Vec<Operation>,
    /// What it cannot do, each with its source.
    pub cannot: Vec<Limit>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Ghash {
    Hardware,
    /// The engine runs AES's blocks and the CPU GHASH.
    Software,
    /// The hardware has it but no figure is published.
    Unpublished,
    None,
}

/// A published rate, as its source states it.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rate {
    pub value: f64,
    pub unit: RateUnit,
    /// The CPU clock the figure was taken at.
    pub clock_mhz: f64,
    /// What the source measured (AES-CBC-128, one ECB block…).
    pub measured: String,
    pub source: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
pub enum RateUnit {
    #[serde(rename = "KiB/s")]
    KibPerSecond,
    #[serde(rename = "MB/s")]
    MbPerSecond,
    #[serde(rename = "cycles/byte")]
    CyclesPerByte,
    #[serde(rename = "cycles/block")]
    CyclesPerBlock,
}

impl Rate {
    /// CPU cycles per byte at the figure's clock (an engine clocked with the
    /// CPU takes the same cycles at another clock).
    pub fn cycles_per_byte(&self) -> f64 {
        let hz = self.clock_mhz * 1e6;
        match self.unit {
            RateUnit::KibPerSecond => hz / (self.value * 1024.0),
            RateUnit::MbPerSecond => hz / (self.value * 1e6),
            RateUnit::CyclesPerByte => self.value,
            RateUnit::CyclesPerBlock => self.value / 16.0,
        }
    }
}

/// A published per-request set-up, and how many blocks the driver hands the
/// engine in one request (a longer input is split, each part paying it).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Setup {
    /// Cycles per request at `clock_mhz` (an engine clocked with the CPU
    /// takes the same cycles at another clock).
    pub value: f64,
    pub clock_mhz: f64,
    pub measured: String,
    pub source: String,
    /// At most this many AES blocks per request; none: one request a pass.
    #[serde(default)]
    pub max_aes_blocks: Option<u32>,
    /// At most this many SHA-256 blocks per request; none: one a hash.
    #[serde(default)]
    pub max_sha256_blocks: Option<u32>,
}

impl Setup {
    /// The set-up cycles of one pass over `blocks` blocks, with at most
    /// `per_request` blocks a request.
    fn cycles(&self, blocks: f64, per_request: Option<u32>) -> f64 {
        let requests = match per_request {
            Some(n) if n > 0 => (blocks / f64::from(n)).ceil().max(1.0),
            _ => 1.0,
        };
        requests * self.value
    }
}

/// One published public-key operation.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Operation {
    /// As the firmware names it (p256-ecdsa) and its operation (sign).
    pub algorithm: String,
    pub operation: String,
    pub value: f64,
    pub unit: TimeUnit,
    pub clock_mhz: f64,
    pub source: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TimeUnit {
    Ms,
    Cycles,
}

impl Operation {
    pub fn cycles(&self) -> f64 {
        match self.unit {
            TimeUnit::Ms => self.value * 1e-3 * self.clock_mhz * 1e6,
            TimeUnit::Cycles => self.value,
        }
    }
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limit {
    pub what: String,
    pub source: String,
}

/// What the engine does of one firmware primitive at a length.
#[derive(Clone, Debug, PartialEq)]
pub struct Part {
    /// The engine's cycles, from its published rate.
    pub cycles: f64,
    /// GCM on an AES-only engine: GHASH stays in software.
    pub ghash: SoftwareGhash,
    /// The published figures used.
    pub sources: Vec<String>,
}

/// Where GCM's software GHASH is costed on an AES-only engine.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SoftwareGhash {
    /// The engine does all of the primitive.
    None,
    /// Inside `cycles`: the source published GCM whole on the chip; this
    /// much of it is beyond the engine's own AES blocks.
    Included(f64),
    /// Not in `cycles`: the caller adds the device's measured GHASH
    /// (the drivers run Mbed TLS's 4-bit-table GHASH: its GCM less its CTR).
    ToMeasure,
}

fn blocks(bytes: usize, block: usize) -> f64 {
    bytes.div_ceil(block).max(1) as f64
}

impl Engine {
    /// The engine's share of firmware primitive `id` (aes-128-ccm,
    /// hmac-sha256) over `bytes`, or why it has none. Block counts are the
    /// mode's: CCM's CBC-MAC over B0 and the data plus CTR over the data and
    /// the tag's block (two passes); GCM's CTR plus H and the tag's block;
    /// SHA-256's padded blocks, HMAC's inner hash (its keyed pad and the
    /// data) and outer hash (its pad and the inner digest). Each pass pays
    /// the engine's per-request set-up, once a request (`setup_cycles`).
    pub fn part(&self, id: &str, bytes: usize) -> Result<Part, String> {
        let has = |mode: &str| self.modes.iter().any(|m| m == mode);
        let setup = |passes: &[f64], per_request: fn(&Setup) -> Option<u32>| {
            self.setup_cycles.as_ref().map_or((0.0, None), |s| {
                let cycles = passes.iter().map(|&b| s.cycles(b, per_request(s))).sum();
                (cycles, Some(s.source.clone()))
            })
        };
        // `rate` over the passes' blocks of `block` bytes, with the set-up.
        let over = |rate: &Rate, passes: &[f64], block: f64, sha: bool| -> Part {
            let blocks: f64 = passes.iter().sum();
            let (setup_cycles, setup_source) = match sha {
                true => setup(passes, |s| s.max_sha256_blocks),
                false => setup(passes, |s| s.max_aes_blocks),
            };
            Part {
                cycles: rate.cycles_per_byte() * block * blocks + setup_cycles,
                ghash: SoftwareGhash::None,
                sources: std::iter::once(rate.source.clone())
                    .chain(setup_source)
                    .collect(),
            }
        };
        let aes = |passes: &[f64]| -> Result<Part, String> {
            let rate = self
                .aes128
                .as_ref()
                .ok_or_else(|| format!("{}: no published AES figure", self.title))?;
            Ok(over(rate, passes, 16.0, false))
        };
        let sha = |passes: &[f64]| -> Result<Part, String> {
            let rate = self
                .sha256
                .as_ref()
                .ok_or_else(|| format!("{} has no SHA-256 engine", self.title))?;
            Ok(over(rate, passes, 64.0, true))
        };
        let b16 = blocks(bytes, 16);
        // The data's SHA-256 blocks after a 64-byte block before it (HMAC's
        // keyed pad) or none, padded (0x80 and the 8-byte length).
        let b64 = |before: usize| ((before + bytes + 9).div_ceil(64)) as f64;
        match id {
            "aes-128-ecb" if has("ecb") => aes(&[b16]),
            "aes-128-cbc" if has("cbc") => aes(&[b16]),
            "aes-128-ctr" if has("ctr") => aes(&[b16]),
            "aes-128-ccm" if has("ccm") => aes(&[b16 + 1.0, b16 + 1.0]),
            "aes-128-gcm" => match self.ghash {
                // The engine runs GCM whole: its published GCM rate where a
                // source measured it, else its AES rate over GCM's blocks.
                Ghash::Hardware if has("gcm") => match &self.aes128_gcm {
                    Some(gcm) => Ok(over(gcm, &[b16 + 2.0], 16.0, false)),
                    None => aes(&[b16 + 2.0]),
                },
                Ghash::Software if has("ctr") => {
                    let blocks = aes(&[b16 + 2.0])?;
                    Ok(match &self.aes128_gcm {
                        // The chip's GCM as published, at the blocks GCM runs.
                        Some(gcm) => {
                            let whole = over(gcm, &[b16 + 2.0], 16.0, false).cycles;
                            Part {
                                cycles: whole,
                                ghash: SoftwareGhash::Included((whole - blocks.cycles).max(0.0)),
                                sources: [blocks.sources, vec![gcm.source.clone()]].concat(),
                            }
                        }
                        None => Part {
                            ghash: SoftwareGhash::ToMeasure,
                            sources: [blocks.sources, vec![self.ghash_source.clone()]].concat(),
                            ..blocks
                        },
                    })
                }
                Ghash::Hardware | Ghash::Software => {
                    Err(format!("{} does not run AES-GCM's mode", self.title))
                }
                Ghash::Unpublished | Ghash::None => Err(self.ghash_source.clone()),
            },
            "sha256" => sha(&[b64(0)]),
            "hmac-sha256" => sha(&[b64(64), 2.0]),
            _ => Err(format!("{} does not run {id}", self.title)),
        }
    }

    /// The published time of a public-key operation, if any.
    pub fn operation(&self, algorithm: &str, operation: &str) -> Option<&Operation> {
        self.p256
            .iter()
            .find(|o| o.algorithm == algorithm && o.operation == operation)
    }
}

/// How an implementation column names an engine-backed row.
pub fn hardware_label(title: &str) -> String {
    format!("hardware (published: {title})")
}

/// Every engine in `data/engines/`.
pub fn all() -> Result<Vec<Engine>, FactsError> {
    FILES
        .iter()
        .map(|(name, text)| {
            serde_json::from_str(text)
                .map_err(|e| FactsError::Failed(format!("data/engines/{name}: {e}")))
        })
        .collect()
}

/// The engines of device profile `device`.
pub fn of_device(device: &str) -> Result<Vec<Engine>, FactsError> {
    Ok(all()?
        .into_iter()
        .filter(|e| e.devices.iter().any(|d| d == device))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn engine(name: &str) -> Engine {
        all()
            .unwrap()
            .into_iter()
            .find(|e| e.engine == name)
            .unwrap_or_else(|| panic!("no engine {name}"))
    }

    #[test]
    fn every_file_is_listed_and_every_figure_cites_a_source() {
        let dir = crate::firmware_dir().join("../data/engines");
        let mut on_disk: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        on_disk.sort();
        let mut listed: Vec<String> = FILES.iter().map(|f| f.0.to_string()).collect();
        listed.sort();
        assert_eq!(on_disk, listed);
        for e in all().unwrap() {
            let rates = e.aes128.iter().chain(&e.sha256).chain(&e.aes128_gcm);
            for r in rates {
                assert!(r.source.len() > 20 && r.value > 0.0, "{}: {r:?}", e.engine);
            }
            for o in &e.p256 {
                assert!(
                    o.source.len() > 20 && o.cycles() > 0.0,
                    "{}: {o:?}",
                    e.engine
                );
            }
            for l in &e.cannot {
                assert!(!l.source.is_empty(), "{}: {}", e.engine, l.what);
            }
            assert!(!e.devices.is_empty() && !e.ghash_source.is_empty());
        }
    }

    /// Known answers of the unit arithmetic: the sources' own conversions.
    #[test]
    fn rates_convert_as_their_sources_say() {
        let cc310 = engine("cryptocell-310");
        // mbed-os #6794 prints "3 cycles/byte" itself.
        assert_eq!(cc310.sha256.as_ref().unwrap().cycles_per_byte(), 3.0);
        // 15023 KiB/s at 64 MHz: 4.16 cycles per byte.
        let aes = cc310.aes128.as_ref().unwrap().cycles_per_byte();
        assert!((aes - 4.160).abs() < 0.001, "{aes}");
        // wolfSSL's 20.080 ms at 64 MHz.
        let sign = cc310.operation("p256-ecdsa", "sign").unwrap().cycles();
        assert!((sign - 1_285_120.0).abs() < 0.01, "{sign}");
        let c3 = engine("esp32-c3-aes-sha");
        // 90 MB/s at 160 MHz: 1.78 cycles per byte.
        let sha = c3.sha256.as_ref().unwrap().cycles_per_byte();
        assert!((sha - 1.778).abs() < 0.001, "{sha}");
    }

    /// CRACEN's per-request set-up (about 800 cycles) is paid once per
    /// request, and a request holds at most four SHA-256 or eight AES
    /// blocks: 1 KiB hashed is 17 padded blocks in 5 requests,
    /// 5 × 800 + 17 × 330 = 9,610 cycles (the set-up is 42 % of it), not
    /// the rate alone's 5,610.
    #[test]
    fn a_per_request_set_up_is_paid_per_request() {
        let cracen = engine("cracen");
        let setup = cracen.setup_cycles.as_ref().unwrap();
        assert_eq!((setup.value, setup.clock_mhz), (800.0, 128.0));
        let sha = cracen.part("sha256", 1024).unwrap();
        assert!((sha.cycles - 9_610.0).abs() < 1e-6, "{}", sha.cycles);
        assert!(
            sha.sources
                .iter()
                .any(|s| s.contains("800 cycles of setup"))
        );
        // 16 bytes: one block, one request.
        let one = cracen.part("sha256", 16).unwrap().cycles;
        assert!((one - (800.0 + 330.0)).abs() < 1e-6, "{one}");
        // HMAC: the inner hash (keyed pad and one data block) and the outer
        // hash (its pad and the digest) are two requests.
        let hmac = cracen.part("hmac-sha256", 16).unwrap().cycles;
        assert!((hmac - (2.0 * 800.0 + 4.0 * 330.0)).abs() < 1e-6, "{hmac}");
        // AES ECB: 9 blocks are two requests of at most 8.
        let ecb = cracen.part("aes-128-ecb", 144).unwrap().cycles;
        assert!((ecb - (2.0 * 800.0 + 9.0 * 160.0)).abs() < 1e-6, "{ecb}");
        // ECB is all its driver runs: no AEAD is costed on it.
        for id in ["aes-128-ccm", "aes-128-gcm", "aes-128-ctr"] {
            assert!(cracen.part(id, 16).is_err(), "{id}");
        }
        // An engine without a published set-up pays none.
        let cc310 = engine("cryptocell-310");
        assert!(cc310.setup_cycles.is_none());
        assert_eq!(
            cc310.part("sha256", 1024).unwrap().cycles,
            17.0 * 64.0 * 3.0
        );
    }

    /// An engine that runs GCM whole (GHASH in hardware) is costed at its
    /// published GCM rate, never its AES rate.
    #[test]
    fn gcm_in_hardware_is_costed_at_its_published_gcm_rate() {
        let u585 = engine("stm32u585-aes-hash-pka");
        assert_eq!(u585.ghash, Ghash::Hardware);
        let gcm = u585.part("aes-128-gcm", 16).unwrap();
        // 5.640 MB/s at 160 MHz over a data block, H and the tag's block.
        let want = 160e6 / 5.640e6 * 16.0 * 3.0;
        assert!((gcm.cycles - want).abs() < 1e-6, "{}", gcm.cycles);
        assert_eq!(gcm.ghash, SoftwareGhash::None);
        assert!(gcm.sources.iter().any(|s| s.contains("5.640 MB/s")));
        // wolfSSL's benchmark times CBC and GCM only.
        assert!(u585.part("aes-128-ccm", 16).is_err());
        let sign = u585.operation("p256-ecdsa", "sign").unwrap().cycles();
        assert!((sign - 2_857_120.0).abs() < 0.01, "{sign}");
    }

    #[test]
    fn gcm_on_an_aes_only_engine_leaves_ghash_to_software() {
        let cc310 = engine("cryptocell-310");
        // mbed-os #10907's GCM whole (232 KiB/s) over one data block, H and
        // the tag's counter block; beyond the AES blocks (15023 KiB/s), GHASH.
        let gcm = cc310.part("aes-128-gcm", 16).unwrap();
        let whole = 64e6 / (232.0 * 1024.0) * 48.0;
        assert!((gcm.cycles - whole).abs() < 0.1, "{}", gcm.cycles);
        let SoftwareGhash::Included(ghash) = gcm.ghash else {
            panic!("{:?}", gcm.ghash)
        };
        assert!(
            (ghash - (whole - 3.0 * 16.0 * 4.160)).abs() < 0.1,
            "{ghash}"
        );
        let c3 = engine("esp32-c3-aes-sha");
        assert_eq!(
            c3.part("aes-128-gcm", 16).unwrap().ghash,
            SoftwareGhash::ToMeasure
        );
        let ccm = cc310.part("aes-128-ccm", 16).unwrap();
        assert_eq!(ccm.ghash, SoftwareGhash::None);
        assert!(cc310.part("chacha20-poly1305", 16).is_err());
        assert!(cc310.part("aes-256-gcm", 16).is_err());
        let l0 = engine("stm32l0-aes");
        assert!(
            l0.part("aes-128-ctr", 16)
                .unwrap_err()
                .contains("no published")
        );
        let wl = engine("stm32wl-aes-pka");
        assert!(wl.part("aes-128-gcm", 16).is_err());
        assert!(wl.part("sha256", 16).is_err());
    }
}
