//! `cfg(umaal)` where ARM's DSP extension is on: ARMv7E-M (the Cortex-M4 and
//! M7 targets, `thumbv7em-*`), and ARMv8-M Mainline built for a core that has
//! it (`thumbv8m.main-*` with `-C target-cpu=cortex-m33`, as the firmware is:
//! the bare target leaves DSP off). curve25519's field multiplication, its
//! X25519 ladder, inversion and the Ed25519 comb lookup are its `umaal`
//! assembly there. rustc exposes no stable `target_feature` for ARM's DSP
//! extension, so the target's file decides (`dsp`, and its `target_cpu`
//! named in the build's rustflags).

fn main() {
    println!("cargo::rustc-check-cfg=cfg(umaal)");
    println!("cargo::rerun-if-changed=build.rs");
    let root = std::path::PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap()).join("../..");
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    if build_facts::build_facts_for_this_build(&root)
        .is_some_and(|t| t.dsp && t.core_is_built(&flags))
    {
        println!("cargo::rustc-cfg=umaal");
    }
}

#[allow(dead_code)]
mod build_facts {
    include!("../device-facts/src/target/build_facts.rs");
}
