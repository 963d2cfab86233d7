//! `proctor rule CODE`: a lint rule's documentation, exactly as written in
//! its file; `proctor rule --all`: every rule, one line each.

use std::io::Write;

use anyhow::{anyhow, Result};

use crate::args::RuleArgs;
use crate::exit;
use crate::printer::Printer;

pub(crate) fn run(args: &RuleArgs) -> Result<u8> {
    let mut out = Printer::stdout();
    if args.all {
        for rule in proctor_lint::RULES {
            writeln!(out, "{}  {:<34}  {}", rule.code, rule.name, rule.summary)?;
        }
    } else {
        let code = args.code.as_deref().unwrap_or_default();
        let rule = proctor_lint::rule(code).ok_or_else(|| {
            anyhow!("unknown rule `{code}`; `proctor rule --all` lists the rules")
        })?;
        writeln!(out, "# {} ({})\n", rule.name, rule.code)?;
        write!(out, "{}", rule.doc)?;
    }
    out.flush()?;
    Ok(exit::OK)
}
