//! `proctor config schema`: the JSON schema of proctor's options, generated
//! from their types (the same text as `docs/proctor.schema.json`).

use std::io::Write;

use anyhow::Result;

use crate::args::{ConfigCommand, ConfigCommandArgs};
use crate::exit;
use crate::printer::Printer;

pub(crate) fn run(args: &ConfigCommandArgs) -> Result<u8> {
    let mut out = Printer::stdout();
    match args.command {
        ConfigCommand::Schema => write!(out, "{}", proctor_config::json_schema())?,
    }
    out.flush()?;
    Ok(exit::OK)
}
