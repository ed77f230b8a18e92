//! Finding the repository root and showing paths relative to it.
//!
//! The root is the enclosing git work tree (a `.git` directory, or a `.git` file
//! that git accepts: `gitdir: <existing folder>`) or, outside
//! git, the starting directory. This is a cheap walk up the directory tree; no git
//! library is opened for it.
//!
//! Paths are compared as text first (cheap, and what almost every event needs);
//! when that fails they are compared by their real location, so a project reached
//! through a symlinked path (`CLAUDE_PROJECT_DIR=/tmp/alias`, macOS's `/tmp` that
//! is `/private/tmp`) is still recognised. Whether a symlink leads out of the
//! project is `fs::confine`'s question (one resolver for reads and writes).

use std::path::{Component, Path, PathBuf};

/// The enclosing work tree of `start`, or `start` itself outside git.
///
/// The walk goes up the path as written first (a project reached through a
/// symlinked path keeps that path as its root). Only when that finds no work
/// tree is the real location tried: `start` may be a symlink into a repository
/// (`/tmp/s1` -> `<repo>/projects/sessions/s1`), whose root then is the real one.
pub fn find_root(start: &Path) -> PathBuf {
    let start = absolute(start);
    if let Some(root) = enclosing_work_tree(&start) {
        return root;
    }
    std::fs::canonicalize(&start)
        .ok()
        .filter(|real| *real != start)
        .and_then(|real| enclosing_work_tree(&real))
        .unwrap_or(start)
}

/// The nearest ancestor of `start` (itself included) that git takes for a work
/// tree: it has a `.git` directory, or a `.git` file that git accepts ([`is_gitfile`];
/// a linked worktree or submodule has one). A `.git` file git rejects does not
/// make a root: the walk goes on upward, as git's own discovery would fail there.
fn enclosing_work_tree(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .find(|dir| has_git_marker(dir))
        .map(Path::to_path_buf)
}

/// Whether `dir` has a `.git` directory or a `.git` file git accepts.
fn has_git_marker(dir: &Path) -> bool {
    let dot_git = dir.join(".git");
    match std::fs::metadata(&dot_git) {
        Ok(meta) if meta.is_dir() => true,
        Ok(meta) if meta.is_file() => is_gitfile(&dot_git, dir),
        _ => false,
    }
}

/// Longest `.git` file read: one `gitdir: <path>` line.
const GITFILE_LIMIT: u64 = 16 * 1024;

/// Whether the `.git` file at `path` (in the folder `dir`) is what git requires:
/// `gitdir: <path>` (trailing line breaks aside, as git strips them), where the path,
/// relative paths resolved against `dir`, is an existing directory. Read without
/// blocking (the file was a regular one a moment ago; a FIFO swapped in is not
/// waited on) and bounded.
fn is_gitfile(path: &Path, dir: &Path) -> bool {
    use std::io::Read as _;
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.custom_flags(rustix::fs::OFlags::NONBLOCK.bits().cast_signed());
    }
    let Ok(file) = options.open(path) else {
        return false;
    };
    if !file.metadata().is_ok_and(|m| m.is_file()) {
        return false;
    }
    let mut bytes = Vec::new();
    if file
        .take(GITFILE_LIMIT + 1)
        .read_to_end(&mut bytes)
        .is_err()
        || bytes.len() as u64 > GITFILE_LIMIT
    {
        return false;
    }
    let Ok(text) = std::str::from_utf8(&bytes) else {
        return false;
    };
    let Some(target) = text
        .strip_prefix("gitdir: ")
        .map(|t| t.trim_end_matches(['\n', '\r']))
        .filter(|t| !t.is_empty() && !t.contains('\n'))
    else {
        return false;
    };
    dir.join(target).is_dir()
}

/// The process's working directory, read once: helix-gate never changes it, and
/// `validate` of a thousand files asked the kernel for it four times a file.
fn current_dir() -> PathBuf {
    static CWD: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    CWD.get_or_init(|| std::env::current_dir().unwrap_or_default())
        .clone()
}

/// `path` made absolute against the current directory, with `.` and `..` removed
/// lexically (symlinks are not resolved).
pub fn absolute(path: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        current_dir().join(path)
    };
    #[cfg(unix)]
    if is_clean_absolute(std::os::unix::ffi::OsStrExt::as_bytes(joined.as_os_str())) {
        // Already what the walk makes of it (most paths are).
        return joined;
    }
    lexically_normal(&joined)
}

/// `path` with `.` dropped and `..` applied, component by component.
fn lexically_normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// Sort `paths` as `Path`'s order does (component by component), cheaply: on
/// Unix, paths of plain components compare as their bytes with `/` lowest,
/// which is that order without splitting them into components (sorting 1,000
/// paths by components was a tenth of `validate`'s serial work).
pub fn sort(paths: &mut [PathBuf]) {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let plain = |p: &PathBuf| {
            let bytes = p.as_os_str().as_bytes();
            !bytes.is_empty()
                && bytes.split(|&b| b == b'/').enumerate().all(|(i, part)| {
                    (i == 0 && part.is_empty())
                        || (!part.is_empty() && part != b"." && part != b"..")
                })
        };
        if paths.iter().all(plain) {
            let key = |b: u8| if b == b'/' { 0 } else { u16::from(b) + 1 };
            paths.sort_unstable_by(|a, b| {
                let (a, b) = (a.as_os_str().as_bytes(), b.as_os_str().as_bytes());
                a.iter().map(|&x| key(x)).cmp(b.iter().map(|&x| key(x)))
            });
            return;
        }
    }
    paths.sort();
}

/// Whether the Unix path `bytes` is absolute and has no `.`, `..` or empty part
/// (`//`, a trailing `/`): then its components, put together, give it back.
#[cfg(unix)]
fn is_clean_absolute(bytes: &[u8]) -> bool {
    bytes.first() == Some(&b'/')
        && bytes[1..]
            .split(|&b| b == b'/')
            .all(|part| !part.is_empty() && part != b"." && part != b"..")
}

/// Whether `rel` names a place below a root by its own words: relative, `/`
/// separated, only normal components (no `..`, no `.`, no empty part, no root),
/// no NUL or backslash. For paths read from files anyone in the repository can write.
pub fn is_plain_relative(rel: &str) -> bool {
    !rel.is_empty()
        && !rel.contains('\0')
        && !rel.contains('\\')
        && Path::new(rel)
            .components()
            .all(|c| matches!(c, Component::Normal(_)))
        && !rel.split('/').any(|part| part == "." || part.is_empty())
}

/// The relative path `rel` (`/` separated) with `.` and empty parts dropped and
/// `..` applied lexically; None when it is absolute or `..` climbs above its start.
pub fn normalize_relative(rel: &str) -> Option<String> {
    if rel.starts_with('/') {
        return None;
    }
    let mut parts: Vec<&str> = Vec::new();
    for part in rel.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            part => parts.push(part),
        }
    }
    Some(parts.join("/"))
}

/// Whether this build compares paths as Windows does ([`relative_form`],
/// [`comparable`]): separators `\` and `/`, `\\?\` prefixes, names in any case.
pub const WINDOWS: bool = cfg!(windows);

/// `path` relative to `root` with `/` separators, or None when outside it.
/// On Windows in any of the forms its agents send ([`relative_form`]).
pub fn relative_to(root: &Path, path: &Path) -> Option<String> {
    let path = absolute(path);
    if WINDOWS {
        return relative_form(&root.to_string_lossy(), &path.to_string_lossy(), true);
    }
    relative_by_components(root, &path)
}

/// `path` relative to `root` by their components (Unix: byte for byte, `\` is a
/// character of a name there).
fn relative_by_components(root: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?;
    if let Some(text) = rel.to_str()
        && (text.is_empty()
            || text
                .split('/')
                .all(|part| !part.is_empty() && part != "." && !part.contains('\\')))
    {
        // Its components joined by `/` are the text itself (most paths): one copy.
        return Some(text.to_owned());
    }
    Some(joined_components(rel))
}

/// The components of `rel` joined by `/`.
fn joined_components(rel: &Path) -> String {
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    parts.join("/")
}

/// `path` relative to `root` (both absolute, as text) with `/` separators, None
/// when outside it. With `windows`, as Windows reads paths: `\` and `/` both
/// separate, a `\\?\` prefix is dropped (`\\?\UNC\srv\share` is `\\srv\share`),
/// `.` and `..` apply lexically, and names compare case-insensitively, as on
/// NTFS by default (`C:\Users\A\proj` holds `c:/users/a/proj/docs/x.md`); the
/// result keeps the case `path` has. Without, by path components (Unix).
/// A pure function of its text, so the Windows forms are tested on Linux too.
pub fn relative_form(root: &str, path: &str, windows: bool) -> Option<String> {
    if !windows {
        return relative_by_components(Path::new(root), Path::new(path));
    }
    let root = windows_parts(root);
    let path = windows_parts(path);
    let inside =
        path.len() >= root.len() && root.iter().zip(&path).all(|(a, b)| same_name(a, b, true));
    inside.then(|| path[root.len()..].join("/"))
}

/// The names of a Windows path after its prefix: `C:` first for a drive,
/// `.` dropped and `..` applied (never above the first name).
fn windows_parts(text: &str) -> Vec<String> {
    let text = windows_slashes(text);
    let mut parts: Vec<String> = Vec::new();
    for part in text.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if parts.len() > 1 {
                    parts.pop();
                }
            }
            name => parts.push(name.to_owned()),
        }
    }
    parts
}

/// A Windows path's text with `/` for every `\` and without the verbatim prefix
/// `\\?\` (which canonicalized paths and some agents' events carry).
pub fn windows_slashes(text: &str) -> String {
    let text = text.replace('\\', "/");
    match text.strip_prefix("//?/") {
        Some(unc) if unc.len() >= 4 && unc[..4].eq_ignore_ascii_case("UNC/") => {
            format!("//{}", &unc[4..])
        }
        Some(rest) => rest.to_owned(),
        None => text,
    }
}

/// Whether two names (or paths as text) name the same thing: byte for byte, or
/// with `windows` case-insensitively, as NTFS compares by default.
pub fn same_name(a: &str, b: &str, windows: bool) -> bool {
    if windows {
        a.chars()
            .flat_map(char::to_lowercase)
            .eq(b.chars().flat_map(char::to_lowercase))
    } else {
        a == b
    }
}

/// A path's text as this platform compares it: unchanged on Unix; on Windows
/// with `/` separators, no `\\?\` prefix and in lower case ([`comparable_on`]).
pub fn comparable(text: &str) -> std::borrow::Cow<'_, str> {
    comparable_on(text, WINDOWS)
}

/// [`comparable`] for the platform `windows` says.
pub fn comparable_on(text: &str, windows: bool) -> std::borrow::Cow<'_, str> {
    if windows {
        std::borrow::Cow::Owned(windows_slashes(text).to_lowercase())
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

/// Whether `path` is `dir` or below it, as this platform compares paths.
pub fn starts_with(path: &Path, dir: &Path) -> bool {
    if WINDOWS {
        relative_form(&dir.to_string_lossy(), &path.to_string_lossy(), true).is_some()
    } else {
        path.starts_with(dir)
    }
}

/// Whether `a` and `b` are the same path, as this platform compares paths.
pub fn same_path(a: &Path, b: &Path) -> bool {
    if WINDOWS {
        relative_form(&a.to_string_lossy(), &b.to_string_lossy(), true)
            .is_some_and(|rel| rel.is_empty())
    } else {
        a == b
    }
}

/// Whether `path` (with metadata `meta`) is the file or folder `root` (with
/// `root_meta`): device and inode on Unix; on Windows the volume serial number
/// and file index (`same-file`), which std has no stable call for. (Times and
/// attributes do not tell: a folder just made inside another gives its parent
/// the same write time.)
#[cfg(unix)]
fn same_file(
    (_, meta): (&Path, &std::fs::Metadata),
    (_, root_meta): (&Path, &std::fs::Metadata),
) -> bool {
    use std::os::unix::fs::MetadataExt as _;
    meta.dev() == root_meta.dev() && meta.ino() == root_meta.ino()
}

#[cfg(windows)]
fn same_file(
    (path, _): (&Path, &std::fs::Metadata),
    (root, _): (&Path, &std::fs::Metadata),
) -> bool {
    same_file::is_same_file(path, root).unwrap_or(false)
}

/// `path` relative to `root` like [`relative_to`]; when the text comparison fails,
/// by real location: the nearest ancestor of `path` that is the same directory as
/// `root` (same device and inode, symlinks followed) ends the project part, and
/// the rest of `path` is kept as written (so an ADR reached through a symlinked
/// project path keeps its repository-relative name). None when no ancestor is
/// `root`.
pub fn relative_to_real(root: &Path, path: &Path) -> Option<String> {
    if let Some(rel) = relative_to(root, path) {
        return Some(rel);
    }
    let root_meta = std::fs::metadata(root).ok()?;
    let path = absolute(path);
    path.ancestors()
        .find_map(|ancestor| {
            let meta = std::fs::metadata(ancestor).ok()?;
            if same_file((ancestor, &meta), (root, &root_meta)) {
                relative_to(ancestor, &path)
            } else {
                None
            }
        })
        .or_else(|| relative_by_real_ancestor(root, &path))
}

/// `path` relative to `root` after resolving the symlinks of its nearest
/// existing ancestor: a session folder reached through a link into the
/// repository (`/tmp/s1` -> `<repo>/projects/sessions/s1`) has no ancestor that
/// is the root itself, but its real location is inside it.
fn relative_by_real_ancestor(root: &Path, path: &Path) -> Option<String> {
    let real_root = std::fs::canonicalize(root).ok()?;
    let (existing, rest) = path.ancestors().find_map(|ancestor| {
        let real = std::fs::canonicalize(ancestor).ok()?;
        Some((real, path.strip_prefix(ancestor).ok()?.to_path_buf()))
    })?;
    relative_to(&real_root, &existing.join(rest))
}

/// How to show `path` to the user: relative to `root` when inside it, else as given.
pub fn display(root: &Path, path: &Path) -> String {
    relative_to(root, path).unwrap_or_else(|| path.display().to_string())
}

#[cfg(test)]
mod tests {
    #[test]
    fn relative_paths_are_normalized_without_climbing_out() {
        use super::normalize_relative as n;
        assert_eq!(n("./tools//reviewer").as_deref(), Some("tools/reviewer"));
        assert_eq!(n("a/../tools/r").as_deref(), Some("tools/r"));
        assert_eq!(n("../r"), None);
        assert_eq!(n("a/../../r"), None);
        assert_eq!(n("/bin/r"), None);
    }

    use super::*;

    #[test]
    #[cfg_attr(windows, ignore = "needs git.exe (Wine has none)")]
    fn a_git_file_counts_only_when_git_would_accept_it() {
        let tmp = tempfile::tempdir().unwrap();
        let outer = tmp.path().join("outer");
        let inner = outer.join("inner");
        let sub = inner.join("sub");
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::create_dir_all(outer.join(".git")).unwrap();
        let gitdir = outer.join(".git/worktrees/inner");
        std::fs::create_dir_all(&gitdir).unwrap();
        for garbage in [
            String::new(),
            "not a gitfile\n".to_owned(),
            "gitdir:\n".to_owned(),
            "gitdir: \n".to_owned(),
            "gitdir: /no/such/folder\n".to_owned(),
            format!("gitdir:{}\n", gitdir.display()),
            format!("gitdir: {}\nmore\n", gitdir.display()),
            // A file, not a directory.
            format!(
                "gitdir: {}\n",
                outer.join("inner/sub/../../inner/x").display()
            ),
        ] {
            std::fs::write(inner.join(".git"), &garbage).unwrap();
            assert_eq!(find_root(&sub), outer, "{garbage:?}");
        }
        std::fs::write(inner.join("x"), "").unwrap();
        for good in [
            format!("gitdir: {}\n", gitdir.display()),
            format!("gitdir: {}", gitdir.display()),
            format!("gitdir: {}\r\n", gitdir.display()),
            // Relative to the folder of the `.git` file.
            "gitdir: ../.git/worktrees/inner\n".to_owned(),
        ] {
            std::fs::write(inner.join(".git"), &good).unwrap();
            assert_eq!(find_root(&sub), inner, "{good:?}");
        }
        // A `.git` directory counts as it is; a FIFO named `.git` does not, and is not waited on.
        std::fs::remove_file(inner.join(".git")).unwrap();
        let made = std::process::Command::new("mkfifo")
            .arg(inner.join(".git"))
            .status()
            .unwrap();
        assert!(made.success());
        assert_eq!(find_root(&sub), outer);
        std::fs::remove_file(inner.join(".git")).unwrap();
        std::fs::create_dir(inner.join(".git")).unwrap();
        assert_eq!(find_root(&sub), inner);
    }

    #[test]
    fn relative_paths() {
        let root = Path::new(if cfg!(windows) { r"C:\r" } else { "/r" });
        assert_eq!(
            relative_to(root, &root.join("adr/001.md")).as_deref(),
            Some("adr/001.md")
        );
        assert_eq!(
            relative_to(root, &root.join("adr/../x.md")).as_deref(),
            Some("x.md")
        );
        let other = root.parent().unwrap().join("other/x.md");
        assert_eq!(relative_to(root, &other), None);
    }

    #[test]
    fn windows_paths_in_the_forms_agents_send_are_made_relative() {
        let rel = |root: &str, path: &str| relative_form(root, path, true);
        let root = r"C:\Users\a\proj";
        for path in [
            r"C:\Users\a\proj\docs\adr\0007-x.md",
            "c:/Users/a/proj/docs/adr/0007-x.md",
            r"\\?\C:\Users\a\proj\docs\adr\0007-x.md",
            r"C:\USERS\A\Proj\docs/adr\.\0007-x.md",
            r"C:\Users\a\proj\src\..\docs\adr\0007-x.md",
        ] {
            assert_eq!(
                rel(root, path).as_deref(),
                Some("docs/adr/0007-x.md"),
                "{path}"
            );
        }
        // The root in the verbatim form canonicalize gives on Windows.
        assert_eq!(
            rel(r"\\?\c:\users\A\PROJ", r"C:\Users\a\proj\Docs\ADR\x.md").as_deref(),
            Some("Docs/ADR/x.md"),
            "the rest keeps the case it was sent in"
        );
        assert_eq!(rel(root, root).as_deref(), Some(""));
        assert_eq!(
            rel(r"\\?\UNC\srv\share\proj", r"\\srv\share\proj\a.md").as_deref(),
            Some("a.md")
        );
        for outside in [
            r"D:\Users\a\proj\x.md",
            r"C:\Users\a\proj2\x.md",
            r"C:\Users\a\proj\..\other\x.md",
            r"C:\Users\a",
        ] {
            assert_eq!(rel(root, outside), None, "{outside}");
        }
        // On Unix a backslash is part of a name and case counts: nothing changes there.
        if cfg!(windows) {
            return;
        }
        assert_eq!(
            relative_form("/r", r"/r/a\b.md", false).as_deref(),
            Some(r"a\b.md")
        );
        assert_eq!(relative_form("/r", "/R/a.md", false), None);
        assert_eq!(relative_form("/r", r"\r\a.md", false), None);
    }

    /// The walk by components that the shortcuts of [`absolute`] and
    /// [`relative_by_components`] stand in for.
    #[test]
    #[cfg(unix)]
    fn shortcuts_give_what_the_components_give() {
        let by_components = lexically_normal;
        for path in [
            "/",
            "/a",
            "/a/b.md",
            "/a//b",
            "/a/./b",
            "/a/../b",
            "/a/b/",
            "/a/b/.",
            "//a",
            "/a\\b/c",
            "/.a/..b/c.",
        ] {
            assert_eq!(
                absolute(Path::new(path)),
                by_components(Path::new(path)),
                "{path}"
            );
        }
        for path in ["a/b.md", "./a", "a/../b", "a//b/"] {
            let joined = current_dir().join(path);
            assert_eq!(absolute(Path::new(path)), by_components(&joined), "{path}");
        }
        for (root, path) in [
            ("/r", "/r/a/b.md"),
            ("/r", "/r"),
            ("/r", "/r/a//b"),
            ("/r", "/r/./a"),
            ("/r", "/r/a/"),
            ("/r", "/r/a\\b"),
            ("/r", "/s/a"),
        ] {
            let slow = Path::new(path)
                .strip_prefix(root)
                .ok()
                .map(joined_components);
            assert_eq!(
                relative_by_components(Path::new(root), Path::new(path)),
                slow,
                "{path}"
            );
        }
    }

    #[test]
    fn paths_sort_as_path_orders_them() {
        let names = [
            "/r/a/b.md",
            "/r/a-b.md",
            "/r/a.md",
            "/r/a/c/d.md",
            "/r/ab.md",
            "/r/A.md",
            "/r/a",
            "/r/\u{e4}.md",
            "/r/a/b",
            "/r/a0",
            "r/x.md",
            "r/a/x.md",
            "/r/a/./b.md",
            "/r//c",
        ];
        for take in [3, 10, names.len()] {
            for plain_only in [true, false] {
                let mut paths: Vec<PathBuf> = names
                    .iter()
                    .take(take)
                    .filter(|n| !plain_only || !(n.contains("/./") || n.contains("//")))
                    .map(PathBuf::from)
                    .rev()
                    .collect();
                let mut expected = paths.clone();
                expected.sort();
                sort(&mut paths);
                assert_eq!(paths, expected);
            }
        }
    }

    #[test]
    fn names_compare_as_the_platform_does() {
        assert!(same_name(".Claude", ".claude", true));
        assert!(!same_name(".Claude", ".claude", false));
        assert_eq!(
            comparable_on(r".Claude\Settings.JSON", true),
            ".claude/settings.json"
        );
        assert_eq!(
            comparable_on(r".Claude\Settings.JSON", false),
            r".Claude\Settings.JSON"
        );
    }

    #[test]
    #[cfg(unix)]
    fn a_symlinked_project_path_is_compared_by_its_real_location() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("repo");
        std::fs::create_dir_all(real.join("adr")).unwrap();
        let alias = dir.path().join("alias");
        std::os::unix::fs::symlink(&real, &alias).unwrap();
        // Both ways round, also for a file that does not exist yet.
        assert_eq!(
            relative_to_real(&alias, &real.join("adr/001.md")).as_deref(),
            Some("adr/001.md")
        );
        assert_eq!(
            relative_to_real(&real, &alias.join("adr/001.md")).as_deref(),
            Some("adr/001.md")
        );
        assert_eq!(relative_to_real(&real, dir.path()), None);
    }
}
