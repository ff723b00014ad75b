//! The five studies, reproduced in-process in their quick or full form; each
//! typed report is stored as it finishes, a failure with its reason.

use cost::Error;
use serde_json::json;
use store::conventions::REPRODUCTION;
use store::{Artifact, RunId, Store};
use studies::StudyReport;

/// The studies in page order: the store's artifact name and how to run each.
pub const STUDIES: [&str; 5] = [
    "rf-transmission",
    "serialization",
    "file-sizes",
    "tiny-security",
    "lora",
];

/// Runs one study by its name.
pub fn reproduce(study: &str, quick: bool) -> Result<StudyReport, Error> {
    Ok(match study {
        "rf-transmission" => StudyReport::RfTransmission(studies::rf_transmission::run(
            &studies::rf_transmission::Options {
                quick,
                link: "slice-of-radio".into(),
                data_dir: None,
            },
        )?),
        "serialization" => StudyReport::Serialization(studies::serialization::run(
            &studies::serialization::Options { quick },
        )?),
        "file-sizes" => {
            let max_size = if quick { 8 } else { 128 } * studies::file_sizes::MIB;
            let opts = studies::file_sizes::Options {
                max_size,
                backend: None,
            };
            let report = studies::file_sizes::run(&opts, &mut |_| {})?;
            if report.interrupted {
                return Err(Error::Interrupted("interrupted during study 002".into()));
            }
            StudyReport::FileSizes(Box::new(report))
        }
        "tiny-security" => StudyReport::TinySecurity(studies::tiny_security::run(
            &studies::tiny_security::Options {
                quick,
                iterations: None,
            },
        )?),
        // Study 004 on its board's stand-in, from the shipped device table.
        "lora" => StudyReport::LoraDevice(Box::new(studies::lora_device::run(
            studies::lora_device::study_target()?,
            &studies::lora::Options { quick, bytes: 100 },
        )?)),
        other => return Err(Error::invalid(format!("no study named {other}"))),
    })
}

/// Runs and stores one study. Returns the failure's reason, if it failed.
pub fn reproduce_and_store(
    store: &Store,
    run: RunId,
    study: &str,
    quick: bool,
) -> Result<Option<String>, Error> {
    let (title, data, failure) = match reproduce(study, quick) {
        Ok(report) => (report.title(), json!({ "report": report }), None),
        Err(Error::Interrupted(why)) => return Err(Error::Interrupted(why)),
        Err(e) => (
            format!("reproduce {study}"),
            json!({ "failed": e.to_string() }),
            Some(e.to_string()),
        ),
    };
    store.add_artifact(
        run,
        &Artifact {
            kind: REPRODUCTION.into(),
            name: study.into(),
            title,
            data,
        },
    )?;
    Ok(failure)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Study 004 is stored at device level, for the board the study used, and
    /// reads back from its stored JSON as the report reads it.
    #[test]
    fn lora_is_stored_at_device_level_and_reads_back() {
        let report = reproduce("lora", true).unwrap();
        let stored = json!({ "report": report });
        let back: StudyReport = serde_json::from_value(stored["report"].clone()).unwrap();
        let StudyReport::LoraDevice(r) = back else {
            panic!("study 004 is not the device-level report");
        };
        assert_eq!(r.target, device_facts::Target::CortexM0plus);
        assert_eq!(r.rows.len(), 11);
        assert_eq!(r.findings.len(), 5);
        assert_eq!(stored["report"]["study"], "lora-device");
    }
}
