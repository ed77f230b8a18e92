//! `helix-gate completions SHELL` and `helix-gate man [SUBCOMMAND]`, generated from the
//! clap definitions: they know every subcommand, and what they print is usable.

use std::io::Write as _;
use std::process::{Command, Stdio};

use crate::support::cli::{code, manifest_dir, run, stderr, stdout};

const SUBCOMMANDS: [&str; 8] = [
    "validate",
    "pre-commit",
    "approve",
    "doctor",
    "schema",
    "completions",
    "man",
    "finalize",
];

#[test]
fn completions_know_every_subcommand_and_the_format_values() {
    for shell in ["bash", "zsh", "fish"] {
        let out = run(&manifest_dir(), &["completions", shell]);
        assert_eq!(code(&out), 0, "{shell}: {}", stderr(&out));
        let script = stdout(&out);
        for sub in SUBCOMMANDS {
            assert!(script.contains(sub), "{shell} completion lacks {sub}");
        }
        assert!(
            script.contains("sarif") && script.contains("junit"),
            "{shell}"
        );
    }
    let out = run(&manifest_dir(), &["completions", "tcsh"]);
    assert_eq!(code(&out), 2);
}

#[test]
#[cfg_attr(windows, ignore = "needs bash")]
fn bash_completion_loads_and_completes_subcommands() {
    let out = run(&manifest_dir(), &["completions", "bash"]);
    let script = stdout(&out);
    // Source it in a real bash and ask for the completions of `helix-gate va`.
    let probe = format!(
        "{script}\nCOMP_WORDS=(helix-gate va); COMP_CWORD=1; COMP_LINE='helix-gate va'; COMP_POINT=13\n_helix__gate helix-gate va helix-gate\nprintf '%s\\n' \"${{COMPREPLY[@]}}\"\n"
    );
    let out = Command::new("bash")
        .args(["--norc", "--noprofile", "-c", &probe])
        .stdin(Stdio::null())
        .output()
        .expect("bash");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "validate");
}

#[test]
fn man_page_renders_with_its_name_section() {
    let out = run(&manifest_dir(), &["man"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let page = stdout(&out);
    assert!(page.contains(".TH helix-gate 1"), "{page}");
    assert!(
        page.contains(".SH NAME\nhelix\\-gate \\- Deterministic gates"),
        "{page}"
    );
    assert!(page.contains("helix\\-gate\\-validate(1)"), "{page}");

    let out = run(&manifest_dir(), &["man", "validate"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let page = stdout(&out);
    assert!(page.contains(".TH helix-gate-validate 1"), "{page}");
    assert!(
        page.contains(".SH NAME\nhelix\\-gate\\-validate \\- Check ADR files"),
        "{page}"
    );
    assert!(page.contains("sarif"), "{page}");

    let out = run(&manifest_dir(), &["man", "no-such-command"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("no subcommand `no-such-command`"),
        "{}",
        stderr(&out)
    );

    // Rendered by man(1) when the machine has it: the NAME section survives formatting.
    let Ok(mut man) = Command::new("man")
        .args(["-l", "-"])
        .env("MANWIDTH", "80")
        .env("MAN_KEEP_FORMATTING", "0")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
    else {
        eprintln!("man(1) not installed: skipping the rendering check");
        return;
    };
    man.stdin
        .take()
        .unwrap()
        .write_all(page.as_bytes())
        .unwrap();
    let rendered = man.wait_with_output().unwrap();
    // man writes bold as `N\bN` (overstrike) when its output is not a terminal.
    let mut text = String::new();
    for c in String::from_utf8_lossy(&rendered.stdout).chars() {
        if c == '\u{8}' {
            text.pop();
        } else {
            text.push(c);
        }
    }
    if rendered.status.success() && !text.is_empty() {
        assert!(text.contains("NAME\n       helix-gate-validate"), "{text}");
    }
}
