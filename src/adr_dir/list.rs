//! `list`: the ADRs of the ADR directory with their number, title and status,
//! read from the same [`Catalog`] as `index` and `doctor`.

use std::path::Path;

use serde::Serialize;

use super::Workspace;
use super::catalog::Catalog;

/// One ADR as `list` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Listed {
    /// The number as the directory writes it (`001`, `0001`); None for a file
    /// that carries none.
    pub number: Option<String>,
    pub title: Option<String>,
    /// The front matter's `status`, else the body's (`* Status:`, `## Status`).
    pub status: Option<String>,
    /// The file, relative to the repository root.
    pub path: String,
}

/// Every ADR of the directory.
#[derive(Debug, Serialize)]
pub struct Listing {
    /// The ADR directory, relative to the repository root.
    pub directory: String,
    pub adrs: Vec<Listed>,
}

/// The ADRs of the repository at `root`, by number (those without one last, by path).
pub fn run(root: &Path) -> anyhow::Result<Listing> {
    let ws = Workspace::open(root)?;
    let catalog = Catalog::load(&ws.engine, &ws.dir)?;
    let mut entries: Vec<_> = catalog.entries.iter().collect();
    entries.sort_by_key(|e| (e.number().is_none(), e.number(), e.path.clone()));
    let adrs = entries
        .into_iter()
        .map(|entry| Listed {
            number: entry.number().map(|n| catalog.format(n)),
            title: entry.title().map(str::to_owned),
            status: entry.status().map(str::to_owned).or_else(|| {
                entry
                    .adr
                    .as_ref()
                    .and_then(crate::adr::Adr::body_status)
                    .map(|v| v.value)
            }),
            path: ws.display(&entry.path),
        })
        .collect();
    Ok(Listing {
        directory: ws.display(&ws.dir),
        adrs,
    })
}
