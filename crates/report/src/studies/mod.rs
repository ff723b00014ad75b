//! One module per study: the paper's tables beside ours and the paper's
//! figures redrawn with our numbers overlaid.

pub mod file_sizes;
pub mod lora;
pub mod rf_transmission;
pub mod serialization;
pub mod tiny_security;
