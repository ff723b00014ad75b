//! LoRaWAN 1.0.x uplinks against vectors computed apart (`scripts/lorawan-vectors`,
//! Python `cryptography` from the specification's block layouts): the frames we
//! build are byte-identical, the frames they built open to their fields, and a
//! flipped bit or a wrong key fails the MIC.

use ciphermeter_link::lorawan_frame::{SessionKeys, Uplink, decode, encode};
use serde_json::Value;

fn key(case: &Value, name: &str) -> [u8; 16] {
    hex::decode(case[name].as_str().unwrap())
        .unwrap()
        .try_into()
        .unwrap()
}

fn cases() -> Vec<(String, SessionKeys, Uplink, Vec<u8>)> {
    let text = include_str!("vectors/lorawan-uplinks.json");
    let doc: Value = serde_json::from_str(text).unwrap();
    doc["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let keys = SessionKeys {
                nwk_s_key: key(c, "nwk_s_key"),
                app_s_key: key(c, "app_s_key"),
            };
            let bytes = |name: &str| hex::decode(c[name].as_str().unwrap()).unwrap();
            let up = Uplink {
                confirmed: c["confirmed"].as_bool().unwrap(),
                dev_addr: c["dev_addr"].as_u64().unwrap() as u32,
                adr: c["adr"] == 1,
                ack: c["ack"] == 1,
                f_cnt: c["f_cnt"].as_u64().unwrap() as u32,
                f_opts: bytes("f_opts"),
                f_port: c["f_port"].as_u64().map(|p| p as u8),
                frm_payload: bytes("frm_payload"),
            };
            (
                c["name"].as_str().unwrap().to_string(),
                keys,
                up,
                bytes("phy_payload"),
            )
        })
        .collect()
}

#[test]
fn built_frames_match_the_independent_vectors_byte_for_byte() {
    let cases = cases();
    assert_eq!(cases.len(), 5);
    for (name, keys, up, phy) in &cases {
        assert_eq!(&encode(up, keys).unwrap(), phy, "{name}");
        assert_eq!(up.frame_len(), phy.len(), "{name}");
    }
}

#[test]
fn independent_frames_open_to_their_fields_with_the_counter_rebuilt() {
    for (name, keys, up, phy) in cases() {
        // The device's previous frame, so counters above 16 bits are rebuilt.
        let last = up.f_cnt.saturating_sub(1);
        let opened = decode(&phy, &keys, Some(last)).unwrap();
        assert!(opened.mic_ok, "{name}");
        assert_eq!(opened.uplink, up, "{name}");
    }
}

#[test]
fn a_flipped_bit_or_a_wrong_key_fails_the_mic_and_leaves_the_payload_sealed() {
    let (_, keys, up, phy) = cases().remove(0);
    for i in 0..phy.len() {
        let mut bad = phy.clone();
        bad[i] ^= 0x01;
        // Flipping the MHDR's low bit or an FCtrl length bit may make the frame
        // malformed, which is an error; anything that parses must fail its MIC.
        if let Ok(opened) = decode(&bad, &keys, Some(0)) {
            assert!(!opened.mic_ok, "bit flipped in byte {i} went unnoticed");
            assert_ne!(opened.uplink.frm_payload, up.frm_payload);
        }
    }
    let wrong = SessionKeys {
        nwk_s_key: [7; 16],
        app_s_key: keys.app_s_key,
    };
    assert!(!decode(&phy, &wrong, Some(0)).unwrap().mic_ok);
}

#[test]
fn malformed_frames_and_impossible_uplinks_are_refused_with_a_reason() {
    let (_, keys, up, phy) = cases().remove(0);
    fn err<T: std::fmt::Debug>(r: Result<T, ciphermeter_link::LinkError>) -> String {
        r.unwrap_err().to_string()
    }
    assert!(err(decode(&phy[..11], &keys, None)).contains("at least 12 bytes"));
    let mut downlink = phy.clone();
    downlink[0] = 0x60;
    assert!(err(decode(&downlink, &keys, None)).contains("not a LoRaWAN 1.0 data uplink"));
    let mut long_opts = phy.clone();
    long_opts[5] |= 0x0f;
    assert!(err(decode(&long_opts[..13], &keys, None)).contains("frame ends first"));
    let too_many = Uplink {
        f_opts: vec![0; 16],
        ..up.clone()
    };
    assert!(err(encode(&too_many, &keys)).contains("at most 15"));
    let port_zero_with_opts = Uplink {
        f_port: Some(0),
        f_opts: vec![2],
        ..up.clone()
    };
    assert!(err(encode(&port_zero_with_opts, &keys)).contains("FOpts must be empty"));
    let no_port = Uplink { f_port: None, ..up };
    assert!(err(encode(&no_port, &keys)).contains("needs an FPort"));
}
