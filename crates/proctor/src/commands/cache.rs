//! `proctor cache clean`: removes the collection cache of the suite found
//! from the current directory (or `--rootdir`, `-c`).

use std::io::Write;

use anyhow::{Context, Result};

use crate::args::{CacheArgs, CacheCommand};
use crate::commands::suite::{cache_dir, load_config};
use crate::exit;
use crate::printer::Printer;
use crate::settings::Env;

pub(crate) fn run(args: &CacheArgs) -> Result<u8> {
    let (_, config) = load_config(&args.config, &[], &Env::process())?;
    let dir = cache_dir(&config.pytest.rootdir);
    match args.command {
        CacheCommand::Clean => {
            let removed = proctor_python::clean_cache(&dir)
                .with_context(|| format!("cannot remove {}", dir.display()))?;
            let mut out = Printer::stdout();
            if removed {
                writeln!(out, "removed {}", dir.display())?;
            } else {
                writeln!(out, "no cache at {}", dir.display())?;
            }
            out.flush()?;
        }
    }
    Ok(exit::OK)
}
