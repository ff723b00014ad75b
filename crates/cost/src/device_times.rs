//! Device-level seal times from the store: the newest stored simulation of a
//! microcontroller target (`mcu`, `run --mcu`) over the shipped table, as
//! `cost_engine::device_times` combines them.

use device_facts::cycle_model::timing::Board;
use energy::Device;
use serde_json::Value;
use store::Store;
use store::conventions::MCU;

use crate::Error;
pub use cost_engine::cpu_source::{ConstantTime, CpuSource, LEAKS};
pub use cost_engine::device_times::*;

/// The newest stored simulation of `target`, at the target's own clock.
pub fn load(store: &Store, target: device_facts::Target) -> Result<Option<DeviceTimes>, Error> {
    stored(store, target, target.clock_hz() as f64, None, None)?
        .map(DeviceTimes::with_verdicts)
        .transpose()
}

/// A device's times: a stored simulation made from the same firmware
/// revision (this checkout's, else the shipped table's), over the shipped
/// table; none for a device no simulator runs.
pub fn for_device(store: &Store, device: &Device) -> Result<Option<DeviceTimes>, Error> {
    let firmware = device_facts::firmware_dir();
    DeviceTimes::for_device(device, &mut |l| {
        let checkout = device_facts::cost_table::firmware_revision(&firmware, l.target).ok();
        let revision = checkout.or_else(|| l.revision.clone());
        stored(store, l.target, l.clock_hz, revision.as_deref(), l.part)
    })
}

/// Rows of the newest stored run of `target`; with `revision`, only a run
/// that recorded the same firmware revision; with `part`, each row's
/// instruction mix priced on that part's memory.
fn stored(
    store: &Store,
    target: device_facts::Target,
    clock_hz: f64,
    revision: Option<&str>,
    part: Option<&Board>,
) -> Result<Option<DeviceTimes>, Error> {
    let Some((run, rows)) = store.latest_section(MCU, target.name())? else {
        return Ok(None);
    };
    if let Some(want) = revision {
        let env = store.run(run)?.environment;
        let made_from = env
            .get("firmware_revisions")
            .and_then(|r| r.get(target.name()))
            .and_then(Value::as_str);
        if made_from != Some(want) {
            return Ok(None);
        }
    }
    let rows = rows.iter().map(|r| McuRow {
        subject: &r.subject,
        operation: &r.operation,
        failed: r.metric == store::conventions::FAILURE,
        size_bytes: r.size_bytes,
        value: r.value,
        data: &r.data,
    });
    Ok(Some(DeviceTimes::from_rows(
        target, run, rows, clock_hz, part,
    )))
}
