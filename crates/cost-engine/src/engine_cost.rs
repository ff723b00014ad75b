//! A scheme sealed with the device's hardware engine (`device_facts::engine`):
//! the device's measured seal path with the engine's primitives taken out
//! (their software rows of the same implementation, measured alone at the
//! message's length) and the engine's published time put in; what the
//! engine does not do (GCM's GHASH on an AES-only engine) stays software,
//! costed from the same table (GCM less CTR). Labelled `published`.

use crate::Error;
use crate::engine_use::EngineUse;
use crate::scheme_cost::{SchemeCost, Setting};
use device_facts::Implementation;
use device_facts::cost_table::{CostTable, interpolate};
use device_facts::engine::{Engine, SoftwareGhash};

/// A scheme's rows on the device, as `recommend` ranks them and `energy`
/// picks among them: one per engine that does part of it, then `cost` itself
/// with its per-primitive choice. A row without the device's own time has
/// no engine rows.
pub fn device_rows(
    mut cost: SchemeCost,
    table: Option<&CostTable>,
    engines: &[Engine],
    setting: &Setting,
) -> Result<Vec<SchemeCost>, Error> {
    let mut rows = Vec::new();
    if let (Some(table), true) = (table, cost.cpu_source.is_device()) {
        let name = cost.name().to_string();
        cost.implementation =
            crate::implementation_choice::choose(table, &name, cost.plaintext_bytes);
        for engine in engines {
            rows.extend(with_engine(&cost, engine, table, setting)?);
        }
    }
    rows.push(cost);
    Ok(rows)
}

/// The implementations measured on the device's core, which each row's
/// per-primitive choice and engine rows read; none without a simulated target.
pub fn implementations_table(device: &energy::Device) -> Result<Option<CostTable>, Error> {
    match crate::device_times::device_target(device)? {
        Some(target) => crate::device_times::shipped_for(device, target),
        None => Ok(None),
    }
}

/// The device's hardware engines when `--impl` allows them, else none.
pub fn engines(device: &energy::Device, hardware: bool) -> Result<Vec<Engine>, Error> {
    Ok(match hardware {
        true => device_facts::engine::of_device(&device.name)?,
        false => Vec::new(),
    })
}

/// `cost` (a device-measured row) with `engine` doing what it can of the
/// scheme's primitives, or none where the engine does none of them.
pub fn with_engine(
    cost: &SchemeCost,
    engine: &Engine,
    table: &CostTable,
    setting: &Setting,
) -> Result<Option<SchemeCost>, Error> {
    let ids = device_facts::algorithms::catalogue_ids(cost.name());
    let bytes = cost.plaintext_bytes;
    let clock_hz = setting.device.clock_mhz.value * 1e6;
    // The cheapest measured seal path each implementation gives it.
    let mut best: Option<(f64, EngineParts)> = None;
    for &(seal_us, imp) in &cost.seal_paths {
        let Some(parts) = parts_of(engine, table, &ids, imp, bytes) else {
            continue;
        };
        let software = (seal_us * 1e-6 * clock_hz - parts.replaced).max(0.0) + parts.ghash;
        let total = software + parts.engine;
        if best.as_ref().is_none_or(|(t, _)| total < *t) {
            best = Some((
                total,
                EngineParts {
                    software,
                    imp,
                    ..parts
                },
            ));
        }
    }
    let Some((total, parts)) = best else {
        return Ok(None);
    };
    let mut row = cost.with_cpu_us(total / clock_hz * 1e6, setting)?;
    let cannot = engine.cannot.iter().map(|l| l.what.clone()).collect();
    row.engine = Some(EngineUse {
        engine: engine.engine.clone(),
        engine_title: engine.title.clone(),
        driver: engine.driver.clone(),
        sources: parts.sources,
        engine_cycles: parts.engine,
        software_cycles: parts.software,
        software_ghash_cycles: parts.ghash_shown,
        software_implementation: parts.imp.name().to_string(),
        cannot,
    });
    row.cpu_source = crate::cpu_source::CpuSource::Device(format!(
        "{}; the engine's part from published figures ({}), the software around it \
         simulated ({} on the device's core)",
        match &cost.cpu_source {
            crate::cpu_source::CpuSource::Device(d) => d.as_str(),
            _ => "device",
        },
        engine.title,
        parts.imp.label()
    ));
    Ok(Some(row))
}

/// The cycles an engine takes over and adds for one implementation.
struct EngineParts {
    /// The software primitives' cycles the engine replaces.
    replaced: f64,
    /// The engine's cycles.
    engine: f64,
    /// GHASH measured on the device, added to the software's cycles.
    ghash: f64,
    /// GHASH in software, whether measured or inside a published figure;
    /// none where the engine does all it takes on.
    ghash_shown: Option<f64>,
    software: f64,
    imp: Implementation,
    sources: Vec<String>,
}

/// What `engine` does of the scheme's primitives `ids`, against `imp`'s
/// rows measured alone; none if it does none, or a primitive it does has
/// no row of `imp` to take out.
fn parts_of(
    engine: &Engine,
    table: &CostTable,
    ids: &[String],
    imp: Implementation,
    bytes: usize,
) -> Option<EngineParts> {
    let alone = |id: &str, imp: Implementation| -> Option<f64> {
        let op = device_facts::algorithms::find(id)?
            .family
            .data_operation()?;
        let entry = table.entry_of(id, imp, op)?;
        interpolate(&entry.cycle_points(), bytes)
    };
    let mut parts = EngineParts {
        replaced: 0.0,
        engine: 0.0,
        ghash: 0.0,
        ghash_shown: None,
        software: 0.0,
        imp,
        sources: Vec::new(),
    };
    let mut any = false;
    for id in ids {
        let Ok(part) = engine.part(id, bytes) else {
            continue;
        };
        parts.replaced += alone(id, imp)?;
        match part.ghash {
            SoftwareGhash::None => {}
            SoftwareGhash::Included(c) => {
                *parts.ghash_shown.get_or_insert(0.0) += c;
            }
            SoftwareGhash::ToMeasure => {
                // Mbed TLS's GHASH on this core: its GCM less its CTR mode.
                let ctr = id.replace("-gcm", "-ctr");
                let c = (alone(id, Implementation::MbedTls)?
                    - alone(&ctr, Implementation::MbedTls)?)
                .max(0.0);
                parts.ghash += c;
                *parts.ghash_shown.get_or_insert(0.0) += c;
            }
        }
        parts.engine += part.cycles;
        for s in part.sources {
            if !parts.sources.contains(&s) {
                parts.sources.push(s);
            }
        }
        any = true;
    }
    any.then_some(parts)
}
