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
    }
}

fn current_root() -> PathBuf {
    crate::repo::find_root(&std::env::current_dir().unwrap_or_default())
}

fn print(text: &str) -> anyhow::Result<()> {
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

fn use_color() -> bool {
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
    output(&reports, format)?;
    for err in &read_errors {
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

fn output(reports: &[FileReport], format: Format) -> anyhow::Result<()> {
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
