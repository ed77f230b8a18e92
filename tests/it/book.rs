//! The book (`docs/`, mdBook) builds with the pinned mdBook, without a warning, and no
//! internal link of it is broken: every relative `href` and `src` of the built HTML leads
//! to a file of the output, and every `#fragment` to an `id` of its page. mdBook neither
//! fails nor warns on a link to a chapter that does not exist or an anchor no heading has
//! (it rewrites `x.md` to `x.html` silently), so this is the only place that notices.
//!
//! The book is built into a temporary folder, never into the repository. The pinned mdBook
//! comes from `scripts/install-mdbook.sh` (`scripts/test.sh` runs it); without it the test
//! says "skipped" and passes, except under `CI`, where that is a failure.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};
use std::sync::LazyLock;
use std::time::Duration;

use regex::Regex;

use crate::support::cli::{bounded, isolated, manifest_dir};

/// The `mdbook` executable: env `HELIX_GATE_MDBOOK`, else `<crate>/.cache/mdbook/bin/mdbook`
/// if it exists.
fn mdbook_bin() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("HELIX_GATE_MDBOOK")
        && !path.is_empty()
    {
        return Some(PathBuf::from(path));
    }
    let local = manifest_dir().join(".cache/mdbook/bin/mdbook");
    local.exists().then_some(local)
}

/// [`mdbook_bin`], or: under `CI` a panic, elsewhere a note on stderr and `None`.
fn require_mdbook() -> Option<PathBuf> {
    if let Some(bin) = mdbook_bin() {
        return Some(bin);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "mdbook not found (CI is set): run scripts/install-mdbook.sh or set HELIX_GATE_MDBOOK"
    );
    eprintln!("skipped: mdbook not installed (run scripts/install-mdbook.sh)");
    None
}

/// Every file below `dir` whose name ends with `ext`, sorted.
fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.to_string_lossy().ends_with(ext) {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// `path` with `.` and `..` taken out, without touching the file system.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// An attribute value as the browser reads it: HTML entities and `%XX` decoded.
fn unescape(value: &str) -> String {
    let value = value
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&");
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(hex) = value.get(i + 1..i + 3)
            && let Ok(byte) = u8::from_str_radix(hex, 16)
        {
            out.push(byte);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

static LINK: LazyLock<Regex> = LazyLock::new(|| Regex::new(r#"\s(href|src)="([^"]*)""#).unwrap());
static ID: LazyLock<Regex> = LazyLock::new(|| Regex::new(r#"\sid="([^"]*)""#).unwrap());
static BASE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r#"<base href="([^"]*)""#).unwrap());
/// A start tag: attributes are read only inside one (`<a href="...">` in a page's text is
/// `&lt;a href="..."&gt;`, no tag).
static TAG: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"<[A-Za-z][^<>]*>").unwrap());

/// The values of attribute `re` (one capture group, or the second of two) in the tags of
/// `html`.
fn attributes<'a>(re: &'a Regex, html: &'a str) -> impl Iterator<Item = String> + 'a {
    TAG.find_iter(html).flat_map(move |tag| {
        re.captures_iter(tag.as_str())
            .map(|c| unescape(c.get(c.len() - 1).unwrap().as_str()))
            .collect::<Vec<_>>()
    })
}

/// Whether `target` leaves the book: a URL with a scheme (`https:`, `mailto:`,
/// `javascript:`) or a protocol-relative `//host/...`.
fn external(target: &str) -> bool {
    let scheme = target.split_once(':').is_some_and(|(s, _)| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c))
    });
    scheme || target.starts_with("//")
}

/// Every broken internal link of the built HTML below `out`, one line each:
/// `page: href (why)`.
fn broken_links(out: &Path) -> Vec<String> {
    let pages: BTreeMap<PathBuf, String> = files(out, ".html")
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            (p, text)
        })
        .collect();
    let ids: BTreeMap<&PathBuf, BTreeSet<String>> = pages
        .iter()
        .map(|(p, text)| (p, attributes(&ID, text).collect()))
        .collect();
    let mut broken = Vec::new();
    for (page, text) in &pages {
        let shown = page.strip_prefix(out).unwrap().display().to_string();
        // A `<base href>` (mdBook's 404 page has one) is what relative links start from.
        let base = match BASE.captures(text) {
            Some(c) if c[1].starts_with('/') => out.join(c[1].trim_start_matches('/')),
            Some(c) => page.parent().unwrap().join(&c[1]),
            None => page.parent().unwrap().to_path_buf(),
        };
        for target in attributes(&LINK, text) {
            if target.is_empty() || external(&target) {
                continue;
            }
            let (path, fragment) = match target.split_once('#') {
                Some((path, fragment)) => (path, Some(fragment)),
                None => (target.as_str(), None),
            };
            let path = path.split('?').next().unwrap();
            let file = if path.is_empty() {
                page.clone()
            } else if let Some(abs) = path.strip_prefix('/') {
                normalize(&out.join(abs))
            } else {
                normalize(&base.join(path))
            };
            let file = if file.is_dir() {
                file.join("index.html")
            } else {
                file
            };
            if !file.starts_with(out) || !file.is_file() {
                broken.push(format!("{shown}: {target} (no such file in the book)"));
                continue;
            }
            if let Some(fragment) = fragment.filter(|f| !f.is_empty()) {
                match ids.get(&file) {
                    Some(known) if known.contains(fragment) => {}
                    Some(_) => broken.push(format!(
                        "{shown}: {target} (no id=\"{fragment}\" in {})",
                        file.strip_prefix(out).unwrap().display()
                    )),
                    None => broken.push(format!("{shown}: {target} (a fragment into a non-page)")),
                }
            }
        }
    }
    broken
}

/// Markdown with its fenced code blocks and code spans blanked out (a link in code is text).
fn without_code(text: &str) -> String {
    let mut kept = String::new();
    let mut fence = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fence = !fence;
            kept.push('\n');
            continue;
        }
        if !fence {
            kept.push_str(line);
        }
        kept.push('\n');
    }
    // Code spans: a run of n backticks up to the next run of exactly n.
    let mut out = String::new();
    let mut rest = kept.as_str();
    while let Some(at) = rest.find('`') {
        out.push_str(&rest[..at]);
        let run = rest[at..].chars().take_while(|c| *c == '`').count();
        let after = &rest[at + run..];
        let mut end = None;
        let mut from = 0;
        while let Some(i) = after[from..].find('`') {
            let i = from + i;
            let n = after[i..].chars().take_while(|c| *c == '`').count();
            if n == run {
                end = Some(i + n);
                break;
            }
            from = i + n;
        }
        if let Some(end) = end {
            rest = &after[end..];
        } else {
            out.push_str(&rest[at..at + run]);
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

static MD_LINK: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\]\(([^)\s]+)\)").unwrap());

/// Links of the book's Markdown sources to files that do not exist (a chapter `x.md` that
/// is not there, an image, a path out of `docs/src/`).
fn missing_md_targets(src: &Path) -> Vec<String> {
    let mut missing = Vec::new();
    for file in files(src, ".md") {
        let text = without_code(&std::fs::read_to_string(&file).unwrap());
        for link in MD_LINK.captures_iter(&text) {
            let target = &link[1];
            let path = target.split('#').next().unwrap();
            if path.is_empty() || external(target) {
                continue;
            }
            let resolved = normalize(&file.parent().unwrap().join(path));
            if !resolved.starts_with(src) || !resolved.is_file() {
                missing.push(format!(
                    "{}: {target}",
                    file.strip_prefix(src).unwrap().display()
                ));
            }
        }
    }
    missing
}

#[test]
fn the_book_builds_and_no_internal_link_is_broken() {
    let Some(mdbook) = require_mdbook() else {
        return;
    };
    let docs = manifest_dir().join("docs");
    let src = docs.join("src");

    let missing = missing_md_targets(&src);
    assert!(
        missing.is_empty(),
        "docs/src links to files that do not exist:\n{}",
        missing.join("\n")
    );

    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("book");
    let mut cmd = isolated(&mdbook, &docs);
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("MDBOOK_") {
            cmd.env_remove(&key);
        }
    }
    cmd.env_remove("RUST_LOG")
        .arg("build")
        .arg(&docs)
        .arg("--dest-dir")
        .arg(&out);
    let run = bounded(&mut cmd, Duration::from_secs(120));
    let log =
        String::from_utf8_lossy(&run.stderr).into_owned() + &String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "mdbook build failed:\n{log}");
    let warnings: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("WARN") || l.contains("ERROR"))
        .collect();
    assert!(warnings.is_empty(), "mdbook build warned:\n{log}");

    let pages = files(&out, ".html");
    // Every chapter of SUMMARY.md is a page (a lost chapter would shrink this).
    assert!(pages.len() >= 20, "{} pages: {pages:?}", pages.len());
    let broken = broken_links(&out);
    assert!(
        broken.is_empty(),
        "{} broken internal link(s) in the built book:\n{}",
        broken.len(),
        broken.join("\n")
    );
}

/// The link check itself finds what it must: a page that does not exist, an anchor no
/// heading has (also on the same page), an image that is missing; and lets the rest pass.
#[test]
fn the_link_check_finds_broken_links() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path();
    std::fs::create_dir_all(out.join("sub")).unwrap();
    std::fs::write(
        out.join("a.html"),
        r##"<h1 id="top">A</h1><a href="#top">ok</a> <a href="#nowhere">same page</a>
<a href="sub/b.html#there">ok</a> <a href="sub/b.html#gone">bad anchor</a>
<a href="missing.html">no page</a> <img src="pic.png"> <a href="https://example.com/x">ext</a>
<a href="mailto:x@example.com">mail</a> <a href="sub/b.html#gr%C3%B6%C3%9Fe">encoded</a>
<code>&lt;a href="..."&gt;</code> is text, not a link"##,
    )
    .unwrap();
    std::fs::write(
        out.join("sub/b.html"),
        r#"<h2 id="there">B</h2><h2 id="größe">C</h2><a href="../a.html">up</a>"#,
    )
    .unwrap();
    let broken = broken_links(out);
    assert_eq!(
        broken,
        [
            "a.html: #nowhere (no id=\"nowhere\" in a.html)",
            "a.html: sub/b.html#gone (no id=\"gone\" in sub/b.html)",
            "a.html: missing.html (no such file in the book)",
            "a.html: pic.png (no such file in the book)",
        ],
    );

    let src = out.join("src");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(src.join("here.md"), "# Here\n").unwrap();
    std::fs::write(
        src.join("c.md"),
        "[ok](here.md#x) [gone](gone.md) `[code](nothing.md)`\n```\n[fenced](nothing.md)\n```\n[out](../a.html) [web](https://example.com)\n",
    )
    .unwrap();
    assert_eq!(
        missing_md_targets(&src),
        ["c.md: gone.md", "c.md: ../a.html"]
    );
}
