#!/usr/bin/env python3
"""Pathological ADRs for `scripts/bench.sh worst`: one file per shape and size.

Usage: gen_worst.py DIR SIZE...   (SIZE in bytes, e.g. 1000000 5000000)

Writes DIR/<size>/adr/<nnn>-<shape>.md, each exactly SIZE bytes, and prints
"<shape> <path>" per file. yaml-* shapes put the hostile part in the front matter,
just below helix-gate's 64 KiB front matter limit so that its other limits decide,
and fill the rest with body text (yaml-flow-seq-whole: the issue's repro, all of
the file front matter). md-* shapes keep a small valid front matter and put the
hostile part in the Markdown body, so every rule runs on it.
"""
import os
import sys

HEAD = '---\nadr_id: "001"\ntitle: Worst case\nstatus: Proposed\nfiles:\n  create: []\n  modify: []\n'
BODY_START = "---\n\n# ADR-001: Worst case\n\n## Kontext\n\n"


def repeat_to(unit, n):
    """`unit` repeated to exactly n characters (ASCII units only)."""
    return (unit * (n // len(unit) + 1))[:n]


# Room for the hostile YAML: the front matter stays just below helix-gate's 64 KiB
# limit, so the depth, bracket and alias checks decide (not the size); the body is
# plain text up to the file size.
FRONT_MATTER_ROOM = 64 * 1024 - len(HEAD) + len("---\n") - 100


def in_front_matter(payload_of, whole=False):
    """A document whose front matter holds payload_of(room) after the normal fields;
    with whole=True the front matter fills the file (refused by its size)."""
    def make(size):
        tail = "---\n\n# ADR-001: Worst case\n\n"
        room = size - len(HEAD) - len(tail) - 1
        if not whole:
            room = min(room, FRONT_MATTER_ROOM)
        payload = payload_of(room)[:room].ljust(room)
        text = HEAD + payload + "\n" + tail
        return text + repeat_to("word ", size - len(text))
    return make


def in_body(payload_of):
    def make(size):
        room = size - len(HEAD) - len(BODY_START) - 1
        return HEAD + BODY_START + payload_of(room)[:room].ljust(room) + "\n"
    return make


# --- front matter -----------------------------------------------------------

def flow_seq(n):  # the repro: x: [[[[... (unclosed)
    return "x: " + "[" * (n - 3)


def flow_map(n):  # x: {a: {a: ... }}
    k = (n - 3) // 5
    return ("x: " + "{a: " * k + "}" * k).ljust(n)


def block_map(n):  # a:\n b:\n  c:\n ... deeper and deeper indentation
    lines, used, depth = [], 0, 0
    while True:
        line = " " * depth + "k:\n"
        if used + len(line) > n - 2:
            break
        lines.append(line)
        used += len(line)
        depth += 1
    return ("".join(lines) + " " * depth + "v").ljust(n)[:n]


def block_seq(n):  # x:\n- - - - ... compact nested block sequences on one line
    return "x:\n" + repeat_to("- ", n - 4) + "v"


def aliases(n):  # an anchored list, then aliases of it until the room is full
    anchor = "a: &a [" + ", ".join(["lol"] * 1000) + "]\n"
    rest = n - len(anchor) - len("b: []")
    return anchor + "b: [" + repeat_to("*a, ", rest).rstrip(", ").ljust(rest) + "]"


def laughs(n):  # billion laughs: nine levels of nine aliases, then a comment as padding
    lines = ['l0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 10):
        lines.append(f"l{i}: &l{i} [" + ",".join([f"*l{i - 1}"] * 9) + "]")
    text = "\n".join(lines) + "\n# "
    return text + "x" * (n - len(text))


def yaml_long_line(n):
    return 'x: "' + "a" * (n - 5) + '"'


def yaml_many_keys(n):
    out, used, i = [], 0, 0
    while used < n - 20:
        line = f"k{i}: v{i}\n"
        out.append(line)
        used += len(line)
        i += 1
    return ("".join(out)).ljust(n)[:n]


def yaml_wide_flow(n):
    return ("x: [" + repeat_to("1, ", n - 5) + "]")[:n - 1] + "]"


def yaml_block_scalar(n):
    return "x: |\n" + repeat_to("  text line of a block scalar\n", n - 5)


def flow_at_limits(n):  # 31 open levels, 256 brackets in all, items inside all of them
    head = "x: " + "[" * 30 + "[a], " * 224
    tail = "]" * 30
    return head + repeat_to("a, ", n - len(head) - len(tail) - 1) + "a" + tail


def quoted_brackets(n):  # real depth 240 while a bracket count that ignores quotes sees 16
    head = "x: " + ('[' * 16 + '"' + ']' * 16 + '", ') * 15
    return head + repeat_to("a, ", n - len(head))


# --- body -------------------------------------------------------------------

def md_brackets(n):
    return "[" * n


def md_nested_links(n):
    k = n // 5
    return ("[" * k + "x" + "](u)" * k)[:n]


def md_emphasis(n):
    return repeat_to("*a _", n)


def md_emphasis_runs(n):
    return repeat_to("**_*__**a", n)


def md_deep_list(n):  # nested list, one level deeper per line
    out, used, depth = [], 0, 0
    while True:
        line = "  " * depth + "- x\n"
        if used + len(line) > n:
            break
        out.append(line)
        used += len(line)
        depth += 1
    return "".join(out).ljust(n)


def md_list_one_line(n):
    return repeat_to("- ", n - 1) + "x"


def md_blockquote(n):
    return repeat_to("> ", n - 1) + "x"


def md_blockquote_lines(n):  # one more > per line
    out, used, depth = [], 0, 1
    while True:
        line = ">" * depth + " x\n"
        if used + len(line) > n:
            break
        out.append(line)
        used += len(line)
        depth += 1
    return "".join(out).ljust(n)


def md_long_line(n):
    return repeat_to("word ", n)


def md_headings(n):
    out, used, i = [], 0, 0
    while used < n - 20:
        line = f"## Heading {i}\n"
        out.append(line)
        used += len(line)
        i += 1
    return "".join(out).ljust(n)


def md_checkboxes(n):
    out, used, i = [], 0, 0
    while used < n - 24:
        line = f"- [ ] task {i}\n"
        out.append(line)
        used += len(line)
        i += 1
    return "".join(out).ljust(n)


def md_wide_table(n):
    cols = 2000
    header = "|" + "a|" * cols + "\n" + "|" + "-|" * cols + "\n"
    row = "|" + "x|" * cols + "\n"
    rows = (n - len(header)) // len(row)
    return (header + row * rows).ljust(n)


def md_backticks(n):  # code-span openers of growing length that never close
    out, used, i = [], 0, 1
    while used < n:
        piece = "`" * i + "a"
        out.append(piece)
        used += len(piece)
        i = i % 200 + 1
    return "".join(out)[:n]


def md_html(n):
    return repeat_to("<a ", n)


def md_link_refs(n):
    out, used, i = [], 0, 0
    while used < n - 40:
        line = f"[r{i}]: http://x/{i}\n[r{i}][r{i}]\n"
        out.append(line)
        used += len(line)
        i += 1
    return "".join(out).ljust(n)


SHAPES = [
    ("yaml-flow-seq-whole", in_front_matter(flow_seq, whole=True)),
    ("yaml-flow-seq", in_front_matter(flow_seq)),
    ("yaml-flow-map", in_front_matter(flow_map)),
    ("yaml-block-map", in_front_matter(block_map)),
    ("yaml-block-seq", in_front_matter(block_seq)),
    ("yaml-aliases", in_front_matter(aliases)),
    ("yaml-billion-laughs", in_front_matter(laughs)),
    ("yaml-long-line", in_front_matter(yaml_long_line)),
    ("yaml-many-keys", in_front_matter(yaml_many_keys)),
    ("yaml-wide-flow", in_front_matter(yaml_wide_flow)),
    ("yaml-block-scalar", in_front_matter(yaml_block_scalar)),
    ("yaml-flow-at-limits", in_front_matter(flow_at_limits)),
    ("yaml-quoted-brackets", in_front_matter(quoted_brackets)),
    ("md-flow-brackets", in_body(md_brackets)),
    ("md-nested-links", in_body(md_nested_links)),
    ("md-emphasis", in_body(md_emphasis)),
    ("md-emphasis-runs", in_body(md_emphasis_runs)),
    ("md-deep-list", in_body(md_deep_list)),
    ("md-list-one-line", in_body(md_list_one_line)),
    ("md-blockquote", in_body(md_blockquote)),
    ("md-blockquote-lines", in_body(md_blockquote_lines)),
    ("md-long-line", in_body(md_long_line)),
    ("md-headings", in_body(md_headings)),
    ("md-checkboxes", in_body(md_checkboxes)),
    ("md-wide-table", in_body(md_wide_table)),
    ("md-backticks", in_body(md_backticks)),
    ("md-html", in_body(md_html)),
    ("md-link-refs", in_body(md_link_refs)),
]


def main():
    out_dir = sys.argv[1]
    sizes = [int(s) for s in sys.argv[2:]] or [1_000_000]
    for size in sizes:
        adr_dir = os.path.join(out_dir, str(size), "adr")
        os.makedirs(adr_dir, exist_ok=True)
        os.makedirs(os.path.join(out_dir, str(size), ".git"), exist_ok=True)
        for number, (name, make) in enumerate(SHAPES, start=1):
            text = make(size)
            data = text.encode()
            assert len(data) == size, (name, len(data), size)
            path = os.path.join(adr_dir, f"{number:03d}-{name}.md")
            with open(path, "wb") as f:
                f.write(data)
            print(name, path)


if __name__ == "__main__":
    main()
