//! `ciphermeter reproduce lora` (study 004): LoRa time on air for SF5–SF12 at 125 kHz
//! across data sizes, and what each study-004 algorithm (and modern AEADs) does to the
//! on-air size and time of a 100-byte message.

use catalogue::{Kind, Padding};
use clap::Args as ClapArgs;
use link::lora::{Bandwidth, Chip, CodingRate, Header, Ldro, LoraParams};
use link::lorawan::{MAC_OVERHEAD, Region};

use crate::error::CliError;

#[derive(ClapArgs)]
pub struct Args {
    /// Fewer data sizes (for CI).
    #[arg(long)]
    quick: bool,
    /// Message size for the per-algorithm table.
    #[arg(long, default_value_t = 100)]
    bytes: u32,
}

/// Study 004's LoRa setting: 125 kHz, CR 4/5, explicit header, CRC on. SX126x rules,
/// since only SX126x radios have SF5; for SF7–SF12 they equal the SX1276 formula.
fn phy(sf: u8) -> LoraParams {
    LoraParams {
        sf,
        bandwidth: Bandwidth::KHZ_125,
        coding_rate: CodingRate::CR4_5,
        preamble: None,
        header: Header::Explicit,
        crc: true,
        ldro: Ldro::Auto,
        chip: Chip::Sx126x,
    }
}

/// How an algorithm turns a message into bytes on air.
struct Expansion {
    label: &'static str,
    /// Catalogue id the metadata comes from.
    id: &'static str,
    how: String,
    on_air: u32,
}

/// Study 004's algorithms with the concrete variant we cost (the paper gives only names;
/// 128-bit keys as in its §III-B), then modern AEADs. Every figure comes from the
/// catalogue entry; an id the catalogue lacks is reported, never guessed.
const ALGORITHMS: [(&str, &str); 17] = [
    ("DES", "des-cbc"),
    ("PRESENT", "present-80-cbc"),
    ("PICCOLO", "piccolo-80-cbc"),
    ("IDEA", "idea-cbc"),
    ("AES", "aes-128-cbc"),
    ("CLEFIA", "clefia-128-cbc"),
    ("Salsa20", "salsa20"),
    ("XChaCha20", "xchacha20"),
    ("SHA", "sha256"),
    ("MD5", "md5"),
    ("RSA", "rsa-2048-oaep-sha256"),
    ("RSA signature", "rsa-2048-pkcs1v15-sha256"),
    ("AES-GCM", "aes-128-gcm"),
    ("AES-CCM", "aes-128-ccm"),
    ("ChaCha20-Poly1305", "chacha20-poly1305"),
    ("XChaCha20-Poly1305", "xchacha20-poly1305"),
    ("Ascon-AEAD128", "ascon-aead128"),
];

/// Bytes RSAES-OAEP with SHA-256 spends per block: 2·hLen + 2 = 66 (RFC 8017 §7.1.1,
/// "mLen > k - 2hLen - 2" is an error), so a 256-byte block carries at most 190 bytes.
const OAEP_SHA256_OVERHEAD: usize = 2 * 32 + 2;

/// How `id` changes a `len`-byte message; None when the catalogue lacks the id.
fn expansion(label: &'static str, id: &'static str, len: usize) -> Option<Expansion> {
    let e = catalogue::catalogue().get(id)?;
    let nonce = e.nonce_sizes.iter().copied().max().unwrap_or(0);
    let (on_air, how) = match e.kind {
        Kind::Hash => {
            let d = e.output_size.unwrap_or(0);
            (
                len + d,
                format!("message + {d} B digest (integrity only, sent in clear)"),
            )
        }
        Kind::BlockMode => {
            let ct = e.ciphertext_len(len, Padding::Pkcs7);
            (
                ct + nonce,
                format!(
                    "PKCS#7 to {}-byte blocks ({ct} B) + {nonce} B IV",
                    e.block_size.unwrap_or(0)
                ),
            )
        }
        Kind::Stream => (len + nonce, format!("same length + {nonce} B nonce")),
        Kind::Aead => {
            let tag = e.tag_size.unwrap_or(0);
            (len + nonce + tag, format!("{nonce} B nonce + {tag} B tag"))
        }
        Kind::Asymmetric if id.contains("-oaep-") => {
            let k = e.output_size.unwrap_or(0);
            let per_block = k.saturating_sub(OAEP_SHA256_OVERHEAD).max(1);
            let blocks = len.div_ceil(per_block).max(1);
            (
                blocks * k,
                format!("{blocks} x {k} B OAEP block(s), at most {per_block} B each"),
            )
        }
        Kind::Asymmetric => {
            let sig = e.output_size.unwrap_or(0);
            (
                len + sig,
                format!("message + {sig} B signature (sent in clear)"),
            )
        }
        other => {
            let ct = e.ciphertext_len(len, Padding::Pkcs7);
            (ct + nonce, format!("{other}: {ct} B + {nonce} B"))
        }
    };
    Some(Expansion {
        label,
        id,
        how,
        on_air: on_air as u32,
    })
}

pub fn run(args: Args) -> Result<(), CliError> {
    let sizes: Vec<u32> = if args.quick {
        vec![10, 100, 255]
    } else {
        vec![0, 10, 16, 32, 50, 64, 100, 128, 150, 200, 222, 255]
    };
    println!(
        "Study 004 — LoRa time on air (125 kHz, CR 4/5, explicit header, CRC on, exact; SX126x rules for SF5/SF6)"
    );
    print!("{:>8}", "bytes");
    for sf in 5..=12 {
        print!(" {:>11}", format!("SF{sf}"));
    }
    println!();
    for &n in &sizes {
        print!("{:>8}", n);
        for sf in 5..=12u8 {
            let a = phy(sf)
                .airtime(n)
                .map_err(|e| CliError::failed(e.to_string()))?;
            print!(
                " {:>11}",
                a.total.to_string().trim_end_matches(" ms").to_string()
            );
        }
        println!();
    }
    println!(
        "(ms; preamble 8 symbols, 12 at SF5/SF6 as SX126x requires; LDRO on at SF11/SF12, where symbols last 16 ms or more)"
    );
    println!();

    let len = args.bytes as usize;
    let dr0 = Region::Eu868
        .data_rate(0)
        .map_err(|e| CliError::failed(e.to_string()))?;
    println!(
        "A {len}-byte message under each algorithm: bytes on air (LoRa PHY payload) and time on air"
    );
    println!(
        "{:<19} {:<24} {:>6} {:>11} {:>13} {:>8}  expansion",
        "algorithm", "variant", "bytes", "SF7", "SF12", "DR0 fr."
    );
    let mut missing = Vec::new();
    for (label, id) in ALGORITHMS {
        let Some(x) = expansion(label, id, len) else {
            missing.push(id);
            continue;
        };
        let cell = |sf: u8| -> String {
            if x.on_air > 255 {
                let packets = x.on_air.div_ceil(255);
                let mut total = link::Micros::ZERO;
                let mut left = x.on_air;
                while left > 0 {
                    let n = left.min(255);
                    total = total + phy(sf).airtime(n).map(|a| a.total).unwrap_or_default();
                    left -= n;
                }
                format!("{}x:{}", packets, total.to_string().trim_end_matches(" ms"))
            } else {
                phy(sf)
                    .airtime(x.on_air)
                    .map(|a| a.total.to_string().trim_end_matches(" ms").to_string())
                    .unwrap_or_default()
            }
        };
        let frames = x.on_air.div_ceil(dr0.max_payload).max(1);
        println!(
            "{:<19} {:<24} {:>6} {:>11} {:>13} {:>8}  {}",
            x.label,
            x.id,
            x.on_air,
            cell(7),
            cell(12),
            frames,
            x.how
        );
    }
    let plain = |sf: u8| {
        phy(sf)
            .airtime(len.min(255) as u32)
            .map(|a| a.total.to_string())
            .unwrap_or_default()
    };
    println!(
        "{:<19} {:<24} {:>6} {:>11} {:>13} {:>8}  none",
        "(plaintext)",
        "-",
        len,
        plain(7).trim_end_matches(" ms"),
        plain(12).trim_end_matches(" ms"),
        (len as u32).div_ceil(dr0.max_payload),
    );
    println!(
        "(ms; 'Nx:' = needs N LoRa packets of at most 255 B; 'DR0 fr.' = LoRaWAN EU868 DR0 frames of at most {} B, each + {MAC_OVERHEAD} B MAC)",
        dr0.max_payload
    );
    if !missing.is_empty() {
        println!(
            "note: {} not in this build's catalogue: left out rather than guessed",
            missing.join(", ")
        );
    }
    println!(
        "note: the study computes time on air with its Eq. (1), T = 2^SF/BW x (preamble + payload symbols), which is this formula;"
    );
    println!(
        "      it plots curves, not numbers, so there is no table of paper values to print beside ours."
    );
    Ok(())
}
