//! Command line: clap definitions and dispatch, the top layer. Every command
//! calls an entry point that returns data (a report, an outcome, a decision);
//! the command's module here turns it into terminal output and an
//! [`ExitStatus`], and only `main` turns that into a process exit code.

mod adr_dir;
mod approve;
mod hook;
mod install;
mod log;
mod precommit;
mod terminal;
mod validate;

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

pub use hook::run as run_hook;

/// How a command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    /// 0: no errors (warnings allowed).
    Success,
    /// 1: at least one error finding (or a rejected approval).
    Failure,
    /// 2: usage, configuration or I/O failure.
    Error,
}

impl From<ExitStatus> for std::process::ExitCode {
    fn from(status: ExitStatus) -> Self {
        std::process::ExitCode::from(match status {
            ExitStatus::Success => 0,
            ExitStatus::Failure => 1,
            ExitStatus::Error => 2,
        })
    }
}

#[derive(Debug, Parser)]
#[command(
    name = "helix-gate",
    version,
    about = "Deterministic gates for HELIX ADRs: CLI, Claude Code hook, git pre-commit, sub-agent approval"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Human,
    Json,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check ADR files or directories (no path: the repository's ADRs).
    Validate {
        /// Files or directories; a directory is checked as an ADR directory.
        paths: Vec<PathBuf>,
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
        /// Rules file to use instead of config/adr-completeness-rules.yaml.
        #[arg(long, value_name = "FILE")]
        rules: Option<PathBuf>,
        /// Concept document whose sections the ADR must cover (one ADR only).
        #[arg(long, value_name = "CONCEPT.md")]
        concept: Option<PathBuf>,
    },
    /// List every rule: built-in and from the rules file.
    Rules {
        #[arg(long, value_name = "FILE")]
        rules: Option<PathBuf>,
    },
    /// Print the documentation of one rule.
    Explain {
        id: String,
        #[arg(long, value_name = "FILE")]
        rules: Option<PathBuf>,
    },
    /// Claude Code hook: reads one hook event as JSON on stdin, answers on stdout.
    Hook {
        /// Event label from the settings (informational; the payload's hook_event_name decides).
        #[expect(
            clippy::doc_markdown,
            reason = "clap prints this doc as the argument's help; backticks would show there"
        )]
        event: Option<String>,
        /// Where the hook is registered; `user` (as `install claude --scope user` writes it):
        /// only repositories with config/helix-gate.yaml are checked, elsewhere it does nothing.
        #[arg(long, value_enum, default_value_t = Scope::Project)]
        scope: Scope,
    },
    /// git pre-commit hook: validate the ADRs staged for this commit.
    PreCommit,
    /// Register helix-gate as a Claude Code hook or a git pre-commit hook.
    Install {
        #[arg(value_enum)]
        target: InstallTarget,
        /// Claude Code settings scope (claude only).
        #[arg(long, value_enum, default_value_t = Scope::Project)]
        scope: Scope,
    },
    /// Remove what `install` added (and only that).
    Uninstall {
        #[arg(value_enum)]
        target: InstallTarget,
        #[arg(long, value_enum, default_value_t = Scope::Project)]
        scope: Scope,
    },
    /// Ask an independent reviewer (claude -p) for approval, after the deterministic checks pass.
    Approve {
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Approval type (a folder under approvals/).
        #[arg(long = "type", default_value = crate::approval::ADR_TYPE)]
        kind: String,
        /// Start a reviewer even when an approved verdict for this content is cached.
        #[arg(long)]
        no_cache: bool,
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
    /// Show the hook's decision log (.helix-gate/log.jsonl).
    Log {
        /// Show the last N decisions.
        #[arg(long, value_name = "N", num_args = 0..=1, default_missing_value = "20")]
        tail: Option<usize>,
    },
    /// Counts and latencies from the decision log and the approval history.
    Stats {
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
    /// Print the next free ADR number (e.g. 039).
    NextNumber,
    /// Validate a draft, give it a number, move it to adr/NNN-slug.md and add it to adr/INDEX.md.
    Finalize {
        draft: PathBuf,
        /// Print what would happen, change nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Check or rewrite the table of adr/INDEX.md.
    Index {
        /// Report disagreements between INDEX.md and the ADRs (exit 1 when any).
        #[arg(long, conflicts_with = "write")]
        check: bool,
        /// Regenerate the table rows, keeping the text around the table.
        #[arg(long)]
        write: bool,
    },
    /// Repository-wide ADR health: numbers, links, index and every file's validation.
    Doctor {
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum InstallTarget {
    Claude,
    Git,
}

/// Which Claude Code settings file: project (.claude/settings.json), local
/// (.claude/settings.local.json) or user (~/.claude/settings.json).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Scope {
    Project,
    Local,
    User,
}

/// Parse arguments and run the command.
pub fn run(cli: Cli) -> anyhow::Result<ExitStatus> {
    match cli.command {
        Command::Validate {
            paths,
            format,
            rules,
            concept,
        } => validate::validate(&paths, format, rules.as_deref(), concept.as_deref()),
        Command::Rules { rules } => validate::list_rules(rules.as_deref()),
        Command::Explain { id, rules } => validate::explain(&id, rules.as_deref()),
        Command::Hook { scope, .. } => Ok(hook::run(scope == Scope::User)),
        Command::PreCommit => precommit::run(),
        Command::Install { target, scope } => install::install(target, scope),
        Command::Uninstall { target, scope } => install::uninstall(target, scope),
        Command::Approve {
            files,
            kind,
            no_cache,
            format,
        } => approve::run(&files, &kind, no_cache, format),
        Command::Log { tail } => log::show(tail),
        Command::Stats { format } => log::stats(format),
        Command::NextNumber => adr_dir::next_number(),
        Command::Finalize { draft, dry_run } => adr_dir::finalize(&draft, dry_run),
        Command::Index { check, write } => adr_dir::index(check, write),
        Command::Doctor { format } => adr_dir::doctor(format),
    }
}
