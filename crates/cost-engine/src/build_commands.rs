//! One step from `recommend`'s answer to the build (issue 63, item 2): the
//! commands that build the winner for the device, the C library
//! (crates/seal-ffi, docs/c-library.md) for its scheme and implementation and
//! `device-send`'s firmware. An OSCORE row's library is its core scheme's
//! code with `CIPHERMETER_OSCORE` naming its algorithm, as the firmware's
//! OSCORE builds are (`seal::oscore_build`), whose `cm_oscore_*` protect the
//! readings. Where the C library has no path for the winner (an engine: no
//! driver is built; a key established per session: it seals under a
//! pre-shared key or context), it says so and gives the best software row it
//! builds instead.

use device_facts::{Implementation, Target};
use serde::{Deserialize, Serialize};

use crate::scheme_cost::SchemeCost;

/// The commands for one ranked row, as a shell runs them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BuildCommands {
    pub scheme: String,
    pub implementation: String,
    pub container: String,
    /// The Rust target the C library is built for (the device's simulated core's).
    pub rust_target: String,
    /// Builds `libciphermeter_seal_ffi.a` with this scheme and backend only;
    /// none when no ranked row is one the C library builds (then `scheme` is
    /// the winner's and `instead_of_winner` says why).
    pub c_library: Option<String>,
    /// A key for it, then the simulated device sealing with the same code
    /// (none where `device-send` has no board for the core).
    pub device_send: Option<String>,
    /// Why `device_send` is none.
    pub device_send_missing: Option<String>,
    /// Why these are not the winner's commands (none: they are).
    pub instead_of_winner: Option<String>,
}

impl BuildCommands {
    /// The hand-over in words and commands, for the text answer.
    pub fn text(&self) -> String {
        let mut o = String::new();
        if let Some(why) = &self.instead_of_winner {
            o.push_str(&format!("{why}\n"));
        }
        let Some(c_library) = &self.c_library else {
            return o;
        };
        let whose = self
            .implementation
            .parse::<Implementation>()
            .map_or(self.implementation.as_str(), |i| i.label());
        o.push_str(&format!(
            "Build it (docs/c-library.md): the C library for {} with {whose}'s code for {}:\n  {}\n",
            self.scheme, self.rust_target, c_library
        ));
        match (&self.device_send, &self.device_send_missing) {
            (Some(cmd), _) => o.push_str(&format!(
                "and the simulated device sealing with it (device-send):\n  {cmd}\n"
            )),
            (None, Some(why)) => o.push_str(&format!("device-send: {why}\n")),
            (None, None) => {}
        }
        o
    }
}

/// Why the C library cannot build `row`, every reason, if it cannot.
fn no_c_path(row: &SchemeCost) -> Option<String> {
    let mut why = Vec::new();
    if let Some(e) = &row.engine {
        why.push(format!(
            "the C library has no driver for the {} (docs/engines.md, \"Not built yet\")",
            e.engine_title
        ));
    }
    if (row.container.is_oscore() || row.scheme.is_oscore()) && !ffi_features().has("oscore") {
        why.push("it seals json, binary and cose, not OSCORE".into());
    }
    if row.session.is_some() {
        why.push(
            "on a device it seals under a pre-shared key or context (its EDHOC initiator, \
             cm_edhoc_*, builds for hosts only)"
                .into(),
        );
    }
    if !row.scheme.allows_counter_nonces() {
        why.push("it seals under counter nonces, which this scheme may not use".into());
    }
    if row.seal_implementation.sealing_backend().is_none() {
        why.push(format!(
            "{} is no backend of the sealing core",
            row.seal_implementation.label()
        ));
    }
    (!why.is_empty()).then(|| why.join("; "))
}

/// The C library's build for `scheme` by `imp` on `target`: docs/c-library.md's
/// commands, the AVR's with its nightly toolchain and flags. An OSCORE
/// scheme builds its core scheme's code and names its algorithm.
fn c_library(scheme: &str, imp: Implementation, target: Target) -> String {
    let oscore = seal::oscore_build::alg_name(scheme);
    // The scheme's families the C library leaves out by default (its build
    // refuses the scheme without them), OSCORE's if it is one, then the
    // backend's code.
    let ffi = ffi_features();
    let mut wanted: Vec<String> = seal::oscore_build::spec(scheme)
        .map(|spec| spec.features())
        .into_iter()
        .flatten()
        .chain(oscore.map(|_| "oscore"))
        .filter(|f| !f.is_empty() && !ffi.default.iter().any(|d| d == f))
        .map(str::to_string)
        .collect();
    if imp != Implementation::RustCrypto {
        wanted.push(format!("backend-{}", imp.name()));
    }
    let features = match wanted.is_empty() {
        true => String::new(),
        false => format!(" --features {}", wanted.join(",")),
    };
    let core = seal::oscore_build::core_scheme(scheme).unwrap_or(scheme);
    let oscore = oscore.map_or(String::new(), |a| format!(" CIPHERMETER_OSCORE={a}"));
    let env = format!(
        "CIPHERMETER_SCHEME={core}{oscore} CIPHERMETER_BACKEND={}",
        imp.name()
    );
    let triple = target.rust_target();
    // The core the tables measured (the M33's DSP: its UMAAL assembly), as
    // crates/mcu builds the firmware; a bare triple would build other code.
    let cpu = target
        .rustflags_env()
        .map_or(String::new(), |(var, flags)| format!(" {var}='{flags}'"));
    match target.is_avr() {
        false => format!(
            "{env}{cpu} cargo build --release -p ciphermeter-seal-ffi{features} --target {triple}"
        ),
        true => format!(
            "{env} RUSTFLAGS='-C target-cpu={} --cfg sha2_backend_soft=\"compact\"' \
             CARGO_PROFILE_RELEASE_OPT_LEVEL=s CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1 \
             CARGO_PROFILE_RELEASE_PANIC=abort cargo +{} build --release -Zbuild-std=core \
             -p ciphermeter-seal-ffi{features} --target {triple} --target-dir target/avr-ffi",
            target.name(),
            target.toolchain()
        ),
    }
}

/// The C library's features (crates/seal-ffi/Cargo.toml; each family
/// feature is named as the sealing core's, which its tests hold).
struct FfiFeatures {
    all: Vec<String>,
    default: Vec<String>,
}

impl FfiFeatures {
    fn has(&self, feature: &str) -> bool {
        self.all.iter().any(|f| f == feature)
    }
}

fn ffi_features() -> FfiFeatures {
    let manifest: toml::Table = include_str!("../../seal-ffi/Cargo.toml")
        .parse()
        .expect("crates/seal-ffi/Cargo.toml is TOML");
    let features = &manifest["features"];
    FfiFeatures {
        all: features
            .as_table()
            .into_iter()
            .flat_map(|t| t.keys().cloned())
            .collect(),
        default: features["default"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|f| f.as_str().map(str::to_string))
            .collect(),
    }
}

/// The commands for the first of `ranked` (cheapest first) the C library
/// builds on `target`, saying why where that is not the winner, or why none
/// is; none for an empty ranking.
pub fn for_ranking(target: Target, ranked: &[SchemeCost]) -> Option<BuildCommands> {
    let winner = ranked.first()?;
    let row = ranked.iter().find(|r| no_c_path(r).is_none());
    let instead_of_winner = match (row, no_c_path(winner)) {
        (_, None) => None,
        (Some(row), Some(why)) => Some(format!(
            "The C library cannot build the winner, {}: {why}; the best software row it builds is {} by {}:",
            winner.shown_name(),
            row.name(),
            row.seal_implementation.label()
        )),
        (None, Some(why)) => {
            return Some(BuildCommands {
                scheme: winner.name().to_string(),
                implementation: winner.seal_implementation.name().to_string(),
                container: winner.container.as_str().to_string(),
                rust_target: target.rust_target().to_string(),
                c_library: None,
                device_send: None,
                device_send_missing: None,
                instead_of_winner: Some(format!(
                    "The C library cannot build the winner, {}: {why}; nor any other ranked row (it seals json, binary, cose and oscore: --container all ranks them).",
                    winner.shown_name()
                )),
            });
        }
    };
    let row = row?;
    let (scheme, imp) = (row.name(), row.seal_implementation);
    let (device_send, device_send_missing) = match target.uplink_refusal() {
        // device-send's firmware seals under a key file, not a context.
        None if row.scheme.is_oscore() => (
            None,
            Some(
                "its firmware seals json, binary and cose under a key file; an OSCORE \
                 context's readings are the C library's cm_oscore_protect (docs/c-library.md)"
                    .to_string(),
            ),
        ),
        None => (
            Some(format!(
                "ciphermeter keygen --scheme {scheme} --nonce counter --output device.key && \
                 ciphermeter device-send --target {} --impl {} --key-file device.key",
                target.name(),
                imp.name()
            )),
            None,
        ),
        Some(why) => (None, Some(why)),
    };
    Some(BuildCommands {
        scheme: scheme.to_string(),
        implementation: imp.name().to_string(),
        container: row.container.as_str().to_string(),
        rust_target: target.rust_target().to_string(),
        c_library: Some(c_library(scheme, imp, target)),
        device_send,
        device_send_missing,
        instead_of_winner,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/c-library.md's commands, for a Cortex-M0+ and the ATmega1284P.
    #[test]
    fn the_c_library_commands_are_the_documented_ones() {
        assert_eq!(
            c_library(
                "aead:aes-128-ccm",
                Implementation::MbedTls,
                Target::CortexM0plus
            ),
            "CIPHERMETER_SCHEME=aead:aes-128-ccm CIPHERMETER_BACKEND=mbedtls cargo build --release \
             -p ciphermeter-seal-ffi --features backend-mbedtls --target thumbv6m-none-eabi"
        );
        // A family the C library leaves out by default is asked for by name
        // (its build refuses the scheme without it: crates/seal-ffi
        // tests/build_refusals.rs), before the backend's code.
        assert!(
            c_library(
                "aead:aes-256-gcm-siv",
                Implementation::Ciphermeter,
                Target::CortexM4
            )
            .contains(" --features gcm-siv,backend-ciphermeter --target thumbv7em-none-eabihf")
        );
        let avr = c_library(
            "aead:aes-128-ccm",
            Implementation::RustCrypto,
            Target::Atmega1284p,
        );
        assert!(
            avr.starts_with(
                "CIPHERMETER_SCHEME=aead:aes-128-ccm CIPHERMETER_BACKEND=rustcrypto \
                 RUSTFLAGS='-C target-cpu=atmega1284p --cfg sha2_backend_soft=\"compact\"' \
                 CARGO_PROFILE_RELEASE_OPT_LEVEL=s"
            ),
            "{avr}"
        );
        // OSCORE: its core scheme's code, its algorithm named beside it, and
        // the library's `oscore` feature (no default: it costs an AVR RAM).
        assert_eq!(
            c_library(
                "oscore:chacha20-poly1305",
                Implementation::Ciphermeter,
                Target::CortexM0plus
            ),
            "CIPHERMETER_SCHEME=aead:chacha20-poly1305 CIPHERMETER_OSCORE=chacha20-poly1305 \
             CIPHERMETER_BACKEND=ciphermeter cargo build --release -p ciphermeter-seal-ffi \
             --features oscore,backend-ciphermeter --target thumbv6m-none-eabi"
        );
        assert!(
            avr.ends_with(
                "build --release -Zbuild-std=core -p ciphermeter-seal-ffi --target avr-none \
                 --target-dir target/avr-ffi"
            ),
            "{avr}"
        );
        // The Cortex-M33: built for the core its table measured (its file's
        // target_cpu and DSP), as crates/mcu builds its firmware.
        let m33: Target = "cortex-m33".parse().unwrap();
        assert_eq!(
            c_library("aead:aes-128-ccm", Implementation::RustCrypto, m33),
            "CIPHERMETER_SCHEME=aead:aes-128-ccm CIPHERMETER_BACKEND=rustcrypto \
             CARGO_TARGET_THUMBV8M_MAIN_NONE_EABIHF_RUSTFLAGS='-C target-cpu=cortex-m33 \
             -C target-feature=+dsp' cargo build --release -p ciphermeter-seal-ffi \
             --target thumbv8m.main-none-eabihf"
        );
    }
}
