//! One request answered as `recommend --format json` answers it: the
//! built-in profiles and links (plus the user's profile files), the
//! device's shipped seal times, the page's sealer, no handshakes.

use cost_engine::Error;
use cost_engine::rank::{Facts, WithoutSessions, rank};
use serde::Serialize;

use crate::messages::PageSealer;
use crate::request::PageRequest;

/// What the page shows: the ranking, or why there is none.
#[derive(Serialize)]
#[serde(untagged)]
pub enum Answer {
    Ranking(Box<cost_engine::summary::RankingSummary>),
    Refused { error: String },
}

/// The answer to `json` (a [`PageRequest`]), as JSON.
pub fn answer_json(json: &str) -> String {
    let answer = match PageRequest::parse(json).and_then(|r| answer(&r)) {
        Ok(summary) => Answer::Ranking(Box::new(summary)),
        Err(e) => Answer::Refused {
            error: match e {
                Error::Invalid(m) | Error::Failed(m) | Error::Interrupted(m) => m,
            },
        },
    };
    serde_json::to_string(&answer)
        .unwrap_or_else(|e| format!("{{\"error\":\"the answer did not serialize: {e}\"}}"))
}

/// The ranking `recommend` prints for `req`, with an empty results store.
pub fn answer(req: &PageRequest) -> Result<cost_engine::summary::RankingSummary, Error> {
    let mut profiles = energy::Profiles::builtin().map_err(Error::failed)?;
    for (i, text) in req.profiles.iter().enumerate() {
        profiles
            .add_file(&format!("profile file {}", i + 1), text)
            .map_err(Error::invalid)?;
    }
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
