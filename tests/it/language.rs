//! The shipped rules accept an ADR in English as well as in German: for every
//! contextual rule, an English ADR that has the required element passes, a German one
//! passes, and one without the element fails with that rule's id.

use crate::support::cli::*;

/// A complete English ADR (minor change) that passes every shipped rule; `{impl}` is added to Implementation, `{extra}` before Consequences.
const ENGLISH: &str = r#"---
adr_id: "001"
title: "Cache parsed rules between hook calls"
status: Proposed
component_type: PROCESS
classification: UPDATE
change_scope: minor
files:
  create: []
  modify:
    - src/lib.rs
  docs: []
depends_on: []
---

# ADR-001: Cache parsed rules between hook calls

## Context

Every hook call parses the rules file again. On large repositories this adds
noticeable latency to each Write and Edit that Claude Code performs.

## Decision

We keep the compiled rules in memory for the lifetime of one process and parse
them lazily, only when an event concerns an ADR.

## Implementation

The rules are loaded behind a lazily initialised value in `src/lib.rs`; callers
that never touch an ADR never pay for the parse.
{impl}
## Documentation

The README section on performance explains when rules are parsed and how to
measure the hook's latency with the bundled benchmark script.

## Acceptance Criteria

- [ ] A hook call for a non-ADR file does not parse the rules file
- [ ] A hook call for an ADR parses the rules file exactly once
- [ ] The benchmark script reports the median latency of both paths{criteria}

{extra}## Consequences

### Positive
- Faster path for every tool call that is not about an ADR.

### Negative
- Slightly more code in the configuration loader.
"#;

/// One case: the front matter, Implementation text, criteria and extra sections that
/// trigger the rule and satisfy it in English, in German, and without the element.
struct Case {
    rule: &'static str,
    criteria: &'static str,
    english: (&'static str, &'static str),
    german: (&'static str, &'static str),
    missing: (&'static str, &'static str),
}

const MIGRATION_CRITERIA: &str = "\n- [ ] The migration is tested on a copy of the repository";

#[expect(
    clippy::too_many_lines,
    reason = "one table of cases, read top to bottom"
)]
fn cases() -> Vec<Case> {
    vec![
        Case {
            rule: "major-needs-migration",
            criteria: MIGRATION_CRITERIA,
            english: (
                "",
                "## Migration\n\nPhase 1, step 1: run both loaders side by side for a week.\nPhase 2: switch over. Rollback: revert the configuration change.\n\n",
            ),
            german: (
                "",
                "## Migration\n\nPhase 1, Schritt 1: beide Lader eine Woche parallel betreiben.\nPhase 2: umstellen. Rollback: die Konfigurationsänderung zurücknehmen.\n\n",
            ),
            missing: (
                "",
                "## Migration\n\nPhase 1: run both loaders side by side for a week.\nPhase 2: switch over at once. Rollback: revert the configuration change.\n\n",
            ),
        },
        Case {
            rule: "major-needs-rollback",
            criteria: MIGRATION_CRITERIA,
            english: (
                "",
                "## Migration\n\nPhase 1, step 1: run both loaders side by side for a week.\nPhase 2: switch over; to go back, revert the configuration change.\n\n",
            ),
            german: (
                "",
                "## Migration\n\nPhase 1, Schritt 1: beide Lader eine Woche parallel betreiben.\nPhase 2: umstellen; zum Zurückrollen die Konfiguration wiederherstellen.\n\n",
            ),
            missing: (
                "",
                "## Migration\n\nPhase 1, step 1: run both loaders side by side for a week.\nPhase 2: switch over and remove the old loader for good.\n\n",
            ),
        },
        Case {
            rule: "new-needs-examples",
            criteria: "",
            english: (
                "\nExample:\n\n```rust\nlet rules = cache.rules()?;\n```\n",
                "",
            ),
            german: (
                "\nBeispiel:\n\n```rust\nlet rules = cache.rules()?;\n```\n",
                "",
            ),
            missing: ("\nThe cache holds one value per process.\n", ""),
        },
        Case {
            rule: "breaking-needs-upgrade",
            criteria: "",
            english: (
                "\nThis is a breaking change for callers of the loader.\n",
                "## Migration\n\nUpgrade guide. Before: `load_rules(path)` on every call. After: `RuleCache::get()` once per process.\n\n",
            ),
            german: (
                "\nDas ist nicht abwärtskompatibel für Aufrufer des Laders.\n",
                "## Migration\n\nUpgrade-Anleitung. Vorher: `load_rules(path)` bei jedem Aufruf. Nachher: `RuleCache::get()` einmal pro Prozess.\n\n",
            ),
            missing: (
                "\nThis is a breaking change for callers of the loader.\n",
                "",
            ),
        },
        Case {
            rule: "deps-need-references",
            criteria: "",
            english: ("\nIt builds on ADR-002, which introduced the loader.\n", ""),
            german: (
                "\nEs baut auf ADR-002 auf, das den Lader eingeführt hat.\n",
                "",
            ),
            missing: (
                "\nIt builds on the decision that introduced the loader.\n",
                "",
            ),
        },
        Case {
            rule: "tools-need-cli",
            criteria: "",
            english: (
                "\nThe command `helix-gate rules` lists what is cached.\n",
                "",
            ),
            german: (
                "\nDer Befehl `helix-gate rules` zeigt, was im Speicher liegt.\n",
                "",
            ),
            missing: ("\nNothing else changes for the people using it.\n", ""),
        },
        Case {
            rule: "service-needs-api",
            criteria: "",
            english: (
                "\nThe service answers GET /rules with the cached rules.\n",
                "",
            ),
            german: (
                "\nDie Schnittstelle liefert die Regeln aus dem Speicher.\n",
                "",
            ),
            missing: ("\nNothing else changes for the people using it.\n", ""),
        },
    ]
}

/// The ADR of `case` with one variant's Implementation text and extra sections.
fn adr(case: &Case, (implementation, extra): (&str, &str)) -> String {
    let mut text = ENGLISH
        .replace("{impl}", implementation)
        .replace("{extra}", extra)
        .replace("{criteria}", case.criteria);
    // The fields that switch the rule on.
    let switch = match case.rule {
        "major-needs-migration" | "major-needs-rollback" => {
            ("change_scope: minor", "change_scope: major")
        }
        "new-needs-examples" => ("classification: UPDATE\n", "classification: NEW\n"),
        "deps-need-references" => ("depends_on: []", "depends_on: [\"002\"]"),
        "tools-need-cli" => (
            "component_type: PROCESS\nclassification: UPDATE",
            "component_type: TOOL\nclassification: NEW",
        ),
        "service-needs-api" => ("component_type: PROCESS", "component_type: SERVICE"),
        _ => ("", ""),
    };
    if !switch.0.is_empty() {
        text = text.replacen(switch.0, switch.1, 1);
    }
    if case.rule == "deps-need-references" {
        // The title's own ADR-001 would count as a reference.
        text = text.replace("# ADR-001: ", "# ");
    }
    if case.rule == "new-needs-examples" {
        text = text.replace("  create: []", "  create:\n    - src/cache.rs");
    }
    text
}

/// The rule ids `validate` reports for `text` (an ADR at adr/001-x.md).
fn rules_of(text: &str) -> Vec<String> {
    let repo = scratch_repo();
    write(repo.path(), "src/lib.rs", "");
    write(repo.path(), "adr/001-x.md", text);
    let out = run(
        repo.path(),
        &["validate", "adr/001-x.md", "--format", "json"],
    );
    assert!(matches!(code(&out), 0 | 1), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    doc["files"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn the_english_base_adr_passes_every_rule() {
    let base = ENGLISH
        .replace("{impl}", "")
        .replace("{extra}", "")
        .replace("{criteria}", "");
    assert_eq!(rules_of(&base), Vec::<String>::new());
}

#[test]
fn every_contextual_rule_accepts_english_and_german_and_catches_the_gap() {
    for case in cases() {
        let english = rules_of(&adr(&case, case.english));
        assert!(
            !english.iter().any(|r| r == case.rule),
            "{}: English ADR was refused: {english:?}\n{}",
            case.rule,
            adr(&case, case.english)
        );
        assert!(english.is_empty(), "{}: {english:?}", case.rule);
        let german = rules_of(&adr(&case, case.german));
        assert!(german.is_empty(), "{}: German ADR: {german:?}", case.rule);
        let missing = rules_of(&adr(&case, case.missing));
        assert!(
            missing.iter().any(|r| r == case.rule),
            "{}: the ADR without the element passed: {missing:?}",
            case.rule
        );
    }
}

#[test]
fn an_english_migration_is_no_longer_refused_for_lacking_schritt() {
    let case = &cases()[0];
    let repo = scratch_repo();
    write(repo.path(), "src/lib.rs", "");
    write(repo.path(), "adr/001-x.md", adr(case, case.missing));
    let out = run(repo.path(), &["validate"]);
    assert_eq!(code(&out), 1);
    // Without any step word the finding names both spellings.
    assert!(
        stdout(&out).contains("lacks `Schritt|Step`"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn rule_words_inside_other_words_do_not_count() {
    // Each text has the rule's words only inside longer words: "Inhalt" (alt), "erneut"
    // (neu), "hold" (old), "renewal" (new), "Kapitel" and "Therapie" (API), "client"
    // (CLI), "recommended" (command). Matched as substrings, every rule passed.
    let decoys = [
        (
            "breaking-needs-upgrade",
            "\nThis is a breaking change for callers of the loader.\n",
            "## Migration\n\nDer Inhalt der Konfiguration wird erneut geladen; callers hold the lock during the renewal of the cache.\n\n",
        ),
        (
            "service-needs-api",
            "\nKapitel 3 beschreibt die Therapie des Speichers.\n",
            "",
        ),
        (
            "tools-need-cli",
            "\nThe client keeps the recommended defaults.\n",
            "",
        ),
    ];
    for (rule, implementation, extra) in decoys {
        let case = cases().into_iter().find(|c| c.rule == rule).unwrap();
        let found = rules_of(&adr(&case, (implementation, extra)));
        assert!(
            found.iter().any(|r| r == rule),
            "{rule}: words inside other words satisfied the rule: {found:?}\n{}",
            adr(&case, (implementation, extra))
        );
    }
}

#[test]
fn inflected_and_compound_rule_words_still_count() {
    let accepted = [
        (
            "breaking-needs-upgrade",
            "\nDas ist nicht abwärtskompatibel.\n",
            "## Migration\n\nDie alten Aufrufe lesen jedes Mal die Datei; die neuen Aufrufe nutzen den Speicher.\n\n",
        ),
        (
            "service-needs-api",
            "\nDie REST-APIs und ihre Endpunkte bleiben gleich.\n",
            "",
        ),
        ("tools-need-cli", "\nDie Kommandozeile bleibt gleich.\n", ""),
    ];
    for (rule, implementation, extra) in accepted {
        let case = cases().into_iter().find(|c| c.rule == rule).unwrap();
        let found = rules_of(&adr(&case, (implementation, extra)));
        assert!(found.is_empty(), "{rule}: {found:?}");
    }
}
