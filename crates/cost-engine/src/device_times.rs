//! Device-level seal times (µs by reading size) and code sizes, from a
//! target's shipped table or the rows of a simulation the host stored
//! (`cost::device_times` reads the store), and which target simulates a
//! device profile's CPU.

use std::collections::BTreeMap;

use device_facts::Implementation;
use device_facts::constant_time::Verdict;
use device_facts::cycle_model::Mix;
use device_facts::cycle_model::estimate::price;
use device_facts::cycle_model::timing::{Board, for_target, part};
use device_facts::cycle_model::validation::{CoreError, core_error};
use energy::Device;
use seal::Scheme;
use seal::host::container::MessageContainer;
use serde_json::Value;

use crate::Error;
use crate::cpu_source::{ConstantTime, LEAKS};

/// The microcontroller target that runs a device profile's instruction
/// stream, as the profile names it (`simulated_target`); none for a board
/// without one. A name no simulator knows is an error in the profile.
pub fn device_target(device: &Device) -> Result<Option<device_facts::Target>, Error> {
    device
        .simulated_target
        .as_ref()
        .map(|t| {
            t.value.parse::<device_facts::Target>().map_err(|e| {
                Error::invalid(format!(
                    "device '{}': simulated_target {}: {e}",
                    device.name, t.value
                ))
            })
        })
        .transpose()
}

/// The device's own RAM, from its profile.
pub fn device_ram(device: &Device) -> Option<u64> {
    device.ram_kib.as_ref().map(|r| u64::from(r.value) * 1024)
}

/// `target`'s shipped table as it holds for `device`: its estimates priced
/// on the device's part, and a build that needed more RAM on the simulated
/// board than the device has does not fit it.
pub fn shipped_for(
    device: &Device,
    target: device_facts::Target,
) -> Result<Option<device_facts::cost_table::CostTable>, Error> {
    let table = match (
        device_facts::cost_table::shipped(target)?,
        device_part(device, target)?,
    ) {
        (Some(t), Some(board)) => Some(t.priced_on(board)?),
        (t, _) => t,
    };
    Ok(match device_ram(device) {
        Some(ram) => table.map(|t| t.for_device(&device.name, ram)),
        None => table,
    })
}

/// Where a device's counts came from.
#[derive(Clone, Debug, PartialEq)]
pub enum Origin {
    /// A simulation stored by `mcu` or `run --mcu`.
    Stored { run: i64 },
    /// The table shipped in this build (data/device-costs/TARGET.json).
    Table { firmware_revision: String },
}

/// Each build's verdict on `target`, from the shipped verdicts.
fn verdicts(target: device_facts::Target) -> Result<BTreeMap<String, ConstantTime>, Error> {
    let Some(table) = device_facts::constant_time::shipped(target)? else {
        return Ok(BTreeMap::new());
    };
    Ok(table
        .reports
        .iter()
        .map(|r| {
            let leak = r.first_leak();
            let verdict = ConstantTime {
                verdict: r.verdict.as_str().to_string(),
                leak: leak.filter(|_| r.verdict == Verdict::Leaks),
                warning_count: r.operations.iter().map(|o| o.warnings.len()).sum(),
                not_checked_because: r.reason.clone(),
            };
            (r.build.clone(), verdict)
        })
        .collect())
}

/// Device-level seal counts by reading size, code size and stack per firmware
/// id for one target, turned into time at the device's own clock.
pub struct DeviceTimes {
    pub target: device_facts::Target,
    pub origin: Origin,
    /// The clock the counts are divided by: the device profile's.
    pub clock_hz: f64,
    /// Seal counts by (build id, operation): `seal-json`, `seal-binary`,
    /// `seal-cose` for the core's path; `seal` for study 003's envelope. A
    /// build id is the scheme's name, with `@IMPLEMENTATION` for another
    /// backend of the sealing core than RustCrypto's. Each list is sorted by
    /// size once, when it is read in, as `interpolate` needs.
    seal: BTreeMap<(String, String), Vec<(usize, u64)>>,
    code: BTreeMap<String, i64>,
    stack: BTreeMap<String, u32>,
    /// Each build's whole RAM need on the simulated board.
    ram: BTreeMap<String, u32>,
    /// Why a build has no counts: it does not fit (with sizes), or failed.
    failures: BTreeMap<String, String>,
    /// The seal counts are cycle estimates from the instruction mix (Cortex-M).
    /// The part whose flash and caches priced the estimates (the device's
    /// own, `parts.toml`), or none: the simulated board's.
    priced_on: Option<String>,
    /// The device's own core where the target only stands in for it.
    stand_in_for: Option<String>,
    estimated: bool,
    /// The cycle model's validated error on this core, read once with the
    /// verdicts; none for exact counts or a core no published figure checks.
    model_error: Option<CoreError>,
    /// The implementations a scheme may be costed with (`--impl`); each
    /// scheme is costed with the fastest of them whose whole seal path was
    /// measured here.
    allowed: Vec<Implementation>,
    /// Each build's constant-time verdict on this target
    /// (`data/constant-time/`, `ciphermeter ct`). One that leaks is left out
    /// of every choice, as a legacy scheme is, unless [`DeviceTimes::allow_leaky`].
    verdicts: BTreeMap<String, ConstantTime>,
    allow_leaky: bool,
    /// Builds whose counts were measured on a board (`--cost-table`), with
    /// what each row's CPU time then says.
    measured: BTreeMap<String, String>,
}

/// What the host is asked for a stored simulation ([`DeviceTimes::for_device`]).
pub struct Lookup<'a> {
    pub target: device_facts::Target,
    pub clock_hz: f64,
    /// The firmware the run must have been made from (the shipped table's).
    pub revision: Option<String>,
    /// The part whose memory prices the run's instruction mixes.
    pub part: Option<&'a Board>,
}

/// One stored row of a device run, as [`DeviceTimes::from_rows`] reads it.
pub struct McuRow<'a> {
    pub subject: &'a str,
    pub operation: &'a str,
    /// The build failed or did not fit (its reason in `data`'s `error`).
    pub failed: bool,
    pub size_bytes: Option<i64>,
    pub value: f64,
    pub data: &'a Value,
}

impl DeviceTimes {
    /// These times with the target's shipped constant-time verdicts and the
    /// cycle model's validated error on its core, read once.
    pub fn with_verdicts(mut self) -> Result<DeviceTimes, Error> {
        self.verdicts = verdicts(self.target)?;
        self.model_error = core_error(self.target).filter(|_| self.estimated);
        Ok(self)
    }

    /// A device's times: a simulation `stored` holds for the lookup (the
    /// host's store; the revision there is the shipped table's, which the
    /// host may replace with its checkout's), over the shipped table; none
    /// for a device no simulator runs.
    pub fn for_device(
        device: &Device,
        stored: &mut dyn FnMut(&Lookup) -> Result<Option<DeviceTimes>, Error>,
    ) -> Result<Option<DeviceTimes>, Error> {
        let Some(target) = device_target(device)? else {
            return Ok(None);
        };
        let clock_hz = device.clock_mhz.value * 1e6;
        let part = device_part(device, target)?;
        let table = match (device_facts::cost_table::shipped(target)?, part) {
            (Some(t), Some(board)) => Some(t.priced_on(board)?),
            (t, _) => t,
        };
        let stored = stored(&Lookup {
            target,
            clock_hz,
            revision: table.as_ref().map(|t| t.firmware_revision.clone()),
            part,
        })?;
        let shipped = table.map(|t| Self::from_table(&t, clock_hz));
        // A stored run of the same firmware measured what it measured (the
        // device tier: study 003's schemes); the table covers the rest.
        let times = match (stored, shipped) {
            (Some(stored), Some(shipped)) => Some(stored.over(shipped)),
            (stored, shipped) => stored.or(shipped),
        };
        let times = match device_ram(device) {
            Some(ram) => times.map(|t| t.within_ram(&device.name, ram)),
            None => times,
        };
        let times = times.map(|mut t| {
            t.priced_on = part.map(|b| b.part.clone());
            t.stand_in_for = device.core.as_ref().map(|c| c.value.clone());
            t
        });
        times.map(Self::with_verdicts).transpose()
    }

    /// A device's times from the shipped table alone (nothing stored).
    pub fn shipped(device: &Device) -> Result<Option<DeviceTimes>, Error> {
        Self::for_device(device, &mut |_| Ok(None))
    }

    /// These times for a device with `ram` bytes: a build that needed more
    /// on the simulated board does not fit it, and is a failure that says so
    /// ([`device_facts::cost_table::CostTable::for_device`]'s rule).
    fn within_ram(mut self, device: &str, ram: u64) -> DeviceTimes {
        for (build, &need) in &self.ram {
            if let Some(why) = self.target.beyond_device_ram(device, ram, need.into()) {
                self.seal.retain(|(b, _), _| b != build);
                self.failures.insert(build.clone(), why);
            }
        }
        self
    }

    /// The builds these times have counts or a failure for.
    fn builds(&self) -> std::collections::BTreeSet<String> {
        self.seal
            .keys()
            .map(|(alg, _)| alg.clone())
            .chain(self.failures.keys().cloned())
            .collect()
    }

    /// These counts, and `base`'s for every build these lack.
    fn over(mut self, base: DeviceTimes) -> DeviceTimes {
        let built = self.builds();
        for (key, points) in base.seal {
            if !built.contains(&key.0) {
                self.seal.insert(key, points);
            }
        }
        for (alg, why) in base.failures {
            if !built.contains(&alg) {
                self.failures.insert(alg, why);
            }
        }
        for (alg, size) in base.code {
            self.code.entry(alg).or_insert(size);
        }
        for (alg, stack) in base.stack {
            self.stack.entry(alg).or_insert(stack);
        }
        for (alg, need) in base.ram {
            self.ram.entry(alg).or_insert(need);
        }
        self.estimated |= base.estimated;
        self
    }

    /// No counts yet, every implementation allowed.
    fn empty(target: device_facts::Target, origin: Origin, clock_hz: f64) -> DeviceTimes {
        DeviceTimes {
            target,
            origin,
            clock_hz,
            seal: BTreeMap::new(),
            code: BTreeMap::new(),
            stack: BTreeMap::new(),
            ram: BTreeMap::new(),
            failures: BTreeMap::new(),
            estimated: false,
            priced_on: None,
            stand_in_for: None,
            model_error: None,
            allowed: Implementation::ALL.to_vec(),
            verdicts: BTreeMap::new(),
            allow_leaky: false,
            measured: BTreeMap::new(),
        }
    }

    /// Times from a stored run's rows of `target` (`run`, its id); with
    /// `part`, each row's instruction mix priced on that part's memory.
    pub fn from_rows<'a>(
        target: device_facts::Target,
        run: i64,
        rows: impl IntoIterator<Item = McuRow<'a>>,
        clock_hz: f64,
        part: Option<&Board>,
    ) -> DeviceTimes {
        let mut times = DeviceTimes::empty(target, Origin::Stored { run }, clock_hz);
        for r in rows {
            if r.failed {
                let why = r
                    .data
                    .get("error")
                    .and_then(Value::as_str)
                    .unwrap_or("failed");
                times
                    .failures
                    .insert(r.subject.to_string(), why.to_string());
            }
            if let Some(c) = r.data.get("code_size_bytes").and_then(Value::as_i64) {
                times.code.insert(r.subject.to_string(), c);
            }
            if let Some(st) = r.data.get("stack_bytes").and_then(Value::as_u64) {
                let peak = times.stack.entry(r.subject.to_string()).or_default();
                *peak = (*peak).max(st as u32);
            }
            if let Some(need) = r.data.get("ram_bytes").and_then(Value::as_u64) {
                let peak = times.ram.entry(r.subject.to_string()).or_default();
                *peak = (*peak).max(need as u32);
            }
            if is_seal(r.operation)
                && !r.failed
                && let Some(n) = r.size_bytes
            {
                // Cycles on the device: the estimate where the count is instructions.
                let on_part = part.zip(r.data.get("mix")).and_then(|(board, mix)| {
                    let mix: Mix = serde_json::from_value(mix.clone()).ok()?;
                    Some(price(&mix, for_target(target)?, board).estimate)
                });
                let estimate = on_part.or(r.data.get("cycles_estimate").and_then(Value::as_u64));
                times.estimated |= estimate.is_some();
                let cycles = estimate.unwrap_or(r.value as u64);
                times
                    .seal
                    .entry((r.subject.to_string(), r.operation.to_string()))
                    .or_default()
                    .push((n as usize, cycles));
            }
        }
        for points in times.seal.values_mut() {
            points.sort();
        }
        times
    }

    fn from_table(table: &device_facts::cost_table::CostTable, clock_hz: f64) -> DeviceTimes {
        let origin = Origin::Table {
            firmware_revision: table.firmware_revision.clone(),
        };
        let mut times = DeviceTimes::empty(table.target, origin, clock_hz);
        times.estimated = table.entries.iter().any(|e| !e.cycle_estimates.is_empty());
        let build = |e: &device_facts::cost_table::Entry| {
            let imp = e
                .implementation
                .parse()
                .unwrap_or(Implementation::RustCrypto);
            imp.build_id(&e.algorithm)
        };
        for e in table.entries.iter().filter(|e| e.error.is_some()) {
            let why = e.error.clone().unwrap_or_default();
            times.failures.insert(build(e), why);
        }
        for e in table.entries.iter().filter(|e| e.error.is_none()) {
            if let Some(c) = e.code_size_bytes {
                times.code.insert(build(e), c);
            }
            if let Some(st) = e.stack_bytes {
                let peak = times.stack.entry(build(e)).or_default();
                *peak = (*peak).max(st);
            }
            if let Some(need) = e.ram_bytes {
                let peak = times.ram.entry(build(e)).or_default();
                *peak = (*peak).max(need);
            }
            if is_seal(&e.operation) {
                let mut points = e.cycle_points();
                points.sort();
                times.seal.insert((build(e), e.operation.clone()), points);
            }
        }
        times
    }

    /// These times with the builds of a board's table (`mcu --board …
    /// --cost-table FILE`, `recommend --cost-table FILE`) in place of this
    /// target's: their seal paths, code, stack and RAM, each labelled with
    /// the board. A table of another target, or a simulation's, is refused.
    pub fn prefer_measured(
        mut self,
        table: &device_facts::cost_table::CostTable,
    ) -> Result<DeviceTimes, Error> {
        let Some(on) = &table.measured_on else {
            return Err(Error::invalid(
                "--cost-table: this table holds no board's measurements (no measured_on): \
                 write one with `ciphermeter mcu --board B ALG --serial PORT --cost-table FILE`",
            ));
        };
        if table.target != self.target {
            return Err(Error::invalid(format!(
                "--cost-table: its rows are {}'s ({on}); this device runs on {}",
                table.target, self.target
            )));
        }
        let label = format!(
            "{on}: {} at {} MHz, timed at the device's {} MHz",
            table.counter,
            table.clock_hz as f64 / 1e6,
            self.clock_hz / 1e6
        );
        let board = Self::from_table(table, self.clock_hz);
        let mut measured = std::mem::take(&mut self.measured);
        measured.extend(board.builds().into_iter().map(|b| (b, label.clone())));
        // The board's builds over the simulation's (`over`'s one rule); the
        // simulation's origin, verdicts and choices stay.
        let (origin, verdicts) = (self.origin.clone(), std::mem::take(&mut self.verdicts));
        let (allowed, allow_leaky) = (self.allowed.clone(), self.allow_leaky);
        let (model_error, priced_on) = (self.model_error.clone(), self.priced_on.clone());
        let stand_in_for = self.stand_in_for.clone();
        Ok(DeviceTimes {
            origin,
            verdicts,
            allowed,
            allow_leaky,
            measured,
            model_error,
            priced_on,
            stand_in_for,
            ..board.over(self)
        })
    }

    /// Where `imp`'s counts of `scheme` come from: the board that measured
    /// them, else this target's simulation ([`DeviceTimes::describe`]).
    pub fn describe_build(&self, scheme: &Scheme, imp: Implementation) -> String {
        match self.measured.get(&imp.build_id(scheme.name())) {
            Some(label) => format!("device-level: {label}"),
            None => self.describe(),
        }
    }

    /// The cycle model's validated error on `imp`'s time of `scheme`: none
    /// for a board's count or an exact one, or where no figure checks the core.
    pub fn model_error(&self, scheme: &Scheme, imp: Implementation) -> Option<&CoreError> {
        let measured = self.measured.contains_key(&imp.build_id(scheme.name()));
        self.model_error.as_ref().filter(|_| !measured)
    }

    /// Costs each scheme with these implementations only (`--impl`).
    pub fn restrict(&mut self, allowed: &[Implementation]) {
        self.allowed = allowed.to_vec();
    }

    /// Lets builds that leak be chosen (`--allow-leaky`); each is marked.
    pub fn allow_leaky(&mut self) {
        self.allow_leaky = true;
    }

    /// Where `imp`'s build of `scheme` leaks on this target, if it does.
    pub fn leak(&self, scheme: &Scheme, imp: Implementation) -> Option<&str> {
        self.verdicts
            .get(&imp.build_id(scheme.name()))?
            .leak
            .as_deref()
    }

    /// `imp`'s verdict for `scheme` here: `not checked` when the sweep has none.
    pub fn constant_time(&self, scheme: &Scheme, imp: Implementation) -> ConstantTime {
        self.verdicts
            .get(&imp.build_id(scheme.name()))
            .cloned()
            .unwrap_or_else(|| ConstantTime {
                verdict: Verdict::NotChecked.as_str().to_string(),
                leak: None,
                warning_count: 0,
                not_checked_because: Some(format!(
                    "no verdict for this build on {} (scripts/ct-sweep)",
                    self.target
                )),
            })
    }

    /// The implementations a choice may take for `scheme`: the allowed ones,
    /// less those that leak here unless leaks are allowed.
    fn candidates<'a>(&'a self, scheme: &'a Scheme) -> impl Iterator<Item = Implementation> + 'a {
        self.allowed
            .iter()
            .copied()
            .filter(move |&imp| self.allow_leaky || self.leak(scheme, imp).is_none())
    }

    /// The implementations a scheme may be costed with.
    pub fn allowed(&self) -> &[Implementation] {
        &self.allowed
    }

    /// The firmware id of a scheme's build: its canonical name (the
    /// sealing core's whole path; `mcu` builds any scheme by its name).
    pub fn firmware_id(scheme: &Scheme) -> String {
        scheme.name().to_string()
    }

    /// Seal time for a reading of `bytes` in `container`, in µs at the
    /// device's clock, with the fastest allowed implementation whose whole
    /// path (serialize, seal and wrap) was measured here: the exact count at
    /// a measured length, else interpolated between the nearest measured
    /// ones (`device_facts::cost_table::interpolate`); below the smallest
    /// measured reading, that reading's time ([`DeviceTimes::below_measured`]).
    pub fn seal_us(
        &self,
        scheme: &Scheme,
        container: MessageContainer,
        bytes: usize,
    ) -> Option<f64> {
        self.seal_choice(scheme, container, bytes).map(|(us, _)| us)
    }

    /// [`DeviceTimes::seal_us`] and whose code it is. Ties go to the
    /// implementation listed first (RustCrypto's).
    pub fn seal_choice(
        &self,
        scheme: &Scheme,
        container: MessageContainer,
        bytes: usize,
    ) -> Option<(f64, Implementation)> {
        self.seal_by(scheme, container, bytes)
            .into_iter()
            .min_by(|a, b| a.0.total_cmp(&b.0))
    }

    /// Each allowed implementation's measured seal time, in the order of
    /// [`Implementation::ALL`].
    pub fn seal_by(
        &self,
        scheme: &Scheme,
        container: MessageContainer,
        bytes: usize,
    ) -> Vec<(f64, Implementation)> {
        self.candidates(scheme)
            .filter_map(|imp| {
                let points = self.seal_points(scheme, container, imp)?;
                let count = device_facts::cost_table::interpolate(points, bytes)?;
                Some((count / self.clock_hz * 1e6, imp))
            })
            .collect()
    }

    /// `imp`'s measured seal path of `scheme` in `container`, by size.
    fn seal_points(
        &self,
        scheme: &Scheme,
        container: MessageContainer,
        imp: Implementation,
    ) -> Option<&[(usize, u64)]> {
        let key = (imp.build_id(scheme.name()), seal_operation(container));
        self.seal.get(&key).map(Vec::as_slice)
    }

    /// The smallest reading measured for `imp`'s seal path in `container`
    /// when `bytes` is below it (its time then is that reading's).
    pub fn below_measured(
        &self,
        scheme: &Scheme,
        container: MessageContainer,
        imp: Implementation,
        bytes: usize,
    ) -> Option<usize> {
        device_facts::cost_table::below_measured(self.seal_points(scheme, container, imp)?, bytes)
    }

    pub fn code_size(&self, scheme: &Scheme, imp: Implementation) -> Option<i64> {
        self.code.get(&imp.build_id(scheme.name())).copied()
    }

    pub fn stack(&self, scheme: &Scheme, imp: Implementation) -> Option<u32> {
        self.stack.get(&imp.build_id(scheme.name())).copied()
    }

    /// Why the device has no seal time for a scheme it tried with any
    /// allowed implementation: "does not fit" with its sizes, or the
    /// failure (RustCrypto's first). None when none was built.
    pub fn failure(&self, scheme: &Scheme) -> Option<String> {
        let whys: Vec<String> = self
            .allowed
            .iter()
            .filter_map(|imp| {
                let leak = self.leak(scheme, *imp).filter(|_| !self.allow_leaky);
                let why = leak
                    .map(|at| {
                        format!("{LEAKS} (ciphermeter ct): {at}; recommend --allow-leaky ranks it, marked")
                    })
                    .or_else(|| self.failures.get(&imp.build_id(scheme.name())).cloned())?;
                Some(match imp {
                    Implementation::RustCrypto => why,
                    other => format!("{}: {why}", other.label()),
                })
            })
            .collect();
        (!whys.is_empty()).then(|| whys.join("; "))
    }

    /// "atmega1284p at 8 MHz, stored simulation (run 12)"; a Cortex-M
    /// estimate names the cycle model's validated error on the core.
    pub fn describe(&self) -> String {
        self.describe_with(self.model_error.as_ref())
    }

    /// [`DeviceTimes::describe`] with `error` as the model's on this core.
    fn describe_with(&self, error: Option<&CoreError>) -> String {
        let origin = match &self.origin {
            Origin::Stored { run } => format!("stored simulation (run {run})"),
            Origin::Table { firmware_revision } => {
                format!("shipped device cost table (firmware {firmware_revision})")
            }
        };
        let counted = if self.target.is_avr() {
            "exact cycles".to_string()
        } else if self.estimated {
            // An estimate is only as good as its check against real boards.
            let error = error.map_or("not yet validated against a published board".into(), |e| {
                format!("validated: {}", e.describe())
            });
            // Without a part of its own the device is priced on the table's
            // board, and says so rather than passing that off as its own.
            let memory = match (&self.priced_on, for_target(self.target)) {
                (Some(part), _) => format!("the flash and caches of the {part}"),
                (None, Some(core)) => format!(
                    "the flash and caches of the simulated board's {} (no part of the device's own)",
                    core.board.part
                ),
                (None, None) => "the flash wait states".to_string(),
            };
            format!(
                "cycles estimated from the exact instruction mix with ARM's timings and {memory}; {error}"
            )
        } else {
            "exact instructions at one per cycle, a lower bound".to_string()
        };
        // A stand-in target runs another core's instruction set: say so.
        let target = match &self.stand_in_for {
            Some(core) => format!(
                "{} standing in for the device's {core} (not its own core's counts)",
                self.target.name()
            ),
            None => self.target.name().to_string(),
        };
        format!(
            "device-level: {target} at {} MHz, {origin}, {counted}",
            self.clock_hz / 1e6
        )
    }
}

/// The part whose memory prices `device`'s estimates (its profile's `part`,
/// of the same core as its simulated target); none: the table's board.
fn device_part(
    device: &Device,
    target: device_facts::Target,
) -> Result<Option<&'static Board>, Error> {
    let Some(name) = &device.part else {
        // A cycle estimate is only the device's with its own flash: the
        // table's board would be a silent substitute.
        if for_target(target).is_none() {
            return Ok(None);
        }
        return Err(Error::invalid(format!(
            "device '{}' runs on {target} but names no part, whose flash wait states and \
             caches price its cycle estimates: add part = {{ value = \"NAME\", source = \"...\" }} \
             with one of {} (or a part of your own in data/cycle-timings/parts.toml)",
            device.name,
            parts_of(target).join(", ")
        )));
    };
    let Some((board, core)) = part(&name.value) else {
        return Err(Error::invalid(format!(
            "device '{}': part '{}' is not in data/cycle-timings/parts.toml",
            device.name, name.value
        )));
    };
    if core != target {
        return Err(Error::invalid(format!(
            "device '{}': part '{}' has a {core} core, the device runs on {target}",
            device.name, name.value
        )));
    }
    Ok(Some(board))
}

/// The parts (and the table's board) whose memory can price `target`.
fn parts_of(target: device_facts::Target) -> Vec<String> {
    let listed = device_facts::cycle_model::timing::parts()
        .iter()
        .filter(|p| p.core.as_deref().and_then(|c| c.parse().ok()) == Some(target))
        .filter_map(|p| p.name.clone());
    let board = for_target(target).and_then(|c| c.board.name.clone());
    listed.chain(board).collect()
}

/// The firmware operation that times the core's path in `container`.
pub fn seal_operation(container: MessageContainer) -> String {
    format!("seal-{container}")
}

fn is_seal(operation: &str) -> bool {
    operation == "seal" || operation.starts_with("seal-")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each study device and modern MCU names its simulated target, with its
    /// clock and a source; a Linux board has none.
    #[test]
    fn device_profiles_name_their_simulated_target() {
        let p = energy::Profiles::builtin().unwrap();
        for (device, target, mhz) in [
            ("sodaq-mbili", Some(device_facts::Target::Atmega1284p), 8.0),
            (
                "mkr-wan-1300",
                Some(device_facts::Target::CortexM0plus),
                48.0,
            ),
            ("stm32l0", Some(device_facts::Target::CortexM0plus), 32.0),
            ("nrf52840", Some(device_facts::Target::CortexM4), 64.0),
            ("stm32wl", Some(device_facts::Target::CortexM4), 48.0),
            ("stm32l082", Some(device_facts::Target::CortexM0plus), 32.0),
            ("esp32-c3", Some(device_facts::Target::Riscv32imc), 160.0),
            ("nrf54l15", Some(device_facts::Target::CortexM33), 128.0),
            ("nrf5340", Some(device_facts::Target::CortexM33), 128.0),
            ("stm32u585", Some(device_facts::Target::CortexM33), 160.0),
            ("rp2350", Some(device_facts::Target::CortexM33), 150.0),
            ("esp32", None, 240.0),
            ("rpi-3b", None, 1200.0),
        ] {
            let d = p.device(device).unwrap();
            assert_eq!(device_target(d).unwrap(), target, "{device}");
            assert_eq!(d.clock_mhz.value, mhz, "{device}");
            if let Some(t) = &d.simulated_target {
                assert!(t.source.is_some(), "{device}: target without a source");
            }
        }
        let mkr = p.device("mkr-wan-1300").unwrap();
        assert_eq!(
            mkr.part.as_ref().map(|p| p.value.as_str()),
            Some("atsamd21g18a")
        );
        // Each Cortex-M33 device is priced with its own part, of its core.
        for (device, part) in [
            ("nrf54l15", "nrf54l15"),
            ("nrf5340", "nrf5340-app"),
            ("stm32u585", "stm32u585"),
            ("rp2350", "rp2350"),
        ] {
            let d = p.device(device).unwrap();
            assert_eq!(d.part.as_ref().map(|p| p.value.as_str()), Some(part));
            let (board, core) = super::part(part).unwrap();
            assert_eq!(core, device_facts::Target::CortexM33, "{device}");
            assert_eq!(board.clock_hz as f64, d.clock_mhz.value * 1e6, "{device}");
        }
    }

    /// A Cortex-M row names the cycle model's validated error on its core,
    /// or says plainly that none is; exact counts say what they said.
    #[test]
    fn an_estimate_names_the_models_error_on_its_core() {
        use device_facts::Target;
        let times = |target: Target| {
            let table = device_facts::cost_table::shipped(target).unwrap().unwrap();
            DeviceTimes::from_table(&table, target.clock_hz() as f64)
        };
        let error = CoreError {
            target: Target::CortexM4,
            figures: 15,
            median: 0.06,
            max: 0.2,
        };
        let m4 = times(Target::CortexM4);
        let prefix = "cycles estimated from the exact instruction mix with ARM's timings and the flash \
                      and caches of the simulated board's STM32L476, a typical Cortex-M4 part (no \
                      part of the device's own); ";
        let with = m4.describe_with(Some(&error));
        assert!(
            with.ends_with(&format!(
                "{prefix}validated: median error 6 % against 15 published board figures on the Cortex-M4"
            )),
            "{with}"
        );
        let without = m4.describe_with(None);
        assert!(
            without.ends_with(&format!(
                "{prefix}not yet validated against a published board"
            )),
            "{without}"
        );
        assert!(!without.chars().any(|c| c == '%'), "{without}");
        for (target, says) in [
            (Target::Atmega1284p, "exact cycles"),
            (
                Target::Riscv32imc,
                "exact instructions at one per cycle, a lower bound",
            ),
        ] {
            let text = times(target).describe_with(Some(&error));
            assert!(text.ends_with(says), "{text}");
        }
    }

    #[test]
    fn an_unknown_target_in_a_profile_is_an_error() {
        let mut d = energy::Profiles::builtin()
            .unwrap()
            .device("sodaq-mbili")
            .unwrap()
            .clone();
        d.simulated_target = Some(link::figure::Figure::sourced("pdp-11".to_string(), "x"));
        let err = device_target(&d).unwrap_err();
        assert!(
            err.is_invalid() && err.to_string().contains("pdp-11"),
            "{err}"
        );
    }

    /// A device's part prices its estimates: an unknown part, or one of
    /// another core, is the profile's error, never the board's estimate.
    #[test]
    fn a_devices_part_must_exist_and_share_its_core() {
        let profiles = energy::Profiles::builtin().unwrap();
        let wl = profiles.device("stm32wl").unwrap().clone();
        let m4 = device_facts::Target::CortexM4;
        let board = device_part(&wl, m4).unwrap().unwrap();
        assert_eq!(board.name.as_deref(), Some("stm32wle5"));
        let mut d = wl.clone();
        d.part = Some(link::figure::Figure::sourced("pdp-11".to_string(), "x"));
        let err = device_part(&d, m4).unwrap_err();
        assert!(
            err.is_invalid() && err.to_string().contains("parts.toml"),
            "{err}"
        );
        d.part = Some(link::figure::Figure::sourced(
            "atsamd21g18a".to_string(),
            "x",
        ));
        let err = device_part(&d, m4).unwrap_err();
        assert!(
            err.is_invalid() && err.to_string().contains("cortex-m0plus core"),
            "{err}"
        );
        d.part = None;
        let err = device_part(&d, m4).unwrap_err();
        assert!(
            err.is_invalid() && err.to_string().contains("names no part"),
            "{err}"
        );
        assert!(err.to_string().contains("stm32wle5"), "{err}");
        // No cycle table, no part to name.
        let c3 = profiles.device("esp32-c3").unwrap().clone();
        assert!(
            device_part(&c3, device_facts::Target::Riscv32imc)
                .unwrap()
                .is_none()
        );
    }
}
