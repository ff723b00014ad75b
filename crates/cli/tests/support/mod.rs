//! Helpers shared by the CLI test files (`mod support;` in each).
pub mod live;
