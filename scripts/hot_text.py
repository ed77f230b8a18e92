#!/usr/bin/env python3
"""Write the linker script of scripts/hot-text.ld from callgrind profiles (scripts/hot-text.sh).

Usage: hot_text.py BINARY LIBC_A PROFILE...

Every function a profile entered, in the order of the profiles and of first appearance, becomes
an input-section pattern of one output section, `.text.hot`, inserted before `.text`:
- a Rust function with a legacy name loses its hash (`17h<16 hex>E` -> `17h*`) when that pattern
  matches only this one function of BINARY (the profiled build, with its symbols): the list then
  survives a new version, whose hashes all change. A generic function's instances share their
  legacy name and differ only in the hash (`RawVec<T, A>::grow_one`: 119 of them), so those keep
  the exact name: the glob would pull every instance in (the no-op's code 360 KB instead of
  140 KB). v0 names (the standard library's) have no hash and stay as they are. Each is matched
  in `.text.NAME` and in `.text.unlikely.NAME`, where LLVM puts `#[cold]` functions;
- a C library function is placed by the member of libc.a that defines it (`nm -A`), a string
  function with all its CPU variants; crt1.o (`_start`) comes first;
- any other function (the binary's unmangled `main`) by its own section.
"""
import re
import subprocess
import sys

FN = re.compile(r"^c?fn=\((\d+)\)(?: (.*))?$")


def functions(profile):
    """Function names in order of first appearance as a cost line owner (`fn=`)."""
    names, order, seen = {}, [], set()
    with open(profile, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = FN.match(line.rstrip("\n"))
            if not m:
                continue
            if m.group(2):
                # callgrind marks recursion levels and cycles with a suffix: `name'2`.
                names[m.group(1)] = re.sub(r"'\d+$", "", m.group(2))
            if line.startswith("fn=") and m.group(1) in names:
                name = names[m.group(1)]
                if name not in seen:
                    seen.add(name)
                    order.append(name)
    return order


def libc_members(libc):
    """Each defined text symbol of libc.a -> its archive member."""
    out = subprocess.run(
        ["nm", "-A", "--defined-only", libc], capture_output=True, text=True, check=True
    ).stdout
    members = {}
    for line in out.splitlines():
        # /usr/lib/x86_64-linux-gnu/libc.a:malloc.o:0000000000000000 T malloc
        head, _, rest = line.rpartition(":")
        parts = rest.split()
        if len(parts) == 3 and parts[1] in "TtWiI":
            member = head.rsplit(":", 1)[-1]
            members.setdefault(parts[2], member)
    return members


def legacy_instances(binary):
    """How many functions of `binary` share each hash-less legacy name."""
    out = subprocess.run(
        ["nm", "--defined-only", binary], capture_output=True, text=True, check=True
    ).stdout
    counts = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "tTwW" and parts[2].startswith("_ZN"):
            key = re.sub(r"17h[0-9a-f]{16}E$", "17h*", parts[2])
            counts[key] = counts.get(key, 0) + 1
    return counts


def main():
    binary, libc, profiles = sys.argv[1], sys.argv[2], sys.argv[3:]
    members = libc_members(libc)
    instances = legacy_instances(binary)
    # The process's entry point first: callgrind starts counting after it.
    lines, seen = ["*crt1.o(.text .text.*)"], set()
    for profile in profiles:
        for name in functions(profile):
            if name.startswith("_ZN"):
                pattern = re.sub(r"17h[0-9a-f]{16}E$", "17h*", name)
                if instances.get(pattern, 0) > 1:
                    pattern = name
                entry = f"*(.text.{pattern} .text.unlikely.{pattern})"
            elif name.startswith("_R"):
                entry = f"*(.text.{name} .text.unlikely.{name})"
            elif name in members:
                # glibc picks a string function's variant for the CPU at start (ifunc):
                # valgrind's CPU gets another than the machines the binary runs on, so
                # every variant goes in (`strlen-avx2.o`, `strlen-evex.o`, ...).
                member = members[name]
                family = re.match(r"^([a-z0-9_]+)-(sse|avx|evex)", member)
                if family:
                    entry = f"*libc.a:{family.group(1)}-*.o(.text .text.*)"
                else:
                    entry = f"*libc.a:{member}(.text .text.*)"
            elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.$]*", name):
                # Unmangled functions of the binary itself (`main`, the allocator shims).
                entry = f"*(.text.{name} .text.unlikely.{name})"
            else:
                continue  # callgrind's own labels: `(below main)`, `0x...`
            if re.search(r"[^A-Za-z0-9_.$*:()\- ]", entry):
                continue  # not a name a linker script can hold unquoted (quoting disables globs)
            if entry not in seen:
                seen.add(entry)
                lines.append(entry)
    print("/* Generated by scripts/hot-text.sh: the functions of the hook's hot paths, laid out")
    print("   together before the rest of the code (why and how: there). Do not edit. */")
    print("SECTIONS")
    print("{")
    print("  .text.hot :")
    print("  {")
    for entry in lines:
        print(f"    {entry}")
    print("  }")
    print("}")
    print("INSERT BEFORE .text;")


if __name__ == "__main__":
    main()
