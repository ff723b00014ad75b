//! `recommend`: what the ranking loads (profiles and links from
//! `--data-dir`, the store's stored runs, a board's `--cost-table`), the
//! engine's answer (`cost_engine::rank`: rows, ranks, tie, exclusions, duty
//! cycle, frame fit) with readings sealed and, for a device no simulator
//! runs, timed on this host (`message::Sealer`), and key establishments
//! (`session::Handshakes`). Its JSON and text are the engine's
//! (`cost_engine::summary`, `render`), so every caller shows the same rows.

use std::ops::{Deref, DerefMut};
use std::path::PathBuf;

use store::Store;

use crate::Error;
use crate::data::{links, profiles};
use crate::message::Sealer;
use crate::session::{Handshakes, SessionAnswer};
pub use cost_engine::choices::{Need, candidates};
use cost_engine::rank::Facts;
pub use cost_engine::ranking::{percent_of, shared_ranks};
pub use cost_engine::request::Request as Question;
pub use cost_engine::request::containers;
pub use cost_engine::summary::{Excluded, RankedRow, SealPath};

/// A ranking as data: what `recommend --format json` prints and the report shows.
pub type RankingSummary = cost_engine::summary::RankingSummary<SessionAnswer>;

/// One ranking question (the CLI's flags or the campaign's plan): the
/// engine's, as values, and the files the host reads for it.
#[derive(Clone, Debug)]
pub struct Request {
    pub question: Question,
    /// Extra or replacement data files (`--data-dir`).
    pub data_dir: Option<PathBuf>,
    /// A board's measured cost table (`mcu --board … --cost-table FILE`),
    /// whose builds are costed from it instead of the simulation.
    pub cost_table: Option<PathBuf>,
}

/// The engine's answer with the host's key establishments; its fields and
/// sentences are the engine's (`cost_engine::rank::Ranking`).
pub struct Ranking(pub cost_engine::rank::Ranking<SessionAnswer>);

impl Deref for Ranking {
    type Target = cost_engine::rank::Ranking<SessionAnswer>;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl DerefMut for Ranking {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

impl Ranking {
    /// The ranking as plain rows, for JSON, the store and the report.
    pub fn summary(&self, req: &Request) -> RankingSummary {
        self.0.summary(&req.question)
    }
}

/// Costs every candidate and ranks them. `progress` hears each scheme's name.
pub fn rank(
    req: &Request,
    store: &Store,
    quick: bool,
    progress: &mut dyn FnMut(usize, usize, &str),
) -> Result<Ranking, Error> {
    rank_names(req, store, &candidates(req.question.need), quick, progress)
}

/// [`rank`] over the given scheme names: the device's times loaded (the
/// store's runs over the shipped table, a board's table laid over them),
/// then the engine's answer.
pub fn rank_names(
    req: &Request,
    store: &Store,
    names: &[String],
    quick: bool,
    progress: &mut dyn FnMut(usize, usize, &str),
) -> Result<Ranking, Error> {
    let prof = profiles(req.data_dir.as_deref())?;
    let cat = links(req.data_dir.as_deref())?;
    let ask = &req.question;
    let sealer = Sealer { quick };
    // What the request names is judged before the store is read.
    cost_engine::rank::check(ask, &prof, &cat, &sealer)?;
    let device = prof.device(&ask.device).map_err(Error::invalid)?;
    let mut device_times = crate::device_times::for_device(store, device)?;
    if let Some(path) = &req.cost_table {
        let table = device_facts::cost_table::read_file(path)?;
        let times = device_times.ok_or_else(|| {
            Error::invalid(format!(
                "--cost-table: device '{}' has no simulated target to measure on a board",
                device.name
            ))
        })?;
        device_times = Some(times.prefer_measured(&table)?);
    }
    let facts = Facts {
        profiles: &prof,
        links: &cat,
        device_times,
    };
    cost_engine::rank::rank_names(ask, facts, names, &sealer, &mut Handshakes, progress)
        .map(Ranking)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scheme_cost::SchemeCost;
    use cost_engine::ranking::{energy_range_uj, order, tie_at_the_top};

    #[test]
    fn small_leads_keep_two_significant_digits() {
        assert_eq!(percent_of(146.9, 406_039.0), "0.036 %");
        assert_eq!(percent_of(1.0, 50.0), "2.0 %");
        assert_eq!(percent_of(1.0, 6.0), "17 %");
        assert_eq!(percent_of(0.0, 8.0), "0 %");
    }

    #[test]
    fn overlapping_ranges_share_a_rank_and_separate_ones_do_not() {
        let ranges = [(9.0, 11.0), (10.5, 12.0), (11.5, 13.0), (20.0, 20.0)];
        // The second overlaps the first; the third overlaps only the second,
        // so it starts a new rank; the fourth is far away.
        assert_eq!(shared_ranks(&ranges), vec![1, 1, 3, 4]);
        assert_eq!(shared_ranks(&[(1.0, 1.0), (1.0, 1.0)]), vec![1, 1]);
        assert_eq!(shared_ranks(&[(1.0, 1.0), (1.5, 1.5)]), vec![1, 2]);
    }

    fn question() -> Question {
        Question {
            device: "esp32".into(),
            link: "lorawan-eu868-dr3".into(),
            payload: "chain:1".into(),
            serialization: None,
            min_security: 128,
            need: Need::Integrity,
            allow_legacy: false,
            allow_leaky: false,
            containers: vec![seal::Container::Json.into()],
            compression: None,
            battery: "2xAA".into(),
            interval: "10m".into(),
            session_messages: None,
            implementations: Vec::new(),
            hardware: true,
            protocol: Default::default(),
        }
    }

    fn request() -> Request {
        Request {
            question: question(),
            data_dir: None,
            cost_table: None,
        }
    }

    /// A sample error, so that these tests do not hang on the shipped validation.
    fn m4_error(median: f64) -> device_facts::cycle_model::validation::CoreError {
        device_facts::cycle_model::validation::CoreError {
            target: device_facts::Target::CortexM4,
            figures: 15,
            median,
            max: 0.2,
        }
    }

    /// Two nRF52840 rows (a real simulated AES-128-CCM row and a copy) whose
    /// energies differ by 3 %, half of it CPU: 100 and 103 µJ, CPU 50 and
    /// 53 µJ. Each carries `error` as its cycle model's.
    fn two_cortex_m4_rows(
        error: Option<device_facts::cycle_model::validation::CoreError>,
    ) -> Vec<SchemeCost> {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("r.sqlite")).unwrap();
        let req = Request {
            question: Question {
                device: "nrf52840".into(),
                hardware: false,
                ..question()
            },
            ..request()
        };
        let names = vec!["aead:aes-128-ccm".to_string()];
        let r = rank_names(&req, &store, &names, true, &mut |_, _, _| {}).unwrap();
        let base = r.ranked[0].clone();
        assert!(
            base.cpu_source.is_device(),
            "{}",
            base.cpu_source.describe()
        );
        [(100e-6, 50e-6), (103e-6, 53e-6)]
            .into_iter()
            .map(|(message_j, cpu_j)| {
                let mut row = base.clone();
                let e = row.energy.as_mut().unwrap();
                (e.message_j, e.cpu_j) = (message_j, cpu_j);
                row.cpu_model_error = error.clone();
                row
            })
            .collect()
    }

    /// A simulated Cortex-M time is an estimate: its range is ± the model's
    /// median error on the CPU energy, so rows closer than that share a rank
    /// and the tie says why. Unvalidated, or a smaller error, they do not.
    #[test]
    fn rows_within_the_cycle_models_error_share_a_rank() {
        let mut rows = two_cortex_m4_rows(Some(m4_error(0.06)));
        let (lo, hi) = energy_range_uj(&rows[0]);
        assert!(
            (lo - 97.0).abs() < 1e-9 && (hi - 103.0).abs() < 1e-9,
            "{lo} {hi}"
        );
        let mut ranks = order(&mut rows, 600.0);
        assert_eq!(ranks, vec![1, 1]);
        let tie = tie_at_the_top(&mut rows, &mut ranks, 600.0, None).expect("a tie");
        assert!(
            tie.sentence.contains(
                "within the cycle model's error on their CPU times (median error 6 % against 15 published board figures on the Cortex-M4)"
            ),
            "{}",
            tie.sentence
        );
        let ranking = Ranking(cost_engine::rank::Ranking {
            ranked: rows,
            ranks,
            excluded: Vec::new(),
            interval_s: 600.0,
            duty_cycle: None,
            frame_fit: None,
            sessions: Vec::new(),
            post_quantum: None,
            tie: Some(tie),
            build: None,
            radio: String::new(),
            radio_basis: String::new(),
        });
        let summary = ranking.summary(&Request {
            question: Question {
                device: "nrf52840".into(),
                ..question()
            },
            ..request()
        });
        assert_eq!(summary.rows[1].rank, 1);
        assert_eq!(summary.rows[1].cpu_model_error, Some(0.06));
        assert!(summary.explanation.iter().any(|l| l.contains("Cortex-M4")));

        for error in [None, Some(m4_error(0.01))] {
            let mut rows = two_cortex_m4_rows(error.clone());
            let mut ranks = order(&mut rows, 600.0);
            assert_eq!(ranks, vec![1, 2], "{error:?}");
            assert!(tie_at_the_top(&mut rows, &mut ranks, 600.0, None).is_none());
        }
        let (lo, hi) = energy_range_uj(&two_cortex_m4_rows(None)[0]);
        assert_eq!((lo, hi), (100.0, 100.0), "no error is invented");
    }

    /// Within 1 % the old reason stands, whatever the model's error.
    #[test]
    fn a_tie_within_one_percent_keeps_its_reason() {
        let mut rows = two_cortex_m4_rows(Some(m4_error(0.06)));
        let e = rows[1].energy.as_mut().unwrap();
        e.message_j = 100.5e-6;
        let mut ranks = order(&mut rows, 600.0);
        let tie = tie_at_the_top(&mut rows, &mut ranks, 600.0, None).unwrap();
        assert!(
            tie.sentence.contains("below what the model resolves"),
            "{}",
            tie.sentence
        );
    }

    #[test]
    fn an_unknown_candidate_is_excluded_with_its_reason_not_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("r.sqlite")).unwrap();
        let req = request();
        let names = vec!["aead:no-such-cipher".to_string()];
        let r = rank_names(&req, &store, &names, true, &mut |_, _, _| {}).unwrap();
        assert!(r.ranked.is_empty());
        let err = r.require_ranked().unwrap_err().to_string();
        assert!(
            err.starts_with("no scheme meets the constraints (1 excluded)"),
            "{err}"
        );
        assert_eq!(r.excluded.len(), 1, "{:?}", r.excluded);
        assert_eq!(r.excluded[0].0, "aead:no-such-cipher");
        assert!(
            r.excluded[0].1.contains("cannot be built"),
            "{:?}",
            r.excluded
        );
    }

    #[test]
    fn a_scheme_seal_refuses_is_never_ranked() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("r.sqlite")).unwrap();
        let req = Request {
            question: Question {
                need: Need::Confidentiality,
                ..question()
            },
            ..request()
        };
        assert!(candidates(req.question.need).contains(&"etm:salsa20+hmac-sha256".to_string()));
        let names = vec!["etm:salsa20+hmac-sha256".to_string()];
        let r = rank_names(&req, &store, &names, true, &mut |_, _, _| {}).unwrap();
        assert!(r.ranked.is_empty());
        assert!(r.excluded[0].1.contains("64-bit nonce"), "{:?}", r.excluded);

        // Asked for, it is ranked after every safe scheme, even one that sends
        // 40 bytes more (a 16-byte IV, CBC padding and a 64-byte tag), marked
        // with why.
        let req = Request {
            question: Question {
                allow_legacy: true,
                allow_leaky: false,
                ..req.question
            },
            ..req
        };
        let names = vec![
            "etm:salsa20+hmac-sha256".to_string(),
            "etm:aes-256-cbc+hmac-sha512".to_string(),
        ];
        let r = rank_names(&req, &store, &names, true, &mut |_, _, _| {}).unwrap();
        let rows = r.summary(&req).rows;
        assert_eq!(rows[0].scheme, "etm:aes-256-cbc+hmac-sha512");
        assert!(rows[0].sealed_bytes > rows[1].sealed_bytes);
        assert_eq!((rows[1].rank, rows[1].status.as_str()), (2, "insecure"));
        assert!(
            rows[1]
                .status_reason
                .as_deref()
                .unwrap()
                .contains("64-bit nonce")
        );
    }
}
