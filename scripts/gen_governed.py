#!/usr/bin/env python3
"""Generate a repository whose accepted ADRs govern code, for benchmarks (deterministic).

Usage: gen_governed.py OUT [ADRS] [RULES_PER_ADR]   (default 200 ADRs x 5 rules = 1,000 rules)

ADR n governs src/mod{n % 20}/** and holds RULES_PER_ADR rules (forbid_import,
forbid_pattern, require_pattern, forbid_dependency, forbid_path, in turn), each with
the examples that prove it. Also writes src/mod0/service.py, a 20 KB Python file that
keeps every rule (10 ADRs and their 50 rules cover it), and the same file with one line
more as src/mod0/service.next.py (the content of a Write in the benchmark).
The Rust twin of this generator is in src/adr_dir/governs/cache.rs (the micro benchmark).
"""
import os
import sys

MODULES = 20


def rule(n, k):
    kind = k % 5
    if kind == 0:
        return (f"  - id: no-pkg-{n}-{k}\n    kind: forbid_import\n    why: \"Decision {n}: pkg_{n}_{k} is not used.\"\n"
                f"    modules: [pkg_{n}_{k}]\n"
                f"    examples: {{violates: \"import pkg_{n}_{k}\", passes: \"import json\"}}\n")
    if kind == 1:
        return (f"  - id: no-call-{n}-{k}\n    kind: forbid_pattern\n    why: \"Decision {n}: call_{n}_{k} is gone.\"\n"
                f"    pattern: '\\bcall_{n}_{k}\\('\n    paths: [\"src/mod{n % MODULES}/**/*.py\"]\n"
                f"    examples: {{violates: \"x = call_{n}_{k}(1)\", passes: \"x = other(1)\"}}\n")
    if kind == 2:
        return (f"  - id: license-{n}-{k}\n    kind: require_pattern\n    why: \"Decision {n}: every file names its license.\"\n"
                f"    pattern: '^# License: '\n"
                f"    examples: {{violates: \"x = 1\", passes: \"# License: MIT\"}}\n")
    if kind == 3:
        return (f"  - id: no-dep-{n}-{k}\n    kind: forbid_dependency\n    why: \"Decision {n}: no dep_{n}_{k}.\"\n"
                f"    packages: [dep_{n}_{k}]\n")
    return (f"  - id: no-legacy-{n}-{k}\n    kind: forbid_path\n    why: \"Decision {n}: legacy code is frozen.\"\n"
            f"    paths: [\"legacy{n}/**\"]\n")


def adr(n, rules):
    return (f"---\nadr_id: \"{n:03d}\"\ntitle: \"Decision {n}\"\nstatus: Accepted\n"
            f"governs: [\"src/mod{n % MODULES}/**\"]\n---\n\n# ADR-{n:03d}: Decision {n}\n\n"
            f"## Context\n\nModule {n % MODULES} needs a rule.\n\n## Decision\n\nModule {n % MODULES} keeps decision {n}.\n\n"
            "## Enforcement\n\n```yaml\nrules:\n" + "".join(rule(n, k) for k in range(rules)) + "```\n")


def source(extra):
    lines = ["# License: MIT", "import json", "import os", "from app.gateway import client", ""]
    i = 0
    while sum(len(line) + 1 for line in lines) < 20_000:
        lines.append(f"def handler_{i}(request):\n    return client.get(request.path + \"/{i}\")\n")
        i += 1
    if extra:
        lines.append("def added(request):\n    return json.dumps(request)\n")
    return "\n".join(lines) + "\n"


def main():
    out = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    rules = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    os.makedirs(os.path.join(out, "adr"), exist_ok=True)
    os.makedirs(os.path.join(out, "src", "mod0"), exist_ok=True)
    for n in range(1, count + 1):
        with open(os.path.join(out, "adr", f"{n:03d}-decision-{n}.md"), "w") as f:
            f.write(adr(n, rules))
    with open(os.path.join(out, "src", "mod0", "service.py"), "w") as f:
        f.write(source(False))
    with open(os.path.join(out, "src", "mod0", "service.next.py"), "w") as f:
        f.write(source(True))


if __name__ == "__main__":
    main()
