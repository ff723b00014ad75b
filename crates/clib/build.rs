//! Compiles the C libraries this build enables (features `mbedtls`,
//! `monocypher`) from the sources `scripts/fetch-clibs` unpacks under
//! `vendor/`, with our configuration and shims (`c/`), at `-Os` as the Rust
//! side of a firmware is (`opt-level = "s"`): the host's cc for the host,
//! Debian's cross gcc for a device, with the flags its target file names
//! (RISC-V: riscv64-unknown-elf-gcc with picolibc's headers). Also fixes, once for C and Rust, the bytes the Rust
//! side reserves for each C context (`contexts.rs`; the shims assert they fit).

use std::{env, fs, path::PathBuf};

/// Bytes reserved per context, rounded to 8: the largest of the host's
/// 64-bit layout and the devices' (the shims' `_Static_assert`s check).
const CONTEXTS: &[(&str, usize)] = &[
    ("AES", 320),
    ("GCM", 512),
    ("CCM", 128),
    ("CHACHAPOLY", 320),
    ("SHA256", 128),
    ("SHA512", 224),
    ("MONO_SHA512", 224),
    ("MONO_HMAC", 352),
];

fn main() {
    println!("cargo:rerun-if-changed=c");
    println!("cargo:rerun-if-changed=vendor");
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    let rust: String = CONTEXTS
        .iter()
        .map(|(name, bytes)| format!("pub const {name}_BYTES: usize = {bytes};\n"))
        .collect();
    fs::write(out.join("contexts.rs"), rust).unwrap();
    for library in ["mbedtls", "monocypher"] {
        if env::var_os(format!("CARGO_FEATURE_{}", library.to_uppercase())).is_some() {
            compile(library, &out);
        }
    }
}

/// A C compiler for the target, and the libgcc its code may call.
fn compiler(target: &str) -> cc::Build {
    let mut cc = cc::Build::new();
    cc.opt_level_str("s").warnings(false).flag("-std=c99");
    for (name, bytes) in CONTEXTS {
        cc.define(&format!("CM_{name}_BYTES"), bytes.to_string().as_str());
    }
    // The core's flags from the target's file (data/targets/NAME.toml).
    let root = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap()).join("../..");
    let device = build_facts::build_facts_for_this_build(&root);
    if let Some(t) = device.as_ref().filter(|t| t.family == "avr") {
        cc.compiler("avr-gcc");
        for f in &t.c_flags {
            cc.flag(f);
        }
    } else if let Some(t) = device.as_ref().filter(|t| t.family == "arm") {
        let mut flags = t.c_flags.clone();
        if let (true, Some(fpu)) = (target.ends_with("eabihf"), &t.c_fpu) {
            flags.extend(["-mfloat-abi=hard".into(), format!("-mfpu={fpu}")]);
        }
        cc.compiler("arm-none-eabi-gcc");
        for f in &flags {
            cc.flag(f);
        }
        // gcc's code calls libgcc helpers compiler_builtins lacks (Thumb-1's
        // switch tables, `__gnu_thumb1_case_uqi`): link the matching libgcc.
        link_libgcc("arm-none-eabi-gcc", &flags);
    } else if let Some(t) = device.as_ref().filter(|t| t.family == "riscv") {
        // Picolibc's headers for string.h. Nothing of picolibc is linked:
        // memcpy/memset/memcmp are compiler_builtins'.
        cc.compiler("riscv64-unknown-elf-gcc");
        for f in &t.c_flags {
            cc.flag(f);
        }
        cc.flag("--specs=picolibc.specs");
        // 64-bit division in Mbed TLS's bignum: the multilib's libgcc, the
        // standard calling convention compiler_builtins uses too.
        link_libgcc("riscv64-unknown-elf-gcc", &t.c_flags);
    } else if target.contains("-none") {
        panic!(
            "no C cross compiler for {target}: no data/targets file builds it (the C libraries are built for the device targets there and for hosted targets)"
        );
    } else {
        // A hosted target (the host, a board's Linux): its cc, and the C
        // library's calloc for Mbed TLS's cipher contexts.
        cc.define("CM_HOSTED", None);
    }
    cc
}

fn link_libgcc(gcc: &str, flags: &[String]) {
    let libgcc = std::process::Command::new(gcc)
        .args(flags)
        .arg("-print-libgcc-file-name")
        .output()
        .unwrap_or_else(|_| panic!("{gcc}: run scripts/setup"));
    let libgcc = PathBuf::from(String::from_utf8_lossy(&libgcc.stdout).trim());
    if let Some(dir) = libgcc.parent() {
        println!("cargo:rustc-link-search=native={}", dir.display());
        println!("cargo:rustc-link-lib=static=gcc");
    }
}

fn compile(library: &str, out: &std::path::Path) {
    let target = env::var("TARGET").unwrap();
    let mut cc = compiler(&target);
    let vendor = PathBuf::from("vendor");
    let missing = |dir: &PathBuf| -> ! {
        panic!(
            "the {library} sources are not in crates/clib/{}: run scripts/setup (scripts/fetch-clibs)",
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
            .file("c/shim_monocypher.c");
    } else {
        let root = vendor.join("mbedtls-sys-auto-2.28.15/vendor");
        if !root.join("library/aes.c").exists() {
            missing(&root);
        }
        cc.include(root.join("include"))
            .include("c")
            .define("MBEDTLS_CONFIG_FILE", "\"mbedtls_config.h\"");
        // Cortex-M and riscv32: the static heap of Mbed TLS's buffer allocator;
        // on AVR the same bytes for the shim's own arena (the config says
        // why). GCM's and CCM's cipher layer takes one AES context from it;
        // P-256 (feature `p256`; verification, the hungriest, needs about
        // 5 KiB with c/mbedtls_config.h's 2-bit window) far more. A hosted
        // build uses the C library's heap.
        let heap = match (
            env::var_os("CARGO_FEATURE_P256").is_some(),
            target.starts_with("avr"),
        ) {
            (false, _) => "1024",
            (true, true) => "5120",
            (true, false) => "6144",
        };
        cc.define("CM_MBEDTLS_HEAP", heap);
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
        cc.file("c/shim_mbedtls.c");
    }
    cc.compile(&format!("cm_{library}"));
    if target.starts_with("avr") {
        private_libgcc(out, library);
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

#[allow(dead_code)]
mod build_facts {
    include!("../device-facts/src/target/build_facts.rs");
}
