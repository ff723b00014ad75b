//! The C library's build refuses one scheme that leaks on its target
//! (build/leaky.rs, run by build.rs), and names a library's leaky schemes.

#[path = "../build/leaky.rs"]
mod leaky;

const TSV: &str = "# target\tbuild\twhere\n\
cortex-m3\taead:chacha20-poly1305\tct-seal: a UMULL in poly1305\n\
cortex-m3\taead:chacha20-poly1305@mbedtls\tct-seal: a UMULL in mbedtls_poly1305\n\
atmega1284p\taead:aes-128-gcm@ciphermeter\tct-seal: a branch\n";

#[test]
fn one_leaky_scheme_is_refused_unless_the_build_insists() {
    let refused = leaky::check(
        TSV,
        "thumbv7m-none-eabi",
        Some("aead:chacha20-poly1305"),
        "rustcrypto",
        false,
    )
    .unwrap_err();
    assert!(
        refused.contains("aead:chacha20-poly1305's timing leaks the key on cortex-m3")
            && refused.contains("UMULL in poly1305")
            && refused.contains("CIPHERMETER_ALLOW_LEAKY=1"),
        "{refused}"
    );
    let allowed = leaky::check(
        TSV,
        "thumbv7m-none-eabi",
        Some("aead:chacha20-poly1305"),
        "rustcrypto",
        true,
    )
    .unwrap();
    assert_eq!(allowed.len(), 1, "said, even when allowed");
    // Another backend, another core, another scheme: built.
    for (triple, scheme, backend) in [
        ("thumbv7m-none-eabi", "aead:chacha20-poly1305", "monocypher"),
        (
            "thumbv7em-none-eabihf",
            "aead:chacha20-poly1305",
            "rustcrypto",
        ),
        ("thumbv7m-none-eabi", "aead:aes-128-ccm", "rustcrypto"),
        (
            "x86_64-unknown-linux-gnu",
            "aead:chacha20-poly1305",
            "rustcrypto",
        ),
    ] {
        assert_eq!(
            leaky::check(TSV, triple, Some(scheme), backend, false),
            Ok(vec![]),
            "{triple} {scheme} {backend}"
        );
    }
    // Every AVR is judged as the ATmega1284P.
    assert!(
        leaky::check(
            TSV,
            "avr-none",
            Some("aead:aes-128-gcm"),
            "ciphermeter",
            false
        )
        .is_err()
    );
}

#[test]
fn a_library_of_several_schemes_names_its_backends_leaks() {
    let warned = leaky::check(TSV, "thumbv7m-none-eabi", None, "mbedtls", false).unwrap();
    assert_eq!(warned.len(), 1, "{warned:?}");
    assert!(warned[0].starts_with("aead:chacha20-poly1305@mbedtls leaks on cortex-m3"));
    assert_eq!(
        leaky::check(TSV, "thumbv6m-none-eabi", None, "rustcrypto", false),
        Ok(vec![])
    );
}

#[test]
fn the_shipped_list_refuses_what_the_verdict_tables_say_leaks() {
    let tsv = include_str!("../../../data/constant-time/leaks.tsv");
    let (target, build, _) = tsv
        .lines()
        .filter(|l| !l.starts_with('#'))
        .find_map(|l| {
            let mut c = l.splitn(3, '\t');
            Some((c.next()?, c.next()?, c.next()?))
        })
        .expect("the sweep found leaks");
    let triple = match target {
        "cortex-m0plus" => "thumbv6m-none-eabi",
        "cortex-m3" => "thumbv7m-none-eabi",
        "cortex-m4" => "thumbv7em-none-eabihf",
        "riscv32imc" => "riscv32imc-unknown-none-elf",
        _ => "avr-none",
    };
    let (scheme, backend) = build.split_once('@').unwrap_or((build, "rustcrypto"));
    assert!(
        leaky::check(tsv, triple, Some(scheme), backend, false).is_err(),
        "{build} on {target}"
    );
}

/// The triples the verdicts were named by before the targets were files.
#[test]
fn each_rust_target_is_judged_by_the_core_data_targets_names() {
    for (triple, target) in [
        ("thumbv6m-none-eabi", Some("cortex-m0plus")),
        ("thumbv7m-none-eabi", Some("cortex-m3")),
        ("thumbv7em-none-eabi", Some("cortex-m4")),
        ("thumbv7em-none-eabihf", Some("cortex-m4")),
        ("riscv32imc-unknown-none-elf", Some("riscv32imc")),
        ("avr-none", Some("atmega1284p")),
        ("avr-unknown-gnu-atmega328", Some("atmega1284p")),
        ("x86_64-unknown-linux-gnu", None),
    ] {
        assert_eq!(leaky::device_target(triple).as_deref(), target, "{triple}");
    }
}
