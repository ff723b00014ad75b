//! data/firmware-update.toml as typed values: the signature schemes, LMS's
//! parameters, and what FUOTA, SMP and CoAP add to each frame. Every figure
//! must say where it comes from, or loading fails.

use link::Figure;
use serde::Deserialize;

use crate::Error;

const FILE: &str = include_str!("../../../../data/firmware-update.toml");

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Facts {
    pub scheme: Vec<SchemeSpec>,
    pub lms: LmsParams,
    pub fuota: Fuota,
    pub smp: Smp,
    pub coap: Coap,
}

/// One signature scheme; LMS has no sizes here (`signatures` computes them).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SchemeSpec {
    pub name: String,
    pub title: String,
    #[serde(default)]
    pub public_key: Option<Figure<u32>>,
    #[serde(default)]
    pub signature: Option<Figure<u32>>,
    #[serde(default)]
    pub security_bits: Option<Figure<u32>>,
    #[serde(default)]
    pub category: Option<Figure<u32>>,
    pub quantum_safe: bool,
    #[serde(default)]
    pub stateful: bool,
    /// Its verify row's algorithm in data/device-costs/, where one exists.
    #[serde(default)]
    pub device_algorithm: Option<String>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LmsParams {
    pub n: Figure<u32>,
    pub w: Figure<u32>,
    pub h: Figure<u32>,
    pub m: Figure<u32>,
    pub type_bytes: Figure<u32>,
    pub q_bytes: Figure<u32>,
    pub identifier_bytes: Figure<u32>,
    pub state: String,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fuota {
    pub header_bytes: Figure<u32>,
    pub max_fragments: Figure<u32>,
    /// The gateway's duty cycle for the multicast session, per region that has one.
    pub multicast_duty_cycle: Vec<RegionDuty>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegionDuty {
    pub region: link::lorawan::Region,
    pub percent: Figure<f64>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Smp {
    pub header_bytes: Figure<u32>,
    pub off_key_bytes: Figure<u32>,
    pub data_key_bytes: Figure<u32>,
    pub len_key_bytes: Figure<u32>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Coap {
    pub header_bytes: Figure<u32>,
    pub token_bytes: Figure<u32>,
    pub uri_path_bytes: Figure<u32>,
    pub block_option_bytes: Figure<u32>,
    pub payload_marker_bytes: Figure<u32>,
    pub max_block: Figure<u32>,
}

impl Coap {
    /// A request's bytes before its block.
    pub fn overhead(&self) -> u32 {
        self.header_bytes.value
            + self.token_bytes.value
            + self.uri_path_bytes.value
            + self.block_option_bytes.value
            + self.payload_marker_bytes.value
    }
}

/// The built-in file, checked: every figure sourced or labelled an estimate.
pub fn load() -> Result<Facts, Error> {
    parse("data/firmware-update.toml", FILE).map_err(Error::failed)
}

/// A file of this shape, checked as [`load`] checks the built-in one.
pub fn parse(origin: &str, text: &str) -> Result<Facts, String> {
    let facts: Facts = link::figure::parse_toml(origin, text).map_err(|e| e.to_string())?;
    facts.check()?;
    Ok(facts)
}

impl Facts {
    fn check(&self) -> Result<(), String> {
        let who = "data/firmware-update.toml";
        let mut figures: Vec<(String, &Figure<u32>)> = Vec::new();
        for s in &self.scheme {
            let name = &s.name;
            for (field, f) in [
                ("public_key", &s.public_key),
                ("signature", &s.signature),
                ("security_bits", &s.security_bits),
                ("category", &s.category),
            ] {
                if let Some(f) = f {
                    figures.push((format!("scheme {name} {field}"), f));
                }
            }
            if s.stateful != (s.public_key.is_none() && s.signature.is_none()) {
                return Err(format!(
                    "{who}: scheme {name}: only the stateful (LMS) scheme has its sizes computed; every other needs public_key and signature"
                ));
            }
            if s.security_bits.is_none() && s.category.is_none() {
                return Err(format!(
                    "{who}: scheme {name} needs security_bits or category"
                ));
            }
        }
        let l = &self.lms;
        for (f, v) in [
            ("lms n", &l.n),
            ("lms w", &l.w),
            ("lms h", &l.h),
            ("lms m", &l.m),
            ("lms type_bytes", &l.type_bytes),
            ("lms q_bytes", &l.q_bytes),
            ("lms identifier_bytes", &l.identifier_bytes),
            ("fuota header_bytes", &self.fuota.header_bytes),
            ("fuota max_fragments", &self.fuota.max_fragments),
            ("smp header_bytes", &self.smp.header_bytes),
            ("smp off_key_bytes", &self.smp.off_key_bytes),
            ("smp data_key_bytes", &self.smp.data_key_bytes),
            ("smp len_key_bytes", &self.smp.len_key_bytes),
            ("coap header_bytes", &self.coap.header_bytes),
            ("coap token_bytes", &self.coap.token_bytes),
            ("coap uri_path_bytes", &self.coap.uri_path_bytes),
            ("coap block_option_bytes", &self.coap.block_option_bytes),
            ("coap payload_marker_bytes", &self.coap.payload_marker_bytes),
            ("coap max_block", &self.coap.max_block),
        ] {
            figures.push((f.into(), v));
        }
        for (field, f) in figures {
            f.check(who, &field).map_err(|e| e.to_string())?;
        }
        for d in &self.fuota.multicast_duty_cycle {
            d.percent
                .check(who, "fuota multicast_duty_cycle percent")
                .map_err(|e| e.to_string())?;
            if !(d.percent.value > 0.0 && d.percent.value <= 100.0) {
                return Err(format!("{who}: {} duty cycle out of (0, 100] %", d.region));
            }
        }
        if !(1..=16).contains(&l.w.value) || l.n.value == 0 || l.h.value > 25 {
            return Err(format!(
                "{who}: [lms] w must be 1..16, n positive, h at most 25"
            ));
        }
        Ok(())
    }
}
