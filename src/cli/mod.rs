//! Command line: clap definitions and dispatch, the top layer. Every command
//! calls an entry point that returns data (a report, an outcome, a decision);
//! the command's module here turns it into terminal output and an
//! [`ExitStatus`], and only `main` turns that into a process exit code.

mod adr_dir;
mod approve;
mod book;
mod check;
mod docs;
mod gate;
mod hook;
mod install;
mod key;
mod log;
mod mcp;
mod precommit;
mod report;
mod schema;
mod status;
mod terminal;
mod trust;
mod validate;

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

use crate::adr_dir::acceptance::Change;
use crate::agent::Agent;

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

impl ExitStatus {
    /// The process's exit code.
    pub fn code(self) -> u8 {
        match self {
            ExitStatus::Success => 0,
            ExitStatus::Failure => 1,
            ExitStatus::Error => 2,
        }
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
    /// ADR format, instead of `preset:` in config/helix-gate.yaml.
    #[arg(long, global = true, value_enum, value_name = "PRESET")]
    pub preset: Option<PresetArg>,
}

/// The values of `--preset` (see `crate::config::Preset`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PresetArg {
    Helix,
    Madr,
    Nygard,
}

impl From<PresetArg> for crate::config::Preset {
    fn from(arg: PresetArg) -> Self {
        match arg {
            PresetArg::Helix => crate::config::Preset::Helix,
            PresetArg::Madr => crate::config::Preset::Madr,
            PresetArg::Nygard => crate::config::Preset::Nygard,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Human,
    Json,
}

/// Output formats of the commands that report findings (`validate`, `pre-commit`,
/// `doctor`, `gate`): [`Format`] plus the CI formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    Human,
    Json,
    /// SARIF 2.1.0 (GitHub code scanning).
    Sarif,
    /// GitHub Actions workflow commands (annotations).
    Github,
    /// GitLab Code Quality JSON.
    Gitlab,
    /// JUnit XML.
    Junit,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check ADR files or directories (no path: the repository's ADRs).
    Validate {
        /// Files or directories; a directory is checked as an ADR directory.
        paths: Vec<PathBuf>,
        /// Output format of the findings.
        #[arg(long, value_enum, default_value_t = ReportFormat::Human)]
        format: ReportFormat,
        /// Rules file to use instead of config/adr-completeness-rules.yaml.
        #[arg(long, value_name = "FILE")]
        rules: Option<PathBuf>,
        /// Concept document whose sections the ADR must cover (one ADR only).
        #[arg(long, value_name = "CONCEPT.md")]
        concept: Option<PathBuf>,
        #[command(flatten)]
        choice: RuleChoiceArgs,
    },
    /// List every rule: built-in and from the rules file.
    Rules {
        /// Rules file to list instead of config/adr-completeness-rules.yaml.
        #[arg(long, value_name = "FILE")]
        rules: Option<PathBuf>,
    },
    /// Print the documentation of one rule.
    Explain {
        /// The rule's id, as `rules` lists it (or a reviewer check's name).
        id: String,
        /// Rules file whose contextual rules to look in instead of
        /// config/adr-completeness-rules.yaml.
        #[arg(long, value_name = "FILE")]
        rules: Option<PathBuf>,
    },
    /// Agent hook (Claude Code, or Codex / Gemini / Copilot CLI with `--agent codex|gemini|copilot`): reads one hook event as
    /// JSON on stdin, answers on stdout.
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
        /// The agent whose hook protocol the event comes in and the answer goes out in.
        #[arg(long, value_enum, default_value_t = Agent::Claude)]
        agent: Agent,
    },
    /// git pre-commit hook: validate the ADRs staged for this commit.
    PreCommit {
        /// Print the staged ADRs' findings to stdout in this format (default: the hook's
        /// own text on stderr).
        #[arg(long, value_enum)]
        format: Option<ReportFormat>,
        #[command(flatten)]
        choice: RuleChoiceArgs,
        /// Check these files from the work tree instead of what is staged (the ADRs among
        /// them; the pre-commit framework passes the names it selected).
        #[arg(value_name = "FILE")]
        files: Vec<std::path::PathBuf>,
    },
    /// Register helix-gate as a Claude Code, Codex, Gemini or Copilot CLI hook, or a git pre-commit hook.
    Install {
        /// The agent, or `git` for the pre-commit hook.
        #[arg(value_enum)]
        target: InstallTarget,
        /// Settings scope (claude: project, local or user; codex, gemini, copilot: project or user).
        #[arg(long, value_enum, default_value_t = Scope::Project)]
        scope: Scope,
        /// Codex only: record Codex's review of helix-gate's hook entries (their
        /// `trusted_hash` in `$CODEX_HOME/config.toml`), so Codex runs them without asking.
        #[arg(long)]
        trust_hooks: bool,
        /// Codex only: mark this repository trusted in `$CODEX_HOME/config.toml` (Codex then
        /// loads its .codex/ folder: hooks, and also its config and MCP servers).
        #[arg(long)]
        trust_project: bool,
    },
    /// Remove what `install` added (and only that).
    Uninstall {
        /// The agent, or `git` for the pre-commit hook.
        #[arg(value_enum)]
        target: InstallTarget,
        /// The settings scope it was installed in.
        #[arg(long, value_enum, default_value_t = Scope::Project)]
        scope: Scope,
    },
    /// Ask an independent reviewer (claude -p) for approval, after the deterministic checks pass.
    Approve {
        /// The files to review, together in one review.
        #[arg(required_unless_present = "override_")]
        files: Vec<PathBuf>,
        /// Approval type (a folder under approvals/).
        #[arg(long = "type", default_value = crate::approval::ADR_TYPE)]
        kind: String,
        /// Start a reviewer even when a verdict for this content is cached.
        #[arg(long)]
        no_cache: bool,
        /// Refuse to run a reviewer command the repository chose (anything but the
        /// built-in `claude`) unless `helix-gate trust` recorded consent to the
        /// repository's configuration as it is now (as the user-scope hook does).
        #[arg(long, conflicts_with = "override_")]
        require_consent: bool,
        /// Also write the result, signed with this user's key and with the SHA-256 of
        /// every file judged, to FILE (inside the project), where a phase plan's
        /// approval-passed gate reads it (or, with --override, the person's override).
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
        /// Output: text for people, or the result document as JSON.
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
        /// Record a person's judgement (approved or rejected) of the latest verdict of
        /// FILE's current content, for the false positives and negatives in `stats`.
        /// `approved` of a verdict that was not is an override: it counts as an approval
        /// of that content (commit, gate, approve) until the file changes. Refused
        /// inside an agent's session.
        #[arg(
            long = "override",
            num_args = 2,
            value_names = ["FILE", "JUDGEMENT"],
            conflicts_with_all = ["files", "no_cache"],
            requires = "reason"
        )]
        override_: Option<Vec<String>>,
        /// Why the verdict is right or wrong (with --override).
        #[arg(long, requires = "override_")]
        reason: Option<String>,
    },
    /// Run HELIX quality gates: one phase of a phases.yaml, or one gate; prints the result as
    /// JSON (or --format human|sarif|github|gitlab|junit).
    Gate(gate::GateArgs),
    /// Check the changes between a base and the working tree (tracked and untracked files)
    /// against the rules of the accepted ADRs that govern them, as pre-commit does at a
    /// commit (for CI: exit 1 on an error); `--format markdown` writes a pull request
    /// comment, "Decisions governing this change". Overrides do not count here.
    Check {
        /// Compare with the merge base of REF and HEAD (default: the upstream of the
        /// current branch, else HEAD).
        #[arg(long, value_name = "REF")]
        base: Option<String>,
        /// Output format of the findings.
        #[arg(long, value_enum, default_value_t = check::CheckFormat::Human)]
        format: check::CheckFormat,
    },
    /// Let the next commit that one rule of an ADR would block go through, once, with a
    /// recorded reason (a person's decision: refused inside an agent's session; logged,
    /// shown by `report`).
    Override {
        /// The rule, as the finding names it: ADR-014/no-direct-http.
        rule: String,
        /// Why this commit may break the rule.
        #[arg(long, required = true)]
        reason: String,
    },
    /// Accept an ADR: set its status to Accepted (a legal change of lifecycle.transitions
    /// only) and record who, when, from, to and why, in the ADR and in a record signed
    /// with your key (a person's decision: refused inside an agent's session).
    Accept(StatusArgs),
    /// Reject an ADR, recorded like `accept`.
    Reject(StatusArgs),
    /// Deprecate an ADR, recorded like `accept`.
    Deprecate(StatusArgs),
    /// Show the recorded status changes of an ADR (`accept`, `reject`, `deprecate`).
    History {
        /// The ADR: its number (14, 0014, ADR-0014) or its path.
        adr: String,
        /// Output format.
        #[arg(long, value_enum, default_value_t = status::HistoryFormat::Human)]
        format: status::HistoryFormat,
    },
    /// Show the hook's decision log (.helix-gate/log.jsonl).
    Log {
        /// Show the last N decisions (20 when N is left out).
        #[arg(long, value_name = "N", num_args = 0..=1, default_missing_value = "20")]
        tail: Option<usize>,
    },
    /// Counts and latencies from the decision log and the approval history.
    Stats {
        /// Output: text for people, or JSON.
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
    /// Write one self-contained HTML page of the decision log and the approval history.
    Report {
        /// Where to write the page (default .helix-gate/report.html; `-`: standard output).
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// Print the next free ADR number (e.g. 039).
    NextNumber,
    /// Write a new ADR from the preset's template (`new --preset madr|nygard|helix`): a
    /// draft output/ADR-<slug>.md inside a consultant session, else in the ADR directory.
    New {
        /// The ADR's title.
        title: String,
        /// An ADR the new one replaces (3, 0003 or ADR-0003; repeatable): the new ADR lists
        /// it in `supersedes:` and it names the new one in `superseded_by:`.
        #[arg(long, value_name = "ADR")]
        supersedes: Vec<String>,
    },
    /// Validate a draft, give it a number, move it to adr/NNN-slug.md and add it to adr/INDEX.md.
    Finalize {
        /// The draft ADR (e.g. a session's output/ADR-slug.md).
        draft: PathBuf,
        /// Print what would happen, change nothing.
        #[arg(long)]
        dry_run: bool,
        /// Finalize even when the latest review of the draft's content is
        /// `rejected` or `needs_revision`.
        #[arg(long)]
        force: bool,
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
    /// Write config/helix-gate.yaml for the ADRs this repository has (their format and
    /// folder, found; or `init --preset madr|nygard|helix`), then print the next steps.
    Init {
        /// Replace an existing config/helix-gate.yaml.
        #[arg(long)]
        force: bool,
    },
    /// List the ADRs of the ADR directory: number, title, status and file.
    List {
        /// Output: a table for people, or JSON.
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
    /// Which ADRs govern each path: through a HELIX ADR's files.create/files.modify, a
    /// `governs:` glob, or a marker (`ADR-014`, `@adr 014`) in one of the file's comments;
    /// with each ADR's status and force (binding, pending, context, none).
    Governs {
        /// Files or folders, relative to the current folder.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Output: text for people, or JSON.
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
    /// Repository-wide ADR health: numbers, links, index and every file's validation.
    Doctor {
        /// Output format of the findings.
        #[arg(long, value_enum, default_value_t = ReportFormat::Human)]
        format: ReportFormat,
        /// Instead of the ADR checks: run each registration of the hook (and the git
        /// pre-commit shim) as its agent runs it, with a write of a broken ADR in a
        /// scratch folder, and say whether it blocks; exit 1 when one that should
        /// block does not. Formats: human, json.
        #[arg(long)]
        probe: bool,
    },
    /// Consent to run the programs this repository's configuration names (its reviewer
    /// `command`): the user-scope hook runs a reviewer other than `claude` only after this.
    Trust {
        /// Print whether the configuration as it is now is trusted; change nothing.
        #[arg(long, conflicts_with = "revoke")]
        show: bool,
        /// Remove the consent for this repository.
        #[arg(long)]
        revoke: bool,
    },
    /// This user's signing key for result files: `export` writes its public half (default
    /// approvals/keys/<user>.pub), which verifies the results this user signs for every
    /// teammate who trusts the repository's configuration (`helix-gate trust`).
    Key {
        /// What to do.
        #[arg(value_enum)]
        action: key::KeyAction,
        /// Where to write the public key (default approvals/keys/<$USER>.pub).
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// MCP server on stdio for any agent (Claude Code, Codex, Gemini CLI): tools to validate
    /// an ADR, explain and list the rules, give a new ADR's template and number, run a
    /// phase's gates, name the ADRs that govern a file.
    Mcp {
        /// The repository (default: the enclosing git work tree of the current folder).
        /// Every path a tool is given must lie inside it.
        #[arg(long, value_name = "DIR")]
        root: Option<PathBuf>,
    },
    /// Print the JSON Schema of a config file (for editors; also in schemas/).
    // The usage names the three files, in `--help` and in the error when none is given
    // (clap's own error usage would say only `<NAME>` and drop the `[OPTIONS]` of `--help`).
    #[command(
        override_usage = "helix-gate schema [OPTIONS] <helix-gate|adr-completeness-rules|approvals>"
    )]
    Schema {
        /// The config file, by its name without `.yaml`.
        #[arg(value_enum)]
        name: schema::SchemaName,
    },
    /// Print a shell completion script (e.g. `helix-gate completions bash > ~/.local/share/bash-completion/completions/helix-gate`).
    Completions {
        /// The shell the script is for.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff): `helix-gate man > helix-gate.1`, or a subcommand's
    /// page: `helix-gate man validate > helix-gate-validate.1`.
    Man {
        /// The subcommand whose page to print (default: helix-gate(1)).
        subcommand: Option<String>,
    },
}

/// What `install` and `uninstall` register: an agent's hook, or git's
/// pre-commit hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InstallTarget {
    Agent(Agent),
    Git,
}

/// Every agent, then `git`.
const INSTALL_TARGETS: [InstallTarget; Agent::ALL.len() + 1] = {
    let mut targets = [InstallTarget::Git; Agent::ALL.len() + 1];
    let mut i = 0;
    while i < Agent::ALL.len() {
        targets[i] = InstallTarget::Agent(Agent::ALL[i]);
        i += 1;
    }
    targets
};

impl ValueEnum for InstallTarget {
    fn value_variants<'a>() -> &'a [Self] {
        &INSTALL_TARGETS
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(match self {
            InstallTarget::Agent(agent) => agent.cli_name(),
            InstallTarget::Git => "git",
        }))
    }
}

/// The values of `hook --agent`: every agent, by its command-line name.
impl ValueEnum for Agent {
    fn value_variants<'a>() -> &'a [Self] {
        &Agent::ALL
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.cli_name()).help(self.backend().description()))
    }
}

/// Which settings file: project (.claude/settings.json, .codex/hooks.json), local
/// (.claude/settings.local.json; Claude Code only) or user (~/.claude/settings.json,
/// `$CODEX_HOME/hooks.json`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Scope {
    Project,
    Local,
    User,
}

/// `accept`, `reject` and `deprecate`: the ADR and the person.
#[derive(Debug, Clone, clap::Args)]
pub struct StatusArgs {
    /// The ADR: its number (14, 0014, ADR-0014) or its path.
    adr: String,
    /// Who decides (recorded).
    #[arg(long, required = true)]
    by: String,
    /// Why (recorded).
    #[arg(long)]
    reason: Option<String>,
}

/// `--ignore` / `--select`: rules switched off or chosen for one run, over the
/// configuration's `rules.ignore` (repeated or comma-separated, as in ruff).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct RuleChoiceArgs {
    /// Do not show or count this rule's findings (an id from `helix-gate rules`;
    /// repeat it or separate ids with commas).
    #[arg(long, value_name = "RULE", value_delimiter = ',')]
    ignore: Vec<String>,
    /// Show and count only this rule's findings (repeat it or separate ids with commas);
    /// it wins over the configuration's `rules.ignore`, not over `--ignore`.
    #[arg(long, value_name = "RULE", value_delimiter = ',')]
    select: Vec<String>,
}

impl RuleChoiceArgs {
    /// Hand the flags to every engine this command loads.
    fn record(self) {
        crate::rules::selection::set_cli_choice(crate::rules::selection::RuleChoice {
            ignore: self.ignore,
            select: self.select,
        });
    }
}

#[expect(clippy::too_many_lines, reason = "one arm per command")]
pub fn run(cli: Cli) -> anyhow::Result<ExitStatus> {
    if let Some(preset) = cli.preset {
        crate::config::preset::set_cli_override(preset.into());
    }
    match cli.command {
        Command::Validate {
            paths,
            format,
            rules,
            concept,
            choice,
        } => {
            choice.record();
            validate::validate(&paths, format, rules.as_deref(), concept.as_deref())
        }
        Command::Rules { rules } => validate::list_rules(rules.as_deref()),
        Command::Explain { id, rules } => validate::explain(&id, rules.as_deref()),
        Command::Hook { scope, agent, .. } => Ok(hook::run(scope == Scope::User, agent)),
        Command::PreCommit {
            format,
            choice,
            files,
        } => {
            choice.record();
            precommit::run(format, &files)
        }
        Command::Install {
            target,
            scope,
            trust_hooks,
            trust_project,
        } => install::install(
            target,
            scope,
            install::Trust {
                hooks: trust_hooks,
                project: trust_project,
            },
        ),
        Command::Uninstall { target, scope } => install::uninstall(target, scope),
        Command::Approve {
            kind,
            format,
            override_: Some(judged),
            reason,
            out,
            ..
        } => approve::judge(
            &judged,
            &kind,
            reason.as_deref().unwrap_or_default(),
            out.as_deref(),
            format,
        ),
        Command::Approve {
            files,
            kind,
            no_cache,
            require_consent,
            out,
            format,
            ..
        } => approve::run(
            &files,
            &kind,
            approve::Flags {
                no_cache,
                require_consent,
                out: out.as_deref(),
            },
            format,
        ),
        Command::Gate(args) => gate::run(args),
        Command::Check { base, format } => check::run(base.as_deref(), format),
        Command::Override { rule, reason } => check::override_rule(&rule, &reason),
        Command::Accept(a) => status::change(Change::Accept, &a.adr, &a.by, a.reason.as_deref()),
        Command::Reject(a) => status::change(Change::Reject, &a.adr, &a.by, a.reason.as_deref()),
        Command::Deprecate(a) => {
            status::change(Change::Deprecate, &a.adr, &a.by, a.reason.as_deref())
        }
        Command::History { adr, format } => status::history(&adr, format),
        Command::Log { tail } => log::show(tail),
        Command::Stats { format } => log::stats(format),
        Command::Report { out } => report::run(out.as_deref()),
        Command::NextNumber => adr_dir::next_number(),
        Command::New { title, supersedes } => adr_dir::new(&title, &supersedes),
        Command::Finalize {
            draft,
            dry_run,
            force,
        } => adr_dir::finalize(&draft, dry_run, force),
        Command::Index { check, write } => adr_dir::index(check, write),
        Command::Init { force } => adr_dir::init(cli.preset.map(Into::into), force),
        Command::List { format } => adr_dir::list(format),
        Command::Governs { paths, format } => adr_dir::governs(&paths, format),
        Command::Doctor { format, probe } => {
            if probe {
                adr_dir::doctor_probe(format)
            } else {
                adr_dir::doctor(format)
            }
        }
        Command::Key { action, out } => key::run(action, out.as_deref()),
        Command::Trust { show, revoke } => trust::run(if show {
            trust::Action::Show
        } else if revoke {
            trust::Action::Revoke
        } else {
            trust::Action::Trust
        }),
        Command::Mcp { root } => mcp::run(root.as_deref()),
        Command::Schema { name } => schema::run(name),
        Command::Completions { shell } => docs::completions(shell),
        Command::Man { subcommand } => docs::man(subcommand.as_deref()),
    }
}
