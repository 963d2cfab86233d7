//! `proctor completions SHELL`: a shell completion script (`clap_complete`),
//! or `proctor completions man`: the man page (`clap_mangen`), both from the
//! same clap definitions as `--help`.

use std::io::Write;

use anyhow::{Context, Result};
use clap::CommandFactory;
use clap_complete::Shell;

use crate::args::{Cli, CompletionTarget, CompletionsArgs};
use crate::exit;
use crate::printer::Printer;

pub(crate) fn run(args: &CompletionsArgs) -> Result<u8> {
    let mut command = Cli::command();
    let mut text: Vec<u8> = Vec::new();
    let shell = match args.shell {
        CompletionTarget::Bash => Shell::Bash,
        CompletionTarget::Zsh => Shell::Zsh,
        CompletionTarget::Fish => Shell::Fish,
        CompletionTarget::Elvish => Shell::Elvish,
        CompletionTarget::Powershell => Shell::PowerShell,
        CompletionTarget::Man => {
            clap_mangen::Man::new(command)
                .render(&mut text)
                .context("cannot render the man page")?;
            return print(&text);
        }
    };
    clap_complete::generate(shell, &mut command, "proctor", &mut text);
    print(&text)
}

fn print(text: &[u8]) -> Result<u8> {
    let mut out = Printer::stdout();
    out.write_all(text)?;
    out.flush()?;
    Ok(exit::OK)
}
