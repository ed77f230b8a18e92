#!/usr/bin/env python3
"""Turn helix-gate escalations and retries in a `claude -p --output-format stream-json
--verbose` stream into the collapsible blocks Open WebUI renders for model reasoning.

helix-gate answers every escalation with a `systemMessage` line that starts with
`helix-gate escalation:` (docs/src/orchestrators.md). Claude Code 2.1.329 streams a
hook's systemMessage as

    {"type":"system","subtype":"informational","content":"<Event>[:<Tool>] says: <message>","level":"notice",...}

(`PostToolUse:Write says: ...` on a save, `Stop says: ...` at Stop); several
escalations in one answer are one line each in that message, and Claude Code puts the
`<Event> says: ` prefix before every line of it, not only the first.

Each block the hook gives (a save the model must fix, a Stop it may not take yet) can
also carry one line per retried target, `helix-gate retry: <target> attempt N/M: <rule
ids>` (on by default in consultant sessions, `hook.retry_lines` elsewhere), in the same
message: the person sees each retry as it happens.

Output (stdlib only, no network):
  default      the stream, every line unchanged, plus after each escalation event one
               line {"type":"helix_gate_escalation", "kind", "target", "rules",
               "attempts", "next", "hook", "line", "block"}: HELIX forwards `block`
               into the Open WebUI message content; after each retry line one line
               {"type":"helix_gate_retry", "target", "attempt", "rules", "hook",
               "line", "block"}.
  --blocks     only the blocks, one after the other.

The block is the form Open WebUI's middleware writes for a model's reasoning,
`<details type="reasoning" done="true" duration="0">` with a `<summary>` and the
text quoted below it, so the escalation shows where other models' thinking shows.

Usage: escalations.py [--blocks] [STREAM.jsonl]   (stdin when no file is given)
"""

import html
import json
import re
import sys

PREFIX = "helix-gate escalation:"
# helix-gate escalation: <kind> <target>: <rules> after <attempts>; <what happens now>
LINE = re.compile(
    r"^helix-gate escalation: (?P<kind>[a-z-]+) (?P<target>.+?): (?P<rules>\S+)"
    r" after (?P<attempts>[^;]+); (?P<next>.*)$"
)
RETRY_PREFIX = "helix-gate retry:"
# helix-gate retry: <target> attempt <n>/<m>: <rules>
RETRY = re.compile(
    r"^helix-gate retry: (?P<target>.+?) attempt (?P<attempt>\d+/\d+): (?P<rules>\S+)$"
)
SAYS = re.compile(r"^(?P<hook>[A-Za-z]+(?::[^ ]+)?) says: (?P<message>.*)$", re.S)


def unprefixed(line):
    """A line of a hook's message without the `<Event> says: ` Claude Code put before it."""
    line = line.strip()
    said = SAYS.match(line)
    return said.group("message").strip() if said else line


def escalations(event):
    """The escalations a stream-json event carries, parsed (none for most events)."""
    if not isinstance(event, dict) or event.get("type") != "system":
        return []
    content = event.get("content")
    if event.get("subtype") != "informational" or not isinstance(content, str):
        return []
    said = SAYS.match(content)
    hook, message = (said.group("hook"), said.group("message")) if said else ("", content)
    found = []
    for line in message.splitlines():
        line = unprefixed(line)
        if not line.startswith(PREFIX):
            continue
        parsed = LINE.match(line)
        fields = parsed.groupdict() if parsed else {
            "kind": "unknown", "target": "-", "rules": "-", "attempts": "?", "next": line
        }
        fields["rules"] = [] if fields["rules"] == "-" else fields["rules"].split(",")
        fields["hook"] = hook
        fields["line"] = line
        fields["block"] = block(fields)
        found.append(fields)
    return found


def retries(event):
    """The retry lines a stream-json event carries, parsed (none for most events)."""
    if not isinstance(event, dict) or event.get("type") != "system":
        return []
    content = event.get("content")
    if event.get("subtype") != "informational" or not isinstance(content, str):
        return []
    said = SAYS.match(content)
    hook, message = (said.group("hook"), said.group("message")) if said else ("", content)
    found = []
    for line in message.splitlines():
        line = unprefixed(line)
        parsed = RETRY.match(line) if line.startswith(RETRY_PREFIX) else None
        if not parsed:
            continue
        fields = parsed.groupdict()
        fields["rules"] = [] if fields["rules"] == "-" else fields["rules"].split(",")
        fields["hook"] = hook
        fields["line"] = line
        summary = f"helix-gate retry: {fields['target']} attempt {fields['attempt']}"
        rules = ", ".join(fields["rules"]) or "-"
        fields["block"] = (
            '<details type="reasoning" done="true" duration="0">\n'
            f"<summary>{html.escape(summary, quote=False)}</summary>\n"
            f"> rules: {html.escape(rules, quote=False)}\n"
            "</details>\n"
        )
        found.append(fields)
    return found


def block(esc):
    """The Open WebUI reasoning block for one escalation."""
    summary = f"helix-gate escalation: {esc['kind']} {esc['target']}"
    rules = ", ".join(esc["rules"]) or "-"
    body = [
        f"rules: {rules}",
        f"attempts: {esc['attempts']}",
        f"now: {esc['next']}",
    ]
    quoted = "\n".join("> " + html.escape(line, quote=False) for line in body)
    return (
        '<details type="reasoning" done="true" duration="0">\n'
        f"<summary>{html.escape(summary, quote=False)}</summary>\n"
        f"{quoted}\n"
        "</details>\n"
    )


def main(argv):
    args = [a for a in argv if a != "--blocks"]
    only_blocks = "--blocks" in argv
    if len(args) > 1:
        sys.stderr.write(__doc__)
        return 2
    stream = open(args[0], encoding="utf-8") if args else sys.stdin
    with stream:
        for raw in stream:
            line = raw.rstrip("\n")
            try:
                event = json.loads(line)
            except ValueError:
                event = None
            if not only_blocks:
                print(line)
            for esc in escalations(event):
                if only_blocks:
                    print(esc["block"])
                else:
                    print(json.dumps({"type": "helix_gate_escalation", **esc}, ensure_ascii=False))
            for retry in retries(event):
                if only_blocks:
                    print(retry["block"])
                else:
                    print(json.dumps({"type": "helix_gate_retry", **retry}, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
