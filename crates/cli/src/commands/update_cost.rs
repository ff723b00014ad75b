//! `ciphermeter update-cost`: an image and its signature over the air, each scheme ranked.

use clap::Args as ClapArgs;
use cost::firmware_update::{Request, cost};

use crate::args::{Format, show_value};
use crate::error::CliError;

#[derive(ClapArgs)]
pub struct Args {
    #[command(flatten)]
    request: Request,
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let r = cost(&args.request)?;
    show_value(args.format, &r, || r.text())
}
