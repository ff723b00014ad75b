//! ciphermeter-cost-engine: the pure part of what a sealed message costs.
//!
//! A device's seal times from its shipped table ([`device_times`]), ranked
//! rows ([`scheme_cost`]) and their energy from a CPU time and a cost on air
//! ([`on_air`]), a hardware engine's share ([`engine_cost`]), each
//! primitive's fastest implementation ([`implementation_choice`]), which
//! candidates rank and why the others do not ([`choices`]), and the ranking's
//! order and tie ([`ranking`], [`tie`]), and how many messages one key may
//! protect under each AEAD's published limits ([`key_limits`]) and what a
//! shorter tag saves against the session it shortens ([`tag_or_session`]). It reads no file, starts no thread
//! and builds no C: the facts come in as values (shipped tables, profiles,
//! links), so it builds for `wasm32-unknown-unknown` as for the host.
//! Loading, sealing and timing are `crates/cost`'s.
//!
//! Modules import only from lower rows (`tests/import_layers.rs`):
//!
//! ```text
//! 7  render
//! 6  summary
//! 5  rank
//! 4  request  frame_fit
//! 3  ranking  choices
//! 2  engine_cost  tie  build_commands
//! 1  scheme_cost  duty_cycle
//! 0  on_air  device_times  message  tag_or_session
//! -  error  cpu_source  schc_packet  session_share  implementation_choice  engine_use
//!    key_limits
//! ```
//!
//! `rank` answers a whole request from values (profiles, links, the
//! device's times); `summary` is its answer as data (`recommend --format
//! json`), `render` as text.

pub mod build_commands;
pub mod choices;
pub mod cpu_source;
pub mod device_times;
pub mod duty_cycle;
pub mod engine_cost;
pub mod engine_use;
pub mod error;
pub mod frame_fit;
pub mod implementation_choice;
pub mod key_limits;
pub mod message;
pub mod on_air;
pub mod rank;
pub mod ranking;
pub mod render;
pub mod request;
pub mod schc_packet;
pub mod scheme_cost;
pub mod session_share;
pub mod summary;
pub mod tag_or_session;
pub mod tie;

pub use error::Error;
