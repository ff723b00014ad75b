//! The device serializes study 003's chain reading with the core's writer
//! (`ChainReading::to_json`); the host with the payload crate and
//! serde_json. For the same values both must write the same bytes, or the
//! device would be charged for another message than the link carries.

use ciphermeter_seal::ChainReading;
use ciphermeter_seal::reading::MAX_THERMOMETERS;
use payload::{Format, Sample};

#[test]
fn the_core_writes_the_json_the_host_writes() {
    for n in [1usize, 3, 5, 10, 15, 25] {
        for seed in 0..20u64 {
            let node = Sample::parse(&format!("chain:{n}"))
                .unwrap()
                .record(seed)
                .unwrap();
            let host = Format::JsonMin.serialize(&node).unwrap();
            let value: serde_json::Value = serde_json::from_slice(&host).unwrap();
            let logger = value["id"].as_str().unwrap().trim_start_matches("Logger");
            let mut depths = [(0u8, 0i16); MAX_THERMOMETERS];
            for (slot, d) in depths.iter_mut().zip(value["s_d"].as_array().unwrap()) {
                let tenths = (d["t"].as_f64().unwrap() * 10.0).round() as i16;
                *slot = (d["d"].as_u64().unwrap() as u8, tenths);
            }
            let reading = ChainReading {
                time: value["t"].as_u64().unwrap() as u32,
                logger: logger.parse().unwrap(),
                depths,
                len: n,
            };
            let mut out = [0u8; 1024];
            let len = reading.to_json(&mut out).unwrap();
            assert_eq!(
                std::str::from_utf8(&out[..len]).unwrap(),
                std::str::from_utf8(&host).unwrap(),
                "chain:{n} seed {seed}"
            );
        }
    }
}

#[test]
fn negative_and_integral_temperatures_are_written_as_json_numbers() {
    let mut depths = [(0u8, 0i16); MAX_THERMOMETERS];
    depths[..4].copy_from_slice(&[(0, 125), (1, -3), (2, 120), (3, -40)]);
    let reading = ChainReading {
        time: 7,
        logger: 2,
        depths,
        len: 4,
    };
    let mut out = [0u8; 256];
    let len = reading.to_json(&mut out).unwrap();
    assert_eq!(
        std::str::from_utf8(&out[..len]).unwrap(),
        r#"{"t":7,"id":"Logger2","s_t":"tc","s_d":[{"d":0,"t":12.5},{"d":1,"t":-0.3},{"d":2,"t":12},{"d":3,"t":-4}]}"#
    );
    // Too small a buffer is an error, never a panic or a cut message.
    assert!(reading.to_json(&mut out[..20]).is_err());
}
