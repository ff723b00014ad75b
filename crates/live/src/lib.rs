//! ciphermeter-live: study 000's bench as software, and a gateway worth running.
//!
//! - [`radio`]: a serial packet radio pair between two pseudo-terminals, timed by the
//!   link model's parameters (`link::serial::SerialRadio`).
//! - [`endpoint`], [`tty`], [`framing`]: where to listen or send (serial, pty, UDP, TCP,
//!   MQTT, CoAP) and how messages are delimited on byte streams.
//! - [`gateway`]: one transport ([`input`], one file each behind one interface) feeds one
//!   pipeline ([`pipeline`]) that opens sealed messages ([`verify`]), stores verified
//!   readings and the replay state in SQLite or PostgreSQL ([`store`]) under a bounded
//!   rule ([`replay`]), counts every refusal ([`counters`]), and takes no more from the
//!   network than [`limits`] allow.
//! - [`mqtt`], [`envelope`]: MQTT ingestion from a network server (ChirpStack, The
//!   Things Stack), acknowledged only after commit, shared over several workers.
//! - [`amqp`]: AMQP 0-9-1 as ChirpStack's AMQP integration publishes: competing
//!   consumers on one durable queue, acknowledged after commit, redelivered to the others
//!   when a worker dies; and `send`'s publisher with confirms.
//! - [`coap`]: OSCORE over CoAP: the gateway's contexts and answers, and `send`'s client.
//! - [`edhoc`]: EDHOC over CoAP: `send --edhoc` and the gateway's answers, keying OSCORE.
//! - [`sender`]: seals readings and sends them; [`inject`] mixes in bad ones on purpose.
//! - [`device`]: the sealing firmware in a simulator as the sender (`device-send`).

pub mod amqp;
pub mod coap;
pub mod counters;
pub mod device;
pub mod edhoc;
pub mod endpoint;
pub mod envelope;
pub mod error;
pub mod framing;
pub mod gateway;
pub mod inject;
pub mod input;
pub mod limits;
pub mod mqtt;
pub mod pipeline;
pub mod radio;
pub mod replay;
pub mod sender;
pub mod store;
pub mod tty;
pub mod verify;

pub use counters::{Reason, Snapshot};
pub use endpoint::Endpoint;
pub use envelope::Envelope;
pub use error::LiveError;
pub use framing::Framing;
pub use gateway::{GatewayConfig, run as run_gateway};
pub use limits::Limits;
pub use radio::{Impairments, RadioEmulator};
pub use sender::{PayloadType, Readings, SendConfig, SendReport, send};
pub use verify::Keyring;
