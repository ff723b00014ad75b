//! LoRaWAN limits, the serial packet-radio timeline and the link catalogue.

use ciphermeter_link::lorawan::{MAC_OVERHEAD, Region};
use ciphermeter_link::lorawan_frame::{SessionKeys, Uplink, encode};
use ciphermeter_link::{Catalogue, LinkError, SendOptions};

#[test]
fn eu868_and_us915_tables() {
    let eu: Vec<u32> = Region::Eu868
        .data_rates()
        .iter()
        .map(|d| d.max_payload)
        .collect();
    assert_eq!(eu, [51, 51, 51, 115, 222, 222, 222]);
    let us: Vec<u32> = Region::Us915
        .data_rates()
        .iter()
        .map(|d| d.max_payload)
        .collect();
    assert_eq!(us, [11, 53, 125, 242, 242]);
    assert_eq!(MAC_OVERHEAD, 13);
    assert!(Region::Eu868.data_rate(7).is_err());
    assert!(Region::Us915.data_rate(5).is_err());
}

// DR0 with a full 51 B payload: 64 B PHY at SF12/125 = 2793.472 ms (see lora_airtime.rs).
// 1 % duty cycle -> next start after 279.3472 s -> 12 messages per hour.
#[test]
fn eu868_duty_cycle() {
    let dr0 = Region::Eu868.data_rate(0).unwrap();
    let m = dr0.message(51).unwrap();
    assert_eq!(m.frame_payloads, [51]);
    assert_eq!(m.airtime.to_string(), "2793.472 ms");
    assert_eq!(m.min_interval().unwrap().to_string(), "279347.200 ms");
    assert_eq!(m.max_per_hour(), Some(12));
}

#[test]
fn over_the_maximum_is_reported_and_split() {
    let dr0 = Region::Eu868.data_rate(0).unwrap();
    let err = dr0.frame_airtime(52).unwrap_err().to_string();
    assert!(
        err.contains("maximum is 51 B") && err.contains("2 frames"),
        "{err}"
    );
    // In the sealing core's fragments: 49 B of message and a 2-byte header each.
    let m = dr0.message(103).unwrap();
    assert_eq!(m.frame_payloads, [51, 51, 7]);
    assert_eq!(m.on_air_bytes(), 103 + 3 * 2 + 3 * 13);
    let sizes: Vec<u32> = seal::fragment::frame_sizes(103, 51)
        .unwrap()
        .map(|n| n as u32)
        .collect();
    assert_eq!(m.frame_payloads, sizes, "the fragments a device sends");
}

// The first frame carries the FOpts, which take FRMPayload room (RP002: N is
// the maximum without FOpts); each frame is counted at its real PHYPayload
// length, the one `lorawan_frame::encode` builds.
#[test]
fn fopts_take_room_in_the_first_frame_and_count_as_the_real_frame() {
    let dr0 = Region::Eu868.data_rate(0).unwrap();
    // 51 B no longer fits beside 3 B of FOpts: two fragments of the first frame's room.
    let m = dr0.message_with_fopts(51, 3).unwrap();
    assert_eq!(m.frame_payloads, [48, 7]);
    assert_eq!(m.frame_bytes, [13 + 3 + 48, 13 + 7]);
    assert_eq!(m.on_air_bytes(), 51 + 3 + 2 * 2 + 2 * 13);
    assert_eq!(m.mic_bytes(), 8);
    let keys = SessionKeys {
        nwk_s_key: [1; 16],
        app_s_key: [2; 16],
    };
    for (i, (&payload, &bytes)) in m.frame_payloads.iter().zip(&m.frame_bytes).enumerate() {
        let up = Uplink {
            confirmed: false,
            dev_addr: 0x2601_1BDA,
            adr: false,
            ack: false,
            f_cnt: i as u32,
            f_opts: if i == 0 {
                vec![0x02, 0x03, 0x07]
            } else {
                Vec::new()
            },
            f_port: Some(1),
            frm_payload: vec![0x55; payload as usize],
        };
        assert_eq!(
            encode(&up, &keys).unwrap().len(),
            bytes as usize,
            "frame {i}"
        );
    }
    // The 64-byte frame of 51 B without FOpts is the one eu868_duty_cycle times.
    assert_eq!(dr0.message_with_fopts(51, 0).unwrap().frame_bytes, [64]);
    let err = dr0.message_with_fopts(10, 16).unwrap_err().to_string();
    assert!(err.contains("at most 15"), "{err}");
}

#[test]
fn a_link_cost_counts_fopts_and_the_mic_only_on_lorawan() {
    let cat = Catalogue::builtin().unwrap();
    let dr3 = cat.get("lorawan-eu868-dr3").unwrap();
    let with = SendOptions {
        pad_to_packet: false,
        f_opts: vec![0x02, 0x03, 0x05, 0x06, 0x07],
    };
    let plain = dr3.cost(100, false).unwrap();
    let c = dr3.cost_with(100, &with).unwrap();
    assert_eq!(c.on_air_bytes, plain.on_air_bytes + 5);
    assert_eq!((c.network_mic_bytes, c.fopts), (Some(4), 5));
    assert!(c.airtime >= plain.airtime);
    let ble = cat.get("ble-1m-251").unwrap();
    assert_eq!(ble.cost(100, false).unwrap().network_mic_bytes, None);
    let err = ble.cost_with(100, &with).unwrap_err().to_string();
    assert!(err.contains("FOpts belong to LoRaWAN frames"), "{err}");
}

// US915 DR0 (SF10/125) with 11 B: 24 B PHY, n = 8 + ceil((192-40+28+16)/40)*5 = 33,
// (12.25+33) * 8.192 ms = 370.688 ms, inside the 400 ms dwell time.
#[test]
fn us915_dwell() {
    let dr0 = Region::Us915.data_rate(0).unwrap();
    let m = dr0.message(11).unwrap();
    assert_eq!(m.airtime.to_string(), "370.688 ms");
    assert!(m.dwell_ok);
    assert_eq!(m.max_per_hour(), None);
    assert_eq!(dr0.message(12).unwrap().frame_payloads.len(), 2);
}

#[test]
fn builtin_catalogue_loads_and_every_link_costs() {
    let cat = Catalogue::builtin().unwrap();
    for kind in ["lora", "lorawan", "framed", "serial"] {
        assert!(
            cat.links().iter().any(|l| l.kind() == kind),
            "no {kind} link"
        );
    }
    for link in cat.links() {
        let c = link.cost(100, false).unwrap();
        assert!(c.on_air_bytes >= 100, "{}", link.name);
        assert!(c.frames >= 1);
        assert!(c.airtime > ciphermeter_link::Micros::ZERO);
    }
    for name in [
        "ieee802154",
        "ble-1m-27",
        "ble-2m-251",
        "sigfox-rc1",
        "nbiot",
        "ltem",
        "slice-of-radio",
    ] {
        cat.get(name).unwrap();
    }
    assert!(matches!(
        cat.get("carrier-pigeon"),
        Err(LinkError::UnknownLink { .. })
    ));
}

// Sigfox: 12 B payload + 14 B overhead = 26 B = 208 bits at 100 b/s = 2.08 s, sent 3 times.
#[test]
fn sigfox_repetitions() {
    let cat = Catalogue::builtin().unwrap();
    let c = cat.get("sigfox-rc1").unwrap().cost(12, false).unwrap();
    assert_eq!(c.on_air_bytes, 78);
    assert_eq!(c.airtime.to_string(), "6240.000 ms");
    assert_eq!(
        cat.get("sigfox-rc1")
            .unwrap()
            .cost(13, false)
            .unwrap()
            .frames,
        2
    );
}

// BLE 1M, 27-byte PDUs: 20 bytes per notification, 18 of the message beside
// the 2-byte fragment header, so 100 B is 6 fragments (5 x 18 + 10): frames of
// 20, 20, 20, 20, 20 and 12 B = 112 B, + 6 x 21 B overhead = 238 B = 1,904 bits
// at 1 Mb/s = 1.904 ms; the peer's empty PDU after each, 6 x 230 us = 1.380 ms.
#[test]
fn ble_fragments() {
    let cat = Catalogue::builtin().unwrap();
    let c = cat.get("ble-1m-27").unwrap().cost(100, false).unwrap();
    assert_eq!(c.frames, 6);
    assert_eq!(c.on_air_bytes, 238);
    assert_eq!(c.airtime.to_string(), "1.904 ms");
    assert_eq!(c.rx_time.to_string(), "1.380 ms");
    assert!(c.warnings[0].contains("6 fragments"), "{:?}", c.warnings);
}

// data/links/sigfox.toml: 12 B a message, 14 B overhead, 3 repetitions, 100 b/s.
// 50 B in the sealing core's fragments: 10 message bytes a frame beside the
// 2-byte header, 5 frames of 12 B; (5 x 12 + 5 x 14) x 3 = 390 B = 3,120 bits
// = 31.2 s. Without the headers it was 12 + 12 + 12 + 12 + 2 B: 360 B, 28.8 s,
// frames no receiver could put back together.
#[test]
fn sigfox_message_in_fragments_pays_their_headers() {
    let cat = Catalogue::builtin().unwrap();
    let sigfox = cat.get("sigfox-rc1").unwrap();
    let c = sigfox.cost(50, false).unwrap();
    assert_eq!((c.frames, c.on_air_bytes), (5, 390));
    assert_eq!(c.airtime.to_string(), "31200.000 ms");
    assert_eq!(sigfox.fragment_frame().unwrap(), Some(12));
    // One frame's worth travels whole, with no header: 12 + 14 B, 3 times.
    assert_eq!(sigfox.cost(12, false).unwrap().on_air_bytes, 78);
    // 128 fragments of 10 B is the most a sender can cut.
    assert_eq!(sigfox.cost(1280, false).unwrap().frames, 128);
    let err = sigfox.cost(1281, false).unwrap_err().to_string();
    assert!(err.contains("more than 128 fragments"), "{err}");
}

// --pad-to-packet fills every fragment's frame beside its header: 50 B on
// ble-1m-27 is 18 + 18 + 14, padded by 4 to three full 20-byte frames; 50 B on
// sigfox-rc1 is five full 12-byte frames already; 112 B at EU868 DR0 is
// 49 + 49 + 14, padded by 35 to three full 51-byte FRMPayloads (3 x 64 B).
#[test]
fn padding_fills_every_fragment() {
    let cat = Catalogue::builtin().unwrap();
    let padded = |link: &str, bytes| cat.get(link).unwrap().cost(bytes, true).unwrap();
    let ble = padded("ble-1m-27", 50);
    assert_eq!(
        (ble.padding, ble.frames, ble.on_air_bytes),
        (4, 3, 60 + 3 * 21)
    );
    assert_eq!(padded("sigfox-rc1", 50).padding, 0);
    let dr0 = padded("lorawan-eu868-dr0", 112);
    assert_eq!((dr0.padding, dr0.frames, dr0.on_air_bytes), (35, 3, 3 * 64));
    // One frame's worth is padded to that frame, FOpts beside it.
    assert_eq!(padded("lorawan-eu868-dr0", 30).padding, 21);
}

// Which links fragment: every one whose frames arrive one by one; the serial
// radio's packets are one byte stream, delimited by the stream's framing.
#[test]
fn every_link_with_frames_fragments_and_the_serial_radio_does_not() {
    let cat = Catalogue::builtin().unwrap();
    for link in cat.links() {
        let frame = link.fragment_frame().unwrap();
        let capacity = link.frame_capacity().unwrap();
        let long = link.cost(capacity + 1, false).unwrap();
        if let Some(serial) = &link.serial {
            assert_eq!(frame, None, "{}", link.name);
            let packets = capacity + 1 + 2 * serial.overhead_bytes.value;
            assert_eq!(long.on_air_bytes, packets, "{}", link.name);
            assert!(long.warnings.is_empty(), "{}", link.name);
        } else {
            assert_eq!(frame, Some(capacity), "{}", link.name);
            // One byte more than a frame: a full frame (the header and
            // capacity - 2 bytes), then the last 3 bytes beside their header.
            let alone = |n| link.cost(n, false).unwrap().on_air_bytes;
            assert_eq!(
                long.on_air_bytes,
                alone(capacity) + alone(5),
                "{}",
                link.name
            );
            assert_eq!(long.frames, 2, "{}", link.name);
            assert!(
                long.warnings
                    .iter()
                    .any(|w| w.contains("2-byte fragment header")),
                "{}: {:?}",
                link.name,
                long.warnings
            );
        }
    }
}

// Slice of Radio: 14 B = one full packet + 2 B that wait for the 100 ms timeout.
// Padded to 24 B (two full packets): packet 2 is ready when the 24th byte arrives
// (24 x 86.806 us = 2083.333 us), 23 B + 12 B overhead... see serial.rs:
// start 2083.333 + air (12+11)*8/250k = 736 us, + 12 B out of the receiver's UART 1041.667 us.
#[test]
fn serial_radio_timeout_and_padding() {
    let cat = Catalogue::builtin().unwrap();
    let srf = cat.get("slice-of-radio").unwrap();
    let plain = srf.cost(14, false).unwrap();
    assert_eq!(plain.frames, 2);
    assert!(plain.last_waits_timeout);
    assert!(plain.delivery.as_ms() > 100.0);
    let padded = srf.cost(14, true).unwrap();
    assert_eq!(padded.padding, 10);
    assert!(!padded.last_waits_timeout);
    assert_eq!(padded.delivery.to_string(), "3.861 ms");
    // A message that is already whole packets needs no padding.
    assert_eq!(srf.cost(36, true).unwrap().padding, 0);
}

#[test]
fn user_directory_adds_and_replaces_links() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("links")).unwrap();
    std::fs::write(
        dir.path().join("links/mine.toml"),
        r#"
[[link]]
name = "slice-of-radio"
title = "same module, 32-byte packets"
source = "my bench"
radio = "srf-cc1110"
tx_power_dbm = 10
[link.serial]
serial_baud = { value = 9600, source = "configured" }
serial_bits_per_byte = { value = 10, source = "8N1" }
air_rate_bps = { value = 250000, estimate = "guess" }
packet_payload = { value = 32, source = "ATPK" }
timeout_ms = { value = 10, source = "ATRO" }
overhead_bytes = { value = 11, estimate = "guess" }
"#,
    )
    .unwrap();
    let cat = Catalogue::with_dir(Some(dir.path())).unwrap();
    let srf = cat.get("slice-of-radio").unwrap();
    assert_eq!(srf.frame_capacity().unwrap(), 32);
    assert_eq!(
        cat.links()
            .iter()
            .filter(|l| l.name == "slice-of-radio")
            .count(),
        1
    );
}

#[test]
fn a_figure_without_provenance_is_refused() {
    let mut cat = Catalogue::builtin().unwrap();
    let text = r#"
[[link]]
name = "bad"
title = "t"
source = "s"
radio = "nrf52840"
tx_power_dbm = 0
[link.framed]
bitrate_bps = { value = 1000 }
max_payload = { value = 10, source = "x" }
overhead_bytes = { value = 1, source = "x" }
repetitions = { value = 1, source = "x" }
"#;
    let err = cat.add_file("bad.toml", text).unwrap_err().to_string();
    assert!(
        err.contains("bitrate_bps") && err.contains("neither a source"),
        "{err}"
    );
    assert!(Catalogue::with_dir(Some(std::path::Path::new("/nonexistent/dir"))).is_err());
}

/// `radio-emulator`: a serial link's radio with the flags applied; any other link refused.
#[test]
fn serial_radios_take_overrides_and_other_links_are_refused() {
    use ciphermeter_link::serial::Overrides;
    let cat = Catalogue::builtin().unwrap();
    let overrides = Overrides {
        baud: Some(9600),
        ..Overrides::default()
    };
    let radio = cat.serial_radio("slice-of-radio", &overrides).unwrap();
    assert_eq!(radio.serial_baud.value, 9600);
    assert!(
        radio
            .serial_baud
            .source
            .as_deref()
            .unwrap()
            .contains("--baud")
    );
    let err = cat
        .serial_radio("lorawan-eu868-dr3", &overrides)
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "--link lorawan-eu868-dr3: not a serial packet-radio link"
    );
    assert!(cat.serial_radio("nope", &overrides).is_err());
}

/// LoRaWAN's regional limits come from data/links/lorawan.toml's `[[region]]`,
/// each sourced; a data file may repeat them (a copy of data/) but not change them.
#[test]
fn region_limits_are_data_with_their_source() {
    let regions = ciphermeter_link::lorawan::load_regions().unwrap();
    let eu = regions.iter().find(|r| r.region == Region::Eu868).unwrap();
    let duty = eu
        .limits
        .as_ref()
        .unwrap()
        .duty_cycle_percent
        .as_ref()
        .unwrap();
    assert_eq!(duty.value, 1.0);
    assert!(duty.source.as_deref().unwrap().contains("ETSI EN 300 220"));
    assert_eq!(
        Region::Eu868.duty_cycle(),
        Some(num_rational::Ratio::new(1, 100))
    );
    assert_eq!(Region::Eu868.dwell_limit(), None);
    let us = regions.iter().find(|r| r.region == Region::Us915).unwrap();
    assert!(us.limits.is_none());
    assert!(us.dwell_time_ms.as_ref().unwrap().source.is_some());
    assert_eq!(Region::Us915.duty_cycle(), None);
    assert_eq!(
        Region::Us915.dwell_limit(),
        Some(ciphermeter_link::time::Micros::from_ms(400))
    );
    assert_eq!(Region::Eu868.limit_words(), "1 % duty cycle");
    assert_eq!(Region::Us915.limit_words(), "400 ms dwell time");
    let mut cat = Catalogue::builtin().unwrap();
    let err = cat
        .add_file(
            "mine.toml",
            "[[region]]\nregion = \"EU868\"\n[region.limits]\nname = \"EU868\"\nduty_cycle_percent = { value = 10.0, source = \"x\" }\n",
        )
        .unwrap_err()
        .to_string();
    assert!(err.contains("differs from the built-in one"), "{err}");
    // A data dir made by copying data/ carries the regions unchanged: accepted.
    cat.add_file(
        "copy/links/lorawan.toml",
        include_str!("../../../data/links/lorawan.toml"),
    )
    .unwrap();
}
