//! The C library's OSCORE build for a device, as `recommend` prints it
//! (`CIPHERMETER_SCHEME=aead:aes-128-ccm CIPHERMETER_OSCORE=aes-ccm-16-64-128`,
//! thumbv7em-none-eabihf), linked into C (tests/c/oscore_m4.c) with Debian's
//! arm-none-eabi-gcc and run on a Cortex-M4 in QEMU (mps2-an386): the message
//! it protects is the host's, byte for byte.

use std::process::Command;

use seal::host::oscore::{OscoreKey, protect_reading};
use seal::oscore::Alg;
use testkit::c_library::workspace;

const TRIPLE: &str = "thumbv7em-none-eabihf";

#[test]
fn a_cortex_m4_protects_the_hosts_bytes() {
    let archive = testkit::c_library::build(
        "oscore",
        Some(TRIPLE),
        &[
            ("CIPHERMETER_SCHEME", "aead:aes-128-ccm"),
            ("CIPHERMETER_OSCORE", "aes-ccm-16-64-128"),
        ],
    );
    let dir = tempfile::tempdir().unwrap();
    let elf = dir.path().join("oscore_m4.elf");
    let c = workspace().join("crates/seal-ffi/tests/c");
    let status = Command::new("arm-none-eabi-gcc")
        .args([
            "-mcpu=cortex-m4",
            "-mthumb",
            "-mfloat-abi=hard",
            "-mfpu=fpv4-sp-d16",
        ])
        .args([
            "-Os",
            "-Wall",
            "-ffunction-sections",
            "-fdata-sections",
            "-nostdlib",
        ])
        .arg("-T")
        .arg(c.join("mps2.ld"))
        .args(["-Wl,--gc-sections", "-Wl,-z,noexecstack", "-I"])
        .arg(workspace().join("crates/seal-ffi/include"))
        .arg(c.join("oscore_m4.c"))
        .arg(archive)
        .args(["-lgcc", "-o"])
        .arg(&elf)
        .status()
        .unwrap();
    assert!(status.success(), "the firmware did not link");
    let run = Command::new("timeout")
        .args(["60", "qemu-system-arm", "-M", "mps2-an386", "-nographic"])
        .args(["-semihosting-config", "enable=on,target=native", "-kernel"])
        .arg(&elf)
        .output()
        .unwrap();
    // QEMU writes semihosting's text to its stderr.
    let said = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{said}");

    // RFC 8613 C.1.1's client, as the firmware derives it.
    let secret: Vec<u8> = (1..=16).collect();
    let salt = [0x9e, 0x7c, 0xa9, 0x22, 0x23, 0x78, 0x63, 0x40];
    let host = OscoreKey::from_secrets(Alg::AesCcm16_64_128, &secret, &salt, &[], &[1]).unwrap();
    let (by_host, _) = protect_reading(host.context(), 20, b"{}", "readings", 50).unwrap();
    assert_eq!(said.trim(), hex::encode(by_host));
}
