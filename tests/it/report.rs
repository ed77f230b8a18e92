//! `helix-gate report` rendered by a real browser: headless Chromium (Debian's
//! package; `scripts/test.sh` installs it) loads the page written from a generated
//! log of a few thousand decisions; the test reads the page's text from the DOM and
//! checks that the screenshot is not blank. `UPDATE_GENERATED=1` also saves the
//! screenshot as docs/src/report.png (the book's `report` chapter shows it).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::support::cli::*;

const RULES: [&str; 6] = [
    "section-missing",
    "acceptance-criteria-missing",
    "status-invalid",
    "files-field-invalid",
    "section-too-short",
    "front-matter-missing",
];

/// A deterministic log: 30 days, 4000 decisions in sessions of a few files each; a
/// block is fixed on the next attempt, except every seventh target, which escalates.
fn write_history(root: &Path) -> usize {
    let mut log = String::new();
    let mut count = 0;
    let push = |log: &mut String,
                day: usize,
                minute: usize,
                session: usize,
                target: &str,
                verdict: &str,
                rules: &[&str],
                attempt: u32| {
        let line = json!({
            "time": format!("2026-10-{:02}T{:02}:{:02}:00Z", day + 1, 8 + minute / 60 % 10, minute % 60),
            "session": format!("session-{session:04}"),
            "event": "PostToolUse",
            "target": target,
            "verdict": verdict,
            "rules": rules,
            "attempt": attempt,
            "duration_us": 800 + (minute * 37 + session * 11) % 4000,
        });
        log.push_str(&line.to_string());
        log.push('\n');
    };
    let mut session = 0;
    while count < 4000 {
        session += 1;
        let day = session % 30;
        for file in 0..4 {
            let target = format!("adr/{:03}-decision.md", session * 4 + file);
            let minute = session * 7 + file;
            // Not a function of (session + file) % 3, which picks the branch below.
            let rule = RULES[(session / 3 + file) % RULES.len()];
            if (session + file) % 3 == 0 {
                push(&mut log, day, minute, session, &target, "pass", &[], 0);
                count += 1;
            } else if (session + file) % 7 == 0 {
                for attempt in 1..=3 {
                    push(
                        &mut log,
                        day,
                        minute + attempt as usize,
                        session,
                        &target,
                        "block",
                        &[rule],
                        attempt,
                    );
                }
                push(
                    &mut log,
                    day,
                    minute + 4,
                    session,
                    &target,
                    "escalate",
                    &[rule],
                    3,
                );
                count += 4;
            } else {
                push(
                    &mut log,
                    day,
                    minute,
                    session,
                    &target,
                    "block",
                    &[rule, "section-too-short"],
                    1,
                );
                push(&mut log, day, minute + 1, session, &target, "pass", &[], 2);
                count += 2;
            }
        }
    }
    write(root, ".helix-gate/log.jsonl", log);
    write_approvals(root);
    count
}

/// 240 reviewer runs (half approved) and an escalation after every 40th.
fn write_approvals(root: &Path) {
    let mut approvals = String::new();
    for i in 0..240_u32 {
        let result = ["approved", "approved", "needs_revision", "rejected"][(i % 4) as usize];
        let record = json!({
            "event": "approval",
            "approval_id": format!("a{i}"),
            "timestamp": format!("2026-10-{:02}T12:00:00Z", i % 30 + 1),
            "approval_type": "adr",
            "files": [{"path": format!("adr/{i:03}-decision.md"), "run": 1}],
            "result": result,
            "confidence": 0.9,
            "stage": "reviewer",
            "duration_seconds": 20.0 + f64::from(i % 13),
            "cost_usd": 0.02 + f64::from(i % 5) * 0.01,
            "tokens_used": 4000,
            "errors": 0,
            "warnings": 0,
        });
        approvals.push_str(&record.to_string());
        approvals.push('\n');
        if i % 40 == 39 {
            let escalation = json!({
                "event": "escalation",
                "timestamp": format!("2026-10-{:02}T13:00:00Z", i % 30 + 1),
                "approval_type": "adr",
                "files": [format!("adr/{i:03}-decision.md")],
                "attempts": 3,
            });
            approvals.push_str(&escalation.to_string());
            approvals.push('\n');
        }
    }
    write(root, ".helix-gate/approvals.jsonl", approvals);
}

fn chromium() -> Option<PathBuf> {
    let found = ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .into_iter()
        .map(PathBuf::from)
        .find(|p| p.exists());
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none_or(|v| v != "true"),
            "CI=true but Chromium is missing (scripts/test.sh installs it)"
        );
        eprintln!("SKIPPED: no Chromium (apt-get install -y chromium)");
    }
    found
}

/// Run headless Chromium on `page` with `args`; stdout. Killed after a generous bound.
fn headless(browser: &Path, profile: &Path, page: &Path, args: &[&str]) -> String {
    let out_file = profile.join("stdout.txt");
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
        ])
        .arg(format!(
            "--user-data-dir={}",
            profile.join("profile").display()
        ))
        .args(args)
        .arg(format!("file://{}", page.display()))
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_file).unwrap())
        .stderr(Stdio::null())
        .spawn()
        .expect("start chromium");
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "chromium failed: {status}");
            break;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish within 120 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    std::fs::read_to_string(out_file).unwrap()
}

/// Distinct RGB colours of a PNG, and its size.
fn colours(png_bytes: &[u8]) -> (usize, u32, u32) {
    let decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    let mut seen = std::collections::HashSet::new();
    for pixel in buf[..info.buffer_size()].chunks(channels) {
        seen.insert((pixel[0], pixel.get(1).copied(), pixel.get(2).copied()));
    }
    (seen.len(), info.width, info.height)
}

#[test]
fn report_page_renders_in_headless_chromium() {
    let repo = scratch_repo();
    let decisions = write_history(repo.path());
    assert!(decisions >= 4000);
    let page = repo.path().join("report.html");
    let out = run(repo.path(), &["report", "--out", "report.html"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout(&out).contains("wrote report.html"),
        "{}",
        stdout(&out)
    );
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("section-missing"), "{}", stdout(&out));

    let Some(browser) = chromium() else {
        return;
    };
    let profile = tempfile::tempdir().unwrap();
    let dom = headless(&browser, profile.path(), &page, &["--dump-dom"]);
    for text in [
        "helix-gate report",
        "Decisions over time",
        "Rules that fail most",
        "Blocks the model fixed within the budget",
        "Reviewer verdicts",
        "needs_revision",
        "Cost and latency over time",
        "Escalations (",
        "section-missing",
        "acceptance-criteria-missing",
        "reviewer did not approve after 3 attempt(s)",
        &format!("{decisions}</b><span>decisions"),
    ] {
        assert!(dom.contains(text), "the rendered page lacks {text:?}");
    }
    let shot = profile.path().join("report.png");
    headless(
        &browser,
        profile.path(),
        &page,
        &[
            &format!("--screenshot={}", shot.display()),
            "--window-size=1280,1700",
        ],
    );
    let bytes = std::fs::read(&shot).unwrap();
    let (distinct, width, height) = colours(&bytes);
    assert_eq!((width, height), (1280, 1700));
    // A blank page has one colour; text alone a few dozen grey shades. The charts'
    // colours and their anti-aliased edges give far more.
    assert!(distinct > 100, "screenshot looks blank: {distinct} colours");
    if std::env::var_os("UPDATE_GENERATED").is_some() {
        std::fs::copy(&shot, manifest_dir().join("docs/src/report.png")).unwrap();
    }
}

#[test]
fn report_page_loads_nothing_from_the_network() {
    let repo = scratch_repo();
    write_history(repo.path());
    let out = run(repo.path(), &["report", "--out", "-"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let html = stdout(&out);
    assert!(html.starts_with("<!DOCTYPE html>"));
    let lower = html.to_lowercase();
    for needle in [
        "src=\"http://",
        "src=\"https://",
        "href=\"http://",
        "href=\"https://",
        "<script",
        "<link",
        "@import",
        "url(",
    ] {
        assert!(!lower.contains(needle), "the page contains {needle}");
    }
    assert!(!lower.contains("http://") && !lower.contains("https://"));
}

#[test]
fn report_without_history_says_so() {
    let repo = scratch_repo();
    let out = run(repo.path(), &["report"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let html = std::fs::read_to_string(repo.path().join(".helix-gate/report.html")).unwrap();
    assert!(html.contains("No decisions logged yet."));
    assert!(html.contains("No approval recorded yet."));
}

/// Whether `text` shows a number as `inf` or `NaN` (as a word of its own).
fn infinite_or_nan(text: &str) -> bool {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .any(|word| word.eq_ignore_ascii_case("inf") || word.eq_ignore_ascii_case("nan"))
}

/// The history is writable by anything in the work tree: numbers no review has
/// (`cost_usd: 1e308` twice, negative or huge durations) are skipped and counted
/// like damaged lines, so neither `stats` nor `report` shows `inf` or `NaN`.
#[test]
fn absurd_history_numbers_are_skipped_never_inf_or_nan() {
    let repo = scratch_repo();
    let mut lines = String::new();
    for (i, (secs, cost)) in [
        (20.0, 1e308),
        (20.0, 1e308),
        (-5.0, 0.1),
        (1e300, 0.1),
        (20.0, 0.05),
    ]
    .into_iter()
    .enumerate()
    {
        let record = json!({
            "event": "approval", "approval_id": format!("a{i}"),
            "timestamp": "2026-10-01T12:00:00Z", "approval_type": "adr",
            "files": [{"path": "adr/001-x.md", "run": i + 1}], "result": "approved",
            "confidence": 0.9, "stage": "reviewer", "duration_seconds": secs,
            "cost_usd": cost, "tokens_used": 10, "errors": 0, "warnings": 0,
        });
        lines.push_str(&record.to_string());
        lines.push('\n');
    }
    write(repo.path(), ".helix-gate/approvals.jsonl", lines);
    for format in ["human", "json"] {
        let out = run(repo.path(), &["stats", "--format", format]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let all = format!("{}{}", stdout(&out), stderr(&out));
        assert!(!infinite_or_nan(&all), "{all}");
        assert!(
            all.contains("4 damaged line(s) skipped") || all.contains("\"skipped_lines\": 4"),
            "four lines skipped: {all}"
        );
    }
    let out = run(repo.path(), &["report"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let html = std::fs::read_to_string(repo.path().join(".helix-gate/report.html")).unwrap();
    assert!(!infinite_or_nan(&html), "{html}");
    assert!(html.contains("4 damaged log line(s) skipped"), "{html}");
}

/// A report that cannot be written says which file (the system's error alone,
/// such as "Read-only file system", does not).
#[test]
fn report_that_cannot_be_written_names_the_file() {
    let repo = scratch_repo();
    write(repo.path(), "plain.txt", "x");
    let out = run(repo.path(), &["report", "--out", "plain.txt/report.html"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    let target = repo.path().join("plain.txt/report.html");
    assert!(
        stderr(&out).contains(&format!("cannot write the report {}", target.display())),
        "{}",
        stderr(&out)
    );
}
