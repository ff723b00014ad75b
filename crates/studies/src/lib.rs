//! ciphermeter-studies: the five published studies reproduced, each as a
//! function that returns a typed report holding the paper's values, ours, and
//! each of the paper's statements with our verdict and its reason.
//!
//! The reports render themselves as text (`text()`), serialize as JSON, and
//! travel through the results store as a [`StudyReport`], from which the HTML
//! report draws the paper's figures with our numbers overlaid.

pub mod file_sizes;
pub mod finding;
pub mod lora;
pub mod lora_device;
mod lora_device_claims;
mod lora_device_text;
pub mod paper;
pub mod rf_live;
pub mod rf_transmission;
pub mod serialization;
pub mod tiny_security;
pub mod tiny_security_device;
mod tiny_security_device_claims;
mod write;

use serde::{Deserialize, Serialize};

pub use finding::{Finding, Verdict};

/// One study's result, whichever it is: what the campaign stores and the
/// report renders.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "study", rename_all = "kebab-case")]
pub enum StudyReport {
    RfTransmission(rf_transmission::Report),
    Serialization(serialization::Report),
    FileSizes(Box<file_sizes::Report>),
    TinySecurity(tiny_security::Report),
    TinySecurityDevice(tiny_security_device::Report),
    Lora(lora::Report),
    LoraDevice(Box<lora_device::Report>),
}

impl StudyReport {
    /// "Study 003: Tiny Security, on this host (x86_64)": the paper, and the
    /// machine or model the numbers came from.
    pub fn title(&self) -> String {
        format!("{}, on {}", self.study_title(), self.ran_on())
    }

    pub fn study_title(&self) -> &'static str {
        match self {
            StudyReport::RfTransmission(_) => {
                "Study 000: AES-256-CBC over a serial packet radio (Raspberry Pi, Slice of Radio)"
            }
            StudyReport::Serialization(_) => {
                "Study 001: serialization × cipher × mode (Orange Pi Zero)"
            }
            StudyReport::FileSizes(_) => {
                "Study 002: eight ciphers on 1-128 MB files (Raspberry Pi 3)"
            }
            StudyReport::TinySecurity(_) | StudyReport::TinySecurityDevice(_) => {
                "Study 003: Tiny Security, HMAC / EtM / AEAD framing (ATmega1284P)"
            }
            StudyReport::Lora(_) | StudyReport::LoraDevice(_) => {
                "Study 004: lightweight ciphers and LoRa time on air"
            }
        }
    }

    /// The study's number as the papers' folder names it.
    pub fn number(&self) -> &'static str {
        match self {
            StudyReport::RfTransmission(_) => "000",
            StudyReport::Serialization(_) => "001",
            StudyReport::FileSizes(_) => "002",
            StudyReport::TinySecurity(_) | StudyReport::TinySecurityDevice(_) => "003",
            StudyReport::Lora(_) | StudyReport::LoraDevice(_) => "004",
        }
    }

    pub fn ran_on(&self) -> &str {
        match self {
            StudyReport::RfTransmission(r) => &r.ran_on,
            StudyReport::Serialization(r) => &r.ran_on,
            StudyReport::FileSizes(r) => &r.ran_on,
            StudyReport::TinySecurity(r) => &r.ran_on,
            StudyReport::TinySecurityDevice(r) => &r.ran_on,
            StudyReport::Lora(r) => &r.ran_on,
            StudyReport::LoraDevice(r) => &r.ran_on,
        }
    }

    pub fn findings(&self) -> &[Finding] {
        match self {
            StudyReport::RfTransmission(r) => &r.findings,
            StudyReport::Serialization(r) => &r.findings,
            StudyReport::FileSizes(r) => &r.findings,
            StudyReport::TinySecurity(r) => &r.findings,
            StudyReport::TinySecurityDevice(r) => &r.findings,
            StudyReport::Lora(r) => &r.findings,
            StudyReport::LoraDevice(r) => &r.findings,
        }
    }

    pub fn text(&self) -> String {
        match self {
            StudyReport::RfTransmission(r) => r.text(),
            StudyReport::Serialization(r) => r.text(),
            StudyReport::FileSizes(r) => {
                let mut t = file_sizes::table_header();
                for row in &r.rows {
                    t.push('\n');
                    t.push_str(&file_sizes::table_row(row));
                }
                t.push('\n');
                t + &file_sizes::table_footer(r)
            }
            StudyReport::TinySecurity(r) => r.text(),
            StudyReport::TinySecurityDevice(r) => r.text(),
            StudyReport::Lora(r) => r.text(),
            StudyReport::LoraDevice(r) => r.text(),
        }
    }
}

/// Sampling for a study's host timings: a few very short samples for
/// `--quick` (seconds in all, rough numbers), else `full_ms` per case.
pub(crate) fn sampling(quick: bool, full_ms: u64) -> measure::Config {
    use std::time::Duration;
    if quick {
        measure::Config {
            time: Duration::from_millis(3),
            warmup: Duration::from_millis(1),
            min_samples: 3,
            max_samples: 10,
            min_sample_time: Duration::from_micros(20),
        }
    } else {
        measure::Config::with_time(Duration::from_millis(full_ms))
    }
}

/// "this host (x86_64, 4 cores)": where a host-measured study ran.
pub fn this_host() -> String {
    let named = cost::record::hostname()
        .map(|h| format!(" {h}"))
        .unwrap_or_default();
    format!(
        "this host{named} ({}, {} build)",
        std::env::consts::ARCH,
        if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        }
    )
}
