//! A shorter tag or a longer session (issue 64 item 3). CCM_8's 64-bit tag
//! saves 8 bytes on every message, but its published limits let one key
//! protect fewer messages than a 128-bit tag's, so a session must rekey
//! sooner. For each ranked short-tag row whose 128-bit-tag scheme
//! (`full_tag` in data/aead-limits.toml) is ranked in the same container, the
//! two are costed per message with the handshake spread over the session:
//! the handshake energy at which they break even, and with
//! `--session-messages` the session's own handshake and which is cheaper.

use serde::{Deserialize, Serialize};

use crate::key_limits::{count, limits, span};

/// What is weighed of a ranked row (the summary's row, in rank order).
pub struct Row<'a> {
    pub scheme: &'a str,
    pub container: &'a str,
    /// Its SCHC compression (`schc`), if compressed: rows are weighed only
    /// against rows compressed alike.
    pub compression: Option<&'a str>,
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
    /// Both rows' SCHC compression, if compressed.
    #[serde(default)]
    pub compression: Option<String>,
    /// Bytes and device energy (µJ) the short tag saves on each message.
    pub saved_bytes: i64,
    pub saved_uj_per_message: f64,
    /// The messages a session may hold under each: the key limit, or the
    /// asked `--session-messages` where that is shorter.
    pub short_tag_session: Option<u64>,
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
    let best = |scheme: &str, like: &Row| {
        rows.iter().find(|r| {
            r.scheme == scheme
                && r.container == like.container
                && r.compression == like.compression
                && r.session.is_none()
        })
    };
    // The session's own handshake, over its messages (the first keyed row's).
    let handshake_uj = rows.iter().find_map(|r| {
        let s = r.session.as_ref()?;
        Some(s.handshake_share_uj * s.messages as f64)
    });
    let mut out = Vec::new();
    for aead in &limits().aead {
        for (short, full) in &aead.full_tag {
            // Each (container, compression) once, at its best short-tag row.
            let mut seen: Vec<(&str, Option<&str>)> = Vec::new();
            for s in rows
                .iter()
                .filter(|r| r.scheme == short && r.session.is_none())
            {
                if seen.contains(&(s.container, s.compression)) {
                    continue;
                }
                seen.push((s.container, s.compression));
                if let Some(f) = best(full, s) {
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
        compression: short.compression.map(str::to_string),
        saved_bytes: full.sealed_bytes as i64 - short.sealed_bytes as i64,
        saved_uj_per_message: saved_uj,
        short_tag_session: short_session,
        full_tag_session: full_session,
        break_even_handshake_uj: break_even,
        handshake_uj,
        cheaper,
    }
}

impl TagOrSession {
    /// What `recommend` says of it, at one message every `interval_s`.
    pub fn sentence(&self, interval_s: f64) -> String {
        let session = |n: Option<u64>| match n {
            Some(n) => format!("{} ({})", count(n), span(n, interval_s)),
            None => "no published limit".into(),
        };
        let wrap = match &self.compression {
            Some(c) => format!("{}, {c}", self.container),
            None => self.container.clone(),
        };
        let mut s = format!(
            "Shorter tag or longer session ({wrap}): {} saves {} B and {:.2} µJ a message against {}; its sessions end after {} messages against {}",
            self.short_tag,
            self.saved_bytes,
            self.saved_uj_per_message,
            self.full_tag,
            session(self.short_tag_session),
            session(self.full_tag_session),
        );
        match self.break_even_handshake_uj {
            Some(b) => s.push_str(&format!(
                ", so the full tag is cheaper only if one handshake costs the device more than {}",
                energy(b)
            )),
            None if self.saved_uj_per_message <= 0.0 => {
                s.push_str(", so the full tag, no dearer a message, is cheaper at any handshake")
            }
            None => s.push_str(": no shorter, so the shorter tag is cheaper at any handshake"),
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

#[cfg(test)]
mod tests {
    use super::*;

    const SHORT: &str = "oscore:aes-ccm-16-64-128";
    const FULL: &str = "oscore:aes-128-gcm";

    fn row(scheme: &str, message_uj: f64, limit: Option<u64>) -> Row<'_> {
        Row {
            scheme,
            container: "oscore",
            compression: None,
            session: None,
            message_uj,
            sealed_bytes: if scheme == SHORT { 40 } else { 48 },
            messages_per_key: limit,
        }
    }

    #[test]
    fn every_full_tag_pair_names_schemes_the_limits_know() {
        for aead in &limits().aead {
            for (short, full) in &aead.full_tag {
                assert!(aead.schemes.contains(short), "{short} is not its entry's");
                assert!(limits().aead(full).is_some(), "{full} has no limits");
            }
        }
        assert!(limits().aead.iter().any(|a| !a.full_tag.is_empty()));
    }

    #[test]
    fn the_break_even_is_the_saving_over_the_extra_handshakes() {
        let rows = [
            row(SHORT, 100.0, Some(1_000)),
            row(FULL, 104.0, Some(4_000)),
        ];
        let t = &compare(&rows, None)[0];
        assert_eq!(t.saved_bytes, 8);
        assert_eq!(t.short_tag_session, Some(1_000));
        // 4 µJ / (1/1000 - 1/4000) = 5333.3 µJ.
        let b = t.break_even_handshake_uj.unwrap();
        assert!(
            (b - 4.0 / (1.0 / 1000.0 - 1.0 / 4000.0)).abs() < 1e-9,
            "{b}"
        );
        assert!(
            t.sentence(600.0).contains("more than 5333.33 µJ"),
            "{}",
            t.sentence(600.0)
        );
    }

    #[test]
    fn sessions_as_long_as_asked_leave_the_short_tag_cheaper_at_any_handshake() {
        let rows = [
            row(SHORT, 100.0, Some(1_000)),
            row(FULL, 104.0, Some(4_000)),
        ];
        let t = &compare(&rows, Some(500))[0];
        assert_eq!(
            (t.short_tag_session, t.full_tag_session),
            (Some(500), Some(500))
        );
        assert_eq!(t.break_even_handshake_uj, None);
        assert!(
            t.sentence(600.0)
                .contains("the shorter tag is cheaper at any handshake")
        );
    }

    #[test]
    fn a_full_tag_no_dearer_wins_at_any_handshake_and_no_limit_is_said() {
        let rows = [row(SHORT, 104.0, Some(1_000)), row(FULL, 104.0, None)];
        let t = &compare(&rows, None)[0];
        assert_eq!(t.full_tag_session, None);
        assert_eq!(t.break_even_handshake_uj, None);
        let said = t.sentence(600.0);
        assert!(said.contains("no dearer a message"), "{said}");
        assert!(said.contains("against no published limit"), "{said}");
    }

    #[test]
    fn rows_are_weighed_only_against_rows_compressed_alike() {
        let mut compressed = row(FULL, 90.0, Some(4_000));
        compressed.compression = Some("schc");
        let rows = [compressed, row(SHORT, 100.0, Some(1_000))];
        assert!(compare(&rows, None).is_empty());
    }
}
