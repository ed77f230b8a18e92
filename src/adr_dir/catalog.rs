//! The ADR directory as its commands see it: the [`Catalog`] model (in
//! `adr::catalog`, so the rules on the directory can read it) loaded from disk
//! through the engine, and the next free number.

use std::path::Path;

use crate::adr::catalog::Entry;
pub use crate::adr::catalog::{Catalog, MAX_NUMBER, format_number, format_number_width, summary};
use crate::adr::{self, Adr};
use crate::engine::{Engine, read_limited};
use crate::rules;

// `Catalog` is defined in `adr::catalog`; loading it needs the engine, which sits
// above `adr`, so these methods live here.
impl Catalog {
    /// Read the Markdown files below `dir` (INDEX.md, README.md and templates excluded).
    pub fn load(engine: &Engine, dir: &Path) -> anyhow::Result<Catalog> {
        Catalog::load_observed(engine, dir, &mut |_, _| {})
    }

    /// [`Catalog::load`], handing `observe` the bytes of each file it reads (the
    /// governing index's cache hashes exactly what was parsed).
    pub fn load_observed(
        engine: &Engine,
        dir: &Path,
        observe: &mut dyn FnMut(&Path, &[u8]),
    ) -> anyhow::Result<Catalog> {
        let dir = crate::paths::absolute(dir);
        let limit = engine.settings.adr.max_file_size;
        let mut entries = Vec::new();
        let (adrs, excluded) = engine.directory_markdown(&dir)?;
        // Excluded files keep the number in their name: a number is never handed out twice.
        let reserved = excluded
            .into_iter()
            .filter_map(|path| {
                let path = crate::paths::absolute(&path);
                Some((adr::number_in_file_name(&path)?, path))
            })
            .collect();
        for path in adrs {
            let path = crate::paths::absolute(&path);
            // An unreadable or undecodable file still takes the number in its name;
            // `doctor` reports why it cannot be read. A file that a link leads out of
            // the project is not read at all: its title, status and summary would be
            // copied into INDEX.md and shown by every directory command.
            let adr = (!crate::engine::leaves_project(&engine.root, &path))
                .then(|| read_limited(&path, limit).ok())
                .flatten()
                .inspect(|bytes| observe(&path, bytes))
                .and_then(|bytes| rules::input::decode(bytes, limit).ok())
                .map(|text| Adr::parse(&text));
            entries.push(Entry {
                link: link_from(&dir, &path),
                file_number: adr::number_in_file_name(&path),
                adr,
                path,
            });
        }
        Ok(Catalog {
            dir,
            entries,
            width: engine.settings.adr.number_width,
            reserved,
        })
    }

    /// One more than the highest number any file of the directory carries, an
    /// excluded one too (1 in an empty directory).
    pub fn next_number(&self) -> anyhow::Result<u32> {
        match self.used().last() {
            None => Ok(1),
            Some(&max) => max
                .checked_add(1)
                .ok_or_else(|| anyhow::anyhow!("ADR number {max} is the largest possible number")),
        }
    }
}

/// `path` relative to `dir` with `/` separators.
pub fn link_from(dir: &Path, path: &Path) -> String {
    crate::paths::relative_to(dir, path).unwrap_or_else(|| path.display().to_string())
}
