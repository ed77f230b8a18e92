//! Harness for running the real Codex CLI against [`super::fake_responses`].
//!
//! Why it exists: the end-to-end tests of `helix-gate hook --agent codex` need
//! `codex exec` (and `codex app-server`, which is what the TUI and IDE clients
//! show hook messages from) to run hermetically: a scratch `HOME` and
//! `CODEX_HOME` whose `config.toml` points at the fake API on 127.0.0.1 and
//! turns off everything that would reach the network (`../shared/agent-hooks.md`),
//! no credentials or settings of the developer's own Codex, and a timeout after
//! which the client and everything it started is killed.
//!
//! The client comes from `scripts/install-codex.sh` (or `HELIX_GATE_CODEX_BIN`);
//! tests call [`require_codex`] and return early when it is missing, except
//! under `CI`, where that is a failure.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tempfile::TempDir;

/// Default time limit for one Codex run.
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);

/// The `codex` executable: env `HELIX_GATE_CODEX_BIN`, else
/// `<crate>/.cache/codex/node_modules/.bin/codex` if it exists.
pub(crate) fn codex_bin() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("HELIX_GATE_CODEX_BIN")
        && !path.is_empty()
    {
        return Some(PathBuf::from(path));
    }
    let local = Path::new(env!("CARGO_MANIFEST_DIR")).join(".cache/codex/node_modules/.bin/codex");
    local.exists().then_some(local)
}

/// [`codex_bin`], or: under `CI` a panic, elsewhere a note on stderr and `None`
/// (the test should `return` early).
pub(crate) fn require_codex() -> Option<PathBuf> {
    if let Some(bin) = codex_bin() {
        return Some(bin);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "codex CLI not found (CI is set): run scripts/install-codex.sh or set HELIX_GATE_CODEX_BIN"
    );
    eprintln!("skipped: codex not installed (run scripts/install-codex.sh)");
    None
}

/// A scratch `HOME` that is also `CODEX_HOME`, with a `config.toml` that
/// points Codex at the fake API (`base_url`) and keeps it off the network.
pub(crate) struct CodexHome {
    dir: TempDir,
}

impl CodexHome {
    pub(crate) fn new(base_url: &str) -> CodexHome {
        let dir = tempfile::Builder::new()
            .prefix("helix-gate-codex-home-")
            .tempdir()
            .expect("scratch CODEX_HOME");
        // The model must be a slug of the bundled catalog, or apply_patch is
        // not offered; analytics and plugins off, or Codex reaches for the network.
        let config = format!(
            "model = \"gpt-5.5\"\nmodel_provider = \"fake\"\ncheck_for_update_on_startup = false\n\n[analytics]\nenabled = false\n\n[features]\nplugins = false\n\n[model_providers.fake]\nname = \"fake\"\nbase_url = \"{base_url}\"\nwire_api = \"responses\"\n"
        );
        std::fs::write(dir.path().join("config.toml"), config).expect("write config.toml");
        CodexHome { dir }
    }

    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The user `config.toml` as it is now.
    pub(crate) fn config(&self) -> String {
        std::fs::read_to_string(self.path().join("config.toml")).unwrap_or_default()
    }

    /// `command` with this `HOME` and `CODEX_HOME`, and nothing of the developer's
    /// Codex, Claude Code or helix-gate state inherited.
    pub(crate) fn isolate(&self, command: &mut Command) {
        for (key, _) in std::env::vars_os() {
            let name = key.to_string_lossy();
            if name.starts_with("CODEX")
                || name.starts_with("OPENAI")
                || name.starts_with("CLAUDE")
                || name.starts_with("ANTHROPIC")
                || name == "RUST_LOG"
            {
                command.env_remove(&key);
            }
        }
        command
            .env_remove("XDG_STATE_HOME")
            .env_remove("HELIX_GATE_STATE_DIR")
            .env_remove("HELIX_GATE_CHILD")
            .env("HOME", self.path())
            .env("CODEX_HOME", self.path())
            .env("NO_COLOR", "1");
    }
}

/// What one `codex exec` run produced.
/// What one `codex exec` run produced.
pub(crate) type ExecOutcome = super::cli::ClientRun;

/// `codex exec --sandbox danger-full-access <prompt>` in `cwd` (no bubblewrap
/// sandbox: a CI container may have no user namespaces), stdin closed.
pub(crate) fn exec(bin: &Path, home: &CodexHome, cwd: &Path, prompt: &str) -> ExecOutcome {
    let mut command = Command::new(bin);
    command
        .current_dir(cwd)
        .args(["exec", "--sandbox", "danger-full-access", prompt]);
    home.isolate(&mut command);
    super::cli::run_client(&mut command, "codex exec", DEFAULT_TIMEOUT)
}

/// `codex app-server` over stdio (JSON-RPC, one message a line): what the Codex
/// TUI and IDE extension talk to, and where a hook's `systemMessage` arrives
/// (a `hook/completed` notification's run `entries`, kind `warning`).
pub(crate) struct AppServer {
    child: Child,
    stdin: ChildStdin,
    messages: mpsc::Receiver<Value>,
    /// Every message received so far.
    pub seen: Vec<Value>,
    next_id: u64,
}

impl AppServer {
    pub(crate) fn start(bin: &Path, home: &CodexHome, cwd: &Path) -> AppServer {
        let mut command = Command::new(bin);
        command.current_dir(cwd).arg("app-server");
        home.isolate(&mut command);
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        super::own_group(&mut command);
        let mut child = command.spawn().expect("spawn codex app-server");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, messages) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if let Ok(message) = serde_json::from_str::<Value>(&line)
                    && tx.send(message).is_err()
                {
                    break;
                }
            }
        });
        let mut server = AppServer {
            child,
            stdin,
            messages,
            seen: Vec::new(),
            next_id: 0,
        };
        server.request(
            "initialize",
            &json!({"clientInfo": {"name": "helix-gate-tests", "version": "1"}}),
        );
        server.notify("initialized");
        server
    }

    fn send(&mut self, message: &Value) {
        writeln!(self.stdin, "{message}").expect("write to codex app-server");
        self.stdin.flush().expect("flush codex app-server");
    }

    fn notify(&mut self, method: &str) {
        self.send(&json!({"jsonrpc": "2.0", "method": method}));
    }

    /// Send a request and wait for its result (panics on an error or a timeout).
    pub(crate) fn request(&mut self, method: &str, params: &Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let reply = self.wait_for(|m| m.get("id") == Some(&json!(id)) && m.get("method").is_none());
        assert!(
            reply.get("error").is_none(),
            "codex app-server {method} failed: {reply}"
        );
        reply["result"].clone()
    }

    /// Wait until a message matches `pred` (at most [`DEFAULT_TIMEOUT`]); returns it.
    pub(crate) fn wait_for(&mut self, pred: impl Fn(&Value) -> bool) -> Value {
        if let Some(found) = self.seen.iter().find(|m| pred(m)) {
            return found.clone();
        }
        let deadline = Instant::now() + DEFAULT_TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let message = self.messages.recv_timeout(left).unwrap_or_else(|_| {
                panic!(
                    "codex app-server: no matching message in time; got:\n{}",
                    self.seen
                        .iter()
                        .map(Value::to_string)
                        .collect::<Vec<_>>()
                        .join("\n")
                )
            });
            self.seen.push(message.clone());
            if pred(&message) {
                return message;
            }
        }
    }

    /// Notifications with `method`, in order.
    pub(crate) fn notifications(&self, method: &str) -> Vec<&Value> {
        self.seen
            .iter()
            .filter(|m| m.get("method").and_then(Value::as_str) == Some(method))
            .collect()
    }
}

impl Drop for AppServer {
    fn drop(&mut self) {
        super::cli::kill_group(self.child.id());
        let _ = self.child.wait();
    }
}
