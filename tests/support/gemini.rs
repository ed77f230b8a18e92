//! Harness for running the real Gemini CLI against [`super::fake_gemini`].
//!
//! `gemini -p` runs hermetically: a scratch `HOME` whose
//! `.gemini/settings.json` selects API-key auth (the base URL alone exits 41,
//! "Invalid auth method") and turns off statistics, telemetry and updates;
//! `GOOGLE_GEMINI_BASE_URL` points at the fake; `GEMINI_CLI_TRUST_WORKSPACE=true`
//! (folder trust: `--skip-trust` would run but ignore the project's settings,
//! hooks included); `--approval-mode auto_edit` (otherwise the edit tools are
//! not offered in `-p` mode) and `-m` (otherwise a router request comes first).
//! Everything else of the environment goes through [`super::cli::isolated`].
//!
//! The client comes from `scripts/install-gemini.sh` (or `HELIX_GATE_GEMINI_BIN`);
//! tests call [`require_gemini`] and return early when it is missing, except
//! under `CI`, where that is a failure.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::json;
use tempfile::TempDir;

/// Time limit for one Gemini run (Node starts in seconds).
pub(crate) const TIMEOUT: Duration = Duration::from_secs(180);
/// The model named on the command line (any name the fake answers for).
pub(crate) const MODEL: &str = "gemini-2.5-flash";

/// The `gemini` executable: env `HELIX_GATE_GEMINI_BIN`, else
/// `<crate>/.cache/gemini-cli/node_modules/.bin/gemini` if it exists.
pub(crate) fn gemini_bin() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("HELIX_GATE_GEMINI_BIN")
        && !path.is_empty()
    {
        return Some(PathBuf::from(path));
    }
    let local =
        Path::new(env!("CARGO_MANIFEST_DIR")).join(".cache/gemini-cli/node_modules/.bin/gemini");
    local.exists().then_some(local)
}

/// [`gemini_bin`], or: under `CI` a panic, elsewhere a note and `None`.
pub(crate) fn require_gemini() -> Option<PathBuf> {
    if let Some(bin) = gemini_bin() {
        return Some(bin);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "gemini CLI not found (CI is set): run scripts/install-gemini.sh or set HELIX_GATE_GEMINI_BIN"
    );
    eprintln!("skipped: gemini not installed (run scripts/install-gemini.sh)");
    None
}

/// A scratch `HOME` with Gemini's user settings for the fake at `base_url`.
pub(crate) struct GeminiHome {
    dir: TempDir,
    base_url: String,
}

impl GeminiHome {
    pub(crate) fn new(base_url: &str) -> GeminiHome {
        let dir = tempfile::Builder::new()
            .prefix("helix-gate-gemini-home-")
            .tempdir()
            .expect("scratch HOME");
        std::fs::create_dir_all(dir.path().join(".gemini")).expect("~/.gemini");
        let settings = json!({
            "security": {"auth": {"selectedType": "gemini-api-key"}},
            "privacy": {"usageStatisticsEnabled": false},
            "telemetry": {"enabled": false},
            "general": {"enableAutoUpdate": false},
        });
        std::fs::write(
            dir.path().join(".gemini/settings.json"),
            serde_json::to_string_pretty(&settings).unwrap(),
        )
        .expect("write settings.json");
        GeminiHome {
            dir,
            base_url: base_url.to_owned(),
        }
    }

    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The user settings as they are now.
    pub(crate) fn settings(&self) -> String {
        std::fs::read_to_string(self.path().join(".gemini/settings.json")).unwrap_or_default()
    }

    /// `program` in `cwd` with this `HOME`, the fake's URL and key, folder
    /// trust on, and nothing of the developer's agents inherited.
    pub(crate) fn command(&self, program: impl AsRef<std::ffi::OsStr>, cwd: &Path) -> Command {
        let mut command = super::cli::isolated(program, cwd);
        for (key, _) in std::env::vars_os() {
            if key.to_string_lossy().starts_with("GOOGLE") {
                command.env_remove(&key);
            }
        }
        command
            .env("HOME", self.path())
            .env("GOOGLE_GEMINI_BASE_URL", &self.base_url)
            .env("GEMINI_API_KEY", "dummy")
            .env("GEMINI_CLI_TRUST_WORKSPACE", "true");
        command
    }
}

/// What one `gemini -p` run produced.
/// What one `gemini -p` run produced.
pub(crate) type Outcome = super::cli::ClientRun;

/// `gemini -p <prompt> --output-format json --approval-mode auto_edit -m MODEL
/// [extra]` in `cwd` (`extra` may name another approval mode: `yolo` offers the
/// shell, `auto_edit` does not), stdin closed; the client and its hooks are
/// killed after [`TIMEOUT`].
pub(crate) fn run(
    bin: &Path,
    home: &GeminiHome,
    cwd: &Path,
    prompt: &str,
    extra: &[&str],
) -> Outcome {
    let mut command = home.command(bin, cwd);
    if !extra.contains(&"--approval-mode") {
        command.args(["--approval-mode", "auto_edit"]);
    }
    command
        .args(["-p", prompt, "--output-format", "json"])
        .args(["-m", MODEL])
        .args(extra);
    super::cli::run_client(&mut command, "gemini -p", TIMEOUT)
}
