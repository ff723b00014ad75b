//! The machine and software a run came from, recorded with every report so
//! that numbers can be compared and reproduced.

use std::collections::BTreeSet;
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

use crate::timer::{self, CycleSource};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Environment {
    pub cpu_model: String,
    pub arch: String,
    /// Logical CPUs this process may run on.
    pub cores_logical: usize,
    /// Distinct physical cores, when /proc/cpuinfo says.
    pub cores_physical: Option<usize>,
    /// The CPU features that change crypto speed, as detected at run time.
    pub cpu_flags: Vec<String>,
    /// True when the CPU reports running under a hypervisor.
    pub virtualized: Option<bool>,
    /// The board, from the device tree (`/proc/device-tree/model`, e.g. "Raspberry Pi 3
    /// Model B Rev 1.2"); absent on PCs and under qemu-user. Missing in older reports.
    #[serde(default)]
    pub board_model: Option<String>,
    /// ARM only: which of neon, aes, pmull, sha1, sha2 the CPU has, from the kernel's
    /// HWCAP/HWCAP2 (getauxval). Empty on other architectures and in older reports.
    /// A Pi 3's BCM2837 has neon but none of the others: no AES instructions.
    #[serde(default)]
    pub arm_features: Vec<String>,
    pub cpu_mhz: Option<f64>,
    pub governor: Option<String>,
    pub memory_total_bytes: Option<u64>,
    pub os: String,
    pub kernel: String,
    pub rustc: String,
    /// Cargo profile of the binary; debug-build numbers are not benchmarks.
    pub build_profile: String,
    pub ciphermeter_version: String,
    pub git_revision: Option<String>,
    /// "name version" of the crypto crates, from Cargo.lock at build time.
    pub crypto_crates: Vec<String>,
    /// "backend: provider" of every implementation the catalogue holds,
    /// e.g. the OpenSSL version string read at run time.
    pub providers: Vec<String>,
    pub timers: Timers,
    /// Whether the counting allocator is installed (heap columns are null if not).
    pub heap_counting: bool,
    /// RFC 3339, UTC, when the environment was captured.
    pub time_utc: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Timers {
    pub monotonic_resolution_ns: f64,
    /// Source of the cycle counts in the results, if any.
    pub cycles_source: Option<CycleSource>,
    /// Rate of the raw counter (TSC or cntvct) measured against the monotonic clock.
    pub counter_hz: Option<f64>,
    /// cntfrq_el0 on aarch64: the generic timer's nominal rate.
    pub counter_nominal_hz: Option<f64>,
    /// x86: the TSC runs at a constant rate through P- and C-states.
    pub tsc_invariant: Option<bool>,
    /// "available", or why perf_event cycles/instructions could not be used.
    pub perf_event: String,
    /// The counter behind the results: `perf_event`, `tsc` or `cntvct` when there is
    /// one, else `monotonic` (clock_gettime(CLOCK_MONOTONIC) alone, as on 32-bit ARM).
    /// Empty in older reports.
    #[serde(default)]
    pub timer: String,
}

/// The `timer` name for a cycle source.
pub fn timer_name(cycles_source: Option<CycleSource>) -> &'static str {
    match cycles_source {
        Some(CycleSource::PerfCycles) => "perf_event",
        Some(CycleSource::TscReference) => "tsc",
        Some(CycleSource::CntvctTicks) => "cntvct",
        None => "monotonic",
    }
}

impl Environment {
    /// Captures the environment. `cycles_source` is what the sampler uses;
    /// `perf_event` its status line (see `perf_status`).
    pub fn capture(cycles_source: Option<CycleSource>, perf_event: String) -> Environment {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let flags = cpuinfo_field(&cpuinfo, "flags").unwrap_or_default();
        let has_flag = |f: &str| flags.split_whitespace().any(|x| x == f);
        let (os, kernel) = uname();
        Environment {
            cpu_model: cpu_model_here(&cpuinfo),
            arch: std::env::consts::ARCH.to_string(),
            cores_logical: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1),
            cores_physical: physical_cores(&cpuinfo),
            cpu_flags: crypto_flags(),
            virtualized: (!flags.is_empty()).then(|| has_flag("hypervisor")),
            board_model: read_trimmed("/proc/device-tree/model")
                .map(|m| m.trim_end_matches('\0').to_string()),
            arm_features: arm_features(),
            cpu_mhz: cpuinfo_field(&cpuinfo, "cpu MHz").and_then(|v| v.parse().ok()),
            governor: read_trimmed("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
            memory_total_bytes: memory_total(),
            os,
            kernel,
            rustc: env!("CIPHERMETER_RUSTC_VERSION").to_string(),
            build_profile: env!("CIPHERMETER_PROFILE").to_string(),
            ciphermeter_version: env!("CARGO_PKG_VERSION").to_string(),
            git_revision: Some(env!("CIPHERMETER_GIT_REVISION").to_string())
                .filter(|s| !s.is_empty()),
            crypto_crates: env!("CIPHERMETER_CRYPTO_CRATES")
                .split(';')
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect(),
            providers: providers(),
            timers: Timers {
                monotonic_resolution_ns: timer::monotonic_resolution().as_nanos() as f64,
                cycles_source,
                counter_hz: timer::measure_counter_hz(Duration::from_millis(50)),
                counter_nominal_hz: nominal_counter_hz(),
                tsc_invariant: (cfg!(target_arch = "x86_64") && !flags.is_empty())
                    .then(|| has_flag("constant_tsc") && has_flag("nonstop_tsc")),
                perf_event,
                timer: timer_name(cycles_source).to_string(),
            },
            heap_counting: crate::alloc::is_installed(),
            time_utc: humantime::format_rfc3339_seconds(SystemTime::now()).to_string(),
        }
    }
}

/// "available" or the reason perf_event cannot be used here.
pub fn perf_status() -> String {
    #[cfg(perf_event)]
    return match crate::perf::PerfCounters::open() {
        Ok(_) => "available".to_string(),
        Err(reason) => reason,
    };
    #[allow(unreachable_code)]
    if cfg!(target_os = "linux") {
        format!(
            "not built in: perf-event2 has no bindings for {}",
            std::env::consts::ARCH
        )
    } else {
        "not Linux: perf_event does not exist".to_string()
    }
}

fn read_trimmed(path: &str) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

/// First value of `key` in /proc/cpuinfo ("key<tabs>: value").
fn cpuinfo_field(cpuinfo: &str, key: &str) -> Option<String> {
    cpuinfo.lines().find_map(|line| {
        let (k, v) = line.split_once(':')?;
        (k.trim() == key).then(|| v.trim().to_string())
    })
}

fn cpu_model(cpuinfo: &str) -> String {
    // x86 names the model; ARM boards name the board ("Model") or SoC ("Hardware").
    ["model name", "Model", "Hardware", "cpu model"]
        .iter()
        .find_map(|k| cpuinfo_field(cpuinfo, k))
        .unwrap_or_else(|| format!("unknown {}", std::env::consts::ARCH))
}

/// The CPU's name. An ARM binary under qemu-user reads the host's /proc/cpuinfo
/// (qemu 7 does not emulate it), which would name the host's x86 CPU: say so instead.
fn cpu_model_here(cpuinfo: &str) -> String {
    let arm = cfg!(any(target_arch = "arm", target_arch = "aarch64"));
    match cpuinfo_field(cpuinfo, "vendor_id") {
        Some(_) if arm => format!(
            "{} under user-mode emulation (host: {})",
            std::env::consts::ARCH,
            cpu_model(cpuinfo)
        ),
        _ => cpu_model(cpuinfo),
    }
}

fn physical_cores(cpuinfo: &str) -> Option<usize> {
    let mut cores = BTreeSet::new();
    let mut package = String::new();
    for line in cpuinfo.lines() {
        if let Some((k, v)) = line.split_once(':') {
            match k.trim() {
                "physical id" => package = v.trim().to_string(),
                "core id" => {
                    cores.insert((package.clone(), v.trim().to_string()));
                }
                _ => {}
            }
        }
    }
    (!cores.is_empty()).then_some(cores.len())
}

fn memory_total() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kib: u64 = meminfo
        .lines()
        .find(|l| l.starts_with("MemTotal:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()?;
    Some(kib * 1024)
}

fn uname() -> (String, String) {
    let mut u = std::mem::MaybeUninit::<libc::utsname>::zeroed();
    // SAFETY: u is writable and of the size uname expects.
    if unsafe { libc::uname(u.as_mut_ptr()) } != 0 {
        return (std::env::consts::OS.to_string(), "unknown".to_string());
    }
    // SAFETY: uname returned 0 and filled every field with a NUL-terminated string.
    let u = unsafe { u.assume_init() };
    let field = |f: &[libc::c_char]| {
        let bytes: Vec<u8> = f
            .iter()
            .take_while(|&&c| c != 0)
            .map(|&c| c as u8)
            .collect();
        String::from_utf8_lossy(&bytes).into_owned()
    };
    (
        field(&u.sysname),
        format!("{} {}", field(&u.release), field(&u.version)),
    )
}

/// Every distinct "backend: provider" in the catalogue.
fn providers() -> Vec<String> {
    let set: BTreeSet<String> = catalogue::catalogue()
        .entries()
        .iter()
        .flat_map(|e| e.implementations.iter())
        .map(|i| format!("{}: {}", i.backend, i.provider))
        .collect();
    set.into_iter().collect()
}

#[cfg(target_arch = "aarch64")]
fn nominal_counter_hz() -> Option<f64> {
    Some(timer::cntfrq() as f64)
}

#[cfg(not(target_arch = "aarch64"))]
fn nominal_counter_hz() -> Option<f64> {
    None
}

/// The CPU features detected at run time that crypto code dispatches on.
#[cfg(target_arch = "x86_64")]
pub fn crypto_flags() -> Vec<String> {
    let mut flags = Vec::new();
    macro_rules! probe {
        ($($feature:tt => $label:expr),* $(,)?) => {
            $(if std::is_x86_feature_detected!($feature) { flags.push($label.to_string()); })*
        };
    }
    probe!(
        "sse2" => "sse2", "ssse3" => "ssse3", "sse4.1" => "sse4.1", "avx" => "avx", "avx2" => "avx2",
        "bmi2" => "bmi2", "adx" => "adx", "aes" => "aes", "pclmulqdq" => "pclmulqdq", "sha" => "sha_ni",
        "avx512f" => "avx512f", "avx512bw" => "avx512bw", "avx512vl" => "avx512vl",
        "vaes" => "vaes", "vpclmulqdq" => "vpclmulqdq",
    );
    flags
}

#[cfg(target_arch = "aarch64")]
pub fn crypto_flags() -> Vec<String> {
    let mut flags = Vec::new();
    macro_rules! probe {
        ($($feature:tt),* $(,)?) => {
            $(if std::arch::is_aarch64_feature_detected!($feature) { flags.push($feature.to_string()); })*
        };
    }
    probe!("neon", "aes", "pmull", "sha2", "sha3");
    flags
}

/// 32-bit ARM: the features from HWCAP/HWCAP2 (std has no run-time detection there).
#[cfg(target_arch = "arm")]
pub fn crypto_flags() -> Vec<String> {
    arm_features()
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64", target_arch = "arm")))]
pub fn crypto_flags() -> Vec<String> {
    Vec::new()
}

/// neon, aes, pmull, sha1, sha2 as the kernel reports them (AT_HWCAP, AT_HWCAP2), which
/// under qemu-user are the emulated CPU's. Empty off ARM.
pub fn arm_features() -> Vec<String> {
    #[cfg(all(target_os = "linux", any(target_arch = "arm", target_arch = "aarch64")))]
    {
        // SAFETY: getauxval only reads the auxiliary vector; 0 means absent.
        let (hwcap, hwcap2) = unsafe {
            (
                libc::getauxval(libc::AT_HWCAP),
                libc::getauxval(libc::AT_HWCAP2),
            )
        };
        return arm_features_from_hwcap(std::env::consts::ARCH, hwcap as u64, hwcap2 as u64);
    }
    #[allow(unreachable_code)]
    Vec::new()
}

/// The named features from the kernel's HWCAP words (linux/arch/*/include/uapi/asm/hwcap.h):
/// aarch64 has them all in HWCAP; 32-bit ARM has neon in HWCAP and the ARMv8 crypto
/// extensions in HWCAP2.
pub fn arm_features_from_hwcap(arch: &str, hwcap: u64, hwcap2: u64) -> Vec<String> {
    let bits: &[(&str, u64, u64)] = match arch {
        // (name, HWCAP bit, HWCAP2 bit)
        "aarch64" => &[
            ("neon", 1 << 1, 0),
            ("aes", 1 << 3, 0),
            ("pmull", 1 << 4, 0),
            ("sha1", 1 << 5, 0),
            ("sha2", 1 << 6, 0),
        ],
        "arm" => &[
            ("neon", 1 << 12, 0),
            ("aes", 0, 1 << 0),
            ("pmull", 0, 1 << 1),
            ("sha1", 0, 1 << 2),
            ("sha2", 0, 1 << 3),
        ],
        _ => &[],
    };
    bits.iter()
        .filter(|(_, h1, h2)| hwcap & h1 != 0 || hwcap2 & h2 != 0)
        .map(|(name, _, _)| name.to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const CPUINFO: &str = "processor\t: 0\nmodel name\t: Test CPU 3000\nphysical id\t: 0\ncore id\t\t: 0\n\
        flags\t\t: fpu aes hypervisor\n\nprocessor\t: 1\nmodel name\t: Test CPU 3000\nphysical id\t: 0\n\
        core id\t\t: 1\n\nprocessor\t: 2\nphysical id\t: 0\ncore id\t\t: 1\n";

    #[test]
    fn parses_cpuinfo() {
        assert_eq!(cpu_model(CPUINFO), "Test CPU 3000");
        assert_eq!(physical_cores(CPUINFO), Some(2));
        assert_eq!(
            cpuinfo_field(CPUINFO, "flags").as_deref(),
            Some("fpu aes hypervisor")
        );
        assert_eq!(
            cpu_model("Hardware\t: BCM2835\nModel\t: Raspberry Pi 3 Model B\n"),
            "Raspberry Pi 3 Model B"
        );
    }

    #[test]
    fn arm_features_from_the_kernel_words() {
        // A Pi 3 (BCM2837, Cortex-A53 without the crypto extensions) under a 64-bit kernel:
        // fp, asimd, evtstrm, crc32.
        assert_eq!(arm_features_from_hwcap("aarch64", 0b1000_0111, 0), ["neon"]);
        // A Cortex-A53 with them: asimd, aes, pmull, sha1, sha2.
        assert_eq!(
            arm_features_from_hwcap("aarch64", 0b0111_1111, 0),
            ["neon", "aes", "pmull", "sha1", "sha2"]
        );
        // 32-bit: a Cortex-A7 (neon, no crypto), an ARM1176 (vfp only), a 32-bit kernel
        // on a crypto-capable core.
        assert_eq!(
            arm_features_from_hwcap("arm", 1 << 12 | 1 << 6, 0),
            ["neon"]
        );
        assert!(arm_features_from_hwcap("arm", 1 << 6, 0).is_empty());
        assert_eq!(
            arm_features_from_hwcap("arm", 1 << 12, 0b1111),
            ["neon", "aes", "pmull", "sha1", "sha2"]
        );
        assert!(arm_features_from_hwcap("x86_64", u64::MAX, u64::MAX).is_empty());
        assert_eq!(timer_name(None), "monotonic");
        assert_eq!(timer_name(Some(CycleSource::CntvctTicks)), "cntvct");
    }

    #[test]
    fn captures_build_facts() {
        let env = Environment::capture(None, "test".into());
        assert!(env.rustc.starts_with("rustc "), "{}", env.rustc);
        assert!(
            env.crypto_crates.iter().any(|c| c.starts_with("aes ")),
            "{:?}",
            env.crypto_crates
        );
        assert!(env.cores_logical >= 1);
        assert!(
            env.time_utc.ends_with('Z') && env.time_utc.len() == 20,
            "{}",
            env.time_utc
        );
        assert!(!env.providers.is_empty());
    }
}
