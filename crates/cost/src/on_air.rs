//! How a sealed message goes on a link, the one place every view asks:
//! as bytes the link frames (in the sealing core's fragments where one frame
//! is too small), or, compressed with SCHC (`--compression schc`), as RFC
//! 9011's profile sends it (`link::schc_uplink`: the rule id in FPort, or
//! ACK-on-Error fragments and their ACK).

use link::{LinkCost, LinkSpec, SendOptions};

use crate::Error;
use crate::message::{SchcPacket, Sealed, message_len};

/// What `sealed` costs on `spec`, sent as `options` say.
pub fn sealed_cost(
    spec: &LinkSpec,
    sealed: &Sealed,
    options: &SendOptions,
) -> Result<LinkCost, Error> {
    message_cost(spec, sealed.bytes.len(), sealed.schc.as_ref(), options)
}

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
