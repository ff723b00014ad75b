//! The row `recommend` ranks for one sealed message on a device, for
//! `energy`: the device's times as `--impl` allows them (recommend's parser,
//! `implementation::parse_choice`), each engine it allows doing its part
//! (`engine_cost::device_rows`, as the ranking costs them), and of those rows
//! the one recommend ranks first: on the same link they differ only in CPU.

use energy::Device;

use crate::Error;
use crate::device_times::DeviceTimes;
use crate::message::Message;
use crate::scheme_cost::{SchemeCost, Setting, device_cost};

/// `message`'s cheapest row on the device `times` holds (already restricted
/// to `--impl`'s software), an engine's where `hardware` allows one.
pub fn best(
    device: &Device,
    times: &DeviceTimes,
    hardware: bool,
    message: &Message,
    setting: &Setting,
) -> Result<SchemeCost, Error> {
    let cost = device_cost(message, setting, times)?;
    let table = crate::engine_cost::implementations_table(device)?;
    let engines = crate::engine_cost::engines(device, hardware)?;
    let rows = crate::engine_cost::device_rows(cost, table.as_ref(), &engines, setting)?;
    rows.into_iter()
        .min_by(|a, b| a.cpu_us.total_cmp(&b.cpu_us))
        .ok_or_else(|| Error::failed("internal: a scheme costed without a row"))
}
