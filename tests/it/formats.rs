//! The CI output formats (`--format sarif|github|gitlab|junit`) through the real binary:
//! SARIF validated by Microsoft's SARIF validator, JUnit parsed as XML, GitHub's workflow
//! commands kept intact by hostile messages, and the formats of `pre-commit` and `doctor`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::cli::{code, good_adr, manifest_dir, run, scratch_repo, stderr, stdout, write};
use crate::support::repo::ScratchRepo;

/// A repository with one passing ADR and one whose messages carry everything a format
/// must escape: markup, quotes, `%`, `:` and `,`, a newline and control characters, all
/// inside a `files.modify` path the message quotes.
fn hostile_repo() -> tempfile::TempDir {
    let dir = scratch_repo();
    write(dir.path(), "src/lib.rs", "");
    write(dir.path(), "adr/001-good.md", good_adr());
    let bad = good_adr()
        .replace("adr_id: \"001\"", "adr_id: \"002\"")
        .replace(
            "    - src/lib.rs",
            "    - \"src/<a href='x'>&amp; 100%, a:b\\n::error file=evil.md::pwned\\u0007.rs\"",
        )
        .replace("# ADR-001", "# ADR-002");
    write(dir.path(), "adr/002 odd name.md", bad);
    dir
}

fn validate(dir: &Path, format: &str) -> String {
    let out = run(dir, &["validate", "--format", format]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    stdout(&out)
}

#[test]
fn github_commands_escape_hostile_messages() {
    let dir = hostile_repo();
    let text = validate(dir.path(), "github");
    let lines: Vec<&str> = text.lines().collect();
    // One finding, one command: neither the newline nor `::error` in the path made a second.
    assert_eq!(lines.len(), 1, "{text}");
    let line = lines[0];
    assert!(
        line.starts_with("::error file=adr/002 odd name.md,line="),
        "{line}"
    );
    assert!(line.contains(",title=files-modify-missing::"), "{line}");
    assert!(
        line.contains("`src/<a href='x'>&amp; 100%25, a:b%0A::error file=evil.md::pwned\\u{7}.rs` does not exist%0Ahint: "),
        "{line}"
    );
    assert!(!line.contains('\n') && !line.contains('\r'), "{line}");
}

#[test]
fn junit_output_is_well_formed_xml() {
    let dir = hostile_repo();
    let text = validate(dir.path(), "junit");
    check_xml(&text).unwrap_or_else(|e| panic!("not well-formed XML ({e}):\n{text}"));
    assert!(
        text.contains("<testsuite name=\"adr/001-good.md\" tests=\"1\" failures=\"0\""),
        "{text}"
    );
    assert!(
        text.contains("<failure type=\"files-modify-missing\""),
        "{text}"
    );
    // The checker itself rejects what a careless renderer would print.
    assert!(check_xml("<a><b></a></b>").is_err());
    assert!(check_xml("<a x=\"<\"/>").is_err());
    assert!(check_xml("<a>&bogus;</a>").is_err());
    assert!(check_xml("<a>\u{7}</a>").is_err());
}

#[test]
fn gitlab_report_is_a_code_quality_array() {
    let dir = hostile_repo();
    let issues: Value = serde_json::from_str(&validate(dir.path(), "gitlab")).unwrap();
    let issues = issues.as_array().unwrap();
    assert_eq!(issues.len(), 1);
    let issue = &issues[0];
    assert_eq!(issue["check_name"], "files-modify-missing");
    assert_eq!(issue["severity"], "major");
    assert_eq!(issue["location"]["path"], "adr/002 odd name.md");
    assert!(issue["location"]["lines"]["begin"].as_u64().unwrap() >= 1);
    assert_eq!(issue["fingerprint"].as_str().unwrap().len(), 32);

    // A line inserted above the finding moves it, but keeps its fingerprint.
    let path = dir.path().join("adr/002 odd name.md");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        text.replacen("\n## Kontext\n", "\n\n\n## Kontext\n", 1),
    )
    .unwrap();
    let moved: Value = serde_json::from_str(&validate(dir.path(), "gitlab")).unwrap();
    assert_eq!(moved[0]["fingerprint"], issue["fingerprint"]);
}

#[test]
fn sarif_output_validates_against_the_sarif_2_1_0_schema() {
    let Some(validator) = sarif_validator() else {
        return;
    };
    let dir = hostile_repo();
    let log = validate(dir.path(), "sarif");
    let parsed: Value = serde_json::from_str(&log).unwrap();
    let run = &parsed["runs"][0];
    assert_eq!(run["results"][0]["ruleId"], "files-modify-missing");
    assert_eq!(
        run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "adr/002%20odd%20name.md"
    );
    let sarif = write(dir.path(), "out/helix-gate.sarif", &log);
    let problems = sarif_problems(&validator, &sarif);
    assert!(
        problems.is_empty(),
        "SARIF validator found:\n{problems:#?}\n{log}"
    );

    // The validator really checks: a log that breaks the schema is reported.
    let broken = write(
        dir.path(),
        "out/broken.sarif",
        r#"{"version":"2.1.0","runs":{}}"#,
    );
    assert!(!sarif_problems(&validator, &broken).is_empty());
}

/// The pinned `sarif-multitool` (scripts/install-sarif-multitool.sh). Missing: fails under
/// `CI=true`; skipped loudly on a developer machine without it.
pub(crate) fn sarif_validator() -> Option<PathBuf> {
    let path = std::env::var_os("HELIX_GATE_SARIF_MULTITOOL").map_or_else(
        || manifest_dir()
            .join(".cache/sarif-multitool/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool"),
        PathBuf::from,
    );
    if path.exists() {
        return Some(path);
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "the SARIF validator is missing at {} (CI must install it: scripts/install-sarif-multitool.sh)",
        path.display()
    );
    eprintln!(
        "\n*** SKIPPED: SARIF schema validation: no sarif-multitool at {}.\n*** Run scripts/install-sarif-multitool.sh (scripts/test.sh does).\n",
        path.display()
    );
    None
}

/// The errors and warnings `sarif-multitool validate` reports for `file` (its notes are
/// advice such as "add code snippets"), as `RULE: message arguments`.
pub(crate) fn sarif_problems(validator: &Path, file: &Path) -> Vec<String> {
    let out = file.with_extension("validation.sarif");
    let mut child = Command::new(validator)
        .arg("validate")
        .arg(file)
        .arg("--output")
        .arg(&out)
        .args([
            "--log",
            "ForceOverwrite",
            "--level",
            "Error;Warning",
            "--quiet",
        ])
        // A self-contained .NET program: without ICU it would refuse to start, and it
        // needs no culture data to check JSON; no telemetry from a test.
        .env("DOTNET_SYSTEM_GLOBALIZATION_INVARIANT", "1")
        .env("DOTNET_CLI_TELEMETRY_OPTOUT", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start sarif-multitool");
    let deadline = Instant::now() + Duration::from_secs(180);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("sarif-multitool validate did not finish in 180 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "sarif-multitool failed: {status}");
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    report["runs"][0]["results"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|r| {
            format!(
                "{}: {} {}",
                r["ruleId"], r["message"]["id"], r["message"]["arguments"]
            )
        })
        .collect()
}

#[test]
fn doctor_speaks_every_format() {
    let dir = hostile_repo();
    for format in ["sarif", "github", "gitlab", "junit"] {
        let out = run(dir.path(), &["doctor", "--format", format]);
        assert_eq!(code(&out), 1, "{format}: {}", stderr(&out));
        assert!(
            stdout(&out).contains("files-modify-missing"),
            "{format}: {}",
            stdout(&out)
        );
    }
}

#[test]
fn pre_commit_prints_the_staged_findings_in_a_format() {
    let repo = ScratchRepo::new();
    let root = repo.path();
    write(root, "src/lib.rs", "");
    let bad = good_adr().replace("    - src/lib.rs", "    - src/gone.rs");
    write(root, "adr/001-x.md", bad);
    repo.git(&["add", "-A"]);
    let out = run(root, &["pre-commit", "--format", "gitlab"]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let issues: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(issues[0]["check_name"], "files-modify-missing");
    assert_eq!(issues[0]["location"]["path"], "adr/001-x.md");

    // `human` stays the hook's own text on stderr.
    let out = run(root, &["pre-commit", "--format", "human"]);
    assert_eq!(code(&out), 1);
    assert!(stdout(&out).is_empty());
    assert!(stderr(&out).contains("commit blocked"), "{}", stderr(&out));
}

/// A small well-formedness check of XML 1.0 as the JUnit renderer writes it (no DTD, no
/// CDATA, no comments): balanced tags, quoted attributes without `<`, only the five
/// predefined entities and character references, no character XML cannot carry.
fn check_xml(text: &str) -> Result<(), String> {
    let text = text
        .strip_prefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        .unwrap_or(text);
    if let Some(c) = text
        .chars()
        .find(|c| (*c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r'))
    {
        return Err(format!("character U+{:04X}", c as u32));
    }
    let mut stack: Vec<String> = Vec::new();
    let mut rest = text;
    let mut roots = 0;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('<') {
            let end = after.find('>').ok_or("unterminated tag")?;
            let tag = &after[..end];
            rest = &after[end + 1..];
            if let Some(name) = tag.strip_prefix('/') {
                let open = stack.pop().ok_or("close without open")?;
                if open != name.trim() {
                    return Err(format!("</{name}> closes <{open}>"));
                }
                continue;
            }
            let self_closing = tag.ends_with('/');
            let tag = tag.trim_end_matches('/');
            let name_end = tag.find(char::is_whitespace).unwrap_or(tag.len());
            let name = &tag[..name_end];
            if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
                return Err(format!("bad tag name {name:?}"));
            }
            check_attributes(&tag[name_end..])?;
            if stack.is_empty() {
                roots += 1;
            }
            if !self_closing {
                stack.push(name.to_owned());
            }
        } else {
            let end = rest.find('<').unwrap_or(rest.len());
            let content = &rest[..end];
            if !stack.is_empty() {
                check_text(content)?;
            } else if !content.trim().is_empty() {
                return Err("text outside the root".into());
            }
            rest = &rest[end..];
        }
    }
    if !stack.is_empty() {
        return Err(format!("unclosed {stack:?}"));
    }
    if roots != 1 {
        return Err(format!("{roots} root elements"));
    }
    Ok(())
}

fn check_attributes(mut attrs: &str) -> Result<(), String> {
    loop {
        attrs = attrs.trim_start();
        if attrs.is_empty() {
            return Ok(());
        }
        let eq = attrs
            .find("=\"")
            .ok_or(format!("attribute without =\" in {attrs:?}"))?;
        let after = &attrs[eq + 2..];
        let close = after.find('"').ok_or("unterminated attribute")?;
        let value = &after[..close];
        if value.contains('<') {
            return Err(format!("`<` in attribute {value:?}"));
        }
        check_text(value)?;
        attrs = &after[close + 1..];
    }
}

fn check_text(text: &str) -> Result<(), String> {
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        let after = &rest[amp + 1..];
        let semi = after.find(';').ok_or("`&` without `;`")?;
        let entity = &after[..semi];
        let ok = matches!(entity, "amp" | "lt" | "gt" | "quot" | "apos")
            || entity
                .strip_prefix('#')
                .and_then(|n| n.parse::<u32>().ok())
                .is_some_and(|n| matches!(n, 9 | 10 | 13) || n >= 0x20);
        if !ok {
            return Err(format!("entity &{entity};"));
        }
        rest = &after[semi + 1..];
    }
    Ok(())
}
