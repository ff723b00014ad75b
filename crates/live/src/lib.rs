//! ciphermeter-live: study 000's bench as software, and a gateway worth running.
//!
//! The crate flows one way, each module importing only from below it (DEVELOPERS.md,
//! "crates/live flow"; `tests/import_layers.rs` holds the layers):
//!
//! - base: [`error`], [`clock`] (the one `now_us`).
//! - formats and rules: [`framing`], [`envelope`], [`replay`], [`counters`], [`limits`],
//!   [`inject`], [`coap_wire`]; serial ports and pseudo-terminals are crates/serial's.
//! - protocols: [`mqtt`], [`amqp`] (URLs, settings and the clients, both sides), [`edhoc`]
//!   (EDHOC over CoAP, both parties).
//! - [`endpoint`]: where to listen or send (serial, pty, UDP, TCP, MQTT, AMQP, CoAP).
//! - [`verify`]: opening what arrives, sealed containers and OSCORE ([`verify::oscore`]:
//!   the gateway's contexts and answers).
//! - [`store`]: verified readings and the replay state in SQLite or PostgreSQL under a
//!   bounded rule ([`replay`]).
//! - [`feed`]: the hand-off from the inputs to the pipeline.
//! - [`config`]: what the gateway is told ([`GatewayConfig`]).
//! - [`pipeline`]: the one verify → store pipeline, which counts every refusal
//!   ([`counters`]) and takes no more from the network than [`limits`] allow.
//! - [`input`]: one transport per file behind one interface, feeding the pipeline.
//! - [`gateway`]: the top, which starts an input and the pipeline.
//! - the sending side: [`sender`] seals readings and sends them ([`inject`] mixes in bad
//!   ones on purpose), [`radio`] is a serial packet radio pair between two
//!   pseudo-terminals timed by the link model; above them [`coap`] (`send --to coap://`,
//!   OSCORE, `--edhoc`) and [`device`] (the sealing firmware in a simulator as the
//!   sender, `device-send`).

pub mod amqp;
pub mod clock;
pub mod coap;
pub mod coap_wire;
pub mod config;
pub mod counters;
pub mod device;
pub mod edhoc;
pub mod endpoint;
pub mod envelope;
pub mod error;
pub mod feed;
pub mod framing;
pub mod gateway;
pub mod gateway_options;
pub mod inject;
pub mod input;
pub mod limits;
pub mod mqtt;
pub mod pipeline;
pub mod radio;
pub mod reassembly;
pub mod replay;
pub mod schc_radio;
pub mod schc_send;
pub mod sender;
pub mod sender_options;
pub mod store;
pub mod verify;

pub use config::GatewayConfig;
pub use counters::{Reason, Snapshot};
pub use endpoint::Endpoint;
pub use envelope::Envelope;
pub use error::LiveError;
pub use framing::Framing;
pub use gateway::run as run_gateway;
pub use limits::{FragmentLimits, Limits};
pub use radio::{Impairments, RadioEmulator};
pub use sender::{PayloadType, Readings, SendConfig, SendReport, send};
pub use verify::Keyring;
