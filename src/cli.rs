//! Command line: clap definitions and dispatch. Every command returns an
//! [`ExitStatus`]; only `main` turns it into a process exit code.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use clap::{Parser, Subcommand, ValueEnum};

use crate::config::RuleSet;
use crate::diagnostic::FileReport;
use crate::engine::Engine;
use crate::{env, render, rules};

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
        event: Option<String>,
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
        #[arg(long = "type", default_value = "adr")]
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
        } => validate(&paths, format, rules.as_deref(), concept.as_deref()),
        Command::Rules { rules } => list_rules(rules.as_deref()),
        Command::Explain { id, rules } => explain(&id, rules.as_deref()),
        Command::Hook { .. } => Ok(crate::hook::run()),
        Command::PreCommit => crate::precommit::run(),
        Command::Install {
            target: InstallTarget::Claude,
            scope,
        } => crate::install::claude::install(scope),
        Command::Uninstall {
            target: InstallTarget::Claude,
            scope,
        } => crate::install::claude::uninstall(scope),
        Command::Install {
            target: InstallTarget::Git,
            ..
        } => crate::install::git::install(),
        Command::Uninstall {
            target: InstallTarget::Git,
            ..
        } => crate::install::git::uninstall(),
        Command::Approve {
            files,
            kind,
            no_cache,
            format,
        } => crate::approval::run(&files, &kind, no_cache, format),
        Command::Log { tail } => crate::decision_log::show(tail),
        Command::Stats { format } => crate::decision_log::stats(format),
        Command::NextNumber => crate::adr_dir::next_number(),
        Command::Finalize { draft, dry_run } => crate::adr_dir::finalize(&draft, dry_run),
        Command::Index { check, write } => crate::adr_dir::index(check, write),
        Command::Doctor { format } => crate::adr_dir::doctor(format),
    }
}

/// The repository root for the current directory.
pub fn current_root() -> PathBuf {
    crate::paths::find_root(&std::env::current_dir().unwrap_or_default())
}

/// Write to stdout; a closed pipe is not an error.
pub fn print(text: &str) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        // A closed pipe (`| head`) is not an error worth a message.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.context("cannot write to stdout"),
    }
}

/// Colour on a terminal unless NO_COLOR is set.
pub fn use_color() -> bool {
    std::io::stdout().is_terminal() && !env::is_set(env::NO_COLOR)
}

fn validate(
    paths: &[PathBuf],
    format: Format,
    rules_file: Option<&Path>,
    concept: Option<&Path>,
) -> anyhow::Result<ExitStatus> {
    let root = current_root();
    let engine = Engine::load(&root, rules_file)?;
    let mut files = Vec::new();
    let mut across = paths.is_empty();
    if paths.is_empty() {
        files = engine.repository_adrs()?;
    }
    for path in paths {
        let meta =
            std::fs::metadata(path).with_context(|| format!("cannot read {}", path.display()))?;
        if meta.is_dir() {
            across = true;
            files.extend(engine.directory_adrs(path)?);
        } else {
            files.push(path.clone());
        }
    }
    if concept.is_some() && files.len() != 1 {
        bail!(
            "--concept compares one ADR with one concept; {} files were given",
            files.len()
        );
    }
    let (mut reports, read_errors) = engine.check_files(&files, across);
    if let Some(concept) = concept {
        let text = std::fs::read_to_string(concept)
            .with_context(|| format!("cannot read concept {}", concept.display()))?;
        if let Some(report) = reports.first_mut() {
            let adr_text = std::fs::read_to_string(&files[0]).unwrap_or_default();
            let adr = crate::adr::Adr::parse(&adr_text);
            report
                .findings
                .extend(rules::concept::compare(&adr, &text, &engine.rules));
        }
    }
    finish(&reports, &read_errors, format)
}

/// Print the reports, then the files that could not be read, and decide the exit:
/// 2 when a file could not be read, 1 on any error finding, else 0.
pub fn finish(
    reports: &[FileReport],
    read_errors: &[crate::engine::ReadError],
    format: Format,
) -> anyhow::Result<ExitStatus> {
    output(reports, format)?;
    for err in read_errors {
        eprintln!("helix-gate: error: {err}");
    }
    Ok(if !read_errors.is_empty() {
        ExitStatus::Error
    } else if reports.iter().any(FileReport::has_errors) {
        ExitStatus::Failure
    } else {
        ExitStatus::Success
    })
}

/// Render reports in the chosen format to stdout.
pub fn output(reports: &[FileReport], format: Format) -> anyhow::Result<()> {
    match format {
        Format::Human => print(&render::human(reports, use_color())),
        Format::Json => print(&render::json(reports)),
    }
}

fn load_rule_set(rules_file: Option<&Path>) -> anyhow::Result<RuleSet> {
    crate::config::load_rules(&current_root(), rules_file)
}

fn list_rules(rules_file: Option<&Path>) -> anyhow::Result<ExitStatus> {
    let set = load_rule_set(rules_file)?;
    let mut out = String::from("Built-in rules:\n");
    for rule in rules::registry() {
        out.push_str(&format!(
            "  {:<28} {:<8} {}\n",
            rule.id,
            rule.severity.as_str(),
            rule.summary
        ));
    }
    out.push_str(&format!("\nContextual rules ({}):\n", set.origin));
    for rule in &set.contextual {
        out.push_str(&format!(
            "  {:<28} {:<8} {}\n",
            rule.id,
            rule.severity.as_str(),
            rule.name
        ));
    }
    print(&out)?;
    Ok(ExitStatus::Success)
}

fn explain(id: &str, rules_file: Option<&Path>) -> anyhow::Result<ExitStatus> {
    if let Some(rule) = rules::registry().into_iter().find(|r| r.id == id) {
        print(&format!(
            "# {} ({})\n\n{}\n\n{}\n",
            rule.id,
            rule.severity.as_str(),
            rule.summary,
            rule.doc
        ))?;
        return Ok(ExitStatus::Success);
    }
    let set = load_rule_set(rules_file)?;
    if let Some(rule) = set.contextual.iter().find(|r| r.id == id) {
        print(&format!(
            "# {} ({})\n\n{}\n\nContextual rule from {}. Message: {}\n{}\n## Definition\n```yaml\n{}```\n",
            rule.id,
            rule.severity.as_str(),
            rule.name,
            set.origin,
            rule.message,
            rule.hint
                .as_ref()
                .map(|h| format!("Hint: {h}\n"))
                .unwrap_or_default(),
            crate::yaml::to_string(&rule.source)
        ))?;
        return Ok(ExitStatus::Success);
    }
    eprintln!("helix-gate: error: no rule with id `{id}` (see `helix-gate rules`)");
    Ok(ExitStatus::Error)
}
