//! `cfg(umaal)` on ARMv7E-M (the Cortex-M4 and M7 targets, `thumbv7em-*`):
//! curve25519's field multiplication, its X25519 ladder, inversion and the
//! Ed25519 comb lookup are its `umaal` assembly there. rustc exposes no
//! stable `target_feature` for ARM's DSP extension, so the target's name
//! decides.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(umaal)");
    println!("cargo::rerun-if-changed=build.rs");
    let target = std::env::var("TARGET").unwrap_or_default();
    if target.starts_with("thumbv7em-") {
        println!("cargo::rustc-cfg=umaal");
    }
}
