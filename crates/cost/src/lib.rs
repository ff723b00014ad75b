//! ciphermeter-cost: what one sealed message costs a device on a link.
//!
//! One reading goes in: it is serialized and sealed for real ([`message`]),
//! its CPU time comes from the device's simulation when one is stored
//! ([`device_times`]) or from this host, labelled so, and the link and energy
//! models turn bytes and time into airtime, microjoules and battery days
//! ([`scheme_cost`]). [`ranking`] orders schemes by that cost; [`frame`]
//! times the whole message path; [`record`] turns measurements into stored rows;
//! [`session`] puts a key establishment on the device and spreads it over a session.
//! What ranks without loading, sealing or timing is `cost_engine`'s (crates/cost-engine),
//! which builds for wasm32; this crate loads (files, the store) and renders.

pub mod airtime_view;
pub mod data;
pub mod device_row;
pub mod device_times;
pub mod energy_view;
pub mod firmware_update;
pub mod frame;
pub mod key_establishment;
pub mod link_view;
pub mod lorawan_view;
pub mod message;
pub mod public_key;
pub mod ranking;
pub mod record;
pub mod schc_savings;
pub mod scheme_cost;
pub mod session;

// The pure part, where it moved (crates/cost-engine): the paths callers knew.
pub use cost_engine::{
    Error, build_commands, duty_cycle, engine_cost, error, frame_fit, implementation_choice,
    on_air, tie,
};
