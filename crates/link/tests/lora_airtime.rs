//! LoRa time on air: hand-derived vectors pinned from the datasheet formula, and an
//! independent re-derivation over the whole parameter grid.

use ciphermeter_link::lora::{Bandwidth, Chip, CodingRate, Header, Ldro, LoraParams};

fn params(
    sf: u8,
    bw: &str,
    cr: u8,
    header: Header,
    crc: bool,
    ldro: Ldro,
    chip: Chip,
) -> LoraParams {
    LoraParams {
        sf,
        bandwidth: bw.parse().unwrap(),
        coding_rate: CodingRate::new(cr).unwrap(),
        preamble: None,
        header,
        crc,
        ldro,
        chip,
    }
}

fn ms(p: &LoraParams, payload: u32) -> String {
    p.airtime(payload).unwrap().total.to_string()
}

// AN1200.13 worked setting: SF9, 125 kHz, 13 B (an empty LoRaWAN frame), CR 4/5,
// explicit header, CRC on, 8 preamble symbols, LDRO off.
// Ts = 512/125 kHz = 4.096 ms; preamble 12.25 symbols = 50.176 ms;
// n_payload = 8 + ceil((104 - 36 + 28 + 16) / 36) * 5 = 8 + 4 * 5 = 28 -> 114.688 ms;
// total 164.864 ms.
#[test]
fn an1200_13_sf9_13_bytes() {
    let p = params(
        9,
        "125",
        1,
        Header::Explicit,
        true,
        Ldro::Auto,
        Chip::Sx127x,
    );
    let a = p.airtime(13).unwrap();
    assert_eq!(a.symbol_time.to_string(), "4.096 ms");
    assert_eq!(a.preamble_quarter_symbols, 49);
    assert_eq!(a.payload_symbols, 28);
    assert!(!a.ldro);
    assert_eq!(a.total.to_string(), "164.864 ms");
}

// SF7/125, 64 B (51 B + 13 B LoRaWAN): n = 8 + ceil((512-28+28+16)/28)*5 = 8 + 19*5 = 103;
// (12.25 + 103) * 1.024 ms = 118.016 ms.
#[test]
fn sf7_64_bytes() {
    let p = params(
        7,
        "125",
        1,
        Header::Explicit,
        true,
        Ldro::Auto,
        Chip::Sx127x,
    );
    assert_eq!(ms(&p, 64), "118.016 ms");
}

// SF12/125: Ts = 32.768 ms >= 16 ms so LDRO auto is on:
// n = 8 + ceil((512-48+28+16)/40)*5 = 8 + 13*5 = 73; (12.25+73)*32.768 = 2793.472 ms.
#[test]
fn sf12_ldro_auto_on() {
    let p = params(
        12,
        "125",
        1,
        Header::Explicit,
        true,
        Ldro::Auto,
        Chip::Sx127x,
    );
    let a = p.airtime(64).unwrap();
    assert!(a.ldro);
    assert_eq!(a.total.to_string(), "2793.472 ms");
}

// SF11 at 250 kHz: Ts = 8.192 ms < 16 ms, so LDRO stays off (LMIC would turn it on).
// n = 8 + ceil((160-44+28+16)/44)*5 = 8 + 4*5 = 28; 40.25 * 8.192 = 329.728 ms.
// With LDRO wrongly on: ceil(160/36) = 5 -> 33 symbols -> 370.688 ms.
#[test]
fn sf11_250_khz_keeps_ldro_off() {
    let p = params(
        11,
        "250",
        1,
        Header::Explicit,
        true,
        Ldro::Auto,
        Chip::Sx127x,
    );
    let a = p.airtime(20).unwrap();
    assert!(!a.ldro);
    assert_eq!(a.total.to_string(), "329.728 ms");
    let forced = LoraParams {
        ldro: Ldro::On,
        ..p
    };
    assert_eq!(ms(&forced, 20), "370.688 ms");
    // SF11 at 125 kHz: 16.384 ms symbols, so on.
    assert!(
        params(
            11,
            "125",
            1,
            Header::Explicit,
            true,
            Ldro::Auto,
            Chip::Sx127x
        )
        .ldro_in_effect()
    );
}

// Implicit header subtracts 20 bits: SF7, 10 B, no CRC:
// n = 8 + ceil((80-28+28-20)/28)*5 = 8 + 3*5 = 23 -> (12.25+23)*1.024 = 36.096 ms.
// With the sign flipped (+20) it would be 8 + 4*5 = 28 symbols.
#[test]
fn implicit_header_sign() {
    let p = params(
        7,
        "125",
        1,
        Header::Implicit,
        false,
        Ldro::Auto,
        Chip::Sx127x,
    );
    let a = p.airtime(10).unwrap();
    assert_eq!(a.payload_symbols, 23);
    assert_eq!(a.total.to_string(), "36.096 ms");
}

// SX126x SF5/125, 10 B, CRC, explicit, 12 preamble symbols (the SF5/SF6 default):
// Ts = 0.256 ms; n = 8 + ceil((80+16-20+20)/20)*5 = 8 + 5*5 = 33;
// preamble 12 + 6.25 = 18.25; total 51.25 * 0.256 = 13.120 ms.
#[test]
fn sx126x_sf5() {
    let p = params(
        5,
        "125",
        1,
        Header::Explicit,
        true,
        Ldro::Auto,
        Chip::Sx126x,
    );
    let a = p.airtime(10).unwrap();
    assert_eq!(a.preamble_quarter_symbols, 73);
    assert_eq!(a.payload_symbols, 33);
    assert_eq!(a.total.to_string(), "13.120 ms");
}

// SX126x SF6, 0 B, implicit, no CRC: numerator 0+0-24+0 < 0 -> 8 symbols;
// (18.25 + 8) * 0.512 = 13.440 ms. SX127x SF6 implicit, 8 preamble: (12.25+8)*0.512 = 10.368 ms.
#[test]
fn sf6_both_chips() {
    let p = params(
        6,
        "125",
        1,
        Header::Implicit,
        false,
        Ldro::Auto,
        Chip::Sx126x,
    );
    assert_eq!(ms(&p, 0), "13.440 ms");
    let q = params(
        6,
        "125",
        1,
        Header::Implicit,
        false,
        Ldro::Auto,
        Chip::Sx127x,
    );
    assert_eq!(ms(&q, 0), "10.368 ms");
}

// Lowest bandwidth: SF12 at 7.8 kHz, Ts = 4096 / 7812.5 Hz = 524.288 ms exactly.
#[test]
fn narrowest_bandwidth_symbol_is_exact() {
    let p = params(
        12,
        "7.8",
        4,
        Header::Explicit,
        true,
        Ldro::Auto,
        Chip::Sx127x,
    );
    let a = p.airtime(255).unwrap();
    assert_eq!(a.symbol_time.to_string(), "524.288 ms");
    assert!(a.total.is_whole_us());
}

#[test]
fn rejects_what_the_chips_cannot_do() {
    let base = params(
        7,
        "125",
        1,
        Header::Explicit,
        true,
        Ldro::Auto,
        Chip::Sx127x,
    );
    for sf in [4u8, 5, 13] {
        assert!(
            LoraParams { sf, ..base }.airtime(10).is_err(),
            "SF{sf} on sx127x"
        );
    }
    assert!(
        LoraParams { sf: 6, ..base }.airtime(10).is_err(),
        "SF6 explicit on sx127x"
    );
    assert!(
        LoraParams {
            sf: 13,
            chip: Chip::Sx126x,
            ..base
        }
        .airtime(10)
        .is_err()
    );
    assert!(base.airtime(256).is_err());
    let short = LoraParams {
        sf: 5,
        chip: Chip::Sx126x,
        preamble: Some(8),
        ..base
    };
    assert!(short.airtime(10).is_err(), "SF5 needs 12 preamble symbols");
    assert!("300".parse::<Bandwidth>().is_err());
    assert!("4/9".parse::<CodingRate>().is_err());
}

/// The datasheet formula evaluated a second, independent way: floating point exactly as
/// printed, with the ceil found by counting whole 4(SF-2DE)-bit blocks one by one.
#[allow(clippy::too_many_arguments)]
fn reference_ms(
    sf: u32,
    bw_hz: f64,
    cr: u32,
    pl: u32,
    implicit: bool,
    crc: bool,
    ldro: Option<bool>,
    sx126x: bool,
    pre: u32,
) -> (f64, bool) {
    let ts = 2f64.powi(sf as i32) / bw_hz;
    let de = ldro.unwrap_or(ts >= 0.016);
    let (bits, per_block, extra) = if sx126x && sf <= 6 {
        (
            8 * pl as i64 + 16 * crc as i64 - 4 * sf as i64 + if implicit { 0 } else { 20 },
            4 * sf as i64,
            6.25,
        )
    } else {
        let d = if de { 2 } else { 0 };
        (
            8 * pl as i64 - 4 * sf as i64 + 28 + 16 * crc as i64 - 20 * implicit as i64,
            4 * (sf as i64 - d),
            4.25,
        )
    };
    let mut blocks = 0i64;
    while blocks * per_block < bits {
        blocks += 1;
    }
    let n_payload = 8.0 + (blocks * (cr as i64 + 4)) as f64;
    ((pre as f64 + extra + n_payload) * ts * 1000.0, de)
}

#[test]
fn whole_grid_matches_independent_derivation() {
    let bws = [
        ("7.8", 7812.5),
        ("10.4", 125000.0 / 12.0),
        ("15.6", 15625.0),
        ("20.8", 125000.0 / 6.0),
        ("31.25", 31250.0),
        ("41.7", 125000.0 / 3.0),
        ("62.5", 62500.0),
        ("125", 125000.0),
        ("250", 250000.0),
        ("500", 500000.0),
    ];
    let mut checked = 0u32;
    for chip in [Chip::Sx127x, Chip::Sx126x] {
        for sf in 5u8..=12 {
            for &(bw, hz) in &bws {
                for cr in 1u8..=4 {
                    for header in [Header::Explicit, Header::Implicit] {
                        if chip == Chip::Sx127x
                            && (sf == 5 || (sf == 6 && header == Header::Explicit))
                        {
                            continue;
                        }
                        for crc in [false, true] {
                            for ldro in [Ldro::Auto, Ldro::On, Ldro::Off] {
                                let p = LoraParams {
                                    sf,
                                    bandwidth: bw.parse().unwrap(),
                                    coding_rate: CodingRate::new(cr).unwrap(),
                                    preamble: None,
                                    header,
                                    crc,
                                    ldro,
                                    chip,
                                };
                                let forced = match ldro {
                                    Ldro::Auto => None,
                                    Ldro::On => Some(true),
                                    Ldro::Off => Some(false),
                                };
                                let pre = p.preamble_symbols() as u32;
                                for pl in 0u32..=255 {
                                    let got = p.airtime(pl).unwrap();
                                    let (want, de) = reference_ms(
                                        sf as u32,
                                        hz,
                                        cr as u32,
                                        pl,
                                        header == Header::Implicit,
                                        crc,
                                        forced,
                                        chip == Chip::Sx126x,
                                        pre,
                                    );
                                    assert!(
                                        (got.total.as_ms() - want).abs() < 1e-6 * want,
                                        "{chip:?} SF{sf} {bw} CR{cr} {header:?} crc={crc} {ldro:?} PL{pl}: {} vs {want}",
                                        got.total.as_ms()
                                    );
                                    assert_eq!(got.ldro, de);
                                    assert!(got.total.is_whole_us());
                                    checked += 1;
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(checked > 900_000, "grid too small: {checked}");
}

#[test]
fn sx126x_equals_sx127x_from_sf7() {
    for sf in 7u8..=12 {
        for pl in [0u32, 1, 13, 51, 100, 222, 255] {
            let a = params(
                sf,
                "125",
                1,
                Header::Explicit,
                true,
                Ldro::Auto,
                Chip::Sx127x,
            );
            let b = LoraParams {
                chip: Chip::Sx126x,
                ..a
            };
            assert_eq!(a.airtime(pl).unwrap(), b.airtime(pl).unwrap());
        }
    }
}

#[test]
fn bandwidth_parsing_accepts_datasheet_spellings() {
    for (s, l) in [
        ("7.81", "7.8"),
        ("125k", "125"),
        ("41.67", "41.7"),
        ("500 kHz", "500"),
    ] {
        assert_eq!(s.parse::<Bandwidth>().unwrap().label(), l);
    }
    assert_eq!(Bandwidth::all().count(), 10);
}
