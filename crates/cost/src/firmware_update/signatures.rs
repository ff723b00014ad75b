//! Each scheme's public-key and signature bytes, security and state. LMS's
//! sizes come from RFC 8554's formulas over its parameters, so a change of
//! parameter set (h, w) needs no new figures.

use serde::Serialize;

use super::facts::{Facts, LmsParams, SchemeSpec};

/// One scheme as the table shows it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Signature {
    pub name: String,
    pub title: String,
    pub public_key_bytes: u32,
    pub signature_bytes: u32,
    /// "128-bit" (classical) or "NIST category 2".
    pub security: String,
    pub quantum_safe: bool,
    /// What the signer must keep: "none", or LMS's rule.
    pub state: String,
    /// Images one key can sign; none for a stateless scheme.
    pub signatures_per_key: Option<u64>,
}

/// p, the number of n-byte strings in an LM-OTS signature (RFC 8554
/// Appendix B): u = ⌈8n/w⌉, v = ⌈(⌊lg((2^w − 1)·u)⌋ + 1) / w⌉, p = u + v.
pub fn lmots_p(n: u32, w: u32) -> u32 {
    let u = (8 * n).div_ceil(w);
    let product = ((1u64 << w) - 1) * u64::from(u);
    let floor_lg = 63 - product.leading_zeros();
    u + (floor_lg + 1).div_ceil(w)
}

/// An LM-OTS signature (RFC 8554 §4.5): type, C (n bytes), y (p × n bytes).
pub fn lmots_signature_bytes(l: &LmsParams) -> u32 {
    let n = l.n.value;
    l.type_bytes.value + n + lmots_p(n, l.w.value) * n
}

/// An LMS signature (RFC 8554 §5.4): q, the LM-OTS signature, the LMS
/// type, and the h m-byte nodes of the authentication path.
pub fn lms_signature_bytes(l: &LmsParams) -> u32 {
    l.q_bytes.value + lmots_signature_bytes(l) + l.type_bytes.value + l.h.value * l.m.value
}

/// An LMS public key (RFC 8554 §5.3): LMS type, LM-OTS type, I, T[1].
pub fn lms_public_key_bytes(l: &LmsParams) -> u32 {
    2 * l.type_bytes.value + l.identifier_bytes.value + l.m.value
}

/// Every scheme of the file.
pub fn all(facts: &Facts) -> Vec<Signature> {
    facts.scheme.iter().map(|s| one(s, &facts.lms)).collect()
}

fn one(s: &SchemeSpec, lms: &LmsParams) -> Signature {
    let security = match (&s.security_bits, &s.category) {
        (_, Some(c)) => format!("NIST category {}", c.value),
        (Some(b), None) => format!("{}-bit", b.value),
        (None, None) => "not stated".into(),
    };
    let (public_key_bytes, signature_bytes, signatures_per_key, state) = if s.stateful {
        let per_key = 1u64 << lms.h.value;
        (
            lms_public_key_bytes(lms),
            lms_signature_bytes(lms),
            Some(per_key),
            format!("{per_key} signatures per key; {}", lms.state),
        )
    } else {
        (
            s.public_key.as_ref().map_or(0, |f| f.value),
            s.signature.as_ref().map_or(0, |f| f.value),
            None,
            "none".into(),
        )
    };
    Signature {
        name: s.name.clone(),
        title: s.title.clone(),
        public_key_bytes,
        signature_bytes,
        security,
        quantum_safe: s.quantum_safe,
        state,
        signatures_per_key,
    }
}
