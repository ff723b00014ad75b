//! Device, radio and battery profiles, read from TOML data files.

use link::catalogue::LinkSpec;
use link::figure::{Figure, parse_toml};
use serde::{Deserialize, Serialize};

use crate::error::EnergyError;

const BUILTIN: [(&str, &str); 4] = [
    (
        "devices/study-devices.toml",
        include_str!("../../../data/devices/study-devices.toml"),
    ),
    (
        "devices/modern-boards.toml",
        include_str!("../../../data/devices/modern-boards.toml"),
    ),
    (
        "radios/radios.toml",
        include_str!("../../../data/radios/radios.toml"),
    ),
    (
        "batteries/batteries.toml",
        include_str!("../../../data/batteries/batteries.toml"),
    ),
];

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Device {
    pub name: String,
    pub title: String,
    pub cpu: String,
    pub clock_mhz: Figure<f64>,
    pub voltage_v: Figure<f64>,
    /// Current while the CPU computes (what the cipher costs).
    pub active_ma: Figure<f64>,
    /// Current between messages.
    pub sleep_ua: Figure<f64>,
    /// The simulated microcontroller that runs this device's instruction
    /// stream (`atmega1284p`, `cortex-m0plus`, ...); none for a Linux board,
    /// whose CPU times come from runs imported from that board.
    #[serde(default)]
    pub simulated_target: Option<Figure<String>>,
    /// The device's own core where its `simulated_target` only stands in
    /// for it (a Cortex-M33 run as `cortex-m4`): every row it prices says so.
    #[serde(default)]
    pub core: Option<Figure<String>>,
    /// The part whose flash and caches price a Cortex-M cycle estimate
    /// (a name in data/cycle-timings/parts.toml, or a table's board):
    /// without one, the estimate is the simulated board's.
    #[serde(default)]
    pub part: Option<Figure<String>>,
    /// The device's own program memory and RAM, KiB: what a build must fit
    /// (the simulated board is only where the code ran). Every device with a
    /// `simulated_target` has both.
    #[serde(default)]
    pub flash_kib: Option<Figure<u32>>,
    #[serde(default)]
    pub ram_kib: Option<Figure<u32>>,
    /// The SoC's own radio (a name in data/radios/), which takes a link's
    /// radio's place on the protocols it has figures for ([`Profiles::radio_for`]).
    #[serde(default)]
    pub radio: Option<Figure<String>>,
    /// Which study uses this device, if any.
    #[serde(default)]
    pub study: Option<String>,
    #[serde(default)]
    pub notes: Option<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TxLevel {
    pub dbm: i32,
    pub ma: Figure<f64>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Radio {
    pub name: String,
    pub title: String,
    /// The link protocols (`[link.protocol] kind`: ble-connection,
    /// ieee802154, ...) its figures were published for: a device naming it
    /// as its own radio is costed with it on those links.
    #[serde(default)]
    pub protocols: Vec<String>,
    pub voltage_v: Figure<f64>,
    pub rx_ma: Figure<f64>,
    pub sleep_ua: Figure<f64>,
    pub tx: Vec<TxLevel>,
    /// Time from enable to ready when the radio starts to send or receive,
    /// µs (counted at that state's current by `protocol`).
    #[serde(default)]
    pub ramp_up_us: Option<Figure<f64>>,
    /// The high-frequency crystal's start-up before each radio wake (an
    /// event, a poll, a frame), µs; it precedes the radio's ramp-up.
    #[serde(default)]
    pub xo_startup_us: Option<Figure<f64>>,
    /// The current drawn while that crystal starts, mA.
    #[serde(default)]
    pub xo_startup_ma: Option<Figure<f64>>,
    #[serde(default)]
    pub notes: Option<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Battery {
    pub name: String,
    pub title: String,
    pub capacity_mah: Figure<f64>,
    pub voltage_v: Figure<f64>,
    /// Share of the rated capacity a device can draw before its cut-off voltage.
    pub usable_fraction: Figure<f64>,
    /// Largest pulse current the cell sustains without a large voltage drop, if limited.
    #[serde(default)]
    pub max_pulse_ma: Option<Figure<f64>>,
    /// Share of the capacity the cell loses per year on its own, at room
    /// temperature; it bounds battery life however little the device draws.
    #[serde(default)]
    pub self_discharge_per_year: Option<Figure<f64>>,
    /// How long the cell is rated (or, where marked, estimated) to keep its
    /// charge in storage: a battery-life figure past it is not to be planned on.
    #[serde(default)]
    pub shelf_life_years: Option<Figure<f64>>,
}

impl Radio {
    /// TX current at exactly `dbm`.
    pub fn tx_ma(&self, dbm: i32) -> Result<&Figure<f64>, EnergyError> {
        self.tx
            .iter()
            .find(|t| t.dbm == dbm)
            .map(|t| &t.ma)
            .ok_or_else(|| {
                let levels: Vec<String> = self.tx.iter().map(|t| format!("{:+}", t.dbm)).collect();
                EnergyError::Invalid(format!(
                    "radio '{}' has no TX current for {dbm:+} dBm (profiled: {} dBm)",
                    self.name,
                    levels.join(", ")
                ))
            })
    }
}

/// Which radio's figures a device's messages over a link are costed with.
#[derive(Clone, Debug)]
pub struct RadioUse<'a> {
    pub radio: &'a Radio,
    /// The device's own radio (else the link's).
    pub own: bool,
    /// The radio's name and why it is the one used, in words.
    pub basis: String,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct ProfileFile {
    #[serde(default)]
    device: Vec<Device>,
    #[serde(default)]
    radio: Vec<Radio>,
    #[serde(default)]
    battery: Vec<Battery>,
}

/// All profiles: built in, then the user's files (same name replaces).
#[derive(Clone, Debug, Default)]
pub struct Profiles {
    pub devices: Vec<Device>,
    pub radios: Vec<Radio>,
    pub batteries: Vec<Battery>,
}

fn positive(
    owner: &str,
    field: &str,
    f: &Figure<f64>,
    allow_zero: bool,
) -> Result<(), EnergyError> {
    f.check(owner, field)?;
    if !f.value.is_finite() || f.value < 0.0 || (!allow_zero && f.value == 0.0) {
        return Err(EnergyError::Data(format!(
            "{owner}: '{field}' must be a positive number"
        )));
    }
    Ok(())
}

impl Profiles {
    pub fn builtin() -> Result<Self, EnergyError> {
        let mut p = Profiles::default();
        for (origin, text) in BUILTIN {
            p.add_file(origin, text)?;
        }
        Ok(p)
    }

    pub fn add_file(&mut self, origin: &str, text: &str) -> Result<(), EnergyError> {
        let file: ProfileFile = parse_toml(origin, text)?;
        let err = |e: EnergyError| EnergyError::Data(format!("{origin}: {e}"));
        for d in file.device {
            let who = format!("device '{}'", d.name);
            positive(&who, "clock_mhz", &d.clock_mhz, false).map_err(err)?;
            positive(&who, "voltage_v", &d.voltage_v, false).map_err(err)?;
            positive(&who, "active_ma", &d.active_ma, false).map_err(err)?;
            positive(&who, "sleep_ua", &d.sleep_ua, true).map_err(err)?;
            if let Some(t) = &d.simulated_target {
                t.check(&who, "simulated_target")
                    .map_err(|e| err(e.into()))?;
            }
            if let Some(p) = &d.part {
                p.check(&who, "part").map_err(|e| err(e.into()))?;
            }
            if let Some(r) = &d.radio {
                r.check(&who, "radio").map_err(|e| err(e.into()))?;
            }
            self.devices.retain(|x| x.name != d.name);
            self.devices.push(d);
        }
        for r in file.radio {
            let who = format!("radio '{}'", r.name);
            positive(&who, "voltage_v", &r.voltage_v, false).map_err(err)?;
            positive(&who, "rx_ma", &r.rx_ma, false).map_err(err)?;
            positive(&who, "sleep_ua", &r.sleep_ua, true).map_err(err)?;
            for (what, f) in [
                ("ramp_up_us", &r.ramp_up_us),
                ("xo_startup_us", &r.xo_startup_us),
                ("xo_startup_ma", &r.xo_startup_ma),
            ] {
                if let Some(f) = f {
                    positive(&who, what, f, true).map_err(err)?;
                }
            }
            for t in &r.tx {
                positive(&who, &format!("tx {} dBm", t.dbm), &t.ma, false).map_err(err)?;
            }
            self.radios.retain(|x| x.name != r.name);
            self.radios.push(r);
        }
        for b in file.battery {
            let who = format!("battery '{}'", b.name);
            positive(&who, "capacity_mah", &b.capacity_mah, false).map_err(err)?;
            positive(&who, "voltage_v", &b.voltage_v, false).map_err(err)?;
            positive(&who, "usable_fraction", &b.usable_fraction, false).map_err(err)?;
            if b.usable_fraction.value > 1.0 {
                return Err(err(EnergyError::Data(format!(
                    "{who}: usable_fraction above 1"
                ))));
            }
            if let Some(shelf) = &b.shelf_life_years {
                positive(&who, "shelf_life_years", shelf, false).map_err(err)?;
            }
            if let Some(sd) = &b.self_discharge_per_year {
                positive(&who, "self_discharge_per_year", sd, true).map_err(err)?;
                if sd.value >= 1.0 {
                    return Err(err(EnergyError::Data(format!(
                        "{who}: self_discharge_per_year must be below 1 (a share of the capacity)"
                    ))));
                }
            }
            if let Some(m) = &b.max_pulse_ma {
                positive(&who, "max_pulse_ma", m, false).map_err(err)?;
            }
            self.batteries.retain(|x| x.name != b.name);
            self.batteries.push(b);
        }
        Ok(())
    }

    /// A device by name; an unknown one is told its chip family's core and
    /// target, if it names a known chip, and how to give a profile of its own.
    pub fn device(&self, name: &str) -> Result<&Device, EnergyError> {
        find(&self.devices, name, "device", |d| &d.name).map_err(|mut e| {
            if let EnergyError::Unknown {
                suggestion, hint, ..
            } = &mut e
            {
                // A look-alike profile name misleads when the name is a known chip's.
                if crate::chip_family::family_of(name).is_some() {
                    suggestion.clear();
                }
                *hint = crate::chip_family::unknown_device_hint(name);
            }
            e
        })
    }

    pub fn radio(&self, name: &str) -> Result<&Radio, EnergyError> {
        find(&self.radios, name, "radio", |r| &r.name)
    }

    /// The radio whose figures cost `device`'s messages over `link`: the
    /// device's own where it has one with figures for the link's protocol,
    /// else the link's, and which of the two in words.
    pub fn radio_for(&self, device: &Device, link: &LinkSpec) -> Result<RadioUse<'_>, EnergyError> {
        let kind = link.protocol.as_ref().map_or(link.kind(), |p| p.kind());
        let theirs = |why: String| -> Result<RadioUse<'_>, EnergyError> {
            Ok(RadioUse {
                radio: self.radio(&link.radio)?,
                own: false,
                basis: format!("{}, the link's radio: {why}", link.radio),
            })
        };
        let Some(own) = &device.radio else {
            return theirs(format!("{} names no radio of its own", device.name));
        };
        let radio = self
            .radio(&own.value)
            .map_err(|e| EnergyError::Data(format!("device '{}': its radio: {e}", device.name)))?;
        if !radio.protocols.iter().any(|p| p == kind) {
            return theirs(format!(
                "{}'s own radio ({}) has no published figures for {kind} links",
                device.name, radio.name
            ));
        }
        Ok(RadioUse {
            radio,
            own: true,
            basis: format!("{}, the device's own radio", radio.name),
        })
    }

    pub fn battery(&self, name: &str) -> Result<&Battery, EnergyError> {
        find(&self.batteries, name, "battery", |b| &b.name)
    }
}

fn find<'a, T>(
    items: &'a [T],
    name: &str,
    kind: &'static str,
    key: impl Fn(&T) -> &String,
) -> Result<&'a T, EnergyError> {
    items
        .iter()
        .find(|i| key(i).eq_ignore_ascii_case(name))
        .ok_or_else(|| EnergyError::Unknown {
            kind,
            name: name.into(),
            suggestion: names::did_you_mean(name, items.iter().map(|i| key(i).as_str())),
            known: items
                .iter()
                .map(|i| key(i).as_str())
                .collect::<Vec<_>>()
                .join(", "),
            hint: String::new(),
        })
}
