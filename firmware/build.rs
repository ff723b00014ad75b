//! Generates the message sizes to benchmark (from CIPHERMETER_SIZES), names
//! the study 003 message scheme a `message-*` feature selects, and, for
//! Cortex-M, picks the memory map of the QEMU board that runs the target; for
//! riscv32imc, the whole link script (memory/esp32c3.x: an ESP32-C3's flash
//! and SRAM on QEMU `virt`).

use std::{env, fs, path::PathBuf};

const DEFAULT_SIZES: &str = "16,64,256,1024";

fn main() {
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    println!("cargo:rerun-if-env-changed=CIPHERMETER_SIZES");
    println!("cargo:rerun-if-changed=memory");

    let spec = env::var("CIPHERMETER_SIZES").unwrap_or_else(|_| DEFAULT_SIZES.to_string());
    let sizes: Vec<usize> = spec
        .split(',')
        .map(|s| {
            s.trim()
                .parse()
                .expect("CIPHERMETER_SIZES: comma-separated byte counts")
        })
        .collect();
    let max = sizes.iter().copied().max().unwrap_or(0);
    fs::write(
        out.join("sizes.rs"),
        format!("pub const SIZES: &[usize] = &{sizes:?};\npub const MAX_SIZE: usize = {max};\n"),
    )
    .unwrap();

    message_scheme();
    seal_scheme();
    counters();
    c_libraries();

    let target = env::var("TARGET").unwrap();
    let board = if target.starts_with("thumbv6m") {
        Some("microbit")
    } else if target.starts_with("thumbv7em") {
        Some("mps2-an386")
    } else if target.starts_with("thumbv7") {
        Some("mps2")
    } else {
        None
    };
    println!("cargo::rustc-check-cfg=cfg(board_microbit)");
    if board == Some("microbit") {
        println!("cargo:rustc-cfg=board_microbit");
    }
    if let Some(board) = board {
        fs::copy(format!("memory/{board}.x"), out.join("memory.x")).unwrap();
        println!("cargo:rustc-link-search={}", out.display());
    }
    // .cargo/config.toml links riscv32 with -Tesp32c3.x.
    if target.starts_with("riscv32") {
        fs::copy("memory/esp32c3.x", out.join("esp32c3.x")).unwrap();
        println!("cargo:rustc-link-search={}", out.display());
    }
}

/// The `message-*` features are exclusive (one scheme per build). From the one
/// enabled, derive what the code selects on, so no list of features is
/// repeated in the source: `message_path` (any scheme), `message_group`
/// (none, aead, hmac, etm), the HMAC hash of the HMAC and EtM groups
/// `message_mac`, EtM's AES size `etm_aes`, and the scheme id as
/// `CIPHERMETER_MESSAGE_ID`.
fn message_scheme() {
    println!("cargo::rustc-check-cfg=cfg(message_path)");
    println!(
        "cargo::rustc-check-cfg=cfg(message_group, values(\"none\", \"aead\", \"hmac\", \"etm\"))"
    );
    println!("cargo::rustc-check-cfg=cfg(etm_aes, values(\"128\", \"256\"))");
    println!(
        "cargo::rustc-check-cfg=cfg(message_mac, values(\"sha256\", \"sha512\", \"sha3-256\", \"sha3-512\"))"
    );
    // Feature names use only '-', which Cargo turns into '_' in upper case.
    let schemes: Vec<String> = env::vars()
        .filter_map(|(k, _)| {
            k.strip_prefix("CARGO_FEATURE_MESSAGE_")
                .map(|rest| format!("message-{}", rest.to_lowercase().replace('_', "-")))
        })
        .collect();
    let id = match schemes.as_slice() {
        [] => return,
        [one] => one,
        more => panic!("the message-* features are exclusive, one per build; enabled: {more:?}"),
    };
    // Both MAC groups end in `hmac-HASH`: one cfg selects the HMAC for either.
    if let Some((_, mac)) = id.split_once("hmac-") {
        println!("cargo:rustc-cfg=message_mac=\"{mac}\"");
    }
    let group = if id == "message-none" {
        "none"
    } else if let Some(parts) = id.strip_prefix("message-etm-aes-") {
        let (aes, _) = parts
            .split_once("-hmac-")
            .expect("EtM features are message-etm-aes-BITS-hmac-HASH");
        println!("cargo:rustc-cfg=etm_aes=\"{aes}\"");
        "etm"
    } else if id.starts_with("message-hmac-") {
        "hmac"
    } else {
        "aead"
    };
    println!("cargo:rustc-cfg=message_path");
    println!("cargo:rustc-cfg=message_group=\"{group}\"");
    println!("cargo:rustc-env=CIPHERMETER_MESSAGE_ID={id}");
}

/// `ctr_mode`: a CTR build (`aes-*-ctr`, `aes-*-ctr-crate`). `eax_bytewise`:
/// a build that uses the firmware's EAX over the byte-wise counter
/// (`aes-*-eax`, `message-aes-*-eax`; not the `-crate` builds). `rsa`: an
/// RSA build (`rsa-1024`, `rsa-2048`).
fn counters() {
    println!("cargo::rustc-check-cfg=cfg(ctr_mode)");
    println!("cargo::rustc-check-cfg=cfg(eax_bytewise)");
    let on = |f: &str| {
        env::var_os(format!(
            "CARGO_FEATURE_{}",
            f.to_uppercase().replace('-', "_")
        ))
        .is_some()
    };
    let ctr = [
        "aes-128-ctr",
        "aes-256-ctr",
        "aes-128-ctr-crate",
        "aes-256-ctr-crate",
    ];
    if ctr.iter().any(|f| on(f)) {
        println!("cargo:rustc-cfg=ctr_mode");
    }
    let eax = [
        "aes-128-eax",
        "aes-256-eax",
        "message-aes-128-eax",
        "message-aes-256-eax",
    ];
    if eax.iter().any(|f| on(f)) {
        println!("cargo:rustc-cfg=eax_bytewise");
    }
    println!("cargo::rustc-check-cfg=cfg(public_key)");
    if ["x25519", "ed25519", "p256-ecdh", "p256-ecdsa"]
        .iter()
        .any(|f| on(f))
    {
        println!("cargo:rustc-cfg=public_key");
    }
    println!("cargo::rustc-check-cfg=cfg(rsa)");
    // RSA's 64-bit products from 16-bit halves where the core has no
    // 32x32->64 multiply (src/algorithms/bignum.rs).
    println!("cargo::rustc-check-cfg=cfg(mul_by_halves)");
    let target = env::var("TARGET").unwrap_or_default();
    if target.starts_with("avr") || target.starts_with("thumbv6m") {
        println!("cargo:rustc-cfg=mul_by_halves");
    }
    if ["rsa-1024", "rsa-2048"].iter().any(|f| on(f)) {
        println!("cargo:rustc-cfg=rsa");
    }
}

/// The sealing core's scheme for this build, from CIPHERMETER_SCHEME (a
/// canonical scheme name; crates/mcu sets it and the core's features): the
/// constant `SPEC` in `seal_scheme.rs` and `cfg(seal_path)`. The name is
/// parsed here, on the host, so the device carries no table of names.
fn seal_scheme() {
    use seal::algorithm::CipherAlg;
    println!("cargo:rerun-if-env-changed=CIPHERMETER_SCHEME");
    println!("cargo::rustc-check-cfg=cfg(seal_path)");
    let out = PathBuf::from(env::var("OUT_DIR").unwrap()).join("seal_scheme.rs");
    let Ok(name) = env::var("CIPHERMETER_SCHEME") else {
        fs::write(out, "").unwrap();
        return;
    };
    let spec = seal::Spec::parse(&name)
        .unwrap_or_else(|| panic!("CIPHERMETER_SCHEME: '{name}' is not a canonical scheme name"));
    let cipher = match spec.cipher {
        None => "None".to_string(),
        Some(CipherAlg::Block(b, m)) => {
            format!("Some(CipherAlg::Block(BlockAlg::{b:?}, Mode::{m:?}))")
        }
        Some(CipherAlg::Stream(s)) => format!("Some(CipherAlg::Stream(StreamAlg::{s:?}))"),
        Some(CipherAlg::Aead(a)) => format!("Some(CipherAlg::Aead(AeadAlg::{a:?}))"),
    };
    let mac = match spec.mac {
        None => "None".to_string(),
        Some(m) => format!("Some(MacAlg::{m:?})"),
    };
    fs::write(
        out,
        format!(
            "/// The scheme this build seals with.\npub const SPEC: Spec<'static> = Spec {{ pattern: Pattern::{:?}, cipher: {cipher}, mac: {mac}, name: {name:?} }};\n",
            spec.pattern
        ),
    )
    .unwrap();
    println!("cargo:rustc-cfg=seal_path");
}

/// An `impl-mbedtls` or `impl-monocypher` build links that C library,
/// compiled here from the sources `scripts/fetch-clibs` unpacks under
/// `clib/vendor/`, with Debian's cross gcc for the target (riscv32imc:
/// riscv64-unknown-elf-gcc with picolibc's headers), at `-Os` as the
/// Rust side is (`opt-level = "s"`), and our shim (`clib/shim_*.c`).
fn c_libraries() {
    println!("cargo:rerun-if-changed=clib");
    let on = |f: &str| env::var_os(format!("CARGO_FEATURE_{f}")).is_some();
    let target = env::var("TARGET").unwrap();
    let library = if on("IMPL_MBEDTLS") {
        "mbedtls"
    } else if on("IMPL_MONOCYPHER") {
        "monocypher"
    } else {
        return;
    };
    let mut cc = cc::Build::new();
    cc.opt_level_str("s").warnings(false).flag("-std=c99");
    if target.starts_with("avr") {
        cc.compiler("avr-gcc").flag("-mmcu=atmega1284p");
    } else if target.starts_with("thumb") {
        let cpu = if target.starts_with("thumbv6m") {
            "cortex-m0plus"
        } else if target.starts_with("thumbv7em") {
            "cortex-m4"
        } else {
            "cortex-m3"
        };
        cc.compiler("arm-none-eabi-gcc")
            .flag(format!("-mcpu={cpu}"))
            .flag("-mthumb");
        if target.ends_with("eabihf") {
            cc.flag("-mfloat-abi=hard").flag("-mfpu=fpv4-sp-d16");
        }
        // gcc's code calls libgcc helpers compiler_builtins lacks (Thumb-1's
        // switch tables, `__gnu_thumb1_case_uqi`): link the matching libgcc.
        let mut ask = std::process::Command::new("arm-none-eabi-gcc");
        ask.arg(format!("-mcpu={cpu}")).arg("-mthumb");
        if target.ends_with("eabihf") {
            ask.arg("-mfloat-abi=hard").arg("-mfpu=fpv4-sp-d16");
        }
        let libgcc = ask
            .arg("-print-libgcc-file-name")
            .output()
            .expect("arm-none-eabi-gcc: run scripts/setup");
        let libgcc = PathBuf::from(String::from_utf8_lossy(&libgcc.stdout).trim());
        if let Some(dir) = libgcc.parent() {
            println!("cargo:rustc-link-search=native={}", dir.display());
            println!("cargo:rustc-link-lib=static=gcc");
        }
    } else if target.starts_with("riscv32imc") {
        // Debian's bare-metal RISC-V gcc (riscv64-unknown-elf, multilib) for the
        // ESP32-C3's ISA; picolibc's headers for string.h. The flash and SRAM
        // (memory/esp32c3.x) are addressed by lui/auipc on rv32 whatever the
        // code model, so the default (medlow) serves. Nothing of picolibc is
        // linked: memcpy/memset/memcmp come from Rust's compiler_builtins.
        cc.compiler("riscv64-unknown-elf-gcc")
            .flag("-march=rv32imc")
            .flag("-mabi=ilp32")
            .flag("--specs=picolibc.specs");
        // gcc may call libgcc helpers (64-bit division in Mbed TLS's bignum):
        // the rv32im/ilp32 multilib's libgcc, the same standard calling
        // convention as compiler_builtins' (no AVR-style clash).
        let libgcc = std::process::Command::new("riscv64-unknown-elf-gcc")
            .args(["-march=rv32imc", "-mabi=ilp32", "-print-libgcc-file-name"])
            .output()
            .expect("riscv64-unknown-elf-gcc: run scripts/setup");
        let libgcc = PathBuf::from(String::from_utf8_lossy(&libgcc.stdout).trim());
        if let Some(dir) = libgcc.parent() {
            println!("cargo:rustc-link-search=native={}", dir.display());
            println!("cargo:rustc-link-lib=static=gcc");
        }
    } else if target == env::var("HOST").unwrap_or_default() {
        // Host tests (`cargo test --features ...,impl-mbedtls`): the host's cc.
    } else {
        panic!(
            "no C cross compiler for {target}: the C libraries are built with Debian's avr-gcc, arm-none-eabi-gcc and riscv64-unknown-elf-gcc only"
        );
    }
    let vendor = PathBuf::from("clib/vendor");
    let missing = |dir: &PathBuf| {
        panic!(
            "the {library} sources are not in {}: run scripts/setup (scripts/fetch-clibs)",
            dir.display()
        )
    };
    if library == "monocypher" {
        let src = vendor.join("monocypher-sys-4.0.2/Monocypher/src");
        if !src.join("monocypher.c").exists() {
            missing(&src);
        }
        cc.include(&src)
            .file(src.join("monocypher.c"))
            .file(src.join("optional/monocypher-ed25519.c"))
            .file("clib/shim_monocypher.c");
    } else {
        let root = vendor.join("mbedtls-sys-auto-2.28.15/vendor");
        if !root.join("library/aes.c").exists() {
            missing(&root);
        }
        cc.include(root.join("include"))
            .include("clib")
            .define("MBEDTLS_CONFIG_FILE", "\"mbedtls_config.h\"");
        // Cortex-M: the static heap of Mbed TLS's buffer allocator, for the md
        // layer, the cipher layer and P-256 (verification, the hungriest, needs
        // about 5 KiB with clib/mbedtls_config.h's 2-bit window); on AVR the
        // same bytes for the shim's own arena (the config says why).
        cc.define(
            "CM_MBEDTLS_HEAP",
            if target.starts_with("avr") {
                "5120"
            } else {
                "6144"
            },
        );
        for file in [
            "aes",
            "asn1parse",
            "asn1write",
            "bignum",
            "ccm",
            "chacha20",
            "chachapoly",
            "cipher",
            "cipher_wrap",
            "constant_time",
            "ecdh",
            "ecdsa",
            "ecp",
            "ecp_curves",
            "gcm",
            "hmac_drbg",
            "md",
            "memory_buffer_alloc",
            "platform",
            "platform_util",
            "poly1305",
            "sha256",
            "sha512",
        ] {
            cc.file(root.join(format!("library/{file}.c")));
        }
        cc.file("clib/shim_mbedtls.c");
    }
    cc.compile(&format!("cm_{library}"));
    if target.starts_with("avr") {
        private_libgcc(&PathBuf::from(env::var("OUT_DIR").unwrap()), library);
    }
}

/// On AVR, gcc calls its libgcc helpers with conventions of their own (a
/// 64-bit shift takes its count in r16), while Rust's compiler_builtins
/// defines the same names, weakly, with Rust's (a u32 count in r14..r17),
/// and the linker keeps those: C code then shifts and divides by garbage
/// (wrong SHA-512 and Poly1305 results, runaway loops). So the C archive
/// gets libgcc's helpers as private copies under other names.
fn private_libgcc(out: &std::path::Path, library: &str) {
    use std::collections::BTreeSet;
    use std::process::Command;
    let run = |cmd: &mut Command| {
        let o = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
        assert!(
            o.status.success(),
            "{cmd:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        String::from_utf8(o.stdout).unwrap()
    };
    let archive = out.join(format!("libcm_{library}.a"));
    let libgcc =
        run(Command::new("avr-gcc").args(["-mmcu=atmega1284p", "-print-libgcc-file-name"]));
    let libgcc = libgcc.trim();
    // libgcc's symbols and the member that defines each.
    let mut member_of = std::collections::BTreeMap::new();
    // Lines read `libgcc.a:_mulsi3.o:00000000 T __mulsi3`.
    for line in run(Command::new("avr-nm").args(["--defined-only", "-A", libgcc])).lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        let [location, kind, sym] = f[..] else {
            continue;
        };
        let member = location.rsplit(':').nth(1);
        if let (Some(member), "T", false) = (member, kind, sym.starts_with("__do_")) {
            member_of.insert(sym.to_string(), member.to_string());
        }
    }
    let undefined = |file: &std::path::Path| -> BTreeSet<String> {
        run(Command::new("avr-nm").arg("-u").arg(file))
            .lines()
            .filter_map(|l| l.split_whitespace().last().map(str::to_string))
            .filter(|s| member_of.contains_key(s))
            .collect()
    };
    // The helpers the C code needs, and the helpers those need.
    let dir = out.join("libgcc-private");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut wanted = undefined(&archive);
    let mut members = BTreeSet::new();
    loop {
        let more: BTreeSet<String> = wanted.iter().map(|s| member_of[s].clone()).collect();
        let new: Vec<String> = more.difference(&members).cloned().collect();
        if new.is_empty() {
            break;
        }
        run(Command::new("avr-ar")
            .arg("x")
            .arg(libgcc)
            .args(&new)
            .current_dir(&dir));
        for m in &new {
            wanted.extend(undefined(&dir.join(m)));
        }
        members.extend(new);
    }
    // Every symbol those members define, renamed in them and in the C code.
    if members.is_empty() {
        return;
    }
    let map = dir.join("rename.txt");
    let names: Vec<String> = member_of
        .iter()
        .filter(|(_, m)| members.contains(*m))
        .map(|(s, _)| format!("{s} __cm_gcc{s}"))
        .collect();
    std::fs::write(&map, names.join("\n") + "\n").unwrap();
    let rename = |file: &std::path::Path| {
        run(Command::new("avr-objcopy")
            .arg(format!("--redefine-syms={}", map.display()))
            .arg(file));
    };
    rename(&archive);
    for m in &members {
        rename(&dir.join(m));
    }
    run(Command::new("avr-ar")
        .arg("rs")
        .arg(&archive)
        .args(members.iter().map(|m| dir.join(m))));
}
