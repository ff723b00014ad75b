//! ciphermeter-testkit (dev-only): servers that tests start for themselves on a free
//! loopback port in a temp dir, and that stop when their guard is dropped (also on panic).

pub mod mosquitto;
pub mod postgres;

pub use self::mosquitto::Mosquitto;
pub use self::postgres::Postgres;
