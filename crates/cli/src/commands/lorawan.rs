//! `ciphermeter lorawan encode|decode`: LoRaWAN 1.0.x uplink frames, built and
//! opened with the session keys (`cost::lorawan_view`, `link::lorawan_frame`).

use clap::{Args as ClapArgs, Subcommand};
use cost::lorawan_view::{self, EncodeRequest};

use crate::args::{Format, show};
use crate::error::CliError;

#[derive(Subcommand)]
pub enum Action {
    /// Build a PHYPayload (hex) from the uplink's fields.
    Encode(EncodeArgs),
    /// Open a PHYPayload: its fields, the decrypted FRMPayload, and whether the MIC verifies.
    Decode(DecodeArgs),
}

#[derive(ClapArgs)]
pub struct Keys {
    #[arg(long, value_name = "HEX")]
    nwk_s_key: String,
    #[arg(long, value_name = "HEX")]
    app_s_key: String,
}

#[derive(ClapArgs)]
pub struct EncodeArgs {
    /// DevAddr as written, e.g. 26011BDA.
    #[arg(long)]
    dev_addr: String,
    /// The full 32-bit frame counter (its low 16 bits are sent).
    #[arg(long)]
    f_cnt: u32,
    /// 0 for MAC commands, 1-223 for applications; none without a payload.
    /// 224 (the test protocol) and 225-255 (reserved) need --allow-reserved-port.
    #[arg(long)]
    f_port: Option<u8>,
    /// Send on FPort 224 (LoRaWAN's test protocol) or 225-255 (reserved).
    #[arg(long)]
    allow_reserved_port: bool,
    /// FRMPayload in the clear, hex (e.g. a sealed ciphermeter message).
    #[arg(long, default_value = "")]
    payload: String,
    /// MAC commands in the header, hex, at most 15 bytes.
    #[arg(long, default_value = "")]
    f_opts: String,
    #[arg(long)]
    confirmed: bool,
    #[arg(long)]
    adr: bool,
    /// Acknowledges a confirmed downlink.
    #[arg(long)]
    ack: bool,
    #[command(flatten)]
    keys: Keys,
}

#[derive(ClapArgs)]
pub struct DecodeArgs {
    /// The PHYPayload in hex.
    phy_payload: String,
    /// The device's last frame counter, to rebuild counters above 65535.
    #[arg(long)]
    last_f_cnt: Option<u32>,
    #[command(flatten)]
    keys: Keys,
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
}

pub fn run(action: Action) -> Result<(), CliError> {
    let k = match &action {
        Action::Encode(a) => &a.keys,
        Action::Decode(a) => &a.keys,
    };
    let keys = lorawan_view::keys(&k.nwk_s_key, &k.app_s_key)?;
    match action {
        Action::Encode(a) => {
            let req = EncodeRequest {
                confirmed: a.confirmed,
                adr: a.adr,
                ack: a.ack,
                dev_addr: &a.dev_addr,
                f_cnt: a.f_cnt,
                f_port: a.f_port,
                allow_reserved_port: a.allow_reserved_port,
                payload: &a.payload,
                f_opts: &a.f_opts,
            };
            println!("{}", lorawan_view::encode(&req, &keys)?);
            Ok(())
        }
        Action::Decode(a) => {
            let opened = lorawan_view::decode(&a.phy_payload, &keys, a.last_f_cnt)?;
            let (json, text) = (lorawan_view::json(&opened), lorawan_view::text(&opened));
            show(a.format, || json, || text)?;
            Ok(lorawan_view::check_mic(&opened)?)
        }
    }
}
