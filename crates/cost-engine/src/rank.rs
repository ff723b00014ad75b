//! `recommend`'s question answered from values: the request, the profiles,
//! the link catalogue and the device's seal times in, the ranked choices
//! out (rows and ranks, the tie, what is left out and why, the duty cycle's
//! and the frame's verdicts with their remedies). Sealing the readings is
//! asked of [`Messages`]; key establishments (`--session-messages`) of
//! [`Sessions`], the host's.

use energy::model::parse_interval;
use link::Catalogue;

use crate::Error;
use crate::choices::{Asked, Choices, OnDevice, Wrap, candidates, choices};
use crate::device_times::{DeviceTimes, device_target};
use crate::duty_cycle::{self, DutyCycleAnswer};
use crate::frame_fit::{self, FrameFit};
use crate::message::{Ask, Messages};
use crate::ranking::{message_uj, order, tie_at_the_top};
use crate::request::Request;
use crate::scheme_cost::{SchemeCost, Setting, cost_message};
use crate::session_share::{NoSession, check_messages};
use crate::tie::TieGroup;

/// What the answer rests on besides the request, as values.
pub struct Facts<'a> {
    pub profiles: &'a energy::Profiles,
    pub links: &'a Catalogue,
    /// The device's seal times: its shipped table ([`Facts::shipped`]), or
    /// the host's stored runs over it; none for a device no simulator runs
    /// (its rows then take this host's times: [`Messages::host_time`]).
    pub device_times: Option<DeviceTimes>,
}

impl<'a> Facts<'a> {
    /// The request's device with its shipped table's times.
    pub fn shipped(
        profiles: &'a energy::Profiles,
        links: &'a Catalogue,
        device: &str,
    ) -> Result<Facts<'a>, Error> {
        let device = profiles.device(device).map_err(Error::invalid)?;
        Ok(Facts {
            profiles,
            links,
            device_times: DeviceTimes::shipped(device)?,
        })
    }
}

/// Key establishments for `--session-messages`: the host's (crates/handshake).
pub trait Sessions {
    type Answer;
    /// Each key establishment the device has on the link, answered for
    /// `best` keyed once per `messages`, and `best` keyed by each one the
    /// device measured.
    fn keyed(
        &mut self,
        best: &SchemeCost,
        messages: u64,
        setting: &Setting,
    ) -> Result<(Vec<Self::Answer>, Vec<SchemeCost>), Error>;
    /// What post-quantum or hybrid key establishment costs over classical,
    /// for the cheapest pre-shared-key row (`base_uj`).
    fn post_quantum(&self, answers: &[Self::Answer], base_uj: f64, messages: u64)
    -> Option<String>;
}

/// No handshakes here (a browser): `--session-messages` is refused.
pub struct WithoutSessions;

impl Sessions for WithoutSessions {
    type Answer = NoSession;

    fn keyed(
        &mut self,
        _: &SchemeCost,
        _: u64,
        _: &Setting,
    ) -> Result<(Vec<NoSession>, Vec<SchemeCost>), Error> {
        Err(Error::invalid(
            "--session-messages needs the key establishments' costs, which this build does not have",
        ))
    }

    fn post_quantum(&self, _: &[NoSession], _: f64, _: u64) -> Option<String> {
        None
    }
}

/// The answer.
pub struct Ranking<S = NoSession> {
    /// Cheapest first.
    pub ranked: Vec<SchemeCost>,
    /// Rank of each entry of `ranked` (1-based); tied schemes share one.
    pub ranks: Vec<usize>,
    /// Schemes left out, with why.
    pub excluded: Vec<(String, String)>,
    /// One message every this many seconds.
    pub interval_s: f64,
    /// Whether the link's duty cycle allows that interval (none without a rule).
    pub duty_cycle: Option<DutyCycleAnswer>,
    /// When no choice fits one frame: that said, and what would, costed.
    pub frame_fit: Option<FrameFit>,
    /// With `session_messages`: when each key establishment stops mattering.
    pub sessions: Vec<S>,
    /// What post-quantum or hybrid key establishment costs over classical here.
    pub post_quantum: Option<String>,
    /// The first choices, when they tie, and what picked among them.
    pub tie: Option<TieGroup>,
    /// The commands that build the winner (or the best software row) for
    /// the device; none for a device no simulator runs.
    pub build: Option<crate::build_commands::BuildCommands>,
    /// The radio profile whose figures the energies rest on, and why that
    /// one: the device's own radio, or the link's
    /// (`energy::Profiles::radio_for`).
    pub radio: String,
    pub radio_basis: String,
}

/// Judges what the request names (device, link, battery, interval, the
/// protocol's parameters, sample, compression) before anything is costed.
pub fn check(
    req: &Request,
    profiles: &energy::Profiles,
    links: &Catalogue,
    messages: &dyn Messages,
) -> Result<(), Error> {
    let device = profiles.device(&req.device).map_err(Error::invalid)?;
    let spec = links.get(&req.link).map_err(Error::invalid)?;
    let radio = profiles
        .radio_for(device, spec)
        .map_err(Error::invalid)?
        .radio;
    profiles.battery(&req.battery).map_err(Error::invalid)?;
    let interval_s = parse_interval(&req.interval).map_err(Error::invalid)?;
    energy::protocol::cost(spec, radio, 1, 0.0, interval_s, &req.protocol)
        .map_err(Error::invalid)?;
    if let Some(n) = req.session_messages {
        check_messages(n)?;
    }
    messages.check(&req.payload, req.compression.as_deref())?;
    if req.compression.is_some() && !req.containers.iter().any(|c| c.is_oscore()) {
        return Err(Error::invalid(
            "--compression schc compresses the oscore container's messages: add --container oscore (or all)",
        ));
    }
    Ok(())
}

/// Every candidate of the request's need ranked ([`rank_names`]).
pub fn rank<S: Sessions>(
    req: &Request,
    facts: Facts,
    messages: &dyn Messages,
    sessions: &mut S,
    progress: &mut dyn FnMut(usize, usize, &str),
) -> Result<Ranking<S::Answer>, Error> {
    rank_names(
        req,
        facts,
        &candidates(req.need),
        messages,
        sessions,
        progress,
    )
}

/// Costs `names` in each asked container and ranks them. `progress` hears
/// each scheme's name.
pub fn rank_names<S: Sessions>(
    req: &Request,
    facts: Facts,
    names: &[String],
    messages: &dyn Messages,
    sessions: &mut S,
    progress: &mut dyn FnMut(usize, usize, &str),
) -> Result<Ranking<S::Answer>, Error> {
    check(req, facts.profiles, facts.links, messages)?;
    let (prof, cat) = (facts.profiles, facts.links);
    let device = prof.device(&req.device).map_err(Error::invalid)?;
    let spec = cat.get(&req.link).map_err(Error::invalid)?;
    let radio_use = prof.radio_for(device, spec).map_err(Error::invalid)?;
    let radio = radio_use.radio;
    let battery = prof.battery(&req.battery).map_err(Error::invalid)?;
    let interval_s = parse_interval(&req.interval).map_err(Error::invalid)?;
    let mut device_times = facts.device_times;
    if let Some(times) = device_times.as_mut()
        && !req.implementations.is_empty()
    {
        times.restrict(&req.implementations);
    }
    if let Some(times) = device_times.as_mut()
        && req.allow_leaky
    {
        times.allow_leaky();
    }
    // The implementations measured on the device's core, for each scheme's choice.
    let implementations = crate::engine_cost::implementations_table(device)?;
    let setting = Setting {
        device,
        radio,
        link: spec,
        battery: Some(battery),
        interval_s,
        protocol: req.protocol.clone(),
    };
    let engines = crate::engine_cost::engines(device, req.hardware)?;
    let asked = Asked {
        min_security: req.min_security,
        allow_legacy: req.allow_legacy,
        wraps: Wrap::all(&req.containers, req.compression.as_deref()),
    };
    let on_device = OnDevice {
        times: device_times.as_ref(),
        implementations: implementations.as_ref(),
        engines: &engines,
    };
    let mut cost = |name: &str, wrap: Wrap| {
        let ask = Ask {
            scheme: name,
            sample: &req.payload,
            serialization: req.serialization.as_deref(),
            container: wrap.container,
            compression: wrap.compression.as_deref(),
        };
        cost_message(&ask, messages, &setting, device_times.as_ref())
    };
    let Choices {
        mut ranked,
        excluded,
        too_short,
    } = choices(names, &asked, &on_device, &setting, progress, &mut cost)?;
    // An interval no message could keep is refused with its cause, before
    // anything is ranked against it.
    let costs: Vec<&link::LinkCost> = ranked
        .iter()
        .filter_map(|c| c.link_cost.as_ref())
        .chain(&too_short)
        .collect();
    if let Some(why) = duty_cycle::refusal(spec, interval_s, &costs) {
        return Err(Error::invalid(why));
    }
    let mut ranks = order(&mut ranked, interval_s);
    let mut answers = Vec::new();
    let mut post_quantum = None;
    if let Some(n) = req.session_messages {
        // The winner keyed by each kind of session instead of a pre-shared key.
        if let Some(best) = ranked.first().cloned() {
            let (said, keyed) = sessions.keyed(&best, n, &setting)?;
            answers = said;
            ranked.extend(keyed);
            ranks = order(&mut ranked, interval_s);
        }
    }
    let choices: Vec<duty_cycle::Choice> = ranked
        .iter()
        .filter_map(|c| {
            Some(duty_cycle::Choice {
                scheme: c.name(),
                container: c.container,
                cost: c.link_cost.as_ref()?,
                schc: c.schc.as_ref(),
            })
        })
        .collect();
    let duty_cycle = duty_cycle::answer(cat, spec, interval_s, &req.payload, &choices, messages)?;
    let fit = frame_fit::Asked {
        interval_s,
        payload: &req.payload,
        serialization: req.serialization.as_deref(),
        containers: &req.containers,
        messages,
    };
    let frame_fit = frame_fit::answer(cat, spec, &fit, &choices)?;
    let tie = tie_at_the_top(&mut ranked, &mut ranks, interval_s, spec.stack.as_ref());
    if let Some(n) = req.session_messages
        && let Some(base) = ranked.iter().find(|c| c.session.is_none())
    {
        post_quantum = sessions.post_quantum(&answers, message_uj(base), n);
    }
    let build = device_target(device)?
        .and_then(|target| crate::build_commands::for_ranking(target, &ranked));
    Ok(Ranking {
        build,
        radio: radio.name.clone(),
        radio_basis: radio_use.basis,
        ranked,
        ranks,
        excluded,
        interval_s,
        duty_cycle,
        frame_fit,
        sessions: answers,
        post_quantum,
        tie,
    })
}
