//! One file per command. Each exposes `Args` (clap) and `run`, and imports
//! the libraries and `crate::args`, never another command.

pub mod airtime;
pub mod bench;
pub mod compare;
pub mod crypt;
pub mod ct;
pub mod device_send;
pub mod digest;
pub mod energy;
pub mod explore;
pub mod frame_bench;
pub mod gateway;
pub mod handshake;
pub mod import;
pub mod keygen;
pub mod link;
pub mod list;
pub mod lorawan;
pub mod mcu;
pub mod open;
pub mod pubkey;
pub mod radio_emulator;
pub mod recommend;
pub mod report;
pub mod reproduce;
pub mod run;
pub mod runs;
pub mod seal_cmd;
pub mod send;
pub mod update_cost;

use clap::Subcommand;

use crate::error::CliError;

#[derive(Subcommand)]
pub enum Command {
    /// List every algorithm with its sizes, security level, status and backends.
    List(list::Args),
    /// Encrypt with one algorithm: hex in (or raw stdin), hex out.
    Encrypt(crypt::Args),
    /// Decrypt with one algorithm; a wrong tag prints nothing and fails.
    Decrypt(crypt::Args),
    /// Hash, or MAC with --key.
    Digest(digest::Args),
    /// Make a sealing key file (--scheme S) or an asymmetric key pair (ALGORITHM).
    Keygen(keygen::Args),
    /// Seal a reading (stdin or --sample) with a key file: serialize, seal, frame, encode.
    Seal(seal_cmd::Args),
    /// Open a sealed message from stdin and print the reading; any tampering exits 2.
    Open(open::Args),
    /// Time the whole path per message: µs/message, µs/byte, overhead, expansion, cost per bit.
    FrameBench(frame_bench::Args),
    /// Sign a message with a private key file from `keygen`.
    Sign(pubkey::SignArgs),
    /// Verify a signature with a public key (file or hex); a bad one exits 2.
    Verify(pubkey::VerifyArgs),
    /// A KEM's ciphertext and shared secret for a public key (ml-kem-512, x-wing, ...).
    Encapsulate(pubkey::EncapsulateArgs),
    /// A KEM's shared secret from a ciphertext and a private key file.
    Decapsulate(pubkey::DecapsulateArgs),
    /// LoRa time on air (exact), or LoRaWAN uplinks with --region.
    Airtime(airtime::Args),
    /// What one message costs on a link: bytes on air, frames, time on air.
    Link(link::Args),
    /// An update over the air: image and signature per scheme on a link, ranked.
    UpdateCost(update_cost::Args),
    /// Energy per message (CPU and radio) and battery life: a model estimate.
    Energy(energy::Args),
    /// Measure the algorithms as firmware on a microcontroller (simavr / QEMU).
    Mcu(mcu::Args),
    /// Whether a build's timing depends on its secrets: many secrets, runs compared in simulation.
    Ct(ct::Args),
    /// Time algorithms: median, 95% CI, MB/s, cycles/byte, heap, with the machine's details.
    Bench(bench::Args),
    /// Reproduce one of the five studies, our numbers beside the paper's.
    #[command(subcommand)]
    Reproduce(reproduce::Study),
    /// The main job: sweep, sealed messages, energy, reproductions; stores all and writes the HTML report.
    Run(run::Args),
    /// List the runs in the results store.
    Runs(runs::Args),
    /// Compare two stored runs: ratios with intervals, marking differences outside the noise.
    Compare(compare::Args),
    /// Load `bench --format json` output from another machine into the store.
    Import(import::Args),
    /// Write the HTML report of a stored run.
    Report(report::Args),
    /// Rank sealing schemes for a device and link by energy per message.
    Recommend(recommend::Args),
    /// Write the explore page: recommend's answers in a browser, one file that opens offline.
    Explore(explore::Args),
    /// LoRaWAN 1.0.x uplink frames: build one, or open one with its session keys.
    #[command(subcommand)]
    Lorawan(lorawan::Action),
    /// What establishing a session key costs on a link: EDHOC's messages, frames, time on air.
    #[command(subcommand)]
    Handshake(handshake::Protocol),
    /// Receive sealed readings (serial, pty, UDP, TCP, MQTT), verify them and store them in SQLite or PostgreSQL.
    Gateway(gateway::Args),
    /// Seal readings and send them to a gateway, at a rate or as fast as possible.
    Send(send::Args),
    /// Run the sealing firmware on a simulated device and forward what it seals to a gateway.
    DeviceSend(device_send::Args),
    /// Two pseudo-terminals joined by an emulated serial packet radio (study 000's bench).
    RadioEmulator(radio_emulator::Args),
}

pub fn run(command: Command) -> Result<(), CliError> {
    match command {
        Command::List(args) => list::run(args),
        Command::Encrypt(args) => crypt::run(args, catalogue::Direction::Encrypt),
        Command::Decrypt(args) => crypt::run(args, catalogue::Direction::Decrypt),
        Command::Digest(args) => digest::run(args),
        Command::Keygen(args) => keygen::run(args),
        Command::Seal(args) => seal_cmd::run(args),
        Command::Open(args) => open::run(args),
        Command::FrameBench(args) => frame_bench::run(args),
        Command::Sign(args) => pubkey::sign(args),
        Command::Verify(args) => pubkey::verify(args),
        Command::Encapsulate(args) => pubkey::encapsulate(args),
        Command::Decapsulate(args) => pubkey::decapsulate(args),
        Command::Airtime(args) => airtime::run(args),
        Command::Link(args) => link::run(args),
        Command::UpdateCost(args) => update_cost::run(args),
        Command::Energy(args) => energy::run(args),
        Command::Mcu(args) => mcu::run(args),
        Command::Ct(args) => ct::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Reproduce(study) => reproduce::run(study),
        Command::Run(args) => run::run(args),
        Command::Runs(args) => runs::run(args),
        Command::Compare(args) => compare::run(args),
        Command::Import(args) => import::run(args),
        Command::Report(args) => report::run(args),
        Command::Recommend(args) => recommend::run(args),
        Command::Explore(args) => explore::run(args),
        Command::Lorawan(action) => lorawan::run(action),
        Command::Handshake(protocol) => handshake::run(protocol),
        Command::Gateway(args) => gateway::run(args),
        Command::Send(args) => send::run(args),
        Command::DeviceSend(args) => device_send::run(args),
        Command::RadioEmulator(args) => radio_emulator::run(args),
    }
}
