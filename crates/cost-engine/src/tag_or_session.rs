//! A shorter tag or a longer session (issue 64 item 3). CCM_8's 64-bit tag
//! saves 8 bytes on every message, but its published limits let one key
//! protect fewer messages than a 128-bit tag's, so a session must rekey
//! sooner. For each ranked short-tag row whose 128-bit-tag scheme
//! (`full_tag` in data/aead-limits.toml) is ranked in the same container, the
//! two are costed per message with the handshake spread over the session:
//! the handshake energy at which they break even, and with
//! `--session-messages` the session's own handshake and which is cheaper.

use serde::{Deserialize, Serialize};

use crate::key_limits::{count, duration, limits};

/// What is weighed of a ranked row (the summary's row, in rank order).
pub struct Row<'a> {
    pub scheme: &'a str,
    pub container: &'a str,
    /// Keyed by a handshake over a session (`--session-messages`).
    pub session: Option<Session>,
    pub message_uj: f64,
    pub sealed_bytes: usize,
    /// Its key limit (`key_limits::key_lifetime`), where one is published.
    pub messages_per_key: Option<u64>,
}

/// A keyed row's session: its messages and the handshake's share of each.
pub struct Session {
    pub messages: u64,
    pub handshake_share_uj: f64,
}

/// One short-tag scheme against its full-tag scheme, per message.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct TagOrSession {
    pub short_tag: String,
    pub full_tag: String,
    pub container: String,
    /// Bytes and device energy (µJ) the short tag saves on each message.
    pub saved_bytes: i64,
    pub saved_uj_per_message: f64,
    /// The messages a session may hold under each: the key limit, or the
    /// asked `--session-messages` where that is shorter.
    pub short_tag_session: u64,
    pub full_tag_session: Option<u64>,
    /// Above this handshake energy (µJ) the full tag is cheaper per message;
    /// none when both sessions are equally long (the short tag always is).
    pub break_even_handshake_uj: Option<f64>,
    /// The session's handshake (µJ, the device's), where `--session-messages`
    /// keyed one.
    pub handshake_uj: Option<f64>,
    /// The cheaper of the two at that handshake, where one is known.
    pub cheaper: Option<String>,
}

/// Each short-tag scheme against its full-tag scheme where both are ranked
/// in one container, each at its best row (`rows` are in rank order; rows of
/// a session keyed by a handshake are left out: the same message with the
/// handshake's share added).
pub fn compare(rows: &[Row], session_messages: Option<u64>) -> Vec<TagOrSession> {
    let best = |scheme: &str, container: &str| {
        rows.iter()
            .find(|r| r.scheme == scheme && r.container == container && r.session.is_none())
    };
    // The session's own handshake, over its messages (the first keyed row's).
    let handshake_uj = rows.iter().find_map(|r| {
        let s = r.session.as_ref()?;
        Some(s.handshake_share_uj * s.messages as f64)
    });
    let mut out = Vec::new();
    for aead in &limits().aead {
        for (short, full) in &aead.full_tag {
            let mut containers: Vec<&str> = rows
                .iter()
                .filter(|r| r.scheme == short)
                .map(|r| r.container)
                .collect();
            containers.sort_unstable();
            containers.dedup();
            for container in containers {
                if let (Some(s), Some(f)) = (best(short, container), best(full, container)) {
                    out.push(one(s, f, session_messages, handshake_uj));
                }
            }
        }
    }
    out
}

fn one(
    short: &Row,
    full: &Row,
    session_messages: Option<u64>,
    handshake_uj: Option<f64>,
) -> TagOrSession {
    // A session holds the asked messages, or rekeys at the key's limit first.
    let session = |row: &Row| match (row.messages_per_key, session_messages) {
        (Some(q), Some(n)) => Some(q.min(n)),
        (q, n) => q.or(n),
    };
    let (short_session, full_session) = (session(short), session(full));
    let saved_uj = full.message_uj - short.message_uj;
    let per_message = |n: Option<u64>| n.map_or(0.0, |n| 1.0 / n as f64);
    let extra_handshakes = per_message(short_session) - per_message(full_session);
    let break_even =
        (saved_uj > 0.0 && extra_handshakes > 0.0).then(|| saved_uj / extra_handshakes);
    let cheaper = handshake_uj.map(|h| {
        let short_total = short.message_uj + h * per_message(short_session);
        let full_total = full.message_uj + h * per_message(full_session);
        match short_total <= full_total {
            true => short.scheme.to_string(),
            false => full.scheme.to_string(),
        }
    });
    TagOrSession {
        short_tag: short.scheme.to_string(),
        full_tag: full.scheme.to_string(),
        container: short.container.to_string(),
        saved_bytes: full.sealed_bytes as i64 - short.sealed_bytes as i64,
        saved_uj_per_message: saved_uj,
        short_tag_session: short_session.unwrap_or(u64::MAX),
        full_tag_session: full_session,
        break_even_handshake_uj: break_even,
        handshake_uj,
        cheaper,
    }
}

impl TagOrSession {
    /// What `recommend` says of it, at one message every `interval_s`.
    pub fn sentence(&self, interval_s: f64) -> String {
        let days = |n: u64| duration(n as f64 * interval_s / 86_400.0);
        let mut s = format!(
            "Shorter tag or longer session ({}): {} saves {} B and {:.2} µJ a message against {}; its sessions end after {} messages ({}) against {}",
            self.container,
            self.short_tag,
            self.saved_bytes,
            self.saved_uj_per_message,
            self.full_tag,
            count(self.short_tag_session),
            days(self.short_tag_session),
            self.full_tag_session
                .map_or("no published limit".into(), |n| format!(
                    "{} ({})",
                    count(n),
                    days(n)
                )),
        );
        match self.break_even_handshake_uj {
            Some(b) => s.push_str(&format!(
                ", so the full tag is cheaper only if one handshake costs the device more than {}",
                energy(b)
            )),
            None if self.saved_uj_per_message <= 0.0 => {
                s.push_str(", so the full tag, no dearer a message, is cheaper at any handshake")
            }
            None => {
                s.push_str(": the same session, so the shorter tag is cheaper at any handshake")
            }
        }
        if let (Some(h), Some(c)) = (self.handshake_uj, &self.cheaper) {
            s.push_str(&format!(
                "; this session's handshake costs {}: {c} is cheaper",
                energy(h)
            ));
        }
        s.push('.');
        s
    }
}

/// µJ as a person reads them: "412.30 µJ", "3.2 J", "1.0e9 J".
fn energy(uj: f64) -> String {
    match uj {
        u if u < 1e6 => format!("{u:.2} µJ"),
        u if u < 1e12 => format!("{:.1} J", u / 1e6),
        u => format!("{:.1e} J", u / 1e6),
    }
}
