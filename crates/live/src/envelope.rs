//! How a network server wraps an uplink on MQTT, and how the sealed message is taken out.
//!
//! - `chirpstack`: ChirpStack v4's uplink event (`application/+/device/+/event/up`), the
//!   protobuf `integration.UplinkEvent` in its JSON mapping: camelCase names, bytes as
//!   base64, default values left out. The FRMPayload is `data`; `deduplicationId` (a
//!   UUID) names the uplink.
//! - `tts`: The Things Stack v3's uplink (`v3/+/devices/+/up`): `uplink_message.frm_payload`
//!   (base64), `end_device_ids.device_id`; the `as:up:` correlation id names the uplink.
//! - `raw`: the MQTT payload is the sealed message.
//!
//! The uplink's name is what tells an MQTT redelivery (same uplink, same name) from a
//! replay (an old FRMPayload in a new uplink, a new name): see [`Uplink::id`].

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
    f_cnt: u32,
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
}

#[derive(Deserialize, Serialize)]
struct TtsMessage {
    #[serde(default)]
    f_port: u32,
    #[serde(default)]
    f_cnt: u32,
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

impl Envelope {
    /// Takes the sealed message out of an MQTT payload; the error says what is wrong.
    pub fn open(self, payload: &[u8]) -> Result<Uplink, String> {
        match self {
            Envelope::Raw => Ok(Uplink {
                sealed: payload.to_vec(),
                id: None,
                device: None,
            }),
            Envelope::ChirpStack => {
                let up: ChirpStackUp = serde_json::from_slice(payload)
                    .map_err(|e| format!("not a ChirpStack uplink event: {e}"))?;
                Ok(Uplink {
                    sealed: base64("data", &up.data)?,
                    id: non_empty(up.deduplication_id),
                    device: non_empty(up.device_info.dev_eui),
                })
            }
            Envelope::Tts => {
                let up: TtsUp = serde_json::from_slice(payload)
                    .map_err(|e| format!("not a The Things Stack uplink: {e}"))?;
                let frm = up.uplink_message.frm_payload.unwrap_or_default();
                Ok(Uplink {
                    sealed: base64("uplink_message.frm_payload", &frm)?,
                    id: up
                        .correlation_ids
                        .into_iter()
                        .find(|c| c.starts_with("as:up:")),
                    device: non_empty(up.end_device_ids.device_id),
                })
            }
        }
    }

    /// Wraps a sealed message as the network server would publish it (for `send`).
    pub fn wrap(self, sealed: &[u8], meta: &UplinkMeta) -> Vec<u8> {
        let data = STANDARD.encode(sealed);
        let json = match self {
            Envelope::Raw => return sealed.to_vec(),
            Envelope::ChirpStack => serde_json::to_vec(&ChirpStackUp {
                deduplication_id: meta.id.to_string(),
                device_info: ChirpStackDevice {
                    device_name: meta.device.to_string(),
                    dev_eui: eui(meta.device),
                },
                f_cnt: meta.f_cnt,
                f_port: meta.f_port.into(),
                data,
            }),
            Envelope::Tts => serde_json::to_vec(&TtsUp {
                end_device_ids: TtsIds {
                    device_id: meta.device.to_string(),
                },
                correlation_ids: vec![format!("as:up:{}", meta.id)],
                uplink_message: TtsMessage {
                    f_port: meta.f_port.into(),
                    f_cnt: meta.f_cnt,
                    frm_payload: Some(data),
                },
            }),
        };
        json.expect("serializing plain structs cannot fail")
    }
}

/// A stable 64-bit EUI (16 hex digits) for a device name, as ChirpStack prints DevEUIs.
fn eui(device: &str) -> String {
    use sha2::Digest;
    hex::encode(&sha2::Sha256::digest(device.as_bytes())[..8])
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
    }

    #[test]
    fn tts_uplinks_as_the_network_server_writes_them() {
        let up =
            br#"{"end_device_ids":{"device_id":"dev1","application_ids":{"application_id":"app"},
            "dev_eui":"0004A30B001C0530"},"correlation_ids":["gs:uplink:01","as:up:01GXYZ"],
            "received_at":"2023-01-01T00:00:00Z","uplink_message":{"f_port":1,"f_cnt":3,
            "frm_payload":"AQID","rx_metadata":[]}}"#;
        let up = Envelope::Tts.open(up).unwrap();
        assert_eq!(up.sealed, [1, 2, 3]);
        assert_eq!(up.id.as_deref(), Some("as:up:01GXYZ"));
        assert_eq!(up.device.as_deref(), Some("dev1"));
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
