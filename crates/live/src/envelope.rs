//! How a network server wraps an uplink on MQTT, and how the sealed message is taken out.
//!
//! - `chirpstack`: ChirpStack v4's uplink event (`application/+/device/+/event/up`), the
//!   protobuf `integration.UplinkEvent` in its JSON mapping: camelCase names, bytes as
//!   base64. The FRMPayload is `data`; `deduplicationId` (a UUID) names the uplink;
//!   `deviceInfo.devEui`, `devAddr` and `fCnt` number it. ChirpStack writes every field
//!   (pbjson's `emit_fields` for the integration package), but the proto3 JSON mapping
//!   lets a writer leave a default value out, so a missing `fCnt` is 0.
//! - `tts`: The Things Stack v3's uplink (`v3/+/devices/+/up`): `uplink_message.frm_payload`
//!   (base64), `end_device_ids.device_id`; the `as:up:` correlation id names the uplink;
//!   `end_device_ids.dev_eui`, `uplink_message.session_key_id` (or `end_device_ids.dev_addr`)
//!   and `uplink_message.f_cnt` number it. The Things Stack leaves out fields whose value
//!   is `""`, 0 or false (its "Data Formats" page), so a missing `f_cnt` is 0 too.
//! - `raw`: the MQTT payload is the sealed message, with no name and no counter.
//!
//! The uplink's name is what tells an MQTT redelivery (same uplink, same name) from a
//! replay (an old FRMPayload in a new uplink, a new name): see [`Uplink::id`]. Its
//! [`FrameCounter`] is what tells a lost uplink: see [`crate::store`]'s `lost_uplinks`.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Envelope {
    ChirpStack,
    Tts,
    Raw,
}

impl std::str::FromStr for Envelope {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "chirpstack" => Ok(Envelope::ChirpStack),
            "tts" => Ok(Envelope::Tts),
            "raw" => Ok(Envelope::Raw),
            _ => Err(format!(
                "unknown envelope '{s}': use chirpstack, tts or raw"
            )),
        }
    }
}

/// One uplink taken out of its envelope.
#[derive(Debug, PartialEq, Eq)]
pub struct Uplink {
    /// The FRMPayload: a sealed message (not yet verified); empty when the uplink had none.
    pub sealed: Vec<u8>,
    /// The network server's name for this uplink, when the envelope has one.
    pub id: Option<String>,
    /// The device as the network server names it (informational; the key id decides).
    pub device: Option<String>,
    /// How the network server numbered it, when the envelope names the device's DevEUI
    /// (ChirpStack, The Things Stack; never `raw`).
    pub counter: Option<FrameCounter>,
}

/// An uplink as the network server numbered it: the device, its session and the
/// LoRaWAN uplink frame counter. Received is what counts, not verified: a tampered or
/// truncated FRMPayload still came with its counter.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FrameCounter {
    /// DevEUI, in lower case (ChirpStack writes it so, The Things Stack in upper case).
    pub dev_eui: String,
    /// The device's security session as the network server names it: The Things
    /// Stack's `session_key_id`, else the DevAddr (ChirpStack's `devAddr`); a (re)join
    /// starts a new one, and its counter again from 0. Empty when the envelope has none.
    pub session: String,
    /// FCntUp, the 32-bit counter the network server tracks (the radio frame carries
    /// its low 16 bits).
    pub f_cnt: u32,
}

/// What the sender knows about an uplink it wraps.
pub struct UplinkMeta<'a> {
    pub id: &'a str,
    pub device: &'a str,
    pub f_cnt: u32,
    pub f_port: u8,
}

#[derive(Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
struct ChirpStackUp {
    #[serde(default)]
    deduplication_id: String,
    #[serde(default)]
    device_info: ChirpStackDevice,
    #[serde(default)]
    dev_addr: String,
    /// Missing (or null) is 0: the proto3 JSON mapping's default.
    #[serde(default)]
    f_cnt: Option<u32>,
    #[serde(default)]
    f_port: u32,
    /// Left out of the JSON when empty (proto3 default).
    #[serde(default)]
    data: String,
}

#[derive(Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
struct ChirpStackDevice {
    #[serde(default)]
    device_name: String,
    #[serde(default)]
    dev_eui: String,
}

#[derive(Deserialize, Serialize)]
struct TtsUp {
    end_device_ids: TtsIds,
    #[serde(default)]
    correlation_ids: Vec<String>,
    uplink_message: TtsMessage,
}

#[derive(Deserialize, Serialize)]
struct TtsIds {
    device_id: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    dev_eui: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    dev_addr: String,
}

#[derive(Deserialize, Serialize)]
struct TtsMessage {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    session_key_id: String,
    #[serde(default)]
    f_port: u32,
    /// Left out when 0, as The Things Stack does with every empty field.
    #[serde(default, skip_serializing_if = "is_zero")]
    f_cnt: Option<u32>,
    /// Absent when the uplink carried no FRMPayload.
    frm_payload: Option<String>,
}

fn base64(field: &str, text: &str) -> Result<Vec<u8>, String> {
    STANDARD
        .decode(text)
        .map_err(|e| format!("{field} is not base64: {e}"))
}

fn non_empty(s: String) -> Option<String> {
    (!s.is_empty()).then_some(s)
}

fn is_zero(n: &Option<u32>) -> bool {
    n.unwrap_or(0) == 0
}

/// The uplink's counter when the envelope names its device; a missing counter is 0.
fn counter(dev_eui: &str, session: String, f_cnt: Option<u32>) -> Option<FrameCounter> {
    (!dev_eui.is_empty()).then(|| FrameCounter {
        dev_eui: dev_eui.to_ascii_lowercase(),
        session,
        f_cnt: f_cnt.unwrap_or(0),
    })
}

impl Envelope {
    /// Takes the sealed message out of an MQTT payload; the error says what is wrong.
    pub fn open(self, payload: &[u8]) -> Result<Uplink, String> {
        match self {
            Envelope::Raw => Ok(Uplink {
                sealed: payload.to_vec(),
                id: None,
                device: None,
                counter: None,
            }),
            Envelope::ChirpStack => {
                let up: ChirpStackUp = serde_json::from_slice(payload)
                    .map_err(|e| format!("not a ChirpStack uplink event: {e}"))?;
                let dev_eui = up.device_info.dev_eui;
                Ok(Uplink {
                    sealed: base64("data", &up.data)?,
                    id: non_empty(up.deduplication_id),
                    counter: counter(&dev_eui, up.dev_addr.to_ascii_lowercase(), up.f_cnt),
                    device: non_empty(dev_eui),
                })
            }
            Envelope::Tts => {
                let up: TtsUp = serde_json::from_slice(payload)
                    .map_err(|e| format!("not a The Things Stack uplink: {e}"))?;
                let (ids, message) = (up.end_device_ids, up.uplink_message);
                let frm = message.frm_payload.unwrap_or_default();
                let session = if message.session_key_id.is_empty() {
                    ids.dev_addr.to_ascii_lowercase()
                } else {
                    message.session_key_id
                };
                Ok(Uplink {
                    sealed: base64("uplink_message.frm_payload", &frm)?,
                    id: up
                        .correlation_ids
                        .into_iter()
                        .find(|c| c.starts_with("as:up:")),
                    counter: counter(&ids.dev_eui, session, message.f_cnt),
                    device: non_empty(ids.device_id),
                })
            }
        }
    }

    /// Wraps a sealed message as the network server would publish it (for `send`).
    pub fn wrap(self, sealed: &[u8], meta: &UplinkMeta) -> Vec<u8> {
        let data = STANDARD.encode(sealed);
        let json = match self {
            Envelope::Raw => return sealed.to_vec(),
            // As ChirpStack writes it: every field, lower-case hex.
            Envelope::ChirpStack => serde_json::to_vec(&ChirpStackUp {
                deduplication_id: meta.id.to_string(),
                device_info: ChirpStackDevice {
                    device_name: meta.device.to_string(),
                    dev_eui: eui(meta.device),
                },
                dev_addr: dev_addr(meta.device),
                f_cnt: Some(meta.f_cnt),
                f_port: meta.f_port.into(),
                data,
            }),
            // As The Things Stack writes it: upper-case hex, f_cnt 0 left out.
            Envelope::Tts => serde_json::to_vec(&TtsUp {
                end_device_ids: TtsIds {
                    device_id: meta.device.to_string(),
                    dev_eui: eui(meta.device).to_ascii_uppercase(),
                    dev_addr: dev_addr(meta.device).to_ascii_uppercase(),
                },
                correlation_ids: vec![format!("as:up:{}", meta.id)],
                uplink_message: TtsMessage {
                    session_key_id: STANDARD.encode(&digest(meta.device)[12..28]),
                    f_port: meta.f_port.into(),
                    f_cnt: Some(meta.f_cnt),
                    frm_payload: Some(data),
                },
            }),
        };
        json.expect("serializing plain structs cannot fail")
    }
}

fn digest(device: &str) -> [u8; 32] {
    use sha2::Digest;
    sha2::Sha256::digest(device.as_bytes()).into()
}

/// A stable 64-bit EUI (16 hex digits) for a device name, as ChirpStack prints DevEUIs.
fn eui(device: &str) -> String {
    hex::encode(&digest(device)[..8])
}

/// A stable DevAddr (8 hex digits) for a device name: one session per device.
fn dev_addr(device: &str) -> String {
    hex::encode(&digest(device)[8..12])
}

/// A UUID-shaped name for uplink `i` of run `seed`, like ChirpStack's deduplicationId.
pub fn uplink_id(seed: u64, i: u64) -> String {
    let h = format!("{seed:016x}{i:016x}");
    format!(
        "{}-{}-{}-{}-{}",
        &h[..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEALED: &[u8] = b"{\"v\":1,\"ct\":\"x\"}";

    fn meta() -> UplinkMeta<'static> {
        UplinkMeta {
            id: "0000000000000001-0000-0000-0000-000000000002",
            device: "sensor-1",
            f_cnt: 7,
            f_port: 2,
        }
    }

    #[test]
    fn chirpstack_events_as_the_network_server_writes_them() {
        // A ChirpStack v4 event in the protobuf JSON mapping, with fields we ignore.
        let event = br#"{"deduplicationId":"3ac7e3c4-4401-4b8d-9386-a5c902f9202d",
            "time":"2023-01-01T00:00:00Z","deviceInfo":{"tenantId":"t","devEui":"0101010101010101",
            "tags":{}},"devAddr":"00189440","adr":true,"dr":5,"fCnt":10,"fPort":1,
            "confirmed":false,"data":"AQID","rxInfo":[{"gatewayId":"0016c001f153a14c","rssi":-60}],
            "txInfo":{"frequency":868100000}}"#;
        let up = Envelope::ChirpStack.open(event).unwrap();
        assert_eq!(up.sealed, [1, 2, 3]);
        assert_eq!(
            up.id.as_deref(),
            Some("3ac7e3c4-4401-4b8d-9386-a5c902f9202d")
        );
        assert_eq!(up.device.as_deref(), Some("0101010101010101"));
        assert_eq!(
            up.counter,
            Some(FrameCounter {
                dev_eui: "0101010101010101".into(),
                session: "00189440".into(),
                f_cnt: 10,
            })
        );
    }

    #[test]
    fn a_missing_counter_is_0_where_the_format_leaves_defaults_out() {
        // proto3 JSON mapping (ChirpStack): a default value may be left out, or null.
        for event in [
            &br#"{"deviceInfo":{"devEui":"0101010101010101"},"devAddr":"00189440","data":"AQID"}"#[..],
            br#"{"deviceInfo":{"devEui":"0101010101010101"},"devAddr":"00189440","fCnt":null,"data":"AQID"}"#,
        ] {
            let up = Envelope::ChirpStack.open(event).unwrap();
            assert_eq!(up.counter.unwrap().f_cnt, 0);
        }
        // The Things Stack leaves out every field whose value is 0.
        let up = br#"{"end_device_ids":{"device_id":"dev1","dev_eui":"0004A30B001C0530"},
            "uplink_message":{"frm_payload":"AQID"}}"#;
        let counter = Envelope::Tts.open(up).unwrap().counter.unwrap();
        assert_eq!((counter.f_cnt, counter.session.as_str()), (0, ""));
        // Without a DevEUI there is no device to number: no counter.
        for (env, up) in [
            (Envelope::ChirpStack, &br#"{"fCnt":4,"data":"AQID"}"#[..]),
            (
                Envelope::Tts,
                br#"{"end_device_ids":{"device_id":"d"},"uplink_message":{"f_cnt":4}}"#,
            ),
            (Envelope::Raw, b"AQID"),
        ] {
            assert_eq!(env.open(up).unwrap().counter, None, "{env:?}");
        }
    }

    #[test]
    fn tts_uplinks_as_the_network_server_writes_them() {
        let up =
            br#"{"end_device_ids":{"device_id":"dev1","application_ids":{"application_id":"app"},
            "dev_eui":"0004A30B001C0530","dev_addr":"00BCB929"},"correlation_ids":["gs:uplink:01","as:up:01GXYZ"],
            "received_at":"2023-01-01T00:00:00Z","uplink_message":{"f_port":1,"f_cnt":3,
            "frm_payload":"AQID","rx_metadata":[]}}"#;
        let up = Envelope::Tts.open(up).unwrap();
        assert_eq!(up.sealed, [1, 2, 3]);
        assert_eq!(up.id.as_deref(), Some("as:up:01GXYZ"));
        assert_eq!(up.device.as_deref(), Some("dev1"));
        // No session key id here: the DevAddr names the session.
        assert_eq!(
            up.counter,
            Some(FrameCounter {
                dev_eui: "0004a30b001c0530".into(),
                session: "00bcb929".into(),
                f_cnt: 3,
            })
        );
        let with_session = br#"{"end_device_ids":{"device_id":"dev1","dev_eui":"0004A30B001C0530",
            "dev_addr":"00BCB929"},"uplink_message":{"session_key_id":"AXBSH1Pk6Z0G166RlH16CQ==",
            "f_cnt":1834,"frm_payload":"AQID"}}"#;
        let counter = Envelope::Tts.open(with_session).unwrap().counter.unwrap();
        assert_eq!(counter.session, "AXBSH1Pk6Z0G166RlH16CQ==");
        assert_eq!(counter.f_cnt, 1834);
    }

    #[test]
    fn wrapped_uplinks_open_to_the_same_message() {
        for env in [Envelope::ChirpStack, Envelope::Tts, Envelope::Raw] {
            let up = env.open(&env.wrap(SEALED, &meta())).unwrap();
            assert_eq!(up.sealed, SEALED, "{env:?}");
            assert_eq!(up.id.is_some(), env != Envelope::Raw);
        }
        let json: serde_json::Value =
            serde_json::from_slice(&Envelope::ChirpStack.wrap(SEALED, &meta())).unwrap();
        assert_eq!(json["fCnt"], 7);
        assert_eq!(json["fPort"], 2);
        assert_eq!(json["deviceInfo"]["devEui"].as_str().unwrap().len(), 16);
        assert_eq!(json["devAddr"].as_str().unwrap().len(), 8);
        let json: serde_json::Value =
            serde_json::from_slice(&Envelope::Tts.wrap(SEALED, &meta())).unwrap();
        assert_eq!(json["uplink_message"]["f_cnt"], 7);
        assert_eq!(
            json["end_device_ids"]["dev_eui"].as_str().unwrap().len(),
            16
        );
    }

    #[test]
    fn wrapped_uplinks_carry_their_device_and_counter_both_ways() {
        for f_cnt in [0, 1, 7, u32::MAX] {
            let meta = UplinkMeta { f_cnt, ..meta() };
            let chirpstack = Envelope::ChirpStack.wrap(SEALED, &meta);
            let tts = Envelope::Tts.wrap(SEALED, &meta);
            // ChirpStack writes every field; The Things Stack leaves a 0 out.
            let tts_json: serde_json::Value = serde_json::from_slice(&tts).unwrap();
            assert_eq!(
                tts_json["uplink_message"].get("f_cnt").is_none(),
                f_cnt == 0
            );
            let a = Envelope::ChirpStack
                .open(&chirpstack)
                .unwrap()
                .counter
                .unwrap();
            let b = Envelope::Tts.open(&tts).unwrap().counter.unwrap();
            assert_eq!((a.f_cnt, b.f_cnt), (f_cnt, f_cnt));
            // One device, whatever the envelope: its DevEUI in one case.
            assert_eq!(a.dev_eui, b.dev_eui);
            assert_eq!(a.dev_eui, eui("sensor-1"));
            assert!(!a.session.is_empty() && !b.session.is_empty());
        }
        // Another device is another DevEUI and session.
        let other = UplinkMeta {
            device: "sensor-2",
            ..meta()
        };
        let a = Envelope::ChirpStack.open(&Envelope::ChirpStack.wrap(SEALED, &meta()));
        let b = Envelope::ChirpStack.open(&Envelope::ChirpStack.wrap(SEALED, &other));
        let (a, b) = (a.unwrap().counter.unwrap(), b.unwrap().counter.unwrap());
        assert_ne!(a.dev_eui, b.dev_eui);
        assert_ne!(a.session, b.session);
    }

    #[test]
    fn malformed_envelopes_are_errors_not_panics() {
        for (env, bad) in [
            (Envelope::ChirpStack, &b"not json"[..]),
            (Envelope::ChirpStack, br#"{"data":"***"}"#),
            (Envelope::ChirpStack, br#"{"data":5}"#),
            (Envelope::Tts, br#"{"uplink_message":{}}"#),
            (Envelope::Tts, &[0xff, 0xfe][..]),
        ] {
            assert!(env.open(bad).is_err(), "{env:?} {bad:?}");
        }
        assert!("ttn".parse::<Envelope>().is_err());
        // No FRMPayload is an empty message (the gateway counts it as truncated).
        let empty = br#"{"end_device_ids":{"device_id":"d"},"uplink_message":{}}"#;
        assert_eq!(Envelope::Tts.open(empty).unwrap().sealed, b"");
        assert_eq!(
            Envelope::ChirpStack.open(br#"{"fCnt":1}"#).unwrap().sealed,
            b""
        );
    }

    #[test]
    fn uplink_ids_are_uuid_shaped_and_distinct() {
        let a = uplink_id(1, 2);
        assert_eq!(a, "00000000-0000-0001-0000-000000000002");
        assert_ne!(a, uplink_id(1, 3));
    }
}
