//! The registrations `install` wrote, recorded in helix-gate's per-user state
//! folder (`registrations.json`: the registration files by absolute path), so
//! that `doctor` can tell a registration that was removed since (a warning)
//! from one that never was (fine).
//!
//! Why a record and not another sign: a repository set up for helix-gate
//! (`config/helix-gate.yaml`, the git pre-commit shim) says nothing about
//! which agents it is used with, so "another agent is registered" would warn
//! about every agent a team does not use. The record says exactly what was
//! registered, and it lives outside every work tree, where the hook asks the
//! person before a command changes it (`hook::guarded`). It is best effort:
//! without a state folder nothing is recorded, and nothing is warned about.

use std::path::{Path, PathBuf};

/// The record's file name in the state folder.
pub const FILE: &str = "registrations.json";

fn record_path() -> Option<PathBuf> {
    crate::env::state_dir().map(|dir| dir.join(FILE))
}

/// The recorded registration files.
fn read(path: &Path) -> Vec<String> {
    let Ok(bytes) = crate::fs::read::regular(
        path,
        crate::fs::read::CONFIG_LIMIT,
        crate::fs::read::Links::Refuse,
    ) else {
        return Vec::new();
    };
    serde_json::from_slice::<serde_json::Value>(&bytes)
        .ok()
        .and_then(|v| {
            v.get("files").and_then(|f| f.as_array()).map(|files| {
                files
                    .iter()
                    .filter_map(|f| f.as_str().map(str::to_owned))
                    .collect()
            })
        })
        .unwrap_or_default()
}

fn key(file: &Path) -> String {
    crate::paths::absolute(file).display().to_string()
}

/// Change the record: `file` added (`keep`) or removed. Errors are ignored:
/// the record only sharpens `doctor`'s report.
fn update(file: &Path, keep: bool) {
    let Some(path) = record_path() else { return };
    let mut files = read(&path);
    let key = key(file);
    let had = files.contains(&key);
    if had == keep {
        return;
    }
    if keep {
        files.push(key);
        files.sort();
    } else {
        files.retain(|f| *f != key);
    }
    let Some(dir) = path.parent() else { return };
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let text = serde_json::json!({ "files": files }).to_string();
    let _ = crate::fs::atomic::write(dir, &path, text.as_bytes());
}

/// `install` registered helix-gate in `file`.
pub fn registered(file: &Path) {
    update(file, true);
}

/// `uninstall` removed helix-gate's registration from `file`.
pub fn unregistered(file: &Path) {
    update(file, false);
}

/// Whether `install` registered helix-gate in `file` (and `uninstall` did not
/// remove it since).
pub fn was_registered(file: &Path) -> bool {
    record_path().is_some_and(|path| read(&path).contains(&key(file)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_record_keeps_what_install_wrote_until_uninstall() {
        let dir = tempfile::tempdir().unwrap();
        let record = dir.path().join(FILE);
        assert!(read(&record).is_empty());
        std::fs::write(&record, r#"{"files":["/r/.codex/hooks.json", 3]}"#).unwrap();
        assert_eq!(read(&record), ["/r/.codex/hooks.json"]);
        std::fs::write(&record, "not json").unwrap();
        assert!(read(&record).is_empty());
    }
}
