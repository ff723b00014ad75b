//! When no ranked choice fits one frame of the link (Sigfox's 12 bytes, a
//! LoRaWAN DR0 frame), `recommend` says so and costs what would: a shorter
//! tag (OSCORE's 8-byte CCM tag, CCM-8 or a MAC truncated to 8 bytes, each
//! with its forgery bound), the link's own security (Sigfox's per-frame MAC
//! and payload encryption, LoRaWAN's FRMPayload encryption and MIC) with
//! what it does and does not protect, a smaller container, another network.
//! A scheme the tool seals is costed from its sealed bytes; one it does not
//! (CCM-8, a truncated MAC outside OSCORE) from the container's layout,
//! and said so.

use link::own_security::OwnSecurity;
use link::{Catalogue, LinkCost, LinkSpec};
use seal::host::container::MessageContainer;
use serde::{Deserialize, Serialize};

use crate::Error;
use crate::duty_cycle::{self, Choice};
use crate::message::{Ask, Messages, Sealed};
use crate::on_air::{message_len, ms};

/// OSCORE's mandatory algorithm, whose tag is 8 bytes (RFC 8613 §3.2.1).
const OSCORE_SHORT_TAG: &str = "oscore:aes-ccm-16-64-128";
/// The AEAD and the MAC whose tags the layout options shorten.
const CCM: &str = "aead:aes-128-ccm";
const CMAC: &str = "hmac:cmac-aes-128";
/// Bytes a shortened tag keeps: 64 bits, the least NIST SP 800-38B and
/// SP 800-38C allow without a limit on forgery attempts.
const SHORT_TAG: usize = 8;

/// The answer: the sentence and the options, each costed on the link.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct FrameFit {
    /// Message bytes one frame carries.
    pub frame_capacity: u32,
    pub sentence: String,
    pub fit_options: Vec<FitOption>,
}

/// One way to carry the reading in fewer frames.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct FitOption {
    /// `short_tag`, `link_security`, `container` or `link`.
    pub approach: String,
    pub what: String,
    pub message_bytes: u32,
    pub on_air_bytes: u32,
    pub frames: u32,
    pub airtime_ms: f64,
    pub min_interval_s: Option<f64>,
    /// Whether the link's limits allow it at the asked interval.
    pub duty_cycle_allowed: bool,
    /// A forger's odds a try, from the tag's length ("2^-64").
    pub forgery: Option<String>,
    pub protects: String,
    pub does_not_protect: String,
    /// How its bytes were found: sealed, or from a container's layout.
    pub costed: String,
    /// The `recommend` option that ranks it, where one does.
    pub option: Option<String>,
}

/// What the question was, as the options need it.
pub struct Asked<'a> {
    pub interval_s: f64,
    pub payload: &'a str,
    pub serialization: Option<&'a str>,
    pub containers: &'a [MessageContainer],
    /// What seals the options' messages.
    pub messages: &'a dyn Messages,
}

/// The answer when every ranked choice takes more than one frame.
pub fn answer(
    catalogue: &Catalogue,
    spec: &LinkSpec,
    asked: &Asked,
    choices: &[Choice],
) -> Result<Option<FrameFit>, Error> {
    if choices.is_empty() || choices.iter().any(|c| c.cost.frames <= 1) {
        return Ok(None);
    }
    let Some(best) = choices
        .iter()
        .min_by_key(|c| (c.cost.frames, c.cost.message_bytes))
    else {
        return Ok(None);
    };
    let capacity = best.cost.frame_capacity;
    let reading = build(best.scheme, best.container, asked)?.plaintext_bytes as u32;
    let mut options = Vec::new();
    options.extend(short_tags(spec, best, asked)?);
    options.extend(own_security(spec, reading, asked.interval_s)?);
    options.extend(smaller_containers(spec, best, asked)?);
    options.extend(other_links(catalogue, spec, best, asked.interval_s));
    let sentence = format!(
        "No scheme fits one {capacity}-byte frame of {}: the smallest ranked, {} in the {} container, is {} B in {} frames. What would carry the {reading}-byte reading in fewer, costed:",
        spec.name,
        best.scheme,
        best.container.as_str(),
        best.cost.message_bytes,
        best.cost.frames
    );
    Ok(Some(FrameFit {
        frame_capacity: capacity,
        sentence,
        fit_options: options,
    }))
}

/// The sealed message of `scheme` in `container` for the asked reading.
fn build(scheme: &str, container: MessageContainer, asked: &Asked) -> Result<Sealed, Error> {
    asked.messages.seal(&Ask {
        scheme,
        sample: asked.payload,
        serialization: asked.serialization,
        container,
        compression: None,
    })
}

/// Bytes of `scheme`'s sealed message in `container`, and its tag's length.
fn sealed(
    scheme: &str,
    container: MessageContainer,
    asked: &Asked,
) -> Result<Option<(u32, usize)>, Error> {
    let s = build(scheme, container, asked)?;
    Ok(Some((message_len(s.bytes)?, s.scheme.tag_len())))
}

fn forgery(tag_bytes: usize) -> String {
    format!("2^-{} a try", tag_bytes * 8)
}

#[allow(clippy::too_many_arguments)]
fn option(
    spec: &LinkSpec,
    interval_s: f64,
    approach: &str,
    what: String,
    bytes: u32,
    (forgery, protects, does_not_protect): (Option<String>, &str, &str),
    costed: String,
    option: Option<String>,
) -> Result<FitOption, Error> {
    let cost: LinkCost = spec.cost(bytes, false).map_err(Error::invalid)?;
    Ok(FitOption {
        approach: approach.to_string(),
        what,
        message_bytes: bytes,
        on_air_bytes: cost.on_air_bytes,
        frames: cost.frames,
        airtime_ms: ms(cost.airtime),
        min_interval_s: cost.min_interval.map(|t| t.as_secs()),
        duty_cycle_allowed: duty_cycle::allows(&cost, interval_s),
        forgery,
        protects: protects.to_string(),
        does_not_protect: does_not_protect.to_string(),
        costed,
        option,
    })
}

/// OSCORE's 8-byte tag (sealed), CCM-8 and an 8-byte CMAC (from the layout).
fn short_tags(spec: &LinkSpec, best: &Choice, asked: &Asked) -> Result<Vec<FitOption>, Error> {
    let mut out = Vec::new();
    let end_to_end =
        "the reading's secrecy and integrity end to end, from the device to your server";
    let short = "against forgery as well as a 16-byte tag: 2^-64 a try, not 2^-128";
    if let Some((bytes, tag)) = sealed(OSCORE_SHORT_TAG, MessageContainer::Oscore, asked)? {
        let ranked = asked.containers.iter().any(|c| c.is_oscore());
        out.push(option(
            spec,
            asked.interval_s,
            "short_tag",
            format!("{OSCORE_SHORT_TAG} (OSCORE, RFC 8613; an {tag}-byte tag)"),
            bytes,
            (Some(forgery(tag)), end_to_end, short),
            "sealed".into(),
            (!ranked).then(|| "--container oscore".to_string()),
        )?);
    }
    // The container the others are in, for the layout options.
    let container = match best.container {
        c if c.is_oscore() => MessageContainer::ALL
            .into_iter()
            .find(|c| c.as_str() == "binary")
            .unwrap_or(c),
        c => c,
    };
    for (scheme, what, protects, not) in [
        (
            CCM,
            "AES-128-CCM with an 8-byte tag (CCM-8)",
            end_to_end,
            short,
        ),
        (
            CMAC,
            "AES-CMAC truncated to 8 bytes, integrity only",
            "the reading's integrity and origin end to end",
            "the reading's secrecy (it travels in clear)",
        ),
    ] {
        let Some((bytes, tag)) = sealed(scheme, container, asked)? else {
            continue;
        };
        let Some(cut) = tag.checked_sub(SHORT_TAG) else {
            continue;
        };
        out.push(option(
            spec,
            asked.interval_s,
            "short_tag",
            format!("{what} in the {} container", container.as_str()),
            bytes - cut as u32,
            (Some(forgery(SHORT_TAG)), protects, not),
            format!(
                "from the {} container's layout: {scheme}'s sealed message less {cut} tag bytes (no scheme the sealing core builds, so not ranked)",
                container.as_str()
            ),
            None,
        )?);
    }
    Ok(out)
}

/// The reading alone in the link's frame, under the link's own security.
fn own_security(
    spec: &LinkSpec,
    reading: u32,
    interval_s: f64,
) -> Result<Option<FitOption>, Error> {
    let own = match (
        spec.stack.as_ref().and_then(|s| s.own.clone()),
        &spec.lorawan,
    ) {
        (Some(own), _) => own,
        (None, Some(_)) => OwnSecurity::lorawan(),
        _ => return Ok(None),
    };
    let tag = own.tag_bytes.value as usize;
    Some(option(
        spec,
        interval_s,
        "link_security",
        format!(
            "{} alone: the {reading}-byte reading as the frame's payload, a {tag}-byte tag and a {}-bit counter per frame",
            own.what, own.counter_bits.value
        ),
        reading,
        (Some(forgery(tag)), &own.protects, &own.does_not_protect),
        format!(
            "costed as the reading's bytes on the link, whose tag is in its frame overhead; the tag's length: {}",
            match own.tag_bytes.is_estimate() {
                true => "an estimate (data/links)",
                false => "sourced (data/links)",
            }
        ),
        None,
    ))
    .transpose()
}

/// The smallest choice's scheme in each container that sends fewer bytes.
fn smaller_containers(
    spec: &LinkSpec,
    best: &Choice,
    asked: &Asked,
) -> Result<Vec<FitOption>, Error> {
    let mut out = Vec::new();
    for container in MessageContainer::ALL
        .into_iter()
        .filter(|c| *c != best.container && c.is_oscore() == best.container.is_oscore())
    {
        let Some((bytes, tag)) = sealed(best.scheme, container, asked)? else {
            continue;
        };
        if bytes >= best.cost.message_bytes {
            continue;
        }
        out.push(option(
            spec,
            asked.interval_s,
            "container",
            format!("{} in the {} container", best.scheme, container.as_str()),
            bytes,
            (
                Some(forgery(tag)),
                "what the scheme protects, as in the ranking",
                "nothing more than the ranked choice leaves out",
            ),
            "sealed".into(),
            Some(format!("--container {}", container.as_str())),
        )?);
    }
    Ok(out)
}

/// The smallest choice's message on other networks, where one frame carries it.
fn other_links(
    catalogue: &Catalogue,
    spec: &LinkSpec,
    best: &Choice,
    interval_s: f64,
) -> Vec<FitOption> {
    duty_cycle::other_networks(catalogue, spec, best.cost.message_bytes, |c| c.frames == 1)
        .into_iter()
        .map(|(other, cost)| FitOption {
            approach: "link".into(),
            what: format!("{} on {}", best.scheme, other.name),
            message_bytes: best.cost.message_bytes,
            on_air_bytes: cost.on_air_bytes,
            frames: cost.frames,
            airtime_ms: ms(cost.airtime),
            min_interval_s: cost.min_interval.map(|t| t.as_secs()),
            duty_cycle_allowed: duty_cycle::allows(&cost, interval_s),
            forgery: None,
            protects: "what the scheme protects, as in the ranking".into(),
            does_not_protect: "nothing more than the ranked choice leaves out".into(),
            costed: "sealed".into(),
            option: Some(format!("--link {}", other.name)),
        })
        .collect()
}

impl FrameFit {
    /// The sentence and each option, as `recommend` prints them: what it
    /// costs on air and under the link's limits, its forgery bound, and for
    /// a tag or the link's own security what it protects and what not.
    pub fn text(&self) -> String {
        let mut o = format!("{}\n", self.sentence);
        for f in &self.fit_options {
            o.push_str(&format!(
                "  - {}: {} B, {} B on air in {} frame{}, {} on air{}{}{}\n",
                f.what,
                f.message_bytes,
                f.on_air_bytes,
                f.frames,
                if f.frames == 1 { "" } else { "s" },
                // Sigfox's seconds and BLE's fractions of a millisecond alike.
                if f.airtime_ms >= 1000.0 {
                    format!("{:.2} s", f.airtime_ms / 1000.0)
                } else {
                    format!("{:.3} ms", f.airtime_ms)
                },
                match (f.min_interval_s, f.duty_cycle_allowed) {
                    (Some(iv), true) => format!(", one every {iv:.1} s: allowed at this interval"),
                    (Some(iv), false) => {
                        format!(", one every {iv:.1} s: not allowed at this interval")
                    }
                    (None, _) => String::new(),
                },
                f.forgery
                    .as_ref()
                    .map_or(String::new(), |x| format!("; forgery {x}")),
                f.option
                    .as_ref()
                    .map_or(String::new(), |o| format!(" ({o})")),
            ));
            if matches!(f.approach.as_str(), "short_tag" | "link_security") {
                o.push_str(&format!(
                    "      protects: {}; does not protect: {} ({})\n",
                    f.protects, f.does_not_protect, f.costed
                ));
            }
        }
        o
    }
}
