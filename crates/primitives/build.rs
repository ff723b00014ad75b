//! `cfg(umaal)` where ARM's DSP extension is on: ARMv7E-M (the Cortex-M4 and
//! M7 targets, `thumbv7em-*`), and ARMv8-M Mainline built for a core that has
//! it (`thumbv8m.main-*` with `-C target-cpu=cortex-m33`, as the firmware is:
//! the bare target leaves DSP off). curve25519's field multiplication, its
//! X25519 ladder, inversion and the Ed25519 comb lookup are its `umaal`
//! assembly there. rustc exposes no stable `target_feature` for ARM's DSP
//! extension, so the target's name and the named core decide.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(umaal)");
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=CARGO_ENCODED_RUSTFLAGS");
    let target = std::env::var("TARGET").unwrap_or_default();
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    let dsp_core = flags.split('\x1f').any(|f| f == "target-cpu=cortex-m33");
    if target.starts_with("thumbv7em-") || (target.starts_with("thumbv8m.main-") && dsp_core) {
        println!("cargo::rustc-cfg=umaal");
    }
}
