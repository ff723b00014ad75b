//! `reproduce tiny-security --target MCU`: study 003 at device level, in the
//! cycle-exact simulator (AVR) or QEMU (Cortex-M), from crates/mcu.

use std::io::IsTerminal;

use mcu::Target;
use mcu::tiny_security::TinySecurityRow;

use crate::error::CliError;

pub fn run(target: &str, json_out: bool) -> Result<(), CliError> {
    let target: Target = target.parse()?;
    let show_progress = std::io::stderr().is_terminal();
    let rows = mcu::tiny_security::reproduce(target, |step| {
        if show_progress {
            eprintln!("{step}");
        }
    })?;
    let findings =
        super::tiny_security_device_claims::check(&super::tiny_security::paper()?, &rows);
    if json_out {
        let doc = serde_json::json!({
            "study": "003",
            "target": target.name(),
            "rows": rows,
            "findings": findings,
        });
        let text = serde_json::to_string_pretty(&doc).map_err(CliError::failed)?;
        println!("{text}");
    } else {
        print_table(target, &rows);
        println!("\nThe paper's findings beside ours (the study ran on this microcontroller):");
        for f in &findings {
            println!(
                "  [{}] {} ({})\n      ours: {}: {}",
                f.id, f.paper, f.place, f.verdict, f.ours
            );
        }
    }
    if rows.iter().any(|r| r.error.is_none() && !r.kat_passed) {
        return Err(CliError::failed(
            "a known-answer check failed on the device; see the kat column",
        ));
    }
    Ok(())
}

fn num(v: Option<f64>, digits: usize) -> String {
    v.map_or("-".into(), |v| format!("{v:.digits$}"))
}

fn print_table(target: Target, rows: &[TinySecurityRow]) {
    println!(
        "Study 003 at device level on {target:?} (Figures 9, 10 and 12), whole message path per reading"
    );
    println!(
        "{:<26} {:<5} {:>5} {:>10} {:>9} {:>13} {:>12} {:>9} {:>4}",
        "algorithm",
        "group",
        "bits",
        "us/byte",
        "spread",
        "security us/B",
        "us/B per bit",
        "flash +B",
        "kat"
    );
    for r in rows {
        println!(
            "{:<26} {:<5} {:>5} {:>10} {:>9} {:>13} {:>12} {:>9} {:>4}",
            r.algorithm,
            r.group,
            r.security_bits,
            num(r.us_per_byte, 3),
            num(r.us_per_byte_spread, 3),
            num(r.security_us_per_byte, 3),
            num(r.cost_per_bit, 5),
            r.program_size_bytes.map_or("-".into(), |b| b.to_string()),
            if r.error.is_some() {
                "n/a"
            } else if r.kat_passed {
                "ok"
            } else {
                "FAIL"
            }
        );
        if let Some(e) = &r.error {
            println!("    {}: {e}", r.algorithm);
        }
    }
    println!("\nGroup means (the study's Figures 9, 10 and 12 compare the groups):");
    for g in mcu::tiny_security::group_means(rows) {
        println!(
            "  {:<5} {} scheme(s): {} us/byte, {} us/B per bit, flash +{} B",
            g.group,
            g.schemes,
            num(g.us_per_byte, 3),
            num(g.cost_per_bit, 5),
            num(g.program_size_bytes, 0)
        );
    }
    if rows.iter().any(|r| r.group == "EtM") {
        println!(
            "EtM is AES-ECB then HMAC of the ciphertext, as the study built it (Appendix C): ECB leaks equal blocks; measured for the reproduction only."
        );
    }
    if let Some(base) = rows.iter().find_map(|r| r.baseline_program_bytes) {
        println!(
            "\nNo-security build: {base} B of flash (the study reports 9408 B for its Arduino build)."
        );
    }
    println!(
        "Times are simulated cycles at the target's clock; flash is over the no-security build."
    );
}
