//! `proctor caps`: what this machine offers the suite's tests, as the
//! planner sees it — detected from the probes the configuration calls for,
//! then adjusted by `--assume`.

use std::io::Write;

use anyhow::{anyhow, Result};
use proctor_caps::Capabilities;
use serde::Serialize;

use crate::args::CapsArgs;
use crate::commands::machine;
use crate::commands::suite::load_config;
use crate::exit;
use crate::printer::Printer;
use crate::settings::Env;

/// `caps --json`, version 1: the capabilities with a version number.
#[derive(Serialize)]
struct JsonCaps<'c> {
    version: u32,
    #[serde(flatten)]
    caps: &'c Capabilities,
}

pub(crate) fn run(args: &CapsArgs) -> Result<u8> {
    let (_, config) = load_config(&args.config, &[], &Env::process())?;
    // The probes are the ones `proctor plan` uses for this machine.
    let detect = machine::detect_options(&config, &args.probe);
    let mut caps = proctor_caps::detect(&detect);
    if detect.python.is_none() {
        caps.warnings.push(
            "no Python interpreter found (tried `python` in the configuration, $VIRTUAL_ENV, .venv and python3 on PATH; use --python)"
                .to_owned(),
        );
    }
    proctor_caps::assume(&mut caps, &args.probe.assume).map_err(|e| anyhow!("{e}"))?;
    let mut out = Printer::stdout();
    if args.json {
        serde_json::to_writer_pretty(
            &mut out,
            &JsonCaps {
                version: 1,
                caps: &caps,
            },
        )?;
        writeln!(out)?;
    } else {
        write!(out, "{}", proctor_caps::render(&caps))?;
    }
    out.flush()?;
    Ok(exit::OK)
}
