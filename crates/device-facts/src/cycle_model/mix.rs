//! An instruction mix: what ran in one measured region, counted for pricing.
//! Kept in the device cost tables beside each count, so a change to the
//! model or a device's memory prices the same run again without simulating.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::Class;

/// The instructions of a region, counted for pricing. Written as one line
/// of `key=count` words (a table keeps thousands): `instructions=75
/// bytes=150 … alu=33 load=10 … store_multiple+registers=4`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct Mix {
    pub instructions: i64,
    pub by_class: BTreeMap<Class, i64>,
    /// Registers moved by LDM/STM/PUSH/POP, per class.
    pub registers: BTreeMap<Class, i64>,
    /// Bytes of instructions executed (the fetch stream).
    pub bytes: i64,
    /// Pipeline refills: taken branches and other writes to PC.
    pub refills: i64,
    /// Data reads from flash (constant tables, literal pools), counted by the
    /// flash-loads plugin (firmware/cycle-trace) where QEMU's log cannot see
    /// an address.
    pub flash_loads: i64,
    /// Distinct 16-byte lines of flash the region executed: the code's
    /// footprint, against an instruction cache's size.
    pub code_lines: i64,
    /// Distinct 16-byte lines of flash the region read as data: the constant
    /// tables' footprint, against a data cache's size.
    pub flash_data_lines: i64,
}

impl Mix {
    pub fn add(&mut self, class: Class, n: i64) {
        *self.by_class.entry(class).or_default() += n;
    }

    /// `self - other`, class by class: a region less the empty region.
    pub fn minus(&self, other: &Mix) -> Mix {
        let sub = |a: &BTreeMap<Class, i64>, b: &BTreeMap<Class, i64>| {
            let mut out = a.clone();
            for (k, v) in b {
                *out.entry(*k).or_default() -= v;
            }
            out.retain(|_, v| *v != 0);
            out
        };
        Mix {
            instructions: self.instructions - other.instructions,
            by_class: sub(&self.by_class, &other.by_class),
            registers: sub(&self.registers, &other.registers),
            bytes: self.bytes - other.bytes,
            refills: self.refills - other.refills,
            flash_loads: self.flash_loads - other.flash_loads,
            code_lines: self.code_lines - other.code_lines,
            flash_data_lines: self.flash_data_lines - other.flash_data_lines,
        }
    }

    /// `self + other`: two regions counted as one (a composite figure).
    pub fn plus(&self, other: &Mix) -> Mix {
        self.minus(&Mix::default().minus(other))
    }

    pub fn count(&self, class: Class) -> i64 {
        self.by_class.get(&class).copied().unwrap_or(0)
    }
}

const REGISTERS: &str = "+registers";

impl Mix {
    /// The counts that are not per class, by their words.
    fn totals(&mut self) -> [(&'static str, &mut i64); 6] {
        [
            ("instructions", &mut self.instructions),
            ("bytes", &mut self.bytes),
            ("refills", &mut self.refills),
            ("flash_loads", &mut self.flash_loads),
            ("code_lines", &mut self.code_lines),
            ("flash_data_lines", &mut self.flash_data_lines),
        ]
    }
}

impl From<Mix> for String {
    fn from(mut m: Mix) -> String {
        let mut words: Vec<String> = m.totals().iter().map(|(k, v)| format!("{k}={v}")).collect();
        words.extend(m.by_class.iter().map(|(c, n)| format!("{}={n}", c.name())));
        words.extend(
            m.registers
                .iter()
                .map(|(c, n)| format!("{}{REGISTERS}={n}", c.name())),
        );
        words.join(" ")
    }
}

impl TryFrom<String> for Mix {
    type Error = String;

    fn try_from(words: String) -> Result<Mix, String> {
        let mut mix = Mix::default();
        let mut seen = std::collections::BTreeSet::new();
        for word in words.split_whitespace() {
            let (key, n) = word
                .split_once('=')
                .ok_or_else(|| format!("mix word `{word}` is not key=count"))?;
            let n: i64 = n
                .parse()
                .map_err(|_| format!("mix word `{word}`: not a count"))?;
            if !seen.insert(key.to_string()) {
                return Err(format!("mix word `{key}` twice"));
            }
            let class = |name: &str| {
                serde_json::from_value::<Class>(serde_json::Value::String(name.into()))
                    .map_err(|_| format!("mix word `{word}`: no class {name}"))
            };
            if let Some((_, total)) = mix.totals().into_iter().find(|(k, _)| *k == key) {
                *total = n;
            } else if let Some(name) = key.strip_suffix(REGISTERS) {
                mix.registers.insert(class(name)?, n);
            } else {
                mix.by_class.insert(class(key)?, n);
            }
        }
        for total in [
            "instructions",
            "bytes",
            "refills",
            "flash_loads",
            "code_lines",
            "flash_data_lines",
        ] {
            if !seen.contains(total) {
                return Err(format!("a mix without `{total}`"));
            }
        }
        Ok(mix)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Mix {
        let mut m = Mix {
            instructions: 75,
            bytes: 150,
            refills: 9,
            flash_loads: 2,
            code_lines: 10,
            flash_data_lines: 1,
            ..Mix::default()
        };
        m.add(Class::Alu, 33);
        m.add(Class::LoadPipelined, 10);
        m.registers.insert(Class::StoreMultiple, 4);
        m
    }

    #[test]
    fn a_mix_is_one_line_of_words_and_reads_back() {
        let text = serde_json::to_string(&sample()).unwrap();
        assert_eq!(
            text,
            "\"instructions=75 bytes=150 refills=9 flash_loads=2 code_lines=10 flash_data_lines=1 \
             alu=33 load_pipelined=10 store_multiple+registers=4\""
        );
        assert_eq!(serde_json::from_str::<Mix>(&text).unwrap(), sample());
    }

    #[test]
    fn an_unknown_class_a_missing_total_or_a_word_twice_is_refused() {
        let read = |t: &str| serde_json::from_str::<Mix>(&format!("\"{t}\""));
        let totals =
            "instructions=1 bytes=2 refills=0 flash_loads=0 code_lines=1 flash_data_lines=0";
        assert!(read(totals).is_ok());
        assert!(read(&format!("{totals} teleport=1")).is_err());
        assert!(read(&format!("{totals} alu=1 alu=2")).is_err());
        assert!(read("instructions=1 bytes=2").is_err());
        assert!(read(&format!("{totals} alu=x")).is_err());
    }
}
