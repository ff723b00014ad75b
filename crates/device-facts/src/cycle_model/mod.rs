//! The Cortex-M cycle model, as data and arithmetic: the timing classes, an
//! instruction mix, ARM's cycles per class with each board's memory
//! (`data/cycle-timings/cortex-m.toml`), and the price of a mix. Nothing here
//! runs a simulator: crates/mcu `cycles` makes the mixes from QEMU's log, the
//! cost tables keep them, and anything may price them again.

pub mod class;
pub mod estimate;
pub mod mix;
pub mod timing;
pub mod validation;

pub use class::Class;
pub use estimate::Estimate;
pub use mix::Mix;
pub use timing::CoreTiming;
