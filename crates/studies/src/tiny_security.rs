//! Study 003, Figures 9-11, on this host: chain readings of 1-25 thermometers
//! framed as JSON messages under HMAC, EtM (AES-ECB + HMAC, as the study did)
//! and AEAD; time per byte of reading, cost per bit of security and overhead
//! ratio, per algorithm and group. The device-level run is
//! [`crate::tiny_security_device`].

use cost::Error;
use cost::frame::{Readings, measure_frame};
use payload::{CHAIN_LENGTHS, Format, Sample};
use seal::{Container, Pattern, Scheme};
use serde::{Deserialize, Serialize};

use crate::finding::{Finding, Verdict};
use crate::{out, paper};

/// The study's transcribed figures and claims (data/studies/003_tiny_security.json).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Paper {
    pub source: String,
    pub setup: String,
    pub input_bytes_approx: Vec<f64>,
    pub overhead_ratio_approx: f64,
    pub claims: Vec<paper::Claim>,
    pub compile_size_baseline_bytes: u64,
    pub compile_size_addition_bytes: String,
    pub recommendation: String,
}

pub fn paper() -> Result<Paper, Error> {
    paper::parse(paper::TINY_SECURITY, "003")
}

pub struct Options {
    /// 20 readings per chain length and very short samples.
    pub quick: bool,
    /// Readings per chain length (the study timed 1000, each with fresh data).
    pub iterations: Option<usize>,
}

const HMACS: [&str; 4] = [
    "hmac-sha256",
    "hmac-sha512",
    "hmac-sha3-256",
    "hmac-sha3-512",
];
const AEADS: [&str; 6] = [
    "aes-128-gcm",
    "aes-256-gcm",
    "aes-128-eax",
    "aes-256-eax",
    "acorn-128",
    "ascon-aead128",
];

/// Study 003's eighteen schemes (Appendix C), plus Ascon as the modern reference.
pub fn schemes() -> Vec<String> {
    let mut names: Vec<String> = HMACS.iter().map(|m| format!("hmac:{m}")).collect();
    for aes in ["aes-128-ecb", "aes-256-ecb"] {
        names.extend(HMACS.iter().map(|m| format!("etm:{aes}+{m}")));
    }
    names.extend(AEADS.iter().map(|a| format!("aead:{a}")));
    names
}

/// One scheme over the six chain lengths.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Series {
    pub scheme: String,
    /// HMAC, EtM or AEAD.
    pub group: String,
    pub bits_study003: u32,
    pub reading_bytes: Vec<f64>,
    pub us_per_byte: Vec<f64>,
    pub overhead_ratio: Vec<f64>,
    /// Message size with only Appendix B's iv/tag/data fields, over the reading.
    pub overhead_ratio_appendix_b: Vec<f64>,
    /// Why the scheme is unsafe (ECB, legacy ciphers); empty when it is not.
    pub insecure: Vec<String>,
    /// The cipher of an EtM scheme (`aes-128-ecb`).
    pub etm_cipher: Option<String>,
}

impl Series {
    pub fn cost_per_bit(&self) -> Vec<f64> {
        let bits = self.bits_study003.max(1) as f64;
        self.us_per_byte.iter().map(|v| v / bits).collect()
    }
    pub fn mean_us_per_byte(&self) -> f64 {
        mean_sd(&self.us_per_byte).0
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct GroupMean {
    pub group: String,
    pub us_per_byte: f64,
    pub cost_per_bit: f64,
    pub overhead_ratio: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Report {
    pub ran_on: String,
    pub paper: Paper,
    pub iterations: usize,
    pub chain_lengths: Vec<usize>,
    pub series: Vec<Series>,
    pub groups: Vec<GroupMean>,
    pub quick: bool,
    pub findings: Vec<Finding>,
}

pub fn mean_sd(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let var = if v.len() > 1 {
        v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)
    } else {
        0.0
    };
    (mean, var.sqrt())
}

pub fn group_name(p: Pattern) -> &'static str {
    match p {
        Pattern::Hmac => "HMAC",
        Pattern::Etm => "EtM",
        Pattern::Aead => "AEAD",
        Pattern::Enc => "enc",
    }
}

pub fn run(opts: &Options) -> Result<Report, Error> {
    let iterations = opts
        .iterations
        .unwrap_or(if opts.quick { 20 } else { 1000 });
    if !(1..=100_000).contains(&iterations) {
        return Err(Error::invalid("--iterations must be 1..=100000"));
    }
    let paper = paper()?;
    let schemes: Vec<Scheme> = schemes()
        .iter()
        .map(|s| {
            Scheme::parse(s)
                .map_err(|e| Error::failed(format!("{s}: {e} (is it in the catalogue?)")))
        })
        .collect::<Result<_, _>>()?;

    // The study generated each reading before starting its timer: serialize outside the timed path.
    let readings: Vec<Readings> = CHAIN_LENGTHS
        .iter()
        .map(|&n| {
            let sample = Sample::Chain(n);
            (1..=iterations as u64)
                .map(|seed| sample.bytes(Format::JsonMin, seed))
                .collect::<Result<Vec<_>, _>>()
                .map(Readings::Bytes)
                .map_err(|e| Error::failed(format!("chain:{n}: {e}")))
        })
        .collect::<Result<_, _>>()?;

    let mut series = Vec::new();
    for scheme in &schemes {
        let mut s = Series {
            scheme: scheme.name().to_string(),
            group: group_name(scheme.pattern).into(),
            bits_study003: scheme.study003_bits(),
            reading_bytes: vec![],
            us_per_byte: vec![],
            overhead_ratio: vec![],
            overhead_ratio_appendix_b: vec![],
            insecure: scheme.insecurity(),
            etm_cipher: (scheme.pattern == Pattern::Etm)
                .then(|| scheme.cipher.map(|c| c.id.clone()))
                .flatten(),
        };
        for r in &readings {
            let m = measure_frame(
                scheme,
                Container::Json,
                payload::Encoding::Raw,
                r,
                crate::sampling(opts.quick, 100),
            )?;
            s.reading_bytes.push(m.reading_bytes);
            s.us_per_byte.push(m.us_per_byte());
            s.overhead_ratio.push(m.overhead_ratio());
            s.overhead_ratio_appendix_b
                .push(m.appendix_b_bytes.unwrap_or(m.message_bytes) / m.reading_bytes);
        }
        series.push(s);
    }
    let findings = judge(&paper, &series);
    Ok(Report {
        ran_on: crate::this_host(),
        groups: group_means(&series),
        chain_lengths: CHAIN_LENGTHS.to_vec(),
        paper,
        iterations,
        series,
        quick: opts.quick,
        findings,
    })
}

pub fn group_means(series: &[Series]) -> Vec<GroupMean> {
    ["HMAC", "EtM", "AEAD"]
        .iter()
        .filter(|g| series.iter().any(|s| s.group == **g))
        .map(|g| {
            let members: Vec<&Series> = series.iter().filter(|s| s.group == *g).collect();
            let m = |f: &dyn Fn(&Series) -> Vec<f64>| {
                mean_sd(&members.iter().map(|s| mean_sd(&f(s)).0).collect::<Vec<_>>()).0
            };
            GroupMean {
                group: g.to_string(),
                us_per_byte: m(&|s| s.us_per_byte.clone()),
                cost_per_bit: m(&|s| s.cost_per_bit()),
                overhead_ratio: m(&|s| s.overhead_ratio.clone()),
            }
        })
        .collect()
}

fn by_name<'a>(series: &'a [Series], name: &str) -> Option<&'a Series> {
    series.iter().find(|s| s.scheme == name)
}

fn extreme(series: &[Series], key: impl Fn(&Series) -> f64, max: bool) -> Option<&Series> {
    let pick = |a: &&Series, b: &&Series| key(a).total_cmp(&key(b));
    if max {
        series.iter().max_by(pick)
    } else {
        series.iter().min_by(pick)
    }
}

/// Our numbers for each of the paper's statements: agrees or differs, with the figures.
pub fn judge(paper: &Paper, series: &[Series]) -> Vec<Finding> {
    crate::finding::judge_claims(&paper.claims, |id| {
        check(id, series, paper.overhead_ratio_approx)
    })
}

fn check(id: &str, series: &[Series], paper_overhead: f64) -> (Verdict, String) {
    let speed = |name: &str| by_name(series, name).map_or(f64::NAN, Series::mean_us_per_byte);
    let name = |s: Option<&Series>| s.map(|s| s.scheme.clone()).unwrap_or_default();
    match id {
        "aead_fastest" => {
            let groups = group_means(series);
            let g = |n: &str| {
                groups
                    .iter()
                    .find(|m| m.group == n)
                    .map_or(f64::NAN, |m| m.us_per_byte)
            };
            let (a, h, e) = (g("AEAD"), g("HMAC"), g("EtM"));
            (
                Verdict::from_ok(a < h && a < e),
                format!("AEAD {a:.4} µs/B, HMAC {h:.4}, EtM {e:.4}"),
            )
        }
        "acorn_fastest" => {
            let fastest = name(extreme(series, Series::mean_us_per_byte, false));
            (
                Verdict::from_ok(fastest == "aead:acorn-128"),
                format!(
                    "fastest here is {fastest}; ACORN-128 {:.4} µs/B (the in-project portable ACORN here; AES uses the CPU's AES instructions when present)",
                    speed("aead:acorn-128")
                ),
            )
        }
        "sha3_512_faster_than_sha512" => {
            let (s512, s3_512) = (speed("hmac:hmac-sha512"), speed("hmac:hmac-sha3-512"));
            let (s256, s3_256) = (speed("hmac:hmac-sha256"), speed("hmac:hmac-sha3-256"));
            (
                Verdict::from_ok(s3_512 < s512 && s256 < s3_256),
                format!(
                    "SHA3-512 {s3_512:.4} vs SHA-512 {s512:.4} µs/B; SHA-256 {s256:.4} vs SHA3-256 {s3_256:.4}"
                ),
            )
        }
        "aes128_aead_highest_cost_per_bit" => {
            let worst = name(extreme(series, |s| mean_sd(&s.cost_per_bit()).0, true));
            (
                Verdict::from_ok(worst == "aead:aes-128-gcm" || worst == "aead:aes-128-eax"),
                format!("highest cost per bit here is {worst}"),
            )
        }
        "hmac_smallest_overhead" => {
            let smallest = name(extreme(
                series,
                |s| mean_sd(&s.overhead_ratio_appendix_b).0,
                false,
            ));
            let mean_ob: Vec<f64> = series
                .iter()
                .map(|s| mean_sd(&s.overhead_ratio_appendix_b).0)
                .collect();
            (
                Verdict::from_ok(
                    smallest == "hmac:hmac-sha256" || smallest == "hmac:hmac-sha3-256",
                ),
                format!(
                    "smallest Appendix-B overhead is {smallest}; mean over all {:.2} (paper ≈ {paper_overhead:.1})",
                    mean_sd(&mean_ob).0
                ),
            )
        }
        "etm_uses_ecb" => {
            let etm: Vec<&Series> = series.iter().filter(|s| s.group == "EtM").collect();
            let ecb = etm
                .iter()
                .filter(|s| s.etm_cipher.as_deref().is_some_and(|c| c.ends_with("-ecb")))
                .count();
            (
                Verdict::from_ok(!etm.is_empty() && ecb == etm.len()),
                format!(
                    "{ecb} of {} EtM schemes measured here use ECB (flagged ⚠); the MAC key is separate, derived with HKDF-SHA256",
                    etm.len()
                ),
            )
        }
        other => (Verdict::NotJudged, format!("no check for claim {other}")),
    }
}

impl Report {
    pub fn text(&self) -> String {
        let (paper, series) = (&self.paper, &self.series);
        let mut o = String::new();
        out!(
            o,
            "Study 003 (Söderquist, Tiny Security): framing a temperature-chain reading as a JSON message, on {}",
            self.ran_on
        );
        out!(
            o,
            "Chain lengths {:?}, {} seeded readings each; time covers nonce, sealing, base64 and the JSON message.",
            self.chain_lengths,
            self.iterations
        );
        let sizes = series
            .first()
            .map(|s| s.reading_bytes.clone())
            .unwrap_or_default();
        let join = |v: &[f64]| {
            v.iter()
                .map(|b| format!("{b:.0}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        out!(
            o,
            "Reading sizes (bytes, minified JSON): ours {} | paper ≈ {}",
            join(&sizes),
            join(&paper.input_bytes_approx)
        );
        out!(o);
        out!(
            o,
            "{:<5} {:<30} {:>5} | {:>9} {:>8} | {:>10} {:>9} | {:>7} {:>6} | {:>7}",
            "group",
            "scheme",
            "bits",
            "µs/B",
            "± sd",
            "(µs/B)/bit",
            "± sd",
            "ovh",
            "± sd",
            "ovh(B)"
        );
        out!(
            o,
            "{:<42} | {:^18} | {:^20} | {:^14} |",
            "",
            "Fig. 9",
            "Fig. 10",
            "Fig. 11"
        );
        for s in series {
            let (t, tsd) = mean_sd(&s.us_per_byte);
            let (c, csd) = mean_sd(&s.cost_per_bit());
            let (ov, osd) = mean_sd(&s.overhead_ratio);
            let (ob, _) = mean_sd(&s.overhead_ratio_appendix_b);
            let flag = if s.insecure.is_empty() { "" } else { " ⚠" };
            out!(
                o,
                "{:<5} {:<30} {:>5} | {:>9.4} {:>8.4} | {:>10.2e} {:>9.1e} | {:>7.2} {:>6.2} | {:>7.2}{flag}",
                s.group,
                s.scheme,
                s.bits_study003,
                t,
                tsd,
                c,
                csd,
                ov,
                osd,
                ob
            );
        }
        out!(o);
        out!(o, "Group means:");
        for g in &self.groups {
            out!(
                o,
                "  {:<5} µs/B {:.4}   (µs/B)/bit {:.2e}   overhead {:.2}",
                g.group,
                g.us_per_byte,
                g.cost_per_bit,
                g.overhead_ratio
            );
        }
        out!(o);
        out!(o, "The paper's findings beside ours:");
        o.push_str(&crate::finding::text(&self.findings));
        out!(o);
        out!(
            o,
            "sd: spread over the six chain lengths (the study's error bars). bits: study 003's scoring (key or digest"
        );
        out!(
            o,
            "length; EtM the larger). ovh = our json message / reading; ovh(B) = with only Appendix B's iv/tag/data fields."
        );
        out!(
            o,
            "⚠ EtM here uses AES-ECB because the study did (Appendix C): ECB leaks equal plaintext blocks. It is measured"
        );
        out!(
            o,
            "  for the reproduction only; `seal` refuses it without --allow-insecure. ACORN-128 is marked legacy in the catalogue."
        );
        out!(
            o,
            "  Ascon-AEAD128 (NIST SP 800-232) is added as the modern lightweight reference; the study predates it."
        );
        if self.quick {
            out!(
                o,
                "note: --quick uses few readings and very short samples; rerun without it for numbers worth comparing."
            );
        }
        if cfg!(debug_assertions) {
            out!(
                o,
                "note: this is a debug build; times are far slower than a release build's."
            );
        }
        o
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(scheme: &str, group: &str, bits: u32, us: f64, ovh_b: f64) -> Series {
        Series {
            scheme: scheme.into(),
            group: group.into(),
            bits_study003: bits,
            reading_bytes: vec![66.0, 470.0],
            us_per_byte: vec![us, us],
            overhead_ratio: vec![ovh_b + 0.3, ovh_b + 0.3],
            overhead_ratio_appendix_b: vec![ovh_b, ovh_b],
            insecure: vec![],
            etm_cipher: (group == "EtM").then(|| "aes-128-ecb".to_string()),
        }
    }

    /// The paper's picture: AEAD fastest with ACORN first, SHA3-512 beating
    /// SHA-512 but not at 256 bits, AES-128 costliest per bit, HMAC-SHA-256
    /// smallest, EtM on ECB. Every claim agrees.
    fn papers_picture() -> Vec<Series> {
        vec![
            s("hmac:hmac-sha256", "HMAC", 256, 2.0, 1.5),
            s("hmac:hmac-sha512", "HMAC", 512, 5.0, 2.0),
            s("hmac:hmac-sha3-256", "HMAC", 256, 3.0, 1.6),
            s("hmac:hmac-sha3-512", "HMAC", 512, 4.0, 2.0),
            s("etm:aes-128-ecb+hmac-sha256", "EtM", 256, 3.5, 2.5),
            s("aead:aes-128-gcm", "AEAD", 128, 1.9, 2.2),
            s("aead:acorn-128", "AEAD", 128, 0.5, 2.2),
        ]
    }

    #[test]
    fn every_claim_agrees_with_the_papers_picture() {
        let f = judge(&paper().unwrap(), &papers_picture());
        assert_eq!(f.len(), 6);
        for x in &f {
            assert_eq!(x.verdict, Verdict::Agrees, "{x:?}");
        }
    }

    #[test]
    fn each_claim_differs_when_its_table_says_otherwise() {
        let paper = paper().unwrap();
        let verdict = |rows: &[Series], id: &str| {
            judge(&paper, rows)
                .into_iter()
                .find(|f| f.id == id)
                .unwrap()
                .verdict
        };
        let mut t = papers_picture();
        t[6].us_per_byte = vec![9.0, 9.0]; // ACORN now slowest: AEAD mean 5.45
        assert_eq!(verdict(&t, "acorn_fastest"), Verdict::Differs);
        assert_eq!(verdict(&t, "aead_fastest"), Verdict::Differs);
        let mut t = papers_picture();
        t[3].us_per_byte = vec![6.0, 6.0]; // SHA3-512 slower than SHA-512
        assert_eq!(verdict(&t, "sha3_512_faster_than_sha512"), Verdict::Differs);
        let mut t = papers_picture();
        t[1].overhead_ratio_appendix_b = vec![1.0, 1.0];
        assert_eq!(verdict(&t, "hmac_smallest_overhead"), Verdict::Differs);
        let mut t = papers_picture();
        t[4].etm_cipher = Some("aes-128-cbc".into());
        assert_eq!(verdict(&t, "etm_uses_ecb"), Verdict::Differs);
        let mut t = papers_picture();
        t[4].us_per_byte = vec![600.0, 600.0]; // EtM now costliest per bit
        assert_eq!(
            verdict(&t, "aes128_aead_highest_cost_per_bit"),
            Verdict::Differs
        );
    }
}
