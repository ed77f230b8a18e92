//! Speaking MCP (newline-delimited JSON-RPC 2.0) to `helix-gate mcp` over pipes, as an
//! agent does, with every read bounded in time: a server that stops answering fails
//! the test instead of hanging it.

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::Path;
use std::process::{Child, ChildStdin, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::cli::{bin, drain};
use super::repo::in_repo;

/// How long one answer may take: far above any tool call of the suite.
pub(crate) const ANSWER_LIMIT: Duration = Duration::from_secs(30);

/// A running `helix-gate mcp` and its pipes.
pub(crate) struct McpServer {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stderr: Option<std::thread::JoinHandle<Vec<u8>>>,
    next_id: u64,
}

impl McpServer {
    /// `helix-gate mcp ARGS` started in `dir` ([`in_repo`]: the test's isolated
    /// environment), not yet initialized.
    pub(crate) fn start(dir: &Path, args: &[&str]) -> McpServer {
        let mut child = in_repo(bin(), dir)
            .arg("mcp")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn helix-gate mcp");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = Some(drain(child.stderr.take()));
        McpServer {
            stdin: child.stdin.take(),
            child,
            lines,
            stderr,
            next_id: 0,
        }
    }

    /// [`McpServer::start`], then `initialize` (asking for `version`) and the
    /// `notifications/initialized` that follows it; returns the `initialize` result.
    pub(crate) fn initialized(dir: &Path, version: &str) -> (McpServer, Value) {
        let mut server = McpServer::start(dir, &[]);
        let init = server.request(
            "initialize",
            json!({
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": {"name": "helix-gate-tests", "version": "0"}
            }),
        );
        server.notify("notifications/initialized", json!({}));
        let result = init["result"].clone();
        assert!(result.is_object(), "initialize failed: {init}");
        (server, result)
    }

    /// Write `bytes` as they are (a line break is the caller's).
    pub(crate) fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin still open");
        stdin.write_all(bytes).expect("write to the server");
        stdin.flush().expect("flush");
    }

    /// Send one message as a line.
    pub(crate) fn send(&mut self, message: &Value) {
        self.send_raw(format!("{message}\n").as_bytes());
    }

    /// The next line the server writes, parsed; fails the test after [`ANSWER_LIMIT`].
    pub(crate) fn receive(&mut self) -> Value {
        match self.lines.recv_timeout(ANSWER_LIMIT) {
            Ok(line) => serde_json::from_str(&line).unwrap_or_else(|e| {
                panic!("the server wrote a line that is not JSON ({e}): {line}")
            }),
            Err(RecvTimeoutError::Timeout) => {
                let _ = self.child.kill();
                panic!("no answer from helix-gate mcp within {ANSWER_LIMIT:?}")
            }
            Err(RecvTimeoutError::Disconnected) => {
                panic!("helix-gate mcp closed its stdout: {}", self.finish_stderr())
            }
        }
    }

    /// Whether the server writes anything within `wait` (for "a notification is never
    /// answered").
    pub(crate) fn silent_for(&mut self, wait: Duration) -> bool {
        match self.lines.recv_timeout(wait) {
            Ok(line) => panic!("unexpected line from the server: {line}"),
            Err(_) => true,
        }
    }

    /// A request with a fresh numeric id; its response (checked to carry that id).
    pub(crate) fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let mut message = json!({"jsonrpc": "2.0", "id": id, "method": method});
        message["params"] = params;
        self.send(&message);
        let answer = self.receive();
        assert_eq!(
            answer["id"],
            json!(id),
            "answer to another request: {answer}"
        );
        assert_eq!(answer["jsonrpc"], "2.0", "{answer}");
        answer
    }

    pub(crate) fn notify(&mut self, method: &str, params: Value) {
        let mut message = json!({"jsonrpc": "2.0", "method": method});
        message["params"] = params;
        self.send(&message);
    }

    /// `tools/call` of `name` with `arguments`: the call's `result` (a protocol error
    /// fails the test).
    pub(crate) fn call(&mut self, name: &str, arguments: Value) -> Value {
        let mut params = json!({"name": name});
        params["arguments"] = arguments;
        let answer = self.request("tools/call", params);
        assert!(
            answer.get("error").is_none(),
            "{name}: protocol error {answer}"
        );
        answer["result"].clone()
    }

    /// Close stdin: the end of the input (answers already on their way can still be
    /// received).
    pub(crate) fn close_stdin(&mut self) {
        drop(self.stdin.take());
    }

    /// Close stdin and wait (bounded) for the exit; its status and stderr.
    pub(crate) fn close(mut self) -> (ExitStatus, String) {
        self.close_stdin();
        let started = Instant::now();
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                break status;
            }
            if started.elapsed() > ANSWER_LIMIT {
                let _ = self.child.kill();
                panic!(
                    "helix-gate mcp did not end within {ANSWER_LIMIT:?} of the end of its input"
                );
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        let stderr = self.finish_stderr();
        (status, stderr)
    }

    fn finish_stderr(&mut self) -> String {
        self.stderr
            .take()
            .map(|h| String::from_utf8_lossy(&h.join().unwrap_or_default()).into_owned())
            .unwrap_or_default()
    }
}

impl Drop for McpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The text of a tool result's one text block.
pub(crate) fn text(result: &Value) -> &str {
    assert_eq!(result["content"][0]["type"], "text", "{result}");
    result["content"][0]["text"].as_str().expect("text")
}

/// Whether a tool result says the tool failed.
pub(crate) fn is_error(result: &Value) -> bool {
    result["isError"].as_bool().expect("isError is a boolean")
}
