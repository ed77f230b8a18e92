//! Harness for running the real GitHub Copilot CLI against [`super::fake_chat`].
//!
//! `copilot -p` runs hermetically: a scratch `HOME` (and `COPILOT_HOME` in it),
//! `COPILOT_OFFLINE=true` (no GitHub sign-in, no telemetry, only the provider
//! is contacted), the BYOK variables pointing at the fake
//! (`COPILOT_PROVIDER_BASE_URL`, `COPILOT_MODEL`: a Claude model name, for which
//! Copilot offers `create` and `edit`), `GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS=true`
//! (otherwise `-p` loads a repository's hooks only in a trusted folder),
//! `--allow-all-tools` (nobody to approve a tool), and the unpacked client
//! shared in `.cache/copilot-cli/pkg-cache` (`COPILOT_PKG_CACHE_HOME`).
//! Everything else of the environment goes through [`super::cli::isolated`].
//!
//! The client comes from `scripts/install-copilot.sh` (or
//! `HELIX_GATE_COPILOT_BIN`); tests call [`require_copilot`] and return early
//! when it is missing, except under `CI`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use tempfile::TempDir;

pub(crate) const TIMEOUT: Duration = Duration::from_secs(180);
/// A Claude model name: Copilot then offers `create` / `edit` (a GPT name gets `apply_patch`).
pub(crate) const MODEL: &str = "claude-sonnet-4.5";

fn prefix() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(".cache/copilot-cli")
}

/// The `copilot` executable: env `HELIX_GATE_COPILOT_BIN`, else the pinned install.
pub(crate) fn copilot_bin() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("HELIX_GATE_COPILOT_BIN")
        && !path.is_empty()
    {
        return Some(PathBuf::from(path));
    }
    let local = prefix().join("node_modules/.bin/copilot");
    local.exists().then_some(local)
}

/// [`copilot_bin`], or: under `CI` a panic, elsewhere a note and `None`.
pub(crate) fn require_copilot() -> Option<PathBuf> {
    if let Some(bin) = copilot_bin() {
        return Some(bin);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "copilot CLI not found (CI is set): run scripts/install-copilot.sh or set HELIX_GATE_COPILOT_BIN"
    );
    eprintln!("skipped: copilot not installed (run scripts/install-copilot.sh)");
    None
}

/// A scratch `HOME` for Copilot pointed at the fake at `base_url`.
pub(crate) struct CopilotHome {
    dir: TempDir,
    base_url: String,
}

impl CopilotHome {
    pub(crate) fn new(base_url: &str) -> CopilotHome {
        let dir = tempfile::Builder::new()
            .prefix("helix-gate-copilot-home-")
            .tempdir()
            .expect("scratch HOME");
        CopilotHome {
            dir,
            base_url: base_url.to_owned(),
        }
    }

    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }

    /// `program` in `cwd` with this `HOME`, the fake as the model provider, and
    /// nothing of the developer's agents or GitHub tokens inherited.
    pub(crate) fn command(&self, program: impl AsRef<std::ffi::OsStr>, cwd: &Path) -> Command {
        let mut command = super::cli::isolated(program, cwd);
        for (key, _) in std::env::vars_os() {
            let name = key.to_string_lossy();
            if name.starts_with("COPILOT")
                || name.starts_with("GITHUB_COPILOT")
                || name == "GH_TOKEN"
                || name == "GITHUB_TOKEN"
            {
                command.env_remove(&key);
            }
        }
        command
            .env("HOME", self.path())
            .env("COPILOT_HOME", self.path().join(".copilot"))
            .env("COPILOT_OFFLINE", "true")
            .env("COPILOT_AUTO_UPDATE", "false")
            .env("COPILOT_PROVIDER_BASE_URL", &self.base_url)
            .env("COPILOT_MODEL", MODEL)
            .env("COPILOT_PKG_CACHE_HOME", prefix().join("pkg-cache"))
            .env("GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS", "true");
        command
    }
}

/// What one `copilot -p` run produced.
pub(crate) type Outcome = super::cli::ClientRun;

/// `copilot -p <prompt> --allow-all-tools [extra]` in `cwd`, stdin closed; the
/// client and its hooks are killed after [`TIMEOUT`].
pub(crate) fn run(
    bin: &Path,
    home: &CopilotHome,
    cwd: &Path,
    prompt: &str,
    extra: &[&str],
) -> Outcome {
    let mut command = home.command(bin, cwd);
    command
        .args(["-p", prompt, "--allow-all-tools"])
        .args(extra);
    super::cli::run_client(&mut command, "copilot -p", TIMEOUT)
}
