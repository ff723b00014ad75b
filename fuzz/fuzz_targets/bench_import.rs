//! `ciphermeter import`'s reader: `BenchReport::from_json` on any text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use measure::BenchReport;

fuzz_target!(|bytes: &[u8]| {
    // `import` reads the file as UTF-8 text first; other bytes never reach the parser.
    if let Ok(text) = std::str::from_utf8(bytes) {
        let _ = BenchReport::from_json(text);
    }
});
