//! Codex's user configuration, `$CODEX_HOME/config.toml`: where Codex keeps
//! which projects are trusted and which hooks were reviewed.
//!
//! Read to tell the person what Codex still needs before helix-gate's hook
//! runs (`install codex`, `doctor`), and written only when asked
//! (`install codex --trust-hooks`, `--trust-project`) or to forget the
//! reviews of entries `uninstall codex` removed. The file is edited in place
//! (`toml_edit`): every other table, comment and blank line stays as it was;
//! a file that is not valid TOML is refused, never rewritten. Written
//! atomically, keeping its permissions; a symlinked file is written through
//! when it points inside Codex's home folder.

use std::path::{Path, PathBuf};

use anyhow::{Context as _, anyhow, bail};
use toml_edit::{DocumentMut, Item, Table, value};

use super::hooks::{self as codex, HookReview};
use crate::agent::hooks_file::Area;

/// The value of `trust_level` that makes Codex load a project's `.codex/`.
pub const TRUSTED: &str = "trusted";

/// The user `config.toml`, parsed.
#[derive(Debug)]
pub struct CodexConfig {
    pub path: PathBuf,
    doc: DocumentMut,
}

impl CodexConfig {
    /// `$CODEX_HOME/config.toml` (empty when it does not exist).
    pub fn load() -> anyhow::Result<CodexConfig> {
        CodexConfig::load_from(&codex::user_config()?)
    }

    /// The Codex configuration at `path` (empty when it does not exist).
    pub fn load_from(path: &Path) -> anyhow::Result<CodexConfig> {
        let text = crate::fs::read::optional_text(path, crate::fs::read::CONFIG_LIMIT)
            .with_context(|| format!("cannot read {}", path.display()))?
            .unwrap_or_default();
        let doc = text.parse::<DocumentMut>().map_err(|e| {
            anyhow!(
                "{} is not valid TOML ({}); refusing to change it. Fix the file and run the command again",
                path.display(),
                e.to_string().trim()
            )
        })?;
        Ok(CodexConfig {
            path: path.to_path_buf(),
            doc,
        })
    }

    /// The `trust_level` recorded for the project at `root` (its real path, as
    /// Codex keys it), if any.
    pub fn project_trust(&self, root: &Path) -> Option<String> {
        self.doc
            .get("projects")
            .and_then(Item::as_table_like)
            .and_then(|projects| projects.get(&project_key(root)))
            .and_then(Item::as_table_like)
            .and_then(|project| project.get("trust_level"))
            .and_then(Item::as_str)
            .map(str::to_owned)
    }

    /// The `trusted_hash` recorded for a hook's review key, if any.
    fn trusted_hash(&self, key: &str) -> Option<&str> {
        self.doc
            .get("hooks")
            .and_then(Item::as_table_like)
            .and_then(|hooks| hooks.get("state"))
            .and_then(Item::as_table_like)
            .and_then(|state| state.get(key))
            .and_then(Item::as_table_like)
            .and_then(|entry| entry.get("trusted_hash"))
            .and_then(Item::as_str)
    }

    /// Whether Codex's review of this entry is recorded, for its definition as it is now.
    pub fn is_reviewed(&self, review: &HookReview) -> bool {
        self.trusted_hash(&review.key) == Some(review.hash.as_str())
    }

    /// Record the reviews of helix-gate's entries (`[hooks.state."<key>"]
    /// trusted_hash`); returns how many were not recorded before.
    pub fn record_reviews(&mut self, reviews: &[HookReview]) -> anyhow::Result<usize> {
        let mut added = 0;
        for review in reviews {
            if self.is_reviewed(review) {
                continue;
            }
            let state = table_at(self.doc.as_table_mut(), &["hooks", "state"])?;
            let entry = state
                .entry(&review.key)
                .or_insert_with(|| Item::Table(Table::new()));
            let Some(entry) = entry.as_table_like_mut() else {
                bail!(
                    "`hooks.state.\"{}\"` in {} is not a table; refusing to change it",
                    review.key,
                    self.path.display()
                );
            };
            entry.insert("trusted_hash", value(review.hash.clone()));
            added += 1;
        }
        Ok(added)
    }

    /// Forget the reviews of entries that are gone: each key whose recorded
    /// hash is the entry's (a review of something else under that key stays).
    /// Returns how many were removed.
    pub fn forget_reviews(&mut self, reviews: &[HookReview]) -> usize {
        let Some(state) = self
            .doc
            .get_mut("hooks")
            .and_then(Item::as_table_like_mut)
            .and_then(|hooks| hooks.get_mut("state"))
            .and_then(Item::as_table_like_mut)
        else {
            return 0;
        };
        let mut removed = 0;
        for review in reviews {
            let ours = state
                .get(&review.key)
                .and_then(Item::as_table_like)
                .and_then(|entry| entry.get("trusted_hash"))
                .and_then(Item::as_str)
                == Some(review.hash.as_str());
            if ours && state.remove(&review.key).is_some() {
                removed += 1;
            }
        }
        removed
    }

    /// Mark the project at `root` trusted (`[projects."<root>"] trust_level =
    /// "trusted"`). Returns whether anything changed; a project the person
    /// marked untrusted is not overruled.
    pub fn trust_project(&mut self, root: &Path) -> anyhow::Result<bool> {
        match self.project_trust(root).as_deref() {
            Some(TRUSTED) => return Ok(false),
            Some(other) => bail!(
                "{} marks {} as `trust_level = \"{other}\"`; helix-gate does not overrule that. Change it in that file if you mean to trust the project",
                self.path.display(),
                project_key(root)
            ),
            None => {}
        }
        let projects = table_at(self.doc.as_table_mut(), &["projects"])?;
        let project = projects
            .entry(&project_key(root))
            .or_insert_with(|| Item::Table(Table::new()));
        let Some(project) = project.as_table_like_mut() else {
            bail!(
                "`projects.\"{}\"` in {} is not a table; refusing to change it",
                project_key(root),
                self.path.display()
            );
        };
        project.insert("trust_level", value(TRUSTED));
        Ok(true)
    }

    /// Write the file (inside `area`).
    pub fn save(&self, area: &Area) -> anyhow::Result<()> {
        if let Some(dir) = self.path.parent() {
            area.check(dir, crate::fs::confine::create_dir_all(&area.dir, dir))?;
        }
        area.check(
            &self.path,
            crate::fs::atomic::write(&area.dir, &self.path, self.doc.to_string().as_bytes()),
        )
    }
}

/// How Codex names a project in `[projects."<path>"]`: its real absolute path.
pub fn project_key(root: &Path) -> String {
    std::fs::canonicalize(root)
        .unwrap_or_else(|_| crate::paths::absolute(root))
        .display()
        .to_string()
}

/// The table at `keys` below `table`, created (without a header of its own)
/// where missing; an existing value that is not a table is refused.
fn table_at<'a>(mut table: &'a mut Table, keys: &[&str]) -> anyhow::Result<&'a mut Table> {
    for key in keys {
        let item = table.entry(key).or_insert_with(|| {
            let mut implicit = Table::new();
            implicit.set_implicit(true);
            Item::Table(implicit)
        });
        table = item.as_table_mut().ok_or_else(|| {
            anyhow!("`{key}` in Codex's config.toml is not a table (an inline table or a value); refusing to change it")
        })?;
    }
    Ok(table)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn review(key: &str, hash: &str) -> HookReview {
        HookReview {
            event: "Stop".into(),
            key: key.into(),
            hash: hash.into(),
        }
    }

    #[test]
    fn reviews_and_trust_are_added_in_place_and_forgotten_again() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        let original = "# my settings\nmodel = \"gpt-5.5\"\n\n[projects.\"/elsewhere\"]\ntrust_level = \"trusted\"\n";
        std::fs::write(&path, original).unwrap();
        let mut config = CodexConfig::load_from(&path).unwrap();
        let ours = [review("/r/.codex/hooks.json:stop:0:0", "sha256:aa")];
        assert!(!config.is_reviewed(&ours[0]));
        assert_eq!(config.record_reviews(&ours).unwrap(), 1);
        assert_eq!(config.record_reviews(&ours).unwrap(), 0);
        assert!(config.trust_project(dir.path()).unwrap());
        assert!(!config.trust_project(dir.path()).unwrap());
        let area = Area {
            dir: dir.path().to_path_buf(),
            name: "test",
        };
        config.save(&area).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with(original), "{text}");
        assert!(
            text.contains(
                "[hooks.state.\"/r/.codex/hooks.json:stop:0:0\"]\ntrusted_hash = \"sha256:aa\""
            ),
            "{text}"
        );
        assert!(
            !text.contains("[hooks]\n"),
            "no empty parent tables: {text}"
        );
        let reread = CodexConfig::load_from(&path).unwrap();
        assert!(reread.is_reviewed(&ours[0]));
        assert_eq!(reread.project_trust(dir.path()).as_deref(), Some(TRUSTED));
        // Forget only a review of our entry as it was.
        let mut config = reread;
        assert_eq!(
            config.forget_reviews(&[review("/r/.codex/hooks.json:stop:0:0", "sha256:bb")]),
            0
        );
        assert_eq!(config.forget_reviews(&ours), 1);
        assert!(!config.is_reviewed(&ours[0]));
    }

    #[test]
    fn malformed_or_untrusted_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(&path, "model = [unclosed\n").unwrap();
        let err = CodexConfig::load_from(&path).unwrap_err();
        assert!(err.to_string().contains("not valid TOML"), "{err}");
        std::fs::write(
            &path,
            format!(
                // A literal key: a Windows path's `\` is no escape there.
                "[projects.'{}']\ntrust_level = \"untrusted\"\n",
                project_key(dir.path())
            ),
        )
        .unwrap();
        let mut config = CodexConfig::load_from(&path).unwrap();
        assert!(config.trust_project(dir.path()).is_err());
        std::fs::write(&path, "hooks = 1\n").unwrap();
        let mut config = CodexConfig::load_from(&path).unwrap();
        assert!(config.record_reviews(&[review("k", "sha256:aa")]).is_err());
        // A missing file is an empty configuration.
        let none = CodexConfig::load_from(&dir.path().join("absent.toml")).unwrap();
        assert!(none.project_trust(dir.path()).is_none());
    }
}
