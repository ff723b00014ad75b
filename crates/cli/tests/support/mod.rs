//! Helpers shared by the CLI test files (`mod support;` in each).
pub mod fleet;
pub mod live;
pub mod run;
