//! ciphermeter-link: what a message costs on a radio link.
//!
//! - [`lora`]: LoRa PHY time on air, exact (SX127x and SX126x rules).
//! - [`lorawan`]: MAC overhead, per-data-rate limits, duty cycle, dwell time.
//! - [`lorawan_frame`]: LoRaWAN 1.0.x uplink frames built and opened (AppSKey, NwkSKey, MIC).
//! - [`catalogue`]: the link entries from the data files and [`LinkSpec::cost`].
//! - [`downlink`]: a message to the device, as each link's downlink carries it or refuses it.
//! - [`serial`] and [`framed`]: the models behind non-LoRa entries.
//! - [`fragments`]: a message longer than a frame, in the sealing core's fragments.
//! - [`limits`]: how often a link may send (duty cycle, uplinks a day).
//! - [`own_security`]: what a link's own security protects, costed as an option.
//! - [`figure`]: a number with its source, shared with the energy crate.
//! - `files` (feature `files`, a default): the user's data directory read.
//! - [`protocol`]: a link's protocol figures around and between messages (`[link.protocol]`).

pub mod catalogue;
pub mod downlink;
pub mod error;
pub mod figure;
#[cfg(feature = "files")]
pub mod files;
pub mod fragments;
pub mod framed;
pub mod limits;
pub mod lora;
pub mod lorawan;
pub mod lorawan_frame;
pub mod own_security;
pub mod protocol;
pub mod schc_uplink;
pub mod serial;
pub mod time;

pub use catalogue::{Catalogue, LinkCost, LinkSpec, SendOptions};
pub use error::LinkError;
pub use figure::Figure;
pub use time::Micros;

/// Environment variable naming a directory of user data files (links/, devices/, …).
pub const DATA_DIR_ENV: &str = "CIPHERMETER_DATA_DIR";
