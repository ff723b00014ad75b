//! One request answered as `recommend --format json` answers it: the
//! built-in profiles and links (plus the user's profile files), the
//! device's shipped seal times, the page's sealer, no handshakes. Beside
//! the ranking, what `recommend` prints of it (the page shows those
//! sentences, never its own copy of them).

use cost_engine::Error;
use cost_engine::rank::{Facts, WithoutSessions, rank};
use cost_engine::summary::RankingSummary;
use serde::Serialize;

use crate::messages::PageSealer;
use crate::request::PageRequest;

/// What the page shows: the ranking and its words, or why there is none.
#[derive(Serialize)]
#[serde(untagged)]
pub enum Answer {
    Ranked {
        ranking: Box<RankingSummary>,
        said: Said,
    },
    Refused {
        error: String,
    },
}

/// `recommend`'s own words for the ranking: its whole text, and per row the
/// constant-time verdict and whose code it is.
#[derive(Serialize)]
pub struct Said {
    pub text: String,
    pub timing: Vec<&'static str>,
    pub whose: Vec<String>,
}

/// What `recommend` prints at most (its `--top` default).
const TOP: usize = 15;

fn message(e: Error) -> String {
    match e {
        Error::Invalid(m) | Error::Failed(m) | Error::Interrupted(m) => m,
    }
}

/// The answer to `json` (a [`PageRequest`]), as JSON.
pub fn answer_json(json: &str) -> String {
    let answer = match PageRequest::parse(json).and_then(|r| answer(&r)) {
        Ok(ranking) => Answer::Ranked {
            said: Said {
                text: ranking.text(TOP),
                timing: ranking.rows.iter().map(|r| r.timing()).collect(),
                whose: ranking
                    .rows
                    .iter()
                    .map(|r| r.implementation_sentence())
                    .collect(),
            },
            ranking: Box::new(ranking),
        },
        Err(e) => Answer::Refused { error: message(e) },
    };
    serde_json::to_string(&answer)
        .unwrap_or_else(|e| format!("{{\"error\":\"the answer did not serialize: {e}\"}}"))
}

fn profiles(files: &[String]) -> Result<energy::Profiles, Error> {
    let mut profiles = energy::Profiles::builtin().map_err(Error::failed)?;
    for (i, text) in files.iter().enumerate() {
        profiles
            .add_file(&format!("profile file {}", i + 1), text)
            .map_err(Error::invalid)?;
    }
    Ok(profiles)
}

/// The ranking `recommend` prints for `req`, with an empty results store.
pub fn answer(req: &PageRequest) -> Result<RankingSummary, Error> {
    let profiles = profiles(&req.profiles)?;
    let links = link::Catalogue::builtin().map_err(Error::failed)?;
    let ask = req.engine()?;
    let facts = Facts::shipped(&profiles, &links, &ask.device)?;
    if facts.device_times.is_none() {
        return Err(Error::invalid(format!(
            "device '{}' has no simulated target: its seal times would be this machine's, which a page cannot measure; run `ciphermeter recommend`",
            ask.device
        )));
    }
    let ranking = rank(
        &ask,
        facts,
        &PageSealer,
        &mut WithoutSessions,
        &mut |_, _, _| {},
    )?;
    ranking.require_ranked()?;
    Ok(ranking.summary(&ask))
}

/// The names the page's form offers: devices the page can answer for
/// (those with a simulated target, the user's profile files' too), links
/// and batteries.
#[derive(Serialize)]
pub struct Choices {
    pub devices: Vec<String>,
    pub links: Vec<String>,
    pub batteries: Vec<String>,
}

/// [`Choices`] as JSON, for a JSON list of profile files' texts.
pub fn choices_json(json: &str) -> String {
    let found = serde_json::from_str::<Vec<String>>(json)
        .map_err(|e| Error::invalid(format!("profile files: {e}")))
        .and_then(|files| choices(&files));
    match found {
        Ok(c) => serde_json::to_string(&c),
        Err(e) => serde_json::to_string(&Answer::Refused { error: message(e) }),
    }
    .unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
}

pub fn choices(files: &[String]) -> Result<Choices, Error> {
    let profiles = profiles(files)?;
    let links = link::Catalogue::builtin().map_err(Error::failed)?;
    Ok(Choices {
        devices: profiles
            .devices
            .iter()
            .filter(|d| d.simulated_target.is_some())
            .map(|d| d.name.clone())
            .collect(),
        links: links.links().iter().map(|l| l.name.clone()).collect(),
        batteries: profiles.batteries.iter().map(|b| b.name.clone()).collect(),
    })
}
