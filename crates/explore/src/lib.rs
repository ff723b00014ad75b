//! The explore page's engine: `recommend`'s answer to a JSON request, from
//! the built-in data and the sealing core alone, so it builds for
//! `wasm32-unknown-unknown` (`wasm`: its entry points). The page around it
//! is crates/report's `explorer`.

pub mod answer;
pub mod messages;
pub mod request;
#[cfg(target_arch = "wasm32")]
mod wasm;

pub use answer::{answer, answer_json};
