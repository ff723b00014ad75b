//! EDHOC's post-quantum and PSK drafts, costed from their message sizes:
//! no library we use implements them (lakers 0.8.0 has method 3 only), so
//! each message's size is derived from the draft's layout (RFC 9528 §5's
//! CBOR, changed as the draft says) and the primitives' sizes in
//! `data/handshakes/edhoc-drafts.toml`, then costed on a link as a run
//! handshake's messages are ([`crate::cost`]). Every row says which draft
//! and sections its sizes come from.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use crate::cost::{
    Class, DeviceOp, DeviceOps, Fragmentation, HandshakeCost, downlink_cost, message_cost, totals,
};
use crate::edhoc::Role;
use crate::error::HandshakeError;

const DATA: &str = include_str!("../../../data/handshakes/edhoc-drafts.toml");

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Drafts {
    pub layout: Layout,
    pub primitive: Vec<Primitive>,
    pub suite: Vec<Suite>,
}

/// Field sizes every layout shares (RFC 9528's recommended one-byte forms).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Layout {
    pub connection_id_bytes: u32,
    pub id_cred_bytes: u32,
    pub method_bytes: u32,
    pub suite_bytes: u32,
    pub source: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Primitive {
    pub name: String,
    pub public_key: u32,
    pub ciphertext: Option<u32>,
    pub signature: Option<u32>,
    pub source: String,
}

/// How a method authenticates, which decides what its messages carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    /// RFC 9528 method 0: both parties sign (message_2 and message_3).
    Signature,
    /// draft-ietf-lake-edhoc-psk (method 4): no signature or MAC; the
    /// initiator's AEAD in message_3 and the responder's message_4 authenticate.
    Psk,
    /// draft-papon-lake-pq-edhoc §2 (PQ-EDHOC-IKR): message_1 also carries a
    /// ciphertext to the responder's static KEM key, message_2 a MAC, message_3
    /// the initiator's signature.
    Ikr,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Suite {
    pub name: String,
    pub class: Class,
    pub method: Method,
    pub key_exchange: String,
    pub signature: Option<String>,
    pub tag: u32,
    pub mac: u32,
    pub message_4: bool,
    pub label: String,
    pub suite_source: String,
    /// Message sizes the draft itself states, where it does.
    #[serde(default)]
    pub stated: Vec<u32>,
    pub stated_source: Option<String>,
}

/// The drafts' data, parsed once.
pub fn drafts() -> &'static Drafts {
    static DRAFTS: OnceLock<Drafts> = OnceLock::new();
    // Built in and held to its layout by this crate's tests.
    DRAFTS.get_or_init(|| toml::from_str(DATA).expect("data/handshakes/edhoc-drafts.toml"))
}

impl Drafts {
    pub fn suite(&self, name: &str) -> Result<&Suite, HandshakeError> {
        self.suite.iter().find(|s| s.name == name).ok_or_else(|| {
            HandshakeError::Usage(format!(
                "unknown draft suite '{name}'; known: {}",
                self.names().join(", ")
            ))
        })
    }

    pub fn names(&self) -> Vec<&str> {
        self.suite.iter().map(|s| s.name.as_str()).collect()
    }

    fn primitive(&self, name: &str) -> Result<&Primitive, HandshakeError> {
        self.primitive
            .iter()
            .find(|p| p.name == name)
            .ok_or_else(|| HandshakeError::Usage(format!("no sizes for primitive '{name}'")))
    }
}

/// A CBOR byte string of `n` bytes, its header included (RFC 8949 §3.1).
pub fn bstr(n: u32) -> u32 {
    n + match n {
        0..=23 => 1,
        24..=255 => 2,
        256..=65535 => 3,
        _ => 5,
    }
}

/// One message of a draft suite: its name, sender and size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DraftMessage {
    pub message: &'static str,
    pub role: Role,
    pub bytes: u32,
}

/// Each message's size, from the suite's layout and its primitives' sizes.
pub fn message_sizes(suite: &Suite) -> Result<Vec<DraftMessage>, HandshakeError> {
    let d = drafts();
    let l = &d.layout;
    let kex = d.primitive(&suite.key_exchange)?;
    let kex_ct = kex
        .ciphertext
        .ok_or_else(|| HandshakeError::Usage(format!("{} has no ciphertext size", kex.name)))?;
    let signature = match &suite.signature {
        Some(s) => Some(
            d.primitive(s)?
                .signature
                .ok_or_else(|| HandshakeError::Usage(format!("{s} has no signature size")))?,
        ),
        None => None,
    };
    let need_signature = || {
        signature.ok_or_else(|| {
            HandshakeError::Usage(format!("suite '{}' names no signature", suite.name))
        })
    };
    // message_1 = (METHOD, SUITES_I, G_X, C_I) (RFC 9528 §5.2.1; the PSK
    // draft §5.1 keeps it); IKR adds the ciphertext to the responder's static key.
    let mut m1 = l.method_bytes + l.suite_bytes + bstr(kex.public_key) + l.connection_id_bytes;
    // PLAINTEXT_2 (RFC 9528 §5.3.2; PSK: PLAINTEXT_2A, §5.2), sent as the
    // bstr G_Y_CIPHERTEXT_2 after G_Y, here a KEM ciphertext (pqsuites §3).
    let plaintext_2 = l.connection_id_bytes
        + match suite.method {
            Method::Signature => l.id_cred_bytes + bstr(need_signature()?),
            Method::Psk => 0,
            Method::Ikr => l.id_cred_bytes + bstr(suite.mac),
        };
    // message_3: RFC 9528 §5.4's AEAD of (ID_CRED_I, signature); PSK (§5.3):
    // PLAINTEXT_3A = (ID_CRED_PSK, CIPHERTEXT_3B: bstr, the AEAD of no plaintext).
    let m3 = match suite.method {
        Method::Signature | Method::Ikr => {
            bstr(l.id_cred_bytes + bstr(need_signature()?) + suite.tag)
        }
        Method::Psk => bstr(l.id_cred_bytes + bstr(suite.tag)),
    };
    if suite.method == Method::Ikr {
        m1 += bstr(kex_ct);
    }
    let mut out = vec![
        DraftMessage {
            message: "message_1",
            role: Role::Initiator,
            bytes: m1,
        },
        DraftMessage {
            message: "message_2",
            role: Role::Responder,
            bytes: bstr(kex_ct + plaintext_2),
        },
        DraftMessage {
            message: "message_3",
            role: Role::Initiator,
            bytes: m3,
        },
    ];
    // message_4: the AEAD of an empty PLAINTEXT_4 (RFC 9528 §5.5).
    if suite.message_4 {
        out.push(DraftMessage {
            message: "message_4",
            role: Role::Responder,
            bytes: bstr(suite.tag),
        });
    }
    Ok(out)
}

/// The firmware builds that measure the suite's public-key operations
/// (`ml-kem-512`, `ml-dsa-44`…); P-256 EDHOC-PSK has none (`edhoc-psk-s2` is
/// not built), so a device says so. Hashing and AEAD are not counted.
fn device_ops(suite: &Suite, message: &str) -> DeviceOps {
    let kem = |op| DeviceOp {
        build: build_name(&suite.key_exchange),
        op,
    };
    let sig = |op| DeviceOp {
        build: build_name(suite.signature.as_deref().unwrap_or("")),
        op,
    };
    if suite.key_exchange == "p-256" {
        return DeviceOps::one("edhoc-psk-s2", "write", "read");
    }
    let (write, read) = match (suite.method, message) {
        (Method::Ikr, "message_1") => (
            vec![kem("keygen"), kem("encapsulate")],
            vec![kem("decapsulate")],
        ),
        (_, "message_1") => (vec![kem("keygen")], vec![]),
        (Method::Signature, "message_2") => (
            vec![kem("encapsulate"), sig("sign")],
            vec![kem("decapsulate"), sig("verify")],
        ),
        (_, "message_2") => (vec![kem("encapsulate")], vec![kem("decapsulate")]),
        (Method::Signature | Method::Ikr, "message_3") => (vec![sig("sign")], vec![sig("verify")]),
        _ => (vec![], vec![]),
    };
    DeviceOps { write, read }
}

/// Build names live as long as the data they come from (parsed once).
fn build_name(name: &str) -> &'static str {
    let d = drafts();
    d.primitive
        .iter()
        .map(|p| p.name.as_str())
        .find(|p| *p == name)
        .unwrap_or("")
}

/// The suite's messages on `link`: the device's (initiator's) in the sealing
/// core's fragments where one frame is too small, the responder's as the
/// link's downlink carries them, or refused as it refuses them.
pub fn on_link(
    name: &str,
    link: &link::LinkSpec,
    fragmentation: Fragmentation,
) -> Result<HandshakeCost, HandshakeError> {
    fragmentation.check(link)?;
    let suite = drafts().suite(name)?;
    let mut messages = Vec::new();
    for m in message_sizes(suite)? {
        let ops = device_ops(suite, m.message);
        messages.push(match m.role {
            Role::Initiator => message_cost(
                m.message,
                "initiator",
                m.bytes,
                (true, fragmentation),
                ops,
                link,
                None,
            )?,
            Role::Responder => downlink_cost(m.message, m.bytes, m.bytes, ops, link)?,
        });
    }
    let mut cost = totals(suite.name.clone(), suite.class, messages, link);
    cost.source = Some(format!("{}; costed, not run", suite.label));
    Ok(cost)
}

/// One draft suite on one link: what `handshake drafts` prints a row of.
#[derive(Clone, Debug, Serialize)]
pub struct DraftRow {
    pub suite: String,
    pub class: Class,
    pub label: String,
    pub link: String,
    pub bytes: u32,
    /// The device's frames (fragments included) and the responder's downlinks.
    pub uplink_frames: Option<u32>,
    pub downlinks: Option<u32>,
    /// The device's own frames' time on air, s (what its duty cycle counts).
    pub device_airtime_s: Option<f64>,
    /// The duty cycle's off-time the device's own frames take, hours.
    pub duty_cycle_h: Option<f64>,
    /// Why the handshake cannot run on the link, as the link model says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
    /// The whole costing where it runs (per message, downlinks' windows).
    #[serde(skip)]
    pub cost: Option<HandshakeCost>,
}

/// `suite` on `link` as a row: costed where it runs; where the link refuses
/// it, the bytes and the frames it would need (downlinks of the link's
/// largest, each with a fragment header) beside the reason.
pub fn row(suite: &Suite, link: &link::LinkSpec) -> Result<DraftRow, HandshakeError> {
    let sizes = message_sizes(suite)?;
    let bytes = sizes.iter().map(|m| m.bytes).sum();
    let mut row = DraftRow {
        suite: suite.name.clone(),
        class: suite.class,
        label: suite.label.clone(),
        link: link.name.clone(),
        bytes,
        uplink_frames: None,
        downlinks: None,
        device_airtime_s: None,
        duty_cycle_h: None,
        refused: None,
        cost: None,
    };
    match on_link(&suite.name, link, Fragmentation::Ciphermeter) {
        Ok(c) => {
            let by = |sender: &str| {
                c.messages
                    .iter()
                    .filter(|m| m.sender == sender)
                    .map(|m| m.frames)
                    .sum()
            };
            row.uplink_frames = Some(by("initiator"));
            row.downlinks = Some(by("responder"));
            row.device_airtime_s = Some(c.initiator_airtime_ms / 1e3);
            row.duty_cycle_h = duty_hours(&c.messages);
            row.cost = Some(c);
        }
        Err(
            e @ (HandshakeError::Downlink { .. }
            | HandshakeError::Link(link::LinkError::Invalid(_))),
        ) => {
            // What the device's own messages cost still stands when they can be sent.
            let mut up = Vec::new();
            for m in sizes.iter().filter(|m| m.role == Role::Initiator) {
                let ops = DeviceOps::default();
                let frag = (true, Fragmentation::Ciphermeter);
                match message_cost(m.message, "initiator", m.bytes, frag, ops, link, None) {
                    Ok(c) => up.push(c),
                    Err(_) => {
                        up.clear();
                        break;
                    }
                }
            }
            if !up.is_empty() {
                row.uplink_frames = Some(up.iter().map(|m| m.frames).sum());
                row.device_airtime_s = Some(up.iter().map(|m| m.airtime_ms).sum::<f64>() / 1e3);
                row.duty_cycle_h = duty_hours(&up);
            }
            row.downlinks = downlinks_needed(&sizes, link);
            row.refused = Some(e.to_string());
        }
        Err(e) => return Err(e),
    }
    Ok(row)
}

/// The device's frames' duty-cycle off-time, hours (none: no duty cycle).
fn duty_hours(messages: &[crate::cost::MessageCost]) -> Option<f64> {
    let initiator: Vec<f64> = messages
        .iter()
        .filter(|m| m.sender == "initiator")
        .filter_map(|m| m.min_interval_s)
        .collect();
    (!initiator.is_empty()).then(|| initiator.iter().sum::<f64>() / 3600.0)
}

/// Downlinks the responder's messages would need, each of the link's largest
/// downlink with the sealing core's fragment header, where it refuses them.
fn downlinks_needed(sizes: &[DraftMessage], link: &link::LinkSpec) -> Option<u32> {
    let capacity = link::downlink::frame_capacity(link).ok()?;
    let room = capacity
        .saturating_sub(seal::fragment::HEADER as u32)
        .max(1);
    Some(
        sizes
            .iter()
            .filter(|m| m.role == Role::Responder)
            .map(|m| match m.bytes <= capacity {
                true => 1,
                false => m.bytes.div_ceil(room),
            })
            .sum(),
    )
}

/// Every draft suite on every one of `links`.
pub fn table(links: &[link::LinkSpec]) -> Result<Vec<DraftRow>, HandshakeError> {
    let mut rows = Vec::new();
    for suite in &drafts().suite {
        for link in links {
            rows.push(row(suite, link)?);
        }
    }
    Ok(rows)
}

/// The links the drafts' table is made on by default: EU868 DR0 and DR5,
/// Sigfox, BLE and 802.15.4.
pub const TABLE_LINKS: [&str; 5] = [
    "lorawan-eu868-dr0",
    "lorawan-eu868-dr5",
    "sigfox-rc1",
    "ble-1m-251",
    "ieee802154",
];

/// The table `handshake drafts` prints.
pub fn text(rows: &[DraftRow]) -> String {
    let opt = |v: Option<u32>| v.map_or_else(|| "-".into(), |v| v.to_string());
    let mut out = format!(
        "{:<34} {:<18} {:>6} {:>7} {:>9} {:>11} {:>8}\n",
        "suite (costed from drafts)",
        "link",
        "bytes",
        "frames",
        "downlinks",
        "up on air s",
        "duty h"
    );
    let mut labels: Vec<&DraftRow> = Vec::new();
    for r in rows {
        out.push_str(&format!(
            "{:<34} {:<18} {:>6} {:>7} {:>9} {:>11} {:>8}\n",
            r.suite,
            r.link,
            r.bytes,
            opt(r.uplink_frames),
            opt(r.downlinks),
            r.device_airtime_s
                .map_or_else(|| "-".into(), |s| format!("{s:.1}")),
            r.duty_cycle_h
                .map_or_else(|| "-".into(), |h| format!("{h:.2}")),
        ));
        if let Some(why) = &r.refused {
            out.push_str(&format!("    cannot run: {why}\n"));
        }
        if !labels.iter().any(|l| l.suite == r.suite) {
            labels.push(r);
        }
    }
    out.push_str(
        "frames: the device's, fragments included; downlinks: the responder's frames \
         (where the link refuses them, how many it would take); up on air: the device's \
         frames; duty h: the duty cycle's off-time they take\n",
    );
    for r in labels {
        out.push_str(&format!(
            "{}: {} ({})\n",
            r.suite,
            r.label,
            r.class.as_str()
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cbor_headers_grow_at_24_and_256_bytes() {
        assert_eq!((bstr(0), bstr(23), bstr(24)), (1, 24, 26));
        assert_eq!((bstr(255), bstr(256), bstr(800)), (257, 259, 803));
    }

    #[test]
    fn every_suite_names_primitives_with_sizes() {
        for s in &drafts().suite {
            let sizes = message_sizes(s).unwrap();
            assert!(sizes.len() >= 3, "{}", s.name);
        }
        assert!(
            drafts()
                .suite("x")
                .unwrap_err()
                .to_string()
                .contains("edhoc-psk-s2")
        );
    }
}
