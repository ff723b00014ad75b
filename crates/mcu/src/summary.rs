//! What `mcu` tells the user after a run besides the table: the builds that
//! failed, and the known answers that failed on the device, with reasons.

use crate::McuResult;

/// "ALG on TARGET: build failed: why", one per algorithm that did not build or run.
pub fn build_notes(rows: &[McuResult]) -> Vec<String> {
    rows.iter()
        .filter(|r| r.operation == "build" || r.operation == "run")
        .map(|r| {
            format!(
                "{} on {}: {} failed: {}",
                r.algorithm,
                r.target,
                r.operation,
                r.error.as_deref().unwrap_or("")
            )
        })
        .collect()
}

/// One line per algorithm whose known answer failed on the device, with the
/// device's reason; none when every known answer passed.
pub fn known_answer_failures(rows: &[McuResult]) -> Option<String> {
    let mut failed: Vec<(&str, &str)> = Vec::new();
    for r in rows {
        if let Some(e) = r.error.as_deref().filter(|e| e.contains("known-answer"))
            && !failed.iter().any(|(a, _)| *a == r.algorithm)
        {
            failed.push((&r.algorithm, e));
        }
    }
    let target = rows.first().map(|r| r.target.name()).unwrap_or_default();
    (!failed.is_empty()).then(|| {
        let lines: Vec<String> = failed
            .iter()
            .map(|(alg, why)| format!("  {alg}: {why}"))
            .collect();
        format!(
            "known-answer test FAILED on {target} for {} algorithm(s):\n{}",
            failed.len(),
            lines.join("\n")
        )
    })
}
