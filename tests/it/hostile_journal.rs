//! A hostile repository against finalize's journal (`.helix-gate/finalize-intent.json`):
//! an intent the repository ships, naming a file outside the project as its
//! "draft", must never make `doctor` or `finalize` delete that file; and an
//! interrupted finalize leaves no temporary file for `git add -A` to commit once
//! the next `doctor` has recovered it. Each test runs the real binary on a real
//! git repository, bounded in time, with the repository's own state folder.

use std::path::Path;
use std::process::Output;

use helix_gate::adr_dir::Workspace;
use helix_gate::adr_dir::finalize::{self, Fault, Step};

use crate::support::cli::*;
use crate::support::repo::{GOOD_ADR, ScratchRepo, TIME_LIMIT, in_repo};

/// An intent as finalize writes it, pointing its draft at `draft` (with the bytes
/// `original`) and its target at the ADR the repository ships.
fn planted_intent(repo: &ScratchRepo, draft: &Path, original: &[u8]) -> String {
    let hex = helix_gate::text::hex(original);
    serde_json::json!({
        "draft": draft,
        "original": hex,
        "target": repo.join(GOOD_ADR),
        "content": good_adr(),
        "index": null,
        "from": "output/ADR-x.md",
        "to": GOOD_ADR,
    })
    .to_string()
}

/// helix-gate with `args` in the repository, its state folder, and `home` as HOME.
fn helix_home(repo: &ScratchRepo, home: &Path, args: &[&str]) -> Output {
    bounded(
        in_repo(bin(), repo.path()).env("HOME", home).args(args),
        TIME_LIMIT,
    )
}

fn assert_not_ours(out: &Output, what: &str) {
    let err = stderr(out);
    assert!(code(out) != 2, "{what}: {}{err}", stdout(out));
    assert!(
        err.contains("was not written by helix-gate"),
        "{what}: {err}"
    );
}

#[test]
fn a_planted_intent_never_deletes_a_file_outside_the_project() {
    // Another project's empty `__init__.py`: its bytes equal any empty `original`.
    let repo = ScratchRepo::with_adr();
    let outside = repo.base().join("other-project/pkg/__init__.py");
    std::fs::create_dir_all(outside.parent().unwrap()).unwrap();
    std::fs::write(&outside, "").unwrap();
    let intent = repo.write(
        ".helix-gate/finalize-intent.json",
        planted_intent(&repo, &outside, b""),
    );
    let out = repo.helix(&["doctor"]);
    assert_not_ours(&out, "doctor");
    assert!(outside.exists(), "doctor deleted {}", outside.display());
    assert!(!intent.exists(), "the planted intent is removed");
    assert_eq!(repo.read(GOOD_ADR), Some(good_adr()), "the ADR stays");

    // The same intent planted again, found by finalize this time.
    repo.write(
        ".helix-gate/finalize-intent.json",
        planted_intent(&repo, &outside, b""),
    );
    let draft = repo.write(
        "output/ADR-other.md",
        good_adr().replace("Cache parsed rules", "Other"),
    );
    let out = repo.helix(&["finalize", draft.to_str().unwrap()]);
    assert_not_ours(&out, "finalize");
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert!(outside.exists(), "finalize deleted {}", outside.display());
}

#[test]
fn a_planted_intent_never_deletes_a_profile_with_predictable_text() {
    let repo = ScratchRepo::with_adr();
    let home = repo.base().join("home");
    let profile = home.join(".profile");
    let text = b"# ~/.profile: executed by the command interpreter for login shells.\n";
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(&profile, text).unwrap();
    for args in [&["doctor"][..], &["finalize", "output/ADR-other.md"][..]] {
        repo.write(
            ".helix-gate/finalize-intent.json",
            planted_intent(&repo, &profile, text),
        );
        repo.write(
            "output/ADR-other.md",
            good_adr().replace("Cache parsed rules", "Other"),
        );
        let out = helix_home(&repo, &home, args);
        assert_not_ours(&out, args[0]);
        assert_eq!(std::fs::read(&profile).unwrap(), text, "{}", args[0]);
    }
}

/// A finalize stopped as a killed process stops (every temporary file and the
/// intent stay), then `doctor` at once: the finalize is finished and `git status`
/// shows no temporary file.
#[test]
fn doctor_right_after_an_interrupted_finalize_leaves_no_temporary_file() {
    for step in [Step::Intent, Step::Create, Step::RemoveDraft] {
        let repo = ScratchRepo::with_adr();
        repo.write("adr/INDEX.md", "# ADR Index\n\n| Nr | Titel | Status | Beschreibung |\n|----|-------|--------|--------------|\n");
        repo.commit_all("index");
        let draft = repo.write(
            "output/ADR-atomic.md",
            good_adr()
                .replace("Cache parsed rules between hook calls", "Atomic")
                .replace("adr_id: \"001\"\n", ""),
        );
        // The library's finalize with the state folder the binary gets.
        let ws = Workspace::open(repo.path())
            .unwrap()
            .with_state_dir(Some(repo.state_dir()));
        let options = finalize::Options {
            dry_run: false,
            fault: Some(Fault::Crash(step)),
        };
        let err = finalize::run(&ws, &draft, options).unwrap_err();
        assert!(err.to_string().contains("injected crash"), "{err:#}");
        // What a finalize killed while writing its intent leaves.
        repo.write(".helix-gate/.finalize-intent.json.Ab12cd.tmp", "{");
        let out = repo.helix(&["doctor"]);
        assert!(
            code(&out) != 2,
            "{step:?}: {}{}",
            stdout(&out),
            stderr(&out)
        );
        assert!(
            stderr(&out).contains("interrupted finalize"),
            "{step:?}: {}",
            stderr(&out)
        );
        let status = repo.git(&["status", "--porcelain", "--untracked-files=all"]);
        assert!(!status.contains(".tmp"), "{step:?}: {status}");
        let data: Vec<String> = std::fs::read_dir(repo.join(".helix-gate"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| Path::new(n).extension().is_some_and(|e| e == "tmp"))
            .collect();
        assert!(data.is_empty(), "{step:?}: {data:?}");
    }
}

/// A finalize of the repository's own draft, stopped after it created the ADR
/// (as a killed process stops), with `state_dir` as helix-gate's state folder.
fn interrupted_finalize(
    repo: &ScratchRepo,
    state_dir: Option<std::path::PathBuf>,
) -> std::path::PathBuf {
    let draft = repo.write(
        "output/ADR-atomic.md",
        good_adr()
            .replace("Cache parsed rules between hook calls", "Atomic")
            .replace("adr_id: \"001\"\n", ""),
    );
    let ws = Workspace::open(repo.path())
        .unwrap()
        .with_state_dir(state_dir);
    let options = finalize::Options {
        dry_run: false,
        fault: Some(Fault::Crash(Step::Create)),
    };
    finalize::run(&ws, &draft, options).unwrap_err();
    assert!(repo.join("adr/002-atomic.md").exists());
    draft
}

/// Without a state folder (HOME unset) finalize works, but nothing proves its
/// intent: recovery leaves draft and ADR for the person and names both.
#[test]
fn without_a_state_folder_recovery_leaves_draft_and_adr_and_names_both() {
    let repo = ScratchRepo::with_adr();
    let draft = interrupted_finalize(&repo, None);
    let out = bounded(
        in_repo(bin(), repo.path())
            .env_remove("HELIX_GATE_STATE_DIR")
            .env_remove("HOME")
            .arg("doctor"),
        TIME_LIMIT,
    );
    let err = stderr(&out);
    assert!(code(&out) != 2, "{}{err}", stdout(&out));
    assert!(
        err.contains("no per-user state folder")
            && err.contains("output/ADR-atomic.md -> adr/002-atomic.md"),
        "{err}"
    );
    assert!(draft.exists());
    assert!(repo.join("adr/002-atomic.md").exists());
    assert!(!repo.join(".helix-gate/finalize-intent.json").exists());
}

/// Even a witnessed intent removes no draft that became a symbolic link (here to
/// a file outside with the draft's very bytes); the finalize is finished, the
/// link and its target stay, and the witness is gone afterwards.
#[test]
#[cfg(unix)]
fn a_witnessed_intent_never_removes_a_draft_that_is_a_link() {
    let repo = ScratchRepo::with_adr();
    let draft = interrupted_finalize(&repo, Some(repo.state_dir()));
    let outside = repo.base().join("copy.md");
    std::fs::copy(&draft, &outside).unwrap();
    std::fs::remove_file(&draft).unwrap();
    std::os::unix::fs::symlink(&outside, &draft).unwrap();
    let out = repo.helix(&["doctor"]);
    let err = stderr(&out);
    assert!(
        err.contains("finished the interrupted finalize of output/ADR-atomic.md -> adr/002-atomic.md, but left output/ADR-atomic.md as it is"),
        "{err}"
    );
    assert!(std::fs::symlink_metadata(&draft).unwrap().is_symlink());
    assert!(outside.exists());
    let witnesses = std::fs::read_dir(repo.state_dir().join("finalize")).unwrap();
    assert_eq!(witnesses.count(), 0, "the witness goes with the intent");
}
