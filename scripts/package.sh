#!/usr/bin/env bash
# Builds the artifact of one distribution channel and prints its path on the last line:
#   scripts/package.sh crate|npm|pypi|tarball|zip [OUT_DIR]
# OUT_DIR defaults to $CARGO_TARGET_DIR/dist (target/dist). Every artifact gets a
# `<file>.sha256` beside it (sha256sum's format: `sha256sum -c` checks it).
#
#   crate    helix-gate-<version>.crate, by `cargo package --locked`, which also builds the
#            crate from its own .crate (debug profile, in <target>/package/)
#   npm      helix-gate-cli-<os>-<cpu>-<version>.tgz (the binary of this machine) and
#            helix-gate-<version>.tgz (the `helix-gate` command, last line), by `npm pack`
#   pypi     helix_gate-<version>-py3-none-<platform>.whl, by the pinned maturin
#   tarball  helix-gate-<version>-<target>.tar.gz: the binary, README, LICENSE, CHANGELOG,
#            shell completions and the man page
#   zip      helix-gate-<version>-<target>.zip: the same for Windows (helix-gate.exe), the
#            release workflow's Windows rows
#
# Another target's npm, pypi and zip artifacts, from its binary built here (the Windows ones
# from the MinGW cross-build of scripts/test-windows.sh): HELIX_GATE_TARGET names the target
# (x86_64-pc-windows-gnu), HELIX_GATE_BINARY its binary (default: its release build,
# <target dir>/<target>/release/helix-gate.exe, which must exist). The binary's own commands
# (completions, man page) run under Wine (scripts/windows/wine-prefix.sh), and maturin wraps
# the same release build.
#
# The npm, pypi and tarball channels carry the one release binary of scripts/build-release.sh
# (static and not position-independent on Linux/glibc); building it again is a no-op for
# cargo, so the channels share one build. The release workflow (.github/workflows/release.yml)
# runs this script on each platform; tests/it/packages.rs runs it and installs each artifact.
# Nothing here uses the network but `cargo package` and maturin's first install
# (scripts/install-maturin.sh), and cargo only for crates missing from its cache.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

usage="usage: scripts/package.sh crate|npm|pypi|tarball|zip [OUT_DIR]"
channel="${1:?$usage}"
target_dir="${CARGO_TARGET_DIR:-$root/target}"
out="${2:-$target_dir/dist}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)"
# Time stamps inside the wheel and the tarball: the commit's, so the same commit gives the
# same bytes.
epoch="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2> /dev/null || echo 0)}"
# The release build's target (its RUSTFLAGS are set where maturin builds, not for the crate).
# shellcheck source=release-target.sh
release_target="$(. scripts/release-target.sh && echo "$release_target")"
cross_target="${HELIX_GATE_TARGET:-}"
if [ -n "$cross_target" ]; then
  release_target="$cross_target"
fi
# The binary's file name: helix-gate.exe on Windows.
case "$release_target" in
  *-windows-*) exe=helix-gate.exe ;;
  *) exe=helix-gate ;;
esac
# Python 3 (the Windows runners' setup-python has `python`, not `python3`).
python="$(command -v python3 || command -v python)"

# `<file>.sha256` beside `<file>`, naming the file without its directory.
checksum() {
  local dir name
  dir="$(dirname "$1")"
  name="$(basename "$1")"
  if command -v sha256sum > /dev/null 2>&1; then
    (cd "$dir" && sha256sum "$name") > "$1.sha256"
  else
    (cd "$dir" && shasum -a 256 "$name") > "$1.sha256"
  fi
}

# README.md with its links into the repository (the book under docs/, CHANGELOG.md, ...)
# made absolute: an unpacked tarball or the npm registry's page has no docs/ beside it.
readme_into() { # readme_into DIR
  sed -E 's#\]\((docs/[^)]*|CHANGELOG\.md|LICENSE|CONTRIBUTING\.md)\)#](https://github.com/helix-gate/helix-gate/blob/main/\1)#g' \
    README.md > "$1/README.md"
}

# The release binary (built when its sources changed, else cargo's no-op); when packaging
# for another target, the binary built for it.
release_binary() {
  if [ -n "$cross_target" ]; then
    local bin="${HELIX_GATE_BINARY:-$target_dir/$release_target/release/$exe}"
    [ -f "$bin" ] || {
      echo "error: no $bin: build it first (cargo build --release --target $release_target)" >&2
      exit 2
    }
    echo "$bin"
    return
  fi
  bash scripts/build-release.sh | tail -n 1
}

# Run the packaged binary: under Wine when it is another target's Windows binary.
run_binary() { # run_binary BIN ARGS...
  if [ -n "$cross_target" ] && [[ "$release_target" == *-windows-* ]]; then
    local prefix
    prefix="$(bash scripts/windows/wine-prefix.sh)"
    WINEDEBUG=-all WINEPREFIX="$prefix" wine "$@"
  else
    "$@"
  fi
}

# A fresh staging folder under the target directory.
stage() {
  local dir="$target_dir/package-stage${cross_target:+-$cross_target}/$1"
  rm -rf "$dir"
  mkdir -p "$dir"
  echo "$dir"
}

case "$channel" in
  crate)
    # --allow-dirty: a local run packages the work tree as it is; the release workflow
    # runs on a tag's clean checkout. --target: the verify build's binary goes to
    # <target>/<triple>/debug, not over target/debug/helix-gate, which the tests run
    # while this runs; its dependencies are compiled there once, then cached.
    cargo package --locked --allow-dirty --quiet --target "$release_target" >&2
    cp "$target_dir/package/helix-gate-$version.crate" "$out/"
    artifact="$out/helix-gate-$version.crate"
    checksum "$artifact"
    echo "$artifact"
    ;;

  npm)
    bin="$(release_binary)"
    case "$release_target" in
      x86_64-unknown-linux-*) os=linux cpu=x64 ;;
      aarch64-unknown-linux-*) os=linux cpu=arm64 ;;
      x86_64-apple-darwin) os=darwin cpu=x64 ;;
      aarch64-apple-darwin) os=darwin cpu=arm64 ;;
      x86_64-pc-windows-*) os=win32 cpu=x64 ;;
      aarch64-pc-windows-*) os=win32 cpu=arm64 ;;
      *) echo "error: no npm platform package for $release_target" >&2; exit 2 ;;
    esac
    platform="@helix-gate/cli-$os-$cpu"
    grep -q "\"$platform\"" packaging/npm/helix-gate/package.json || {
      echo "error: packaging/npm/helix-gate/package.json does not list $platform" >&2
      exit 2
    }
    # The platform package: only the binary, installed by npm where os and cpu match.
    dir="$(stage "npm-cli-$os-$cpu")"
    cp "$bin" "$dir/$exe"
    chmod 0755 "$dir/$exe"
    cp LICENSE "$dir/"
    cat > "$dir/package.json" << EOF
{
  "name": "$platform",
  "version": "$version",
  "description": "The helix-gate binary for $os-$cpu (installed by the helix-gate package)",
  "license": "MIT",
  "homepage": "https://github.com/helix-gate/helix-gate",
  "repository": {
    "type": "git",
    "url": "git+https://github.com/helix-gate/helix-gate.git"
  },
  "os": ["$os"],
  "cpu": ["$cpu"],
  "files": ["$exe", "LICENSE"],
  "preferUnplugged": true
}
EOF
    npm pack --silent --pack-destination "$out" "$dir" > /dev/null
    platform_tgz="$out/helix-gate-cli-$os-$cpu-$version.tgz"
    # The main package: the `helix-gate` command (a node launcher) and the optional
    # dependencies; its version and theirs are the crate's.
    dir="$(stage npm-helix-gate)"
    cp -R packaging/npm/helix-gate/. "$dir/"
    cp LICENSE "$dir/"
    readme_into "$dir"
    (cd "$dir" && node -e '
      const fs = require("fs");
      const version = process.argv[1];
      const pkg = JSON.parse(fs.readFileSync("package.json", "utf8"));
      pkg.version = version;
      for (const dep of Object.keys(pkg.optionalDependencies)) pkg.optionalDependencies[dep] = version;
      fs.writeFileSync("package.json", JSON.stringify(pkg, null, 2) + "\n");
    ' "$version")
    npm pack --silent --pack-destination "$out" "$dir" > /dev/null
    main_tgz="$out/helix-gate-$version.tgz"
    checksum "$platform_tgz"
    checksum "$main_tgz"
    echo "$platform_tgz"
    echo "$main_tgz"
    ;;

  pypi)
    bin="$(release_binary)"
    maturin="$(bash scripts/install-maturin.sh | tail -n 1)"
    # maturin runs cargo with the release build's target and RUSTFLAGS (release-target.sh),
    # so cargo finds the binary just built up to date and maturin only wraps it.
    dir="$(stage wheel)"
    profile=dist
    if [ -n "$cross_target" ]; then
      # The cross-built release binary, with the linker scripts/test-windows.sh uses.
      profile=release
      export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER="${CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER:-x86_64-w64-mingw32-gcc}"
    else
      # shellcheck source=release-target.sh
      . scripts/release-target.sh
    fi
    SOURCE_DATE_EPOCH="$epoch" "$maturin" build --profile "$profile" --locked --quiet --target "$release_target" --out "$dir" >&2
    wheels=("$dir"/*.whl)
    [ "${#wheels[@]}" = 1 ] && [ -f "${wheels[0]}" ] || {
      echo "error: maturin wrote no single wheel into $dir" >&2
      exit 2
    }
    # The wheel must carry the very binary the other channels carry.
    "$python" - "${wheels[0]}" "$bin" "$exe" << 'EOF'
import sys, zipfile
wheel, built, exe = sys.argv[1], sys.argv[2], sys.argv[3]
with zipfile.ZipFile(wheel) as z:
    names = [n for n in z.namelist() if n.endswith(".data/scripts/" + exe)]
    if len(names) != 1 or z.read(names[0]) != open(built, "rb").read():
        sys.exit(f"error: {wheel} does not carry {built} ({names})")
EOF
    # The project page on PyPI shows the README from the wheel's METADATA: the README there
    # becomes the one with absolute links (readme_into), and RECORD gets the new hash.
    readme_into "$dir"
    "$python" - "${wheels[0]}" README.md "$dir/README.md" << 'EOF'
import base64, hashlib, sys, zipfile
wheel, readme, absolute = sys.argv[1], open(sys.argv[2]).read(), open(sys.argv[3]).read()
with zipfile.ZipFile(wheel) as z:
    entries = [(info, z.read(info)) for info in z.infolist()]
metadata = next(info.filename for info, _ in entries if info.filename.endswith(".dist-info/METADATA"))
def digest(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
with zipfile.ZipFile(wheel, "w") as z:
    for info, data in entries:
        if info.filename == metadata:
            text = data.decode()
            if readme not in text:
                sys.exit(f"error: {metadata} does not carry README.md")
            data = text.replace(readme, absolute).encode()
            record_line = f"{metadata},{digest(data)},{len(data)}\n".encode()
        elif info.filename.endswith(".dist-info/RECORD"):
            data = b"".join(record_line if line.startswith(metadata.encode() + b",") else line
                            for line in data.splitlines(keepends=True))
        z.writestr(info, data)
EOF
    artifact="$out/$(basename "${wheels[0]}")"
    cp "${wheels[0]}" "$artifact"
    checksum "$artifact"
    echo "$artifact"
    ;;

  tarball)
    bin="$(release_binary)"
    name="helix-gate-$version-$release_target"
    parent="$(stage tarball)"
    dir="$parent/$name"
    mkdir -p "$dir/completions" "$dir/man"
    cp "$bin" "$dir/helix-gate"
    cp LICENSE CHANGELOG.md "$dir/"
    readme_into "$dir"
    "$bin" completions bash > "$dir/completions/helix-gate.bash"
    "$bin" completions zsh > "$dir/completions/_helix-gate"
    "$bin" completions fish > "$dir/completions/helix-gate.fish"
    "$bin" completions powershell > "$dir/completions/_helix-gate.ps1"
    "$bin" man > "$dir/man/helix-gate.1"
    # Reproducible where tar is GNU tar: names sorted, owner root, times from the commit.
    artifact="$out/$name.tar.gz"
    if tar --version 2> /dev/null | grep -q 'GNU tar'; then
      tar -C "$parent" --sort=name --owner=0 --group=0 --numeric-owner \
        --mtime="@$epoch" -cf - "$name" | gzip -9n > "$artifact"
    else
      tar -C "$parent" -cf - "$name" | gzip -9n > "$artifact"
    fi
    checksum "$artifact"
    echo "$artifact"
    ;;

  zip)
    # The Windows archive: what the tarball has, helix-gate.exe for the binary, as a zip
    # (what Windows opens without extra tools); entries sorted, times from the commit.
    bin="$(release_binary)"
    name="helix-gate-$version-$release_target"
    parent="$(stage zip)"
    dir="$parent/$name"
    mkdir -p "$dir/completions" "$dir/man"
    cp "$bin" "$dir/$exe"
    cp LICENSE CHANGELOG.md "$dir/"
    readme_into "$dir"
    run_binary "$bin" completions powershell > "$dir/completions/_helix-gate.ps1"
    run_binary "$bin" completions bash > "$dir/completions/helix-gate.bash"
    run_binary "$bin" man > "$dir/man/helix-gate.1"
    artifact="$out/$name.zip"
    "$python" - "$parent" "$name" "$artifact" "$epoch" << 'EOF'
import os, sys, time, zipfile
parent, name, artifact, epoch = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
stamp = time.gmtime(max(epoch, 315532800))[:6]  # zip dates start in 1980
files = []
for folder, _, names in os.walk(os.path.join(parent, name)):
    files += [os.path.join(folder, n) for n in names]
with zipfile.ZipFile(artifact, "w", zipfile.ZIP_DEFLATED) as z:
    for path in sorted(files):
        info = zipfile.ZipInfo(os.path.relpath(path, parent).replace(os.sep, "/"), stamp)
        info.external_attr = 0o755 << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        with open(path, "rb") as f:
            z.writestr(info, f.read())
EOF
    checksum "$artifact"
    echo "$artifact"
    ;;

  *)
    echo "$usage" >&2
    exit 2
    ;;
esac
