//! The book (`docs/`, mdBook) builds with the pinned mdBook, without a warning, and no
//! internal link of it is broken: every relative `href` and `src` of the built HTML leads
//! to a file of the output, and every `#fragment` to an `id` of its page. mdBook neither
//! fails nor warns on a link to a chapter that does not exist or an anchor no heading has
//! (it rewrites `x.md` to `x.html` silently), so this is the only place that notices. No
//! text of the Markdown became HTML, and every search hit in the rules reference names its
//! rule.
//!
//! Every chapter is loaded in headless Chromium (Debian's package, as for `report.rs`) in a
//! 1280x800 window, and its code blocks and tables are measured against mdBook's content
//! column.
//!
//! The book is built into a temporary folder, never into the repository. The pinned mdBook
//! comes from `scripts/install-mdbook.sh` (`scripts/test.sh` runs it); without it the test
//! says "skipped" and passes, except under `CI`, where that is a failure; likewise without
//! Chromium under `CI=true`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};
use std::sync::LazyLock;
use std::time::Duration;

use regex::Regex;

use crate::support::cli::{bounded, isolated, manifest_dir, run, scratch_repo, stdout};

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

/// The elements Markdown makes (and mdBook: the `span`s of code blocks, the `div` around a
/// table). Anything else inside a page's `<main>` is text that was taken for HTML, such as
/// a `<section>` that swallows a word and wraps the rest of the page.
const MARKDOWN_ELEMENTS: [&str; 32] = [
    "a",
    "blockquote",
    "br",
    "button",
    "code",
    "del",
    "div",
    "em",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "hr",
    "i",
    "img",
    "input",
    "li",
    "ol",
    "p",
    "pre",
    "span",
    "strong",
    "sup",
    "table",
    "tbody",
    "td",
    "th",
    "thead",
    "tr",
    "ul",
];

static START_TAG: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"<([A-Za-z][A-Za-z0-9-]*)|<!--").unwrap());

/// Raw HTML that leaked from the Markdown into the built pages below `out`: an element no
/// Markdown makes, or an HTML comment after the page's title (one before it is a generated
/// page's "do not edit" note), which hides the text up to the next `-->`. One line each:
/// `page: <tag ...`. `print.html` repeats every chapter and is left out.
fn raw_html(out: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for page in files(out, ".html") {
        let shown = page.strip_prefix(out).unwrap().display().to_string();
        if shown == "print.html" {
            continue;
        }
        let text = std::fs::read_to_string(&page).unwrap();
        let Some(start) = text.find("<main>") else {
            continue;
        };
        let main = &text[start + "<main>".len()..text.rfind("</main>").unwrap()];
        let title = main.find("<h1").unwrap_or(0);
        for tag in START_TAG.captures_iter(main) {
            let at = tag.get(0).unwrap().start();
            let leaked = match tag.get(1) {
                Some(name) => !MARKDOWN_ELEMENTS.contains(&name.as_str().to_lowercase().as_str()),
                None => at > title,
            };
            if leaked {
                let end = main[at..]
                    .char_indices()
                    .nth(60)
                    .map_or(main.len(), |(i, _)| at + i);
                found.push(format!("{shown}: {}", main[at..end].replace('\n', " ")));
            }
        }
    }
    found
}

/// The entries of mdBook's search index (`searchindex.js`) for `page`: each heading's
/// title, which is what a search result shows besides the page's name.
fn search_titles(out: &Path, page: &str) -> Vec<String> {
    let script = std::fs::read_to_string(out.join("searchindex.js")).unwrap();
    let start = script
        .find("JSON.parse('")
        .expect("searchindex.js holds JSON.parse('...')")
        + "JSON.parse('".len();
    let end = script.rfind("')").unwrap();
    // A JavaScript string: `\\` and `\'` stand for `\` and `'`.
    let mut json = String::new();
    let mut chars = script[start..end].chars();
    while let Some(c) = chars.next() {
        json.push(if c == '\\' { chars.next().unwrap() } else { c });
    }
    let index: serde_json::Value = serde_json::from_str(&json).unwrap();
    let urls = index["doc_urls"].as_array().unwrap();
    let docs = index["index"]["documentStore"]["docs"].as_object().unwrap();
    let mut titles: Vec<(usize, String)> = docs
        .iter()
        .filter_map(|(n, doc)| {
            let n: usize = n.parse().ok()?;
            let url = urls.get(n)?.as_str()?;
            url.starts_with(&format!("{page}#"))
                .then(|| (n, doc["title"].as_str().unwrap_or_default().to_owned()))
        })
        .collect();
    titles.sort();
    titles.into_iter().map(|(_, title)| title).collect()
}

/// The book built by `mdbook` into a temporary folder (returned with it, so it lives as
/// long as the caller needs it): no failure, no warning.
fn build_book(mdbook: &Path) -> (tempfile::TempDir, PathBuf) {
    let docs = manifest_dir().join("docs");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("book");
    let mut cmd = isolated(mdbook, &docs);
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
    (dir, out)
}

#[test]
fn the_book_builds_and_no_internal_link_is_broken() {
    let Some(mdbook) = require_mdbook() else {
        return;
    };
    let src = manifest_dir().join("docs/src");

    let missing = missing_md_targets(&src);
    assert!(
        missing.is_empty(),
        "docs/src links to files that do not exist:\n{}",
        missing.join("\n")
    );

    let (_dir, out) = build_book(&mdbook);
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
    let leaked = raw_html(&out);
    assert!(
        leaked.is_empty(),
        "text of the Markdown became HTML (write it in a code span, or `&lt;`):\n{}",
        leaked.join("\n")
    );
}

/// A search for a rule's words finds the part of its section they are in (`What it does`,
/// `Why`, `Fix`, ...): each such heading of the rules reference names the rule, as the
/// result shows nothing but the page and the heading.
#[test]
fn every_search_result_of_the_rules_reference_names_its_rule() {
    let Some(mdbook) = require_mdbook() else {
        return;
    };
    let repo = scratch_repo();
    let listed = stdout(&run(repo.path(), &["rules"]));
    let ids: Vec<&str> = listed
        .lines()
        .filter(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert!(ids.len() >= 40, "{listed}");
    let (_dir, out) = build_book(&mdbook);
    let titles = search_titles(&out, "reference/rules.html");
    assert!(titles.len() > ids.len() * 2, "{titles:?}");
    let unnamed: Vec<&String> = titles
        .iter()
        .filter(|title| *title != "Rules")
        .filter(|title| {
            !ids.iter()
                .any(|id| *title == id || title.starts_with(&format!("{id}: ")))
        })
        .collect();
    assert!(
        unnamed.is_empty(),
        "search results of the rules reference that do not name the rule: {unnamed:?}"
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

/// Headless Chromium (Debian's package; `scripts/test.sh` installs it), or: under
/// `CI=true` a panic, elsewhere a note on stderr and `None`.
fn require_chromium() -> Option<PathBuf> {
    let found = ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .into_iter()
        .map(PathBuf::from)
        .find(|p| p.exists());
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none_or(|v| v != "true"),
            "CI=true but Chromium is missing (scripts/test.sh installs it)"
        );
        eprintln!("skipped: no Chromium (apt-get install -y chromium)");
    }
    found
}

/// The pages a user reads first: their blocks of commands fit the column without wrapping.
const FIRST_PAGES: [&str; 2] = ["introduction.html", "install.html"];

/// What the script measures once the page has loaded (fonts included), written as JSON
/// into an element of its own for `--dump-dom`: the viewport's width, the content
/// column's, every `pre`, `code` block, table or table wrapper that is wider than its box
/// or reaches beyond the column, every block of commands (`console`) with a line that would
/// not fit unwrapped, every element of the content that is not one Markdown (or mdBook
/// itself) makes, and the position of the getting-started heading.
const MEASURE: &str = r#"<script>
window.addEventListener("load", function () {
  document.fonts.ready.then(function () {
    var main = document.querySelector("main");
    var right = main.getBoundingClientRect().right;
    var wide = [];
    main.querySelectorAll("pre, pre > code, table, .table-wrapper").forEach(function (el) {
      var box = el.getBoundingClientRect();
      if (el.scrollWidth > el.clientWidth + 1 || box.right > right + 1) {
        wide.push(el.localName + " " + el.scrollWidth + " px in " + el.clientWidth +
          " px: " + el.textContent.replace(/\s+/g, " ").trim().slice(0, 80));
      }
    });
    // A line of a block of commands wider than the column, were it not wrapped
    // (wrap-code.css). A program's output wraps as in a terminal.
    var long = [];
    main.querySelectorAll("pre > code.language-console").forEach(function (el) {
      el.style.whiteSpace = "pre";
      if (el.scrollWidth > el.clientWidth + 1) {
        long.push(el.scrollWidth + " px in " + el.clientWidth + " px: " +
          el.textContent.replace(/\s+/g, " ").trim().slice(0, 80));
      }
      el.style.whiteSpace = "";
    });
    var markdown = ["a", "blockquote", "br", "button", "code", "del", "div", "em", "h1",
      "h2", "h3", "h4", "h5", "h6", "hr", "i", "img", "input", "li", "ol", "p", "pre", "span",
      "strong", "sup", "table", "tbody", "td", "th", "thead", "tr", "ul"];
    var stray = [];
    main.querySelectorAll("*").forEach(function (el) {
      if (markdown.indexOf(el.localName) < 0) {
        stray.push(el.localName + ": " + el.textContent.replace(/\s+/g, " ").trim().slice(0, 60));
      }
    });
    var start = document.getElementById("getting-started");
    var out = document.createElement("pre");
    out.id = "helix-gate-measured";
    out.textContent = JSON.stringify({
      viewport: window.innerWidth,
      column: main.clientWidth,
      wide: wide,
      long: long,
      stray: stray,
      getting_started: start ? start.getBoundingClientRect().top : null
    });
    document.body.appendChild(out);
  });
});
</script>"#;

/// Load `page` in headless Chromium in a 1280x800 window and return what [`MEASURE`] found.
fn measure(browser: &Path, page: &Path) -> serde_json::Value {
    let html = std::fs::read_to_string(page).unwrap();
    let at = html.rfind("</body>").expect("a page has </body>");
    std::fs::write(page, format!("{}{MEASURE}{}", &html[..at], &html[at..])).unwrap();
    let profile = tempfile::tempdir().unwrap();
    let mut cmd = isolated(browser, profile.path());
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
        "--window-size=1280,800",
        // The dump waits until the page's tasks (the load handler above) have run.
        "--virtual-time-budget=10000",
        "--dump-dom",
    ])
    .arg(format!(
        "--user-data-dir={}",
        profile.path().join("profile").display()
    ))
    .arg(format!("file://{}", page.display()))
    .env("HOME", profile.path());
    let run = bounded(&mut cmd, Duration::from_secs(120));
    assert!(
        run.status.success(),
        "chromium failed on {}: {}",
        page.display(),
        String::from_utf8_lossy(&run.stderr)
    );
    let dom = String::from_utf8_lossy(&run.stdout);
    let start = dom
        .find(r#"<pre id="helix-gate-measured">"#)
        .unwrap_or_else(|| panic!("{}: the measuring script did not run", page.display()));
    let rest = &dom[start..];
    let json = &rest[rest.find('>').unwrap() + 1..rest.find("</pre>").unwrap()];
    serde_json::from_str(&unescape(json)).unwrap()
}

/// Every chapter fits a 1280 px window: no code block or table is wider than mdBook's
/// content column (a scroll bar hid its end; the configuration reference's tables once
/// were 1,150 to 1,389 px wide, their description column out of sight), and no text
/// became an HTML element (`<section>` in the configuration chapter once swallowed a word
/// and wrapped the rest of the page). The pages a user reads first show their commands
/// unwrapped, and the landing page shows "Getting started" without scrolling.
#[test]
fn the_pages_fit_1280_px_in_headless_chromium() {
    let Some(mdbook) = require_mdbook() else {
        return;
    };
    let Some(browser) = require_chromium() else {
        return;
    };
    let (_dir, out) = build_book(&mdbook);
    let mut problems = Vec::new();
    // Every chapter (`index.html` is the introduction again; `print.html` all of them).
    let pages: Vec<String> = files(&out, ".html")
        .iter()
        .map(|p| p.strip_prefix(&out).unwrap().display().to_string())
        .filter(|p| !["index.html", "print.html", "toc.html", "404.html"].contains(&p.as_str()))
        .collect();
    for first in FIRST_PAGES
        .into_iter()
        .chain(["reference/configuration.html", "reference/rules.html"])
    {
        assert!(pages.iter().any(|p| p == first), "no {first}: {pages:?}");
    }
    for page in &pages {
        let page = page.as_str();
        let found = measure(&browser, &out.join(page));
        assert_eq!(found["viewport"], 1280, "{page}: {found}");
        let column = found["column"].as_u64().unwrap();
        assert!((600..=750).contains(&column), "{page}: {found}");
        for wide in found["wide"].as_array().unwrap() {
            problems.push(format!("{page}: too wide: {}", wide.as_str().unwrap()));
        }
        // The first pages' commands fit as written; elsewhere a long line wraps.
        if FIRST_PAGES.contains(&page) {
            for long in found["long"].as_array().unwrap() {
                problems.push(format!("{page}: wraps: {}", long.as_str().unwrap()));
            }
        }
        for stray in found["stray"].as_array().unwrap() {
            problems.push(format!("{page}: raw HTML: <{}", stray.as_str().unwrap()));
        }
        if page == "introduction.html" {
            let top = found["getting_started"].as_f64();
            if !top.is_some_and(|top| top < 400.0) {
                problems.push(format!(
                    "{page}: \"Getting started\" is not near the top: {top:?} px"
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The raw-HTML check finds an element no Markdown makes and a comment in the text, and
/// lets Markdown's own elements, escaped text and a generated page's note pass.
#[test]
fn the_raw_html_check_finds_leaked_tags() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path();
    std::fs::write(
        out.join("a.html"),
        "<nav><section>menu</section></nav><main><!-- Generated --><h1 id=\"a\">A</h1>\
         <p>location <code>&lt;section&gt;</code> &lt;key&gt; any|<section> rest</p>\
         <div class=\"table-wrapper\"><table><tr><td>x<br>y</td></tr></table></div>\
         <p>a <!-- STEP: done --> marker</p></main>",
    )
    .unwrap();
    std::fs::write(out.join("print.html"), "<main><h1>P</h1><section></main>").unwrap();
    assert_eq!(
        raw_html(out),
        [
            "a.html: <section> rest</p><div class=\"table-wrapper\"><table><tr><td>",
            "a.html: <!-- STEP: done --> marker</p>",
        ]
    );
}
