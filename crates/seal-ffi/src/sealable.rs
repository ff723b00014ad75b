//! Which schemes `cm_seal` seals at all, whatever the build: one rule for the
//! library's calls and its build script, which refuses a one-scheme build the
//! library would always refuse.

use seal::{Pattern, Spec};

/// Why `cm_seal` refuses a scheme in every build.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// `enc:` has no authentication.
    Unauthenticated,
    /// Its nonces must be random or unpredictable; the library seals under counters.
    NeedsRandomNonces,
}

impl Refusal {
    /// For the build's refusal; the library answers with status codes.
    #[allow(dead_code)]
    pub fn reason(self) -> &'static str {
        match self {
            Refusal::Unauthenticated => "an enc: scheme has no authentication",
            Refusal::NeedsRandomNonces => {
                "its nonces must be random, and the C library seals under counter nonces"
            }
        }
    }
}

/// The reason `cm_seal` never seals with `spec`, if it never does.
pub fn refusal(spec: &Spec<'_>) -> Option<Refusal> {
    if spec.pattern == Pattern::Enc {
        Some(Refusal::Unauthenticated)
    } else if !spec.allows_counter_nonces() {
        Some(Refusal::NeedsRandomNonces)
    } else {
        None
    }
}
