#!/usr/bin/env python3
"""Generate N realistic HELIX ADRs of 2-60 KB for benchmarks (deterministic, seeded)."""
import os
import random
import sys

WORDS = ("die Entscheidung betrifft den Validator und das Gate sowie die Migration der "
         "bestehenden Konfiguration in mehreren Phasen mit einem klaren Rollback falls "
         "nötig the hook checks every write and the reviewer reads the repository").split()


def paragraph(rng, n):
    return " ".join(rng.choice(WORDS) for _ in range(n)) + "."


def adr(rng, number, size):
    major = number % 3 == 0
    parts = [
        "---",
        f'adr_id: "{number:03d}"',
        f'title: "Generated decision {number}"',
        "status: Proposed",
        "component_type: PROCESS",
        "classification: UPDATE",
        f"change_scope: {'major' if major else 'minor'}",
        "files:",
        "  create: [src/generated_%d.rs]" % number,
        "  modify: [src/lib.rs]",
        "  docs: []",
        "depends_on: []" if number < 2 else f'depends_on: ["{number - 1:03d}"]',
        "---",
        "",
        f"# ADR-{number:03d}: Generated decision {number}",
        "",
    ]
    sections = ["Kontext", "Entscheidung", "Implementation", "Dokumentation"]
    if major:
        sections.append("Migration")
    body = []
    for name in sections:
        body.append(f"## {name}\n")
        body.append(paragraph(rng, 40) + f" Siehe ADR-{max(number - 1, 1):03d}.\n")
        if name == "Implementation":
            body.append("```rust\n## not a heading\nfn main() {}\n```\n")
        if name == "Migration":
            body.append("Phase 1, Schritt 1: " + paragraph(rng, 20) + " Rollback: revert.\n")
    filler = []
    while sum(len(x) for x in parts + body + filler) < size:
        filler.append("### Detail\n\n" + paragraph(rng, 120) + "\n")
    body[3:3] = filler  # grow the Implementation section
    body.append("## Akzeptanzkriterien\n")
    body.extend(f"- [ ] criterion {i} covers migration and rollback\n" for i in range(4))
    body.append("\n## Konsequenzen\n\n### Positiv\n- " + paragraph(rng, 15) + "\n\n### Negativ\n- " + paragraph(rng, 15) + "\n")
    return "\n".join(parts) + "\n" + "\n".join(body)


def main():
    out, count = sys.argv[1], int(sys.argv[2])
    rng = random.Random(42)
    os.makedirs(os.path.join(out, "adr"), exist_ok=True)
    os.makedirs(os.path.join(out, "src"), exist_ok=True)
    open(os.path.join(out, "src", "lib.rs"), "w").close()
    for n in range(1, count + 1):
        size = rng.randint(2_000, 60_000)
        with open(os.path.join(out, "adr", f"{n:03d}-generated-{n}.md"), "w") as f:
            f.write(adr(rng, n, size))


if __name__ == "__main__":
    main()
