//! Classical, hybrid and post-quantum key establishment side by side, per
//! device and link (`cost::key_establishment`): what each handshake sends,
//! how long the duty cycle holds the key back, what it costs the device, and
//! from which session length it stops mattering, drawn as energy per
//! message against messages per session.

use cost::key_establishment::{Comparison, SettingComparison};
use store::Artifact;
use store::conventions::KEY_ESTABLISHMENT;

use crate::html::{Table, esc, num};
use crate::svg::{LineChart, Series, log_log};

pub fn render(artifacts: &[Artifact]) -> String {
    let Some(a) = artifacts.iter().find(|a| a.kind == KEY_ESTABLISHMENT) else {
        return "<p>No key establishment comparison in this run.</p>".into();
    };
    match serde_json::from_value::<Comparison>(a.data.clone()) {
        Ok(c) => comparison(&c),
        Err(e) => format!(
            "<p class=\"warn\">The stored comparison cannot be read: {}</p>",
            esc(&e.to_string())
        ),
    }
}

fn comparison(c: &Comparison) -> String {
    let mut s = format!(
        "<p>A session key instead of a pre-shared one: each handshake below keys <code>{}</code> messages carrying <code>{}</code>. \
         Classical is EDHOC (method 3, suite 2, P-256); hybrid is X-Wing (X25519 + ML-KEM-768); post-quantum is ML-KEM-512 alone \
         (only the gateway authenticated, implicitly) or signed with ML-DSA-44 (both authenticated, as EDHOC). \
         KEM ciphertexts go in the sealing core's 2-byte-header fragments where one frame is too small. \
         CPU is the device's own, simulated; energy is a model estimate. \
         “Under 1 % from” is the session length from which the handshake adds less than 1 % to each message.</p>",
        esc(&c.scheme),
        esc(&c.sample)
    );
    let mut t = Table::new(&[
        "device",
        "link",
        "key establishment",
        "class",
        "both authenticated",
        "bytes",
        "frames",
        "duty wait s",
        "device CPU ms",
        "handshake µJ",
        "= messages",
        "under 1 % from",
    ]);
    for setting in &c.settings {
        for a in &setting.answers {
            let dash = || "–".to_string();
            t.rows.push(vec![
                esc(&setting.device),
                esc(&setting.link),
                esc(&a.protocol),
                esc(a.class.as_str()),
                if a.mutual_authentication {
                    "yes"
                } else {
                    "gateway only"
                }
                .into(),
                a.handshake_bytes.to_string(),
                a.handshake_frames.to_string(),
                num(a.duty_wait_s),
                a.device_cpu_ms.map_or_else(dash, num),
                match a.handshake_uj {
                    Some(uj) => num(uj),
                    None => format!(
                        "<span class=\"warn\" title=\"{}\">not on this device</span>",
                        esc(&a.sentence)
                    ),
                },
                a.handshake_in_messages
                    .map_or_else(dash, |m| format!("{m:.1}")),
                a.negligible_from_messages
                    .map_or_else(dash, |n| n.to_string()),
            ]);
        }
    }
    s.push_str(&t.render());
    for setting in c.settings.iter().filter(|s| drawable(s)) {
        s.push_str(&chart(setting));
    }
    s
}

/// A chart needs the message's own energy and two measured handshakes.
fn drawable(s: &SettingComparison) -> bool {
    s.message_uj.is_some()
        && s.answers
            .iter()
            .filter(|a| a.handshake_uj.is_some())
            .count()
            >= 2
}

/// Energy per message against messages per session: the pre-shared key
/// flat, each handshake falling towards it as 1/N.
fn chart(s: &SettingComparison) -> String {
    let base = s.message_uj.unwrap_or(0.0);
    let sessions: Vec<f64> = (0..=10).map(|i| 10f64.powf(i as f64 * 0.5)).collect();
    let mut series = vec![Series {
        name: "pre-shared key".into(),
        class: String::new(),
        dashed: true,
        points: sessions.iter().map(|&n| (n, base)).collect(),
    }];
    for a in &s.answers {
        let Some(h) = a.handshake_uj else { continue };
        series.push(Series {
            name: format!("{} ({})", a.protocol, a.class.as_str()),
            class: String::new(),
            dashed: false,
            points: sessions.iter().map(|&n| (n, base + h / n)).collect(),
        });
    }
    log_log(&LineChart {
        title: format!(
            "{} over {}: energy per message by session length",
            s.device, s.link
        ),
        x_label: "messages per session".into(),
        y_label: "µJ per message".into(),
        series,
    })
}
