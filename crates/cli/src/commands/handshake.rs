//! `ciphermeter handshake`: what establishing a session key costs on a link, and with
//! `--device` each party's CPU and the energy (crates/handshake, crates/cost `session`).

use std::path::PathBuf;

use clap::{Args as ClapArgs, Subcommand};

use crate::args::{Format, show_value};
use crate::error::CliError;

#[derive(Subcommand)]
pub enum Protocol {
    /// EDHOC (RFC 9528), run for real (method 3 with lakers, psk with our own
    /// EDHOC-PSK); it exports an OSCORE context.
    Edhoc(EdhocArgs),
    /// ML-KEM (FIPS 203) or X-Wing: the device encapsulates to the gateway's
    /// provisioned key and sends the ciphertext (signed with ML-DSA with
    /// `--kem KEM+ml-dsa-44`), in fragments where one frame is too small.
    Kem(KemArgs),
    /// EDHOC's post-quantum and PSK drafts, costed from each message's size
    /// as the drafts lay it out, on EU868 DR0/DR5, Sigfox, BLE and 802.15.4 by default.
    Drafts(DraftsArgs),
}

#[derive(ClapArgs)]
pub struct DraftsArgs {
    /// Link name from the catalogue (`link --list`); repeat for more. Default:
    /// lorawan-eu868-dr0, lorawan-eu868-dr5, sigfox-rc1, ble-1m-251, ieee802154.
    #[arg(long)]
    link: Vec<String>,
    /// Device profile (`energy --list`): its CPU for each suite's KEM and signatures, and its energy.
    #[arg(long)]
    device: Option<String>,
    /// Directory with extra or replacement data files; also $CIPHERMETER_DATA_DIR.
    #[arg(long)]
    data_dir: Option<PathBuf>,
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
}

/// Where either handshake is costed.
#[derive(ClapArgs)]
pub struct OnLink {
    /// Link name from the catalogue (`link --list`).
    #[arg(long)]
    link: String,
    /// Device profile (`energy --list`): each party's work on it, simulated, and the device's energy.
    #[arg(long)]
    device: Option<String>,
    /// How a message longer than one frame is cut: ciphermeter (a 2-byte fragment header)
    /// or schc (RFC 9011's ACK-on-Error fragments and the ACK the device receives).
    #[arg(long, default_value = "ciphermeter")]
    fragmentation: String,
    /// edhoc: its messages as CoAP carries them (RFC 9528 A.2), SCHC-compressed: schc or schc:RULES.
    #[arg(long, value_name = "SCHC")]
    compression: Option<String>,
    /// Directory with extra or replacement data files; also $CIPHERMETER_DATA_DIR.
    #[arg(long)]
    data_dir: Option<PathBuf>,
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
}

#[derive(ClapArgs)]
pub struct KemArgs {
    /// The KEM: ml-kem-512, ml-kem-768, ml-kem-1024 or x-wing (hybrid); with
    /// `+ml-dsa-44` or `+ml-dsa-65` the device also signs the ciphertext.
    #[arg(long, default_value = "ml-kem-512")]
    kem: String,
    #[command(flatten)]
    on: OnLink,
}

#[derive(ClapArgs)]
pub struct EdhocArgs {
    /// Authentication method: 3 (static DH both ways, run with lakers), or psk (or 4:
    /// draft-ietf-lake-edhoc-psk, run with ciphermeter's own implementation).
    #[arg(long, default_value = "3")]
    method: String,
    /// Cipher suite: 2 (AES-CCM-16-64-128, SHA-256, P-256).
    #[arg(long, default_value_t = 2)]
    suite: u8,
    /// Leave out the optional message_4 (the responder's key confirmation).
    #[arg(long)]
    no_message_4: bool,
    #[command(flatten)]
    on: OnLink,
}

impl OnLink {
    fn view(&self) -> cost::session::OnLink<'_> {
        cost::session::OnLink {
            link: &self.link,
            device: self.device.as_deref(),
            fragmentation: &self.fragmentation,
            compression: self.compression.as_deref(),
            data_dir: self.data_dir.as_deref(),
        }
    }
}

pub fn run(protocol: Protocol) -> Result<(), CliError> {
    let (view, format) = match protocol {
        Protocol::Edhoc(a) => (
            cost::session::edhoc_view(&a.method, a.suite, !a.no_message_4, &a.on.view())?,
            a.on.format,
        ),
        Protocol::Kem(a) => (cost::session::kem_view(&a.kem, &a.on.view())?, a.on.format),
        Protocol::Drafts(a) => {
            let view =
                cost::session::drafts_view(&a.link, a.device.as_deref(), a.data_dir.as_deref())?;
            return show_value(a.format, &view, || view.text());
        }
    };
    show_value(format, &view, || view.text())
}
