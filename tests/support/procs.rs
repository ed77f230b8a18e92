//! The processes of this machine as `/proc` shows them, for tests that prove a
//! reviewer or a Claude Code run leaves nothing behind (empty where `/proc` is
//! unavailable).

use std::path::{Path, PathBuf};

/// One process from `/proc/<pid>/stat`.
pub(crate) struct Proc {
    pub(crate) pid: u32,
    pub(crate) ppid: u32,
    pub(crate) pgid: u32,
    /// A zombie: it has ended and only waits to be reaped.
    pub(crate) zombie: bool,
    dir: PathBuf,
}

impl Proc {
    /// Its working directory.
    pub(crate) fn cwd(&self) -> Option<PathBuf> {
        std::fs::read_link(self.dir.join("cwd")).ok()
    }

    /// Whether `marker` occurs in its command line or its environment.
    pub(crate) fn mentions(&self, marker: &str) -> bool {
        ["cmdline", "environ"].iter().any(|file| {
            std::fs::read(self.dir.join(file))
                .is_ok_and(|b| b.windows(marker.len()).any(|w| w == marker.as_bytes()))
        })
    }

    /// Whether its working directory lies below `dir`.
    pub(crate) fn works_in(&self, dir: &Path) -> bool {
        self.cwd().is_some_and(|cwd| cwd.starts_with(dir))
    }
}

/// Every process `/proc` lists now, zombies included.
pub(crate) fn all() -> Vec<Proc> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| {
            let pid = entry.file_name().to_str()?.parse::<u32>().ok()?;
            let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
            // "pid (comm) state ppid pgrp ...": comm may contain spaces and ')'.
            let rest = &stat[stat.rfind(')')? + 1..];
            let fields: Vec<&str> = rest.split_whitespace().collect();
            Some(Proc {
                pid,
                zombie: fields.first() == Some(&"Z"),
                ppid: fields.get(1)?.parse().ok()?,
                pgid: fields.get(2)?.parse().ok()?,
                dir: entry.path(),
            })
        })
        .collect()
}

/// Every process that has not ended.
pub(crate) fn live() -> Vec<Proc> {
    all().into_iter().filter(|p| !p.zombie).collect()
}
