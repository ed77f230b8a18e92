#!/usr/bin/env python3
"""Write the linker script of scripts/hot-text.ld from callgrind profiles (scripts/hot-text.sh).

Usage: hot_text.py BINARY LIBC_A PROFILE...
       hot_text.py --size BINARY    (the size of BINARY's `.text.hot` section, in bytes)

Every function a profile entered, in the order of the profiles and of first appearance, becomes
an input-section pattern of one output section, `.text.hot`, inserted before `.text`:
- a Rust function: the release build uses v0 names (`-C symbol-mangling-version=v0`,
  scripts/release-target.sh), which spell a generic function's instance by its type arguments
  (`RawVec<u8>::grow_one`) instead of a hash. What changes from build to build is only each
  crate's disambiguator (`Cs<base-62 hash>_`, from the compiler version, the dependency versions,
  the profile and the folder the crate was built in) and, with their lengths, the back-references
  (`B<base-62 offset>_`): both become `*`, so the list matches the same functions in any build of
  the same code, wherever and with whichever compiler it is built. Where that glob would match
  more than this one function of BINARY, the exact name is kept. Each is matched in
  `.text.NAME` and in `.text.unlikely.NAME`, where LLVM puts `#[cold]` functions; a legacy name
  (`_ZN...17h<hash>E`, C++-style, from a crate built without the flag) loses its hash the same way;
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


def loose(name):
    """The build-independent glob of a mangled Rust name (module doc)."""
    if name.startswith("_ZN"):
        return re.sub(r"17h[0-9a-f]{16}E$", "17h*", name)
    # v0: crate disambiguators `Cs<base62>_` and back-references `B<base62>_` (`B_` is 0).
    name = re.sub(r"Cs[0-9A-Za-z]*_", "Cs*_", name)
    return re.sub(r"B[0-9A-Za-z]*_", "B*_", name)


def instances(binary):
    """How many functions of `binary` share each loose name."""
    out = subprocess.run(
        ["nm", "--defined-only", binary], capture_output=True, text=True, check=True
    ).stdout
    counts = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "tTwW" and parts[2].startswith(("_ZN", "_R")):
            key = loose(parts[2])
            counts[key] = counts.get(key, 0) + 1
    return counts


def hot_size(binary):
    """The size of the `.text.hot` section of `binary` (0 without one)."""
    out = subprocess.run(
        ["readelf", "-W", "-S", binary], capture_output=True, text=True, check=True
    ).stdout
    for line in out.splitlines():
        fields = line.replace("[ ", "[").split()
        if len(fields) > 5 and fields[1] == ".text.hot":
            return int(fields[5], 16)
    return 0


def main():
    if sys.argv[1] == "--size":
        print(hot_size(sys.argv[2]))
        return
    binary, libc, profiles = sys.argv[1], sys.argv[2], sys.argv[3:]
    members = libc_members(libc)
    shared = instances(binary)
    # The process's entry point first: callgrind starts counting after it.
    lines, seen = ["*crt1.o(.text .text.*)"], set()
    for profile in profiles:
        for name in functions(profile):
            if name.startswith(("_ZN", "_R")):
                pattern = loose(name)
                if shared.get(pattern, 0) > 1:
                    pattern = name
                entry = f"*(.text.{pattern} .text.unlikely.{pattern})"
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
    print("   together before the rest of the code (why and how: there). Do not edit.")
    print("   Laid out in the shipped build when generated: @SIZE@ bytes (tests/it/packages.rs")
    print("   asserts that every package's binary lays out at least 90 % of that). */")
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
