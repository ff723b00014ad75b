//! How a sealed message goes on a link, the one place every view asks:
//! as bytes the link frames (in the sealing core's fragments where one frame
//! is too small), or, compressed with SCHC (`--compression schc`), as RFC
//! 9011's profile sends it (`link::schc_uplink`: the rule id in FPort, or
//! ACK-on-Error fragments and their ACK).

use link::{LinkCost, LinkSpec, SendOptions};

use crate::Error;
use crate::schc_packet::SchcPacket;

/// A sealed message of `bytes`, or its SCHC packet where it was compressed.
pub fn message_cost(
    spec: &LinkSpec,
    bytes: usize,
    schc: Option<&SchcPacket>,
    options: &SendOptions,
) -> Result<LinkCost, Error> {
    match schc {
        Some(p) => packet_cost(spec, p, options),
        None => spec
            .cost_with(message_len(bytes)?, options)
            .map_err(Error::invalid),
    }
}

/// What a SCHC packet costs uplink on `spec`.
pub fn packet_cost(
    spec: &LinkSpec,
    p: &SchcPacket,
    options: &SendOptions,
) -> Result<LinkCost, Error> {
    if options.pad_to_packet || !options.f_opts.is_empty() {
        return Err(Error::invalid(
            "--pad-to-packet and --f-opts are not costed with --compression schc: RFC 9011 fills its own frames",
        ));
    }
    let uplink = link::schc_uplink::uplink(spec, &p.packet, p.rule_id_bits)
        .map_err(|e| Error::invalid(format!("--compression schc: {e}")))?;
    Ok(uplink.total())
}

/// Whether a message with this cost may start every `interval_s` seconds.
/// A link with no duty-cycle rule allows any interval.
pub fn allows(cost: &LinkCost, interval_s: f64) -> bool {
    cost.min_interval
        .is_none_or(|iv| iv.as_secs() <= interval_s)
}

/// A message length as the link models take it; longer than they can carry is
/// the user's to fix.
pub fn message_len(len: usize) -> Result<u32, Error> {
    u32::try_from(len).map_err(|_| Error::invalid(format!("a {len}-byte message is too large")))
}

/// Milliseconds as a JSON number with microsecond resolution.
pub fn ms(t: link::Micros) -> f64 {
    (t.as_ms() * 1000.0).round() / 1000.0
}
