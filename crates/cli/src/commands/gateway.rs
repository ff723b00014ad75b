//! `ciphermeter gateway`: receives sealed readings, verifies them, stores them in SQLite.

use std::path::PathBuf;

use clap::Args as ClapArgs;

use crate::args::stop_flag;
use crate::error::CliError;

#[derive(ClapArgs)]
pub struct Args {
    /// Where to listen: serial:/dev/ttyUSB0@115200, pty:/dev/pts/N, udp://127.0.0.1:PORT, tcp://HOST:PORT, mqtt://HOST:PORT/TOPIC_FILTER, amqp://HOST:PORT/QUEUE, coap://HOST:PORT (OSCORE).
    #[arg(long)]
    listen: String,
    /// Key file(s) from `keygen`; each message's key id picks the key.
    #[arg(long = "key-file", required = true)]
    key_files: Vec<PathBuf>,
    /// Message container: json, binary, cose, or oscore (with coap://; the key files are OSCORE contexts).
    #[arg(long, default_value = "json")]
    container: String,
    /// coap:// with --container oscore: the key file is the gateway's EDHOC credentials
    /// (keygen --scheme edhoc, or edhoc-psk: the file says which method it answers);
    /// each device runs a handshake before it sends.
    #[arg(long)]
    edhoc: bool,
    /// serial:/pty: with --container oscore: the requests come SCHC-compressed in RFC 9011's frames (schc or schc:RULES).
    #[arg(long, value_name = "SCHC")]
    compression: Option<String>,
    /// Framing on byte streams: line (text containers) or len (default: line for json, len otherwise).
    #[arg(long)]
    framing: Option<live::Framing>,
    /// Readings and replay state: a SQLite file, or a postgres:// URL several workers share.
    #[arg(long, value_name = "PATH|URL", default_value = "gateway.sqlite")]
    db: store::Location,
    /// Rewrite this JSON file with the counters every --stats-interval and on exit.
    #[arg(long)]
    stats_file: Option<PathBuf>,
    /// Seconds between stats-file updates.
    #[arg(long, default_value_t = 1.0)]
    stats_interval: f64,
    /// Commit after this many messages…
    #[arg(long, default_value_t = 4096)]
    batch: usize,
    /// …or after the oldest has waited this many milliseconds.
    #[arg(long, default_value_t = 20)]
    batch_ms: u64,
    /// Milliseconds a frame may take from its first byte: on TCP the connection is then
    /// closed; on serial a partial frame that long without a new byte is dropped.
    #[arg(long, alias = "idle-ms", default_value_t = live::Limits::default().frame_timeout.as_millis() as u64)]
    frame_timeout: u64,
    /// Exit after this many messages have been received and settled.
    #[arg(long)]
    exit_after: Option<u64>,
    /// TCP connections held open; a newcomer beyond them closes the one idle longest (counted as evicted).
    /// [default: 4000, or what the hard open-file limit leaves room for]
    #[arg(long)]
    max_connections: Option<usize>,
    /// Close a TCP connection that sends nothing for this many seconds (counted).
    #[arg(long, default_value_t = live::Limits::default().idle_timeout.as_secs())]
    idle_timeout: u64,
    /// Largest message in bytes; longer lines and datagrams are refused as oversize.
    #[arg(long, default_value_t = live::Limits::default().max_message)]
    max_message: usize,
    /// MQTT, AMQP: the network server's uplink format: chirpstack, tts or raw (the sealed message).
    #[arg(long, default_value = "raw")]
    envelope: live::Envelope,
    /// AMQP: the exchange the queue is bound to (ChirpStack's integration publishes to amq.topic).
    #[arg(long, default_value_t = live::amqp::AmqpSubscription::default().exchange)]
    exchange: String,
    /// AMQP: the binding key (default: every device's uplinks, application.*.device.*.event.up).
    #[arg(long, default_value_t = live::amqp::AmqpSubscription::default().binding_key)]
    binding_key: String,
    /// AMQP: messages the broker may have unacknowledged at this worker.
    #[arg(long, default_value_t = live::amqp::AmqpSubscription::default().prefetch)]
    prefetch: u16,
    /// MQTT: share one subscription with the other workers of this group.
    #[arg(long)]
    share: Option<String>,
    /// MQTT: a stable id per worker gives a persistent session: unacknowledged messages come back after a crash.
    #[arg(long)]
    client_id: Option<String>,
    /// Seconds a random-nonce reading's sent_us may differ from this clock; older ones
    /// are refused as stale, and nonces are kept only this long (docs/live.md).
    #[arg(long, default_value_t = live::Limits::default().max_age.as_secs())]
    max_age: u64,
    /// Sources none of whose messages opened ("strangers") that may hold messages in
    /// fragments at once; a further one's fragments are refused (fragments_refused).
    #[arg(long, default_value_t = live::FragmentLimits::default().sources)]
    fragment_sources: usize,
    /// Bytes strangers' messages in fragments may hold together (fragments_refused beyond).
    #[arg(long, default_value_t = live::FragmentLimits::default().bytes)]
    fragment_bytes: usize,
    /// Seconds a message in fragments may wait for its next fragment before it is given
    /// up (incomplete).
    #[arg(long, default_value_t = live::FragmentLimits::default().timeout.as_secs())]
    fragment_timeout: u64,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let options = live::gateway_options::GatewayOptions {
        listen: args.listen,
        key_files: args.key_files,
        container: args.container.parse()?,
        edhoc: args.edhoc,
        compression: args.compression,
        framing: args.framing,
        db: args.db,
        stats_file: args.stats_file,
        stats_interval_s: args.stats_interval,
        batch: args.batch,
        batch_ms: args.batch_ms,
        exit_after: args.exit_after,
        envelope: args.envelope,
        amqp: live::amqp::AmqpSubscription {
            exchange: args.exchange,
            binding_key: args.binding_key,
            prefetch: args.prefetch,
        },
        share: args.share,
        client_id: args.client_id,
        max_connections: args.max_connections,
        idle_timeout_s: args.idle_timeout,
        frame_timeout_ms: args.frame_timeout,
        max_message: args.max_message,
        max_age_s: args.max_age,
        fragments: live::FragmentLimits {
            sources: args.fragment_sources,
            bytes: args.fragment_bytes,
            timeout: std::time::Duration::from_secs(args.fragment_timeout),
        },
    };
    let (config, keyring) = options.prepare(&mut |note| eprintln!("gateway: {note}"))?;
    let snap = live::run_gateway(config, keyring, stop_flag()?)?;
    println!(
        "{}",
        serde_json::to_string(&snap).map_err(CliError::failed)?
    );
    Ok(())
}
