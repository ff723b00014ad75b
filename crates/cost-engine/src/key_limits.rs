//! How many messages one key may protect, from each AEAD's published usage
//! limits (data/aead-limits.toml: the bound, its parameters and its source),
//! at a message's length in blocks; and what that makes in days at a sending
//! interval, in handshakes a year, and against a session's length.
//!
//! Each bound (draft-irtf-cfrg-aead-limits §6) is solved for q, the messages
//! a key protects, at the file's target advantages (TLS 1.3's: CA ≤ 2^-60,
//! IA ≤ 2^-57). The forms:
//! - `birthday`: CA ≤ (q·(a·L + b) + c)² / 2^d, so q ≤ (√p·2^(d/2) − c) / (a·L + b);
//! - `per-forgery`: IA ≤ v·(a·L + b) / 2^d bounds forgery attempts v, not q;
//! - `ccm`: IA ≤ v / 2^t + (a·L·(v + q))² / 2^d, with v = q (`equal`) or
//!   v / 2^t taking half the target and q the rest (`half-target`);
//! - `data`: at most 2^m blocks under one key, so q ≤ 2^m / L;
//! - `none`: no limit on q.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

const FILE: &str = include_str!("../../../data/aead-limits.toml");

const SECONDS_PER_DAY: f64 = 86_400.0;
const DAYS_PER_YEAR: f64 = 365.25;

/// One bound of data/aead-limits.toml (its header explains each form).
#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "form", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Bound {
    Birthday {
        per_block: f64,
        per_message: f64,
        constant: f64,
        denominator_log2: f64,
        equation: String,
    },
    None {
        equation: String,
    },
    PerForgery {
        per_block: f64,
        per_message: f64,
        denominator_log2: f64,
        #[serde(default)]
        forgeries_cap_log2: Option<f64>,
        equation: String,
    },
    Ccm {
        tag_bits: f64,
        per_block: f64,
        denominator_log2: f64,
        forgeries: Forgeries,
        equation: String,
    },
    Data {
        max_blocks_log2: f64,
        equation: String,
    },
}

/// How a `ccm` bound shares its target between forgeries and messages.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(rename_all = "kebab-case")]
pub enum Forgeries {
    Equal,
    HalfTarget,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Aead {
    pub schemes: Vec<String>,
    pub name: String,
    #[serde(default)]
    pub block_bytes: Option<usize>,
    #[serde(default)]
    pub source: Option<String>,
    #[serde(default)]
    pub confidentiality: Option<Bound>,
    #[serde(default)]
    pub integrity: Option<Bound>,
    /// Why there is no limit, where none is published.
    #[serde(default)]
    pub none_published: Option<String>,
    /// A short-tag scheme's 128-bit-tag scheme in the same container, weighed
    /// against it (`tag_or_session`).
    #[serde(default)]
    pub full_tag: std::collections::BTreeMap<String, String>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Target {
    pub confidentiality_log2: f64,
    pub integrity_log2: f64,
    pub source: String,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Framing {
    prefix: String,
    none_published: String,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    pub target: Target,
    pub aead: Vec<Aead>,
    framing: Vec<Framing>,
}

/// The shipped limits.
pub fn limits() -> &'static Limits {
    static PARSED: OnceLock<Limits> = OnceLock::new();
    PARSED.get_or_init(|| {
        toml::from_str(FILE).unwrap_or_else(|e| panic!("data/aead-limits.toml: {e}"))
    })
}

impl Limits {
    /// The entry naming `scheme` (`aead:aes-128-gcm`, `oscore:aes-ccm-16-64-128`).
    pub fn aead(&self, scheme: &str) -> Option<&Aead> {
        self.aead
            .iter()
            .find(|a| a.schemes.iter().any(|s| s == scheme))
    }
}

/// Which property's limit binds first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Binding {
    Confidentiality,
    Integrity,
    /// A data limit bounding both (OCB's 2^48 blocks).
    Data,
}

impl Binding {
    pub fn as_str(self) -> &'static str {
        match self {
            Binding::Confidentiality => "confidentiality",
            Binding::Integrity => "integrity",
            Binding::Data => "data",
        }
    }
}

/// What one key may protect of a scheme's messages, and for how long.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct KeyLifetime {
    /// Messages one key may protect under the published limits; null where
    /// none limits messages (`note` says why).
    pub messages_per_key: Option<u64>,
    /// The limit that binds `messages_per_key` first.
    pub binding: Option<Binding>,
    /// Forgery attempts the key may meet within the integrity target (none
    /// where the bound does not count them).
    pub forgeries_per_key: Option<u64>,
    /// The message's length the limit is computed at, in the AEAD's blocks.
    pub blocks_per_message: u64,
    /// `messages_per_key` at the ranking's interval, days.
    pub days_per_key: Option<f64>,
    /// Handshakes a year the limit forces at that interval (a new key each).
    pub handshakes_per_year: Option<f64>,
    /// The target advantages and where they come from.
    pub limit_target: String,
    /// The document and section behind the limit.
    pub limit_source: String,
    /// The bounds solved, as the source writes them (section: equation).
    pub limit_equations: Vec<String>,
    /// Where no limit is published: that said.
    pub limit_note: Option<String>,
    /// `--session-messages`, where given, and whether it passes the limit.
    pub asked_session_messages: Option<u64>,
    pub session_past_limit: bool,
}

/// The largest q with `f(q)` within target `p`, by bisection over a
/// monotone advantage; used where no closed form is given.
fn largest_within(p: f64, f: impl Fn(f64) -> f64) -> f64 {
    let (mut lo, mut hi) = (0.0_f64, 1.0_f64);
    while f(hi) <= p && hi < 1e30 {
        hi *= 2.0;
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(mid) <= p { lo = mid } else { hi = mid }
    }
    lo
}

impl Bound {
    /// The advantage after `q` messages and `v` forgery attempts of `l`
    /// blocks each; for `data`, the share of the data limit used.
    pub fn advantage(&self, q: f64, v: f64, l: f64) -> f64 {
        match self {
            Bound::Birthday {
                per_block,
                per_message,
                constant,
                denominator_log2,
                ..
            } => (q * (per_block * l + per_message) + constant).powi(2) / denominator_log2.exp2(),
            Bound::None { .. } => 0.0,
            Bound::PerForgery {
                per_block,
                per_message,
                denominator_log2,
                ..
            } => v * (per_block * l + per_message) / denominator_log2.exp2(),
            Bound::Ccm {
                tag_bits,
                per_block,
                denominator_log2,
                ..
            } => v / tag_bits.exp2() + (per_block * l * (v + q)).powi(2) / denominator_log2.exp2(),
            Bound::Data {
                max_blocks_log2, ..
            } => q * l / max_blocks_log2.exp2(),
        }
    }

    /// (messages, forgery attempts) within target `p` at `l` blocks a
    /// message; None where the bound does not limit that count.
    pub fn within(&self, p: f64, l: f64) -> (Option<f64>, Option<f64>) {
        match self {
            Bound::Birthday {
                per_block,
                per_message,
                constant,
                denominator_log2,
                ..
            } => {
                let q = (p.sqrt() * (denominator_log2 / 2.0).exp2() - constant)
                    / (per_block * l + per_message);
                (Some(q.max(0.0)), None)
            }
            Bound::None { .. } => (None, None),
            Bound::PerForgery {
                per_block,
                per_message,
                denominator_log2,
                forgeries_cap_log2,
                ..
            } => {
                let v = p * denominator_log2.exp2() / (per_block * l + per_message);
                let v = forgeries_cap_log2.map_or(v, |cap| v.min(cap.exp2()));
                (None, Some(v))
            }
            Bound::Ccm {
                tag_bits,
                per_block,
                denominator_log2,
                forgeries,
                ..
            } => match forgeries {
                Forgeries::Equal => {
                    let q = largest_within(p, |q| self.advantage(q, q, l));
                    (Some(q), Some(q))
                }
                Forgeries::HalfTarget => {
                    let v = (p / 2.0 * tag_bits.exp2()).floor();
                    let q = (p / 2.0 * denominator_log2.exp2()).sqrt() / (per_block * l) - v;
                    (Some(q.max(0.0)), Some(v))
                }
            },
            Bound::Data {
                max_blocks_log2, ..
            } => (Some(max_blocks_log2.exp2() / l), None),
        }
    }

    fn equation(&self) -> &str {
        match self {
            Bound::Birthday { equation, .. }
            | Bound::None { equation }
            | Bound::PerForgery { equation, .. }
            | Bound::Ccm { equation, .. }
            | Bound::Data { equation, .. } => equation,
        }
    }
}

/// What one key of `scheme` may protect of messages `message_bytes` long
/// (plaintext and associated data, or the sealed message as a ceiling), one
/// every `interval_s`, and whether a session of `session_messages` passes it.
pub fn key_lifetime(
    scheme: &str,
    message_bytes: usize,
    interval_s: f64,
    session_messages: Option<u64>,
) -> KeyLifetime {
    let all = limits();
    let target = format!(
        "CA <= 2^{}, IA <= 2^{} per key: {}",
        all.target.confidentiality_log2, all.target.integrity_log2, all.target.source
    );
    let mut out = KeyLifetime {
        messages_per_key: None,
        binding: None,
        forgeries_per_key: None,
        blocks_per_message: 0,
        days_per_key: None,
        handshakes_per_year: None,
        limit_target: target,
        limit_source: String::new(),
        limit_equations: Vec::new(),
        limit_note: None,
        asked_session_messages: session_messages,
        session_past_limit: false,
    };
    let Some(aead) = all.aead(scheme) else {
        let framing = all.framing.iter().find(|f| scheme.starts_with(&f.prefix));
        out.limit_source = "data/aead-limits.toml".into();
        out.limit_note = Some(match framing {
            Some(f) => f.none_published.clone(),
            None => "no published limit".into(),
        });
        return out;
    };
    out.limit_source = aead.source.clone().unwrap_or_else(|| aead.name.clone());
    if let Some(why) = &aead.none_published {
        out.limit_note = Some(why.clone());
        return out;
    }
    let block = aead.block_bytes.unwrap_or(16).max(1);
    let l = message_bytes.div_ceil(block).max(1);
    out.blocks_per_message = l as u64;
    let l = l as f64;
    let mut candidates: Vec<(f64, Binding)> = Vec::new();
    let mut equations = Vec::new();
    let sides = [
        (
            &aead.confidentiality,
            all.target.confidentiality_log2,
            Binding::Confidentiality,
        ),
        (
            &aead.integrity,
            all.target.integrity_log2,
            Binding::Integrity,
        ),
    ];
    for (bound, p_log2, binding) in sides {
        let Some(bound) = bound else { continue };
        equations.push(bound.equation().to_string());
        let (q, v) = bound.within(p_log2.exp2(), l);
        let binding = match bound {
            Bound::Data { .. } => Binding::Data,
            _ => binding,
        };
        if let Some(q) = q {
            candidates.push((q, binding));
        }
        if let Some(v) = v {
            out.forgeries_per_key = Some(v.floor() as u64);
        }
    }
    out.limit_equations = equations;
    if let Some(&(q, binding)) = candidates.iter().min_by(|a, b| a.0.total_cmp(&b.0)) {
        let q = q.floor() as u64;
        out.messages_per_key = Some(q);
        out.binding = Some(binding);
        if interval_s > 0.0 {
            let days = q as f64 * interval_s / SECONDS_PER_DAY;
            out.days_per_key = Some(days);
            out.handshakes_per_year = Some(DAYS_PER_YEAR / days);
        }
        out.session_past_limit = session_messages.is_some_and(|n| n > q);
    } else {
        out.limit_note = Some(format!(
            "no limit on messages per key in {}",
            aead.source.as_deref().unwrap_or("its source")
        ));
    }
    out
}

/// 6103515625 as "6.1e9 (2^32.5)"; small counts as they are.
pub fn count(n: u64) -> String {
    if n < 100_000 {
        return n.to_string();
    }
    format!("{:.1e} (2^{:.1})", n as f64, (n as f64).log2())
}

/// `messages` sent one every `interval_s`, as a person reads the span.
pub fn span(messages: u64, interval_s: f64) -> String {
    duration(messages as f64 * interval_s / SECONDS_PER_DAY)
}

/// Days as a person reads them: days, or years past two.
pub fn duration(days: f64) -> String {
    let years = days / DAYS_PER_YEAR;
    match years {
        y if y >= 1e6 => format!("{y:.1e} years"),
        y if y >= 2.0 => format!("{y:.0} years"),
        _ if days >= 1.0 => format!("{days:.0} days"),
        _ => format!("{:.1} hours", days * 24.0),
    }
}

impl KeyLifetime {
    /// "6.1e9 (2^32.5) messages (confidentiality), 1.1e5 years", or why none.
    pub fn short(&self) -> String {
        match (self.messages_per_key, self.binding) {
            (Some(q), Some(b)) => {
                let mut s = format!("{} messages ({})", count(q), b.as_str());
                if let Some(d) = self.days_per_key {
                    s.push_str(&format!(", {}", duration(d)));
                }
                if let Some(v) = self.forgeries_per_key {
                    s.push_str(&format!(", {} forgery attempts", count(v)));
                }
                s
            }
            _ => match self.forgeries_per_key {
                Some(v) => format!("no limit on messages; {} forgery attempts", count(v)),
                None => self
                    .limit_note
                    .clone()
                    .unwrap_or_else(|| "no published limit".into()),
            },
        }
    }

    /// The session's answer for one scheme: how many messages a session may
    /// protect and how often a handshake is due, and whether
    /// `--session-messages` passes the limit.
    pub fn sentence(&self, scheme: &str, interval_s: f64) -> String {
        let Some(q) = self.messages_per_key else {
            return format!(
                "Session lifetime of {scheme}: {} ({}); a session's length is the protocol's choice.",
                self.short(),
                self.limit_source
            );
        };
        let mut s = format!(
            "Session lifetime of {scheme}: one key may protect {} messages of {} blocks (its {} limit, {}; at {})",
            count(q),
            self.blocks_per_message,
            self.binding.map_or("", Binding::as_str),
            self.limit_source,
            self.limit_target
                .split(": ")
                .next()
                .unwrap_or(&self.limit_target),
        );
        if let (Some(d), Some(y)) = (self.days_per_key, self.handshakes_per_year) {
            s.push_str(&format!(
                ", so at one message every {interval_s} s a handshake is due at least every {} ({} a year)",
                duration(d),
                per_year(y)
            ));
        }
        match self.asked_session_messages {
            Some(n) if self.session_past_limit => s.push_str(&format!(
                ". --session-messages {n} PASSES this limit: rekey after {} messages at most.",
                count(q)
            )),
            Some(n) => s.push_str(&format!(
                "; --session-messages {n} stays within it: a handshake every {} ({} a year).",
                span(n, interval_s),
                per_year(DAYS_PER_YEAR * SECONDS_PER_DAY / (n as f64 * interval_s))
            )),
            None => s.push('.'),
        }
        s
    }
}

/// Handshakes a year as a person reads them: "4.2e-5", "12".
fn per_year(y: f64) -> String {
    match y {
        y if y >= 10.0 => format!("{y:.0}"),
        y if y >= 0.01 => format!("{y:.2}"),
        y => format!("{y:.1e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bound(scheme: &str, integrity: bool) -> &'static Bound {
        let a = limits().aead(scheme).expect(scheme);
        match integrity {
            true => a.integrity.as_ref().unwrap(),
            false => a.confidentiality.as_ref().unwrap(),
        }
    }

    fn log2(x: f64) -> f64 {
        x.log2()
    }

    /// draft-irtf-cfrg-aead-limits-11 §6.6, its table of single-key limits at
    /// CA and IA of 2^-50 and L = 2^7: GCM q 2^32.5, v 2^64; ChaCha20-Poly1305
    /// no q, v 2^46; CCM q = v = 2^30; CCM_8 q 2^30.4, v 2^13.
    #[test]
    fn the_drafts_single_key_example_table() {
        let p = (-50.0_f64).exp2();
        let l = 128.0;
        let (q, _) = bound("aead:aes-128-gcm", false).within(p, l);
        assert!((log2(q.unwrap()) - 32.5).abs() < 0.05, "{q:?}");
        let (_, v) = bound("aead:aes-256-gcm", true).within(p, l);
        assert_eq!(log2(v.unwrap()), 64.0);
        assert_eq!(
            bound("aead:chacha20-poly1305", false).within(p, l),
            (None, None)
        );
        let (_, v) = bound("aead:chacha20-poly1305", true).within(p, l);
        assert!((log2(v.unwrap()) - 46.0).abs() < 0.05, "{v:?}");
        let (q, v) = bound("aead:aes-128-ccm", true).within(p, l);
        assert!((log2(q.unwrap()) - 30.0).abs() < 1e-6, "{q:?}");
        assert_eq!(q, v, "CCM's example assumes v = q");
        let (q, v) = bound("oscore:aes-ccm-16-64-128", true).within(p, l);
        assert_eq!(v, Some(8192.0), "v * 2^64 <= p * 2^127: 2^13");
        // 2^30.5 - 2^13 exactly; the table prints it rounded down as 2^30.4.
        assert_eq!(q.unwrap(), 30.5_f64.exp2() - 8192.0);
        assert!((log2(q.unwrap()) - 30.4).abs() <= 0.1);
        // "If v is limited to 1, q can be increased to 2^31 for both CCM AEADs":
        // the confidentiality limit alone.
        let (q, _) = bound("aead:aes-128-ccm", false).within(p, l);
        assert_eq!(log2(q.unwrap()), 31.0);
    }

    /// draft-ietf-core-oscore-key-limits-04 Table 1 (q = v = 2^20, l = 2^10)
    /// and Table 3 (CCM_8): the advantages the bounds give, in whole powers.
    #[test]
    fn the_oscore_drafts_advantages() {
        let e = |x: f64| x.log2().round();
        let (q, v, l) = (20_f64.exp2(), 20_f64.exp2(), 1024.0);
        assert_eq!(e(bound("aead:aes-128-ccm", true).advantage(q, v, l)), -64.0);
        assert_eq!(
            e(bound("aead:aes-128-ccm", false).advantage(q, v, l)),
            -66.0
        );
        assert_eq!(e(bound("aead:aes-128-gcm", true).advantage(q, v, l)), -97.0);
        assert_eq!(
            e(bound("aead:chacha20-poly1305", true).advantage(q, v, l)),
            -73.0
        );
        let ccm8 = "oscore:aes-ccm-16-64-128";
        for (v_log2, ia) in [(20.0, -44.0), (15.0, -49.0), (14.0, -50.0), (10.0, -54.0)] {
            for (q_log2, l, ca) in [
                (20.0, 256.0, -70.0),
                (10.0, 256.0, -90.0),
                (15.0, 64.0, -84.0),
            ] {
                let (q, v) = (f64::exp2(q_log2), f64::exp2(v_log2));
                assert_eq!(
                    e(bound(ccm8, true).advantage(q, v, l)),
                    ia,
                    "{q_log2} {v_log2}"
                );
                assert_eq!(e(bound(ccm8, false).advantage(q, v, l)), ca, "{q_log2} {l}");
            }
        }
    }

    /// Every solved limit keeps its advantage at the target, and one more
    /// message's worth past it does not.
    #[test]
    fn a_limit_is_the_largest_count_within_the_target() {
        let p = (-57.0_f64).exp2();
        for scheme in [
            "aead:aes-128-gcm",
            "aead:aes-128-ccm",
            "oscore:aes-ccm-16-64-128",
        ] {
            for l in [1.0, 16.0, 300.0] {
                for integrity in [false, true] {
                    let b = bound(scheme, integrity);
                    if let (Some(q), v) = b.within(p, l) {
                        let v = v.unwrap_or(0.0);
                        assert!(b.advantage(q, v, l) <= p * (1.0 + 1e-9), "{scheme} {l}");
                        assert!(b.advantage(q * 1.01 + 1.0, v, l) > p, "{scheme} {l}");
                    }
                }
            }
        }
    }

    /// A 415-byte sealed message is 26 blocks; GCM's binding limit is
    /// confidentiality, (2^-30 * 2^64.5 - 1) / 27 messages, which at one
    /// message every 600 s is that many times 600 / 86400 days.
    #[test]
    fn messages_days_and_the_session_flag() {
        let k = key_lifetime("aead:aes-128-gcm", 415, 600.0, Some(1_000_000_000));
        assert_eq!(k.blocks_per_message, 26);
        let q = ((34.5_f64.exp2() - 1.0) / 27.0).floor() as u64;
        assert_eq!(k.messages_per_key, Some(q));
        assert_eq!(k.binding, Some(Binding::Confidentiality));
        assert_eq!(k.days_per_key, Some(q as f64 * 600.0 / 86_400.0));
        assert!(k.session_past_limit, "1e9 > {q}");
        assert_eq!(k.limit_source, "draft-irtf-cfrg-aead-limits-11 §6.2");
        assert!(
            k.limit_equations[0].starts_with("§6.2.1"),
            "{:?}",
            k.limit_equations
        );
        let sentence = k.sentence("aead:aes-128-gcm", 600.0);
        assert!(sentence.contains("PASSES"), "{sentence}");
        let within = key_lifetime("aead:aes-128-gcm", 415, 600.0, Some(1000));
        assert!(!within.session_past_limit);

        // CCM_8's 64-bit tag: at IA <= 2^-57, 2^-58 * 2^64 = 64 forgery attempts.
        let k = key_lifetime("oscore:aes-ccm-16-64-128", 247, 600.0, None);
        assert_eq!(k.forgeries_per_key, Some(64));
        assert_eq!(k.blocks_per_message, 16);
        // ChaCha20-Poly1305: no limit on messages, only on forgeries.
        let k = key_lifetime("aead:chacha20-poly1305", 421, 600.0, Some(u64::MAX));
        assert_eq!((k.messages_per_key, k.session_past_limit), (None, false));
        assert!(k.forgeries_per_key.is_some());
        // OCB: 2^48 blocks a key.
        let k = key_lifetime("aead:aes-128-ocb", 32, 1.0, None);
        assert_eq!(k.messages_per_key, Some(1 << 47));
        assert_eq!(k.binding, Some(Binding::Data));
    }

    /// Every AEAD the catalogue ranks, and every OSCORE build, has its entry
    /// (a limit or "no published limit", never a silent gap); the framings too.
    #[test]
    fn every_ranked_scheme_is_covered() {
        let names = seal::host::candidates::sealing_candidates(true)
            .into_iter()
            .chain(seal::oscore_build::names().map(String::from));
        for name in names {
            let k = key_lifetime(&name, 100, 600.0, None);
            if name.starts_with("aead:") || name.starts_with("oscore:") {
                assert!(limits().aead(&name).is_some(), "{name} has no entry");
            }
            assert!(
                k.messages_per_key.is_some() || k.limit_note.is_some(),
                "{name}: neither a limit nor why none"
            );
        }
        let k = key_lifetime("aead:aes-256-gcm-siv", 100, 600.0, None);
        assert!(k.limit_note.unwrap().contains("no published limit"));
    }
}
