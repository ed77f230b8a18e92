//! `completions` and `man`: shell completions (`clap_complete`) and the man page
//! (`clap_mangen`), generated from the same clap definitions as the parser, so they
//! always know every subcommand and flag of this binary. Printed on demand: no
//! build script, nothing generated at build time.

use clap::CommandFactory as _;

use super::terminal::print;
use super::{Cli, ExitStatus};

/// `helix-gate completions SHELL`: the completion script on stdout.
pub(super) fn completions(shell: clap_complete::Shell) -> anyhow::Result<ExitStatus> {
    let mut command = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, "helix-gate", &mut script);
    print(&String::from_utf8_lossy(&script))?;
    Ok(ExitStatus::Success)
}

/// `helix-gate man [SUBCOMMAND]`: the man page (roff) on stdout: helix-gate(1), which
/// lists the subcommands, or the page of one subcommand, helix-gate-SUBCOMMAND(1), the
/// name the main page refers to.
pub(super) fn man(subcommand: Option<&str>) -> anyhow::Result<ExitStatus> {
    let command = Cli::command();
    let command = match subcommand {
        None => command,
        Some(name) => {
            let Some(sub) = command.find_subcommand(name) else {
                anyhow::bail!("no subcommand `{name}` (see `helix-gate --help`)");
            };
            let page = format!("helix-gate-{}", sub.get_name());
            sub.clone().display_name(page.clone()).bin_name(page)
        }
    };
    let mut page = Vec::new();
    clap_mangen::Man::new(command).render(&mut page)?;
    print(&String::from_utf8_lossy(&page))?;
    Ok(ExitStatus::Success)
}
