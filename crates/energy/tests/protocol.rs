//! The link protocols' costs on hand-computed answers from the shipped data
//! (data/links, data/radios), flags that change them as predicted, and bad
//! flag values refused.

use ciphermeter_energy::protocol::{Flags, Overrides, average_ua, cost};
use ciphermeter_energy::{EnergyError, MessageLoad, Profiles, estimate, estimate_with};
use link::{Catalogue, Micros};

fn setup(link: &str) -> (link::LinkSpec, ciphermeter_energy::Radio) {
    let cat = Catalogue::builtin().unwrap();
    let spec = cat.get(link).unwrap().clone();
    let radio = Profiles::builtin()
        .unwrap()
        .radio(&spec.radio)
        .unwrap()
        .clone();
    (spec, radio)
}

fn close(got: f64, want: f64) {
    assert!(
        (got - want).abs() <= 1e-6 * want.abs().max(1.0),
        "got {got}, want {want}"
    );
}

fn flags(f: Flags) -> Result<Overrides, EnergyError> {
    Overrides::from_flags(&f)
}

// ble-1m-251 on the nRF52840 at 0 dBm (3.0 V, TX 4.8 mA, RX 4.6 mA, ramp-up
// 40 us, crystal start-up 360 us at 0.36 mA), Zephyr's 50 ms interval,
// latency 0, one data frame, one message a minute. Every radio wake first
// starts the crystal: 3 V x 0.36 mA x 360 us = 0.3888 uJ. Each empty event:
// that, RX 40 + 100 ppm x 50 ms (5) + 16 + 80 = 141 us, TX 40 + 80 = 120 us:
// 0.3888 + 3 x (4.6 mA x 141 us + 4.8 mA x 120 us) = 0.3888 + 3.6738 =
// 4.0626 uJ; 60 / 0.05 - 1 = 1199 of them = 4871.0574 uJ. The data frame's
// wake and two ramp-ups: 0.3888 + 3 x 40 us x (4.8 + 4.6) mA = 0.3888 +
// 1.128 = 1.5168 uJ.
#[test]
fn ble_connection_events_at_zephyrs_interval() {
    let (spec, radio) = setup("ble-1m-251");
    let c = cost(&spec, &radio, 1, 0.001, 60.0, &Overrides::default())
        .unwrap()
        .unwrap();
    assert_eq!(c.kind, "ble-connection");
    close(c.items[0].count, 1199.0);
    close(c.items[0].each_uj, 4.0626);
    close(c.idle_uj, 4871.0574);
    close(c.message_uj, 1.5168);
    // Busy: 1199 x (360 + 141 + 120 us) + 360 + 2 x 40 us = 745.019 ms.
    close(c.busy_ms, 745.019);
    // At 4 s with latency 0 the events are 80 times fewer: 14 empty ones,
    // each widened 400 us (100 ppm x 4 s): RX 536 us, TX 120 us.
    let slow = flags(Flags {
        conn_interval: Some("4s".into()),
        ..Flags::default()
    })
    .unwrap();
    let c = cost(&spec, &radio, 1, 0.001, 60.0, &slow).unwrap().unwrap();
    close(c.items[0].count, 14.0);
    close(
        c.items[0].each_uj,
        0.3888 + 3.0 * (4.6e-3 * 536e-6 + 4.8e-3 * 120e-6) * 1e6,
    );
    assert_eq!(c.parameters[0].from, "set by --conn-interval");
}

// ble-adv-1m, a 10-byte reading in one frame: 30 B on each of 3 channels,
// 720 us on air at 1 Mb/s, and 3 ramp-ups of 40 us: 840 us at 4.8 mA and
// 3 V = 12.096 uJ, after the crystal's start-up (3 V x 0.36 mA x 360 us =
// 0.3888 uJ): 12.4848 uJ an event. The new reading's event: the crystal and
// the 3 ramp-ups, 0.3888 + 3 x 40 us x 4.8 mA x 3 V = 0.3888 + 1.728 =
// 2.1168 uJ (its PDUs are the message's airtime). Zephyr's 100 ms interval
// plus advDelay's mean 5 ms: 60 / 0.105 - 1 = 570.43 events repeating it in
// a minute.
#[test]
fn ble_advertising_repeats_the_reading_every_interval() {
    let mut cat = Catalogue::builtin().unwrap();
    cat.add_file(
        "examples/links/ble-advertising.toml",
        include_str!("../../../data/examples/links/ble-advertising.toml"),
    )
    .unwrap();
    let spec = cat.get("ble-adv-1m").unwrap().clone();
    let radio = Profiles::builtin()
        .unwrap()
        .radio(&spec.radio)
        .unwrap()
        .clone();
    let cost_10 = spec.cost(10, false).unwrap();
    assert_eq!(cost_10.airtime, Micros::from_us(720));
    let c = cost(&spec, &radio, 1, 720e-6, 60.0, &Overrides::default())
        .unwrap()
        .unwrap();
    assert_eq!(c.kind, "ble-advertising");
    close(c.message_uj, 2.1168);
    close(c.items[1].each_uj, 12.4848);
    close(c.idle_uj, (60.0 / 0.105 - 1.0) * 12.4848);
    let slow = flags(Flags {
        adv_interval: Some("1s".into()),
        ..Flags::default()
    })
    .unwrap();
    let c = cost(&spec, &radio, 1, 720e-6, 60.0, &slow)
        .unwrap()
        .unwrap();
    close(c.idle_uj, (60.0 / 1.005 - 1.0) * 12.4848);
}

// thread: one frame's wake and CSMA-CA (the crystal's start-up, 3 V x
// 0.36 mA x 360 us = 0.3888 uJ; mean back-off (2^3 - 1)/2 x 320 us = 1120 us,
// CCA 128 us, RX ramp-up 40 us, all at 4.6 mA; TX ramp-up 40 us at 4.8 mA)
// = 0.3888 + 3 x (4.6 mA x 1288 us + 4.8 mA x 40 us) = 0.3888 + 18.3504 =
// 18.7392 uJ. A poll: that, the 28-byte data request (896 us at 4.8 mA:
// 12.9024 uJ) and the ACK wait (544 us at 4.6 mA: 7.5072 uJ) = 39.1488 uJ,
// every 236 s.
#[test]
fn thread_sleepy_end_device_polls_its_parent() {
    let (spec, radio) = setup("thread");
    let c = cost(&spec, &radio, 1, 0.004, 60.0, &Overrides::default())
        .unwrap()
        .unwrap();
    close(c.message_uj, 18.7392);
    close(c.items[1].each_uj, 39.1488);
    close(c.idle_uj, 39.1488 * 60.0 / 236.0);
    // A 1 s poll period: 60 polls a minute.
    let fast = flags(Flags {
        poll_period: Some("1s".into()),
        ..Flags::default()
    })
    .unwrap();
    let c = cost(&spec, &radio, 1, 0.004, 60.0, &fast).unwrap().unwrap();
    close(c.idle_uj, 39.1488 * 60.0);
    // Raw 802.15.4 has the CSMA-CA but no polls.
    let (raw, radio) = setup("ieee802154");
    let c = cost(&raw, &radio, 2, 0.004, 60.0, &Overrides::default())
        .unwrap()
        .unwrap();
    close(c.message_uj, 2.0 * 18.7392);
    close(c.idle_uj, 0.0);
}

// ltem from PSM, one message an hour, nRF9160 at 3.7 V: the connection 105 mJ,
// 10 s of RRC inactivity at 8.53 mA (3.7 x 8.53 mA x 10 s = 315.61 mJ), then the 6 s
// active time paging every 2.56 s (6 / 2.56 = 2.34375 occasions of
// 3.7 V x 1253 uC = 4.6361 mJ), no TAU (each message restarts T3412, 2 h).
// With --psm 30m,6s one TAU (105 mJ) falls in each hour.
#[test]
fn lte_m_from_psm_one_message_an_hour() {
    let (spec, radio) = setup("ltem");
    let c = cost(&spec, &radio, 1, 0.001, 3600.0, &Overrides::default())
        .unwrap()
        .unwrap();
    close(c.message_uj, 105_000.0 + 315_610.0);
    close(c.idle_uj, 2.34375 * 3.7 * 1253.0);
    let short_tau = flags(Flags {
        psm: Some("30m,6s".into()),
        ..Flags::default()
    })
    .unwrap();
    let c = cost(&spec, &radio, 1, 0.001, 3600.0, &short_tau)
        .unwrap()
        .unwrap();
    close(c.idle_uj, 2.34375 * 3.7 * 1253.0 + 105_000.0);
    // eDRX 81.92 s in a 10-minute active time: 600 / 81.92 occasions.
    let edrx = flags(Flags {
        psm: Some("2h,10m".into()),
        edrx: Some("81.92s".into()),
        ..Flags::default()
    })
    .unwrap();
    let c = cost(&spec, &radio, 1, 0.001, 3600.0, &edrx)
        .unwrap()
        .unwrap();
    close(c.idle_uj, 600.0 / 81.92 * 3.7 * 1253.0);
    // A network that keeps the modem connected 20 s: twice the 315.61 mJ.
    let long_rrc = flags(Flags {
        rrc_inactivity: Some("20s".into()),
        ..Flags::default()
    })
    .unwrap();
    let c = cost(&spec, &radio, 1, 0.001, 3600.0, &long_rrc)
        .unwrap()
        .unwrap();
    close(c.message_uj, 105_000.0 + 2.0 * 315_610.0);
}

#[test]
fn the_protocol_counts_in_the_message_and_shortens_battery_life() {
    let p = Profiles::builtin().unwrap();
    let (spec, radio) = setup("ble-1m-251");
    let device = p.device("nrf52840").unwrap();
    let battery = p.battery("cr2032").unwrap();
    let load = MessageLoad {
        cpu_time_s: 0.0002,
        airtime: Micros::from_us(500),
        rx_time: Micros::from_us(230),
        tx_power_dbm: 0,
    };
    let bare = estimate(device, &radio, Some(battery), &load, 60.0).unwrap();
    let c = cost(&spec, &radio, 1, 0.00073, 60.0, &Overrides::default())
        .unwrap()
        .unwrap();
    let with = estimate_with(device, &radio, Some(battery), &load, 60.0, Some(&c)).unwrap();
    close(with.protocol_j, c.total_j());
    close(with.message_j, bare.message_j + c.total_j());
    assert!(with.cpu_share < bare.cpu_share / 50.0);
    assert!(with.battery_days.unwrap() < bare.battery_days.unwrap() / 5.0);
    // The mean current of the events alone, at the radio's 3 V.
    let ua = average_ua(&spec, &radio, 0, 60.0, &Overrides::default())
        .unwrap()
        .unwrap();
    // 1200 events (no data frame) of 4.0626 uJ (the crystal's 0.3888 and
    // the radio's 3.6738).
    close(ua, (1200.0 * 4.0626) / 60.0 / 3.0);
}

#[test]
fn bad_or_misplaced_protocol_flags_are_refused() {
    for f in [
        Flags {
            conn_interval: Some("7ms".into()),
            ..Flags::default()
        },
        Flags {
            conn_interval: Some("51ms".into()),
            ..Flags::default()
        },
        Flags {
            conn_interval: Some("5s".into()),
            ..Flags::default()
        },
        Flags {
            peripheral_latency: Some("500".into()),
            ..Flags::default()
        },
        Flags {
            peripheral_latency: Some("-1".into()),
            ..Flags::default()
        },
        Flags {
            adv_interval: Some("10ms".into()),
            ..Flags::default()
        },
        Flags {
            poll_period: Some("1ms".into()),
            ..Flags::default()
        },
        Flags {
            psm: Some("1h".into()),
            ..Flags::default()
        },
        Flags {
            psm: Some("1m,1h".into()),
            ..Flags::default()
        },
        Flags {
            edrx: Some("1s".into()),
            ..Flags::default()
        },
        Flags {
            edrx: Some("soon".into()),
            ..Flags::default()
        },
        Flags {
            rrc_inactivity: Some("0s".into()),
            ..Flags::default()
        },
        Flags {
            rrc_inactivity: Some("2h".into()),
            ..Flags::default()
        },
    ] {
        assert!(
            matches!(flags(f.clone()), Err(EnergyError::Invalid(_))),
            "{f:?} accepted"
        );
    }
    // A flag for another link's protocol.
    let poll = flags(Flags {
        poll_period: Some("10s".into()),
        ..Flags::default()
    })
    .unwrap();
    let (spec, radio) = setup("ble-1m-251");
    let err = cost(&spec, &radio, 1, 0.0, 60.0, &poll).unwrap_err();
    assert!(err.to_string().contains("--poll-period"), "{err}");
    let (lora, radio) = setup("lorawan-eu868-dr5");
    assert!(cost(&lora, &radio, 1, 0.0, 60.0, &poll).is_err());
    assert!(
        cost(&lora, &radio, 1, 0.0, 60.0, &Overrides::default())
            .unwrap()
            .is_none()
    );
    // Latency that leaves more than 16 s between events.
    let far = flags(Flags {
        conn_interval: Some("4s".into()),
        peripheral_latency: Some("4".into()),
        ..Flags::default()
    })
    .unwrap();
    let (spec, radio) = setup("ble-1m-251");
    assert!(cost(&spec, &radio, 1, 0.0, 600.0, &far).is_err());
}

// A radio without its crystal's start-up cannot cost a protocol that wakes
// it: the data error names the fields, never a silent zero.
#[test]
fn a_radio_without_its_crystal_start_up_is_refused_for_a_waking_protocol() {
    for link in ["ble-1m-251", "thread"] {
        let (spec, mut radio) = setup(link);
        radio.xo_startup_ma = None;
        let err = cost(&spec, &radio, 1, 0.001, 60.0, &Overrides::default()).unwrap_err();
        assert!(
            matches!(&err, EnergyError::Data(m) if m.contains("xo_startup_ma")),
            "{link}: {err}"
        );
    }
}
