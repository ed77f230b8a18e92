//! `helix-gate mcp`: the MCP server on stdio. This is its I/O: lines from stdin to
//! [`crate::mcp::Server`], its answers to stdout, one line each, flushed at once
//! (stdout is the protocol channel: nothing else is ever written there). It ends at
//! the end of stdin, or when stdout is closed.

use std::io::Write as _;
use std::path::Path;

use anyhow::{Context as _, bail};

use super::ExitStatus;
use crate::mcp::{LineReader, Server};

pub(super) fn run(root: Option<&Path>) -> anyhow::Result<ExitStatus> {
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let root = match root {
        Some(dir) => {
            let dir = crate::paths::absolute(dir);
            if !dir.is_dir() {
                bail!("--root {}: not a folder", dir.display());
            }
            dir
        }
        None => crate::paths::find_root(&cwd),
    };
    let mut server = Server::new(&root, &cwd);
    let mut input = LineReader::new(std::io::stdin().lock());
    let mut stdout = std::io::stdout().lock();
    while let Some(line) = input.next_line().context("cannot read stdin")? {
        let Some(answer) = server.handle(&line) else {
            continue;
        };
        match writeln!(stdout, "{answer}").and_then(|()| stdout.flush()) {
            Ok(()) => {}
            // The client is gone: nobody is left to answer.
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => break,
            Err(e) => return Err(e).context("cannot write to stdout"),
        }
    }
    Ok(ExitStatus::Success)
}
