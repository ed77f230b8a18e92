//! The install channels: every artifact `scripts/package.sh CHANNEL` builds is installed the
//! way a user installs it, into a scratch prefix, and the installed `helix-gate --version`
//! runs from there; then the plugin's hook shim, given only what that install leaves behind,
//! finds it. Each artifact's `.sha256` is checked.
//!
//! The npm, pypi and tarball channels carry the one release binary of
//! `scripts/build-release.sh` (the first channel builds it, the others find it up to date),
//! checked here to be static and not position-independent on Linux/glibc. The crate is
//! installed with `cargo install --debug` from the folder cargo unpacked the `.crate` into
//! for its verify build (checked equal to the `.crate`), which makes the install reuse that
//! build: the `.crate` is proven to build and install, without a second compile or the
//! release profile's LTO.
//!
//! A channel whose tool is missing (npm and node, python3 with venv) is skipped with a note,
//! and fails under `CI`. The installs fetch nothing: npm and pip install from the files only
//! (`--offline`, `--no-index`), cargo with `--offline`. (Building them may: maturin's first
//! install, and `cargo package`'s look at the crates.io index unless cargo is offline.)

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use sha2::Digest as _;

use crate::support::cli::{bin, bounded, isolated, manifest_dir};
use crate::support::plugin::{plugin_copy, shim};

const VERSION: &str = env!("CARGO_PKG_VERSION");

/// A release build can take minutes on a busy 2-core machine; only a hang reaches this.
const BUILD_LIMIT: Duration = Duration::from_secs(30 * 60);
const INSTALL_LIMIT: Duration = Duration::from_secs(5 * 60);

/// `program` on PATH, or [`missing`] and `None`.
fn require(program: &str, channel: &str) -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|dir| dir.join(program))
            .find(|p| p.is_file())
    });
    if found.is_none() {
        missing(&format!("{program} on PATH"), channel);
    }
    found
}

/// Under `CI` a panic, elsewhere a note: the test then returns early.
fn missing(what: &str, channel: &str) {
    assert!(
        std::env::var_os("CI").is_none(),
        "{what} not found (CI is set): the {channel} channel cannot be tested"
    );
    eprintln!("skipped: the {channel} channel needs {what}, not found");
}

/// The target directory of this build (the test binary's `helix-gate` is `<it>/debug/...`).
fn target_dir() -> PathBuf {
    Path::new(bin())
        .parent()
        .and_then(Path::parent)
        .unwrap()
        .to_path_buf()
}

/// rustc's host triple: the release binary's target.
fn host() -> String {
    let out = Command::new("rustc").arg("-vV").output().unwrap();
    ok(&out, "rustc -vV")
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .unwrap_or_else(|| panic!("rustc -vV names no host"))
        .to_owned()
}

fn ok(out: &Output, what: &str) -> String {
    assert!(
        out.status.success(),
        "{what}: {:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `scripts/package.sh CHANNEL`: the paths it printed, each with a matching `.sha256`.
fn package(channel: &str) -> Vec<PathBuf> {
    let out = bounded(
        isolated("bash", manifest_dir()).args(["scripts/package.sh", channel]),
        BUILD_LIMIT,
    );
    let paths: Vec<PathBuf> = ok(&out, &format!("package.sh {channel}"))
        .lines()
        .map(PathBuf::from)
        .collect();
    assert!(!paths.is_empty(), "package.sh {channel} printed no path");
    for path in &paths {
        let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let name = path.file_name().unwrap().to_str().unwrap();
        let sum = std::fs::read_to_string(format!("{}.sha256", path.display())).unwrap();
        let hex = helix_gate::text::hex(&sha2::Sha256::digest(&bytes));
        assert_eq!(sum, format!("{hex}  {name}\n"), "{name}.sha256");
        eprintln!("{channel}: {name}, {} bytes", bytes.len());
    }
    paths
}

/// `program --version`, isolated: prints the crate's version.
fn assert_version(program: impl AsRef<OsStr>, cwd: &Path) {
    let program = program.as_ref();
    let out = bounded(isolated(program, cwd).arg("--version"), INSTALL_LIMIT);
    let text = ok(&out, &format!("{} --version", program.display()));
    assert_eq!(
        text,
        format!("helix-gate {VERSION}\n"),
        "{}",
        program.display()
    );
}

/// The plugin's hook shim with only `env` (no PATH entry but those given) runs the installed
/// binary: `--version` through the shim prints the version.
fn assert_shim_finds(scratch: &Path, env: &[(&str, &str)]) {
    let plugin = scratch.join("plugin");
    plugin_copy(&plugin);
    let out = shim(&plugin, scratch, &["--version"], env);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("helix-gate {VERSION}\n"),
        "shim with {env:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// On Linux with glibc the shipped binary is static (no program interpreter, no dynamic
/// section) and not position-independent (ELF type EXEC), as scripts/release-target.sh
/// builds it.
fn assert_static_non_pie(path: &Path) {
    if !cfg!(all(target_os = "linux", target_env = "gnu")) {
        return;
    }
    let elf = std::fs::read(path).unwrap();
    assert_eq!(&elf[..4], b"\x7fELF", "{}", path.display());
    assert_eq!(elf[4], 2, "64-bit ELF: {}", path.display());
    let u16_at = |at: usize| u16::from_le_bytes([elf[at], elf[at + 1]]);
    let u64_at = |at: usize| u64::from_le_bytes(elf[at..at + 8].try_into().unwrap());
    assert_eq!(u16_at(16), 2, "ET_EXEC (not PIE): {}", path.display());
    let (phoff, phentsize, phnum) = (
        usize::try_from(u64_at(32)).unwrap(),
        usize::from(u16_at(54)),
        u16_at(56),
    );
    for i in 0..usize::from(phnum) {
        let p_type = u32::from_le_bytes(
            elf[phoff + i * phentsize..phoff + i * phentsize + 4]
                .try_into()
                .unwrap(),
        );
        // PT_DYNAMIC = 2, PT_INTERP = 3
        assert!(
            p_type != 2 && p_type != 3,
            "dynamically linked: {}",
            path.display()
        );
    }
}

/// On `x86_64` Linux the shipped build lays the hook's hot functions out first
/// (scripts/hot-text.ld, scripts/release-target.sh): the binary of every package (tarball,
/// npm, wheel) has a `.text.hot` section, before `.text`, holding at least 90 % of what the
/// list laid out when it was generated.
fn assert_hot_text_first(path: &Path) {
    if !cfg!(all(
        target_os = "linux",
        target_env = "gnu",
        target_arch = "x86_64"
    )) {
        return;
    }
    let elf = std::fs::read(path).unwrap();
    let u16_at = |at: usize| usize::from(u16::from_le_bytes([elf[at], elf[at + 1]]));
    let u32_at = |at: usize| u32::from_le_bytes(elf[at..at + 4].try_into().unwrap());
    let u64_at = |at: usize| {
        usize::try_from(u64::from_le_bytes(elf[at..at + 8].try_into().unwrap())).unwrap()
    };
    let (shoff, shentsize, shnum, shstrndx) = (u64_at(40), u16_at(58), u16_at(60), u16_at(62));
    let header = |i: usize| shoff + i * shentsize;
    let names = u64_at(header(shstrndx) + 24);
    // (name, address, size) of each section.
    let sections: Vec<(String, usize, usize)> = (0..shnum)
        .map(|i| {
            let h = header(i);
            let name_at = names + usize::try_from(u32_at(h)).unwrap();
            let end = elf[name_at..].iter().position(|&b| b == 0).unwrap();
            let name = String::from_utf8_lossy(&elf[name_at..name_at + end]).into_owned();
            (name, u64_at(h + 16), u64_at(h + 32))
        })
        .collect();
    let find = |wanted: &str| sections.iter().find(|(name, ..)| name == wanted);
    let hot = find(".text.hot").unwrap_or_else(|| panic!("no .text.hot: {sections:?}"));
    let text = find(".text").unwrap();
    assert!(hot.1 < text.1, "{hot:?} after {text:?}");
    // The floor: 90 % of what the list laid out in the shipped build when it was generated
    // (its header). Less means its patterns stopped matching the code (renamed or new hot
    // functions): run scripts/hot-text.sh again.
    let script = std::fs::read_to_string(manifest_dir().join("scripts/hot-text.ld")).unwrap();
    let generated: usize = script
        .split("when generated: ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("scripts/hot-text.ld names the size it laid out when generated");
    assert!(
        hot.2 * 10 >= generated * 9,
        "{}: .text.hot holds {} bytes, under 90 % of the {generated} bytes scripts/hot-text.ld \
         laid out when generated: its patterns no longer match the hot code; run \
         scripts/hot-text.sh",
        path.display(),
        hot.2
    );
}

/// The files below `dir`, relative, with their bytes.
fn tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(at) = todo.pop() {
        for entry in std::fs::read_dir(&at).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                todo.push(path);
            } else {
                let rel = path.strip_prefix(dir).unwrap().to_path_buf();
                files.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    files
}

fn untar(archive: &Path, into: &Path) {
    std::fs::create_dir_all(into).unwrap();
    let out = Command::new("tar")
        .arg("-xzf")
        .arg(archive)
        .arg("-C")
        .arg(into)
        .output()
        .unwrap();
    ok(&out, &format!("tar -xzf {}", archive.display()));
}

#[test]
fn crate_holds_what_it_builds_from_and_installs_with_cargo() {
    let crate_file = package("crate").pop().unwrap();
    assert_eq!(
        crate_file.file_name().unwrap(),
        format!("helix-gate-{VERSION}.crate").as_str()
    );
    let size = std::fs::metadata(&crate_file).unwrap().len();
    assert!(size < 1024 * 1024, "{size} bytes: something large went in");

    let scratch = tempfile::tempdir().unwrap();
    let unpacked = scratch.path().join("crate");
    untar(&crate_file, &unpacked);
    let files = tree(&unpacked.join(format!("helix-gate-{VERSION}")));
    let has = |rel: &str| files.contains_key(Path::new(rel));
    // What the build embeds (include_str!) and what crates.io shows.
    for rel in [
        "Cargo.toml",
        "Cargo.lock",
        "src/main.rs",
        "config/helix-gate.yaml",
        "config/adr-completeness-rules.yaml",
        "config/approvals.yaml",
        "config/presets/madr.yaml",
        "templates/helix.md",
        "approvals/adr/CLAUDE.md",
        "approvals/verdict.schema.json",
        "hooks/hooks.json",
        "hooks/pre-commit",
        "README.md",
        "LICENSE",
        "CHANGELOG.md",
    ] {
        assert!(has(rel), "{rel} missing from the .crate");
    }
    for path in files.keys() {
        let rel = path.to_str().unwrap();
        for left_out in [
            "target/",
            ".cache/",
            "docs/",
            "tests/it/",
            "scripts/",
            ".github/",
        ] {
            assert!(!rel.starts_with(left_out), "{rel} is in the .crate");
        }
    }

    // cargo's verify build ran in the folder it unpacked the .crate into: the same files.
    let verified = target_dir()
        .join("package")
        .join(format!("helix-gate-{VERSION}"));
    let built: BTreeMap<PathBuf, Vec<u8>> = tree(&verified)
        .into_iter()
        .filter(|(rel, _)| !rel.starts_with("target") && rel != Path::new(".cargo-ok"))
        .collect();
    assert!(
        built == files,
        "{} differs from the .crate",
        verified.display()
    );

    let home = scratch.path().join("home");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = bounded(
        isolated(&cargo, scratch.path())
            .args(["install", "--locked", "--offline", "--debug", "--target"])
            .arg(host())
            .arg("--target-dir")
            .arg(target_dir())
            .arg("--path")
            .arg(&verified)
            .arg("--root")
            .arg(home.join(".cargo")),
        INSTALL_LIMIT,
    );
    ok(&out, "cargo install");
    assert_version(home.join(".cargo/bin/helix-gate"), scratch.path());
    // The shim finds ~/.cargo/bin/helix-gate although it is not on PATH.
    assert_shim_finds(
        scratch.path(),
        &[("HOME", home.to_str().unwrap()), ("PATH", "/usr/bin:/bin")],
    );
}

#[test]
fn npm_package_runs_the_platform_binary_installed_globally_and_by_npx() {
    let (Some(npm), Some(_node)) = (require("npm", "npm"), require("node", "npm")) else {
        return;
    };
    let Some(npx) = require("npx", "npm") else {
        return;
    };
    let paths = package("npm");
    let [platform, main] = paths.as_slice() else {
        panic!("package.sh npm printed {paths:?}")
    };
    assert_eq!(
        main.file_name().unwrap(),
        format!("helix-gate-{VERSION}.tgz").as_str()
    );
    let scratch = tempfile::tempdir().unwrap();
    let s = scratch.path();
    let userconfig = s.join("npmrc");
    std::fs::write(&userconfig, "").unwrap();
    // npm's own state in the scratch folder: no user configuration, cache or registry.
    let npm_env = |cmd: &mut Command| {
        cmd.env("HOME", s.join("home"))
            .env("npm_config_userconfig", &userconfig)
            .env("npm_config_cache", s.join("npm-cache"))
            .env("npm_config_update_notifier", "false")
            .env("npm_config_audit", "false")
            .env("npm_config_fund", "false");
    };
    let install = |prefix: &Path, tgzs: &[&PathBuf]| {
        let mut cmd = isolated(&npm, s);
        cmd.args(["install", "--global", "--offline", "--prefix"])
            .arg(prefix)
            .args(tgzs);
        npm_env(&mut cmd);
        ok(&bounded(&mut cmd, INSTALL_LIMIT), "npm install -g");
    };

    let prefix = s.join("prefix");
    install(&prefix, &[platform, main]);
    let installed = prefix.join("lib/node_modules");
    let manifest: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(installed.join("helix-gate/package.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(manifest["version"], VERSION);
    for (dep, version) in manifest["optionalDependencies"].as_object().unwrap() {
        assert_eq!(version, VERSION, "{dep}");
    }
    let native = std::fs::read_dir(installed.join("@helix-gate"))
        .unwrap()
        .map(|e| e.unwrap().path().join("helix-gate"))
        .next()
        .unwrap();
    assert_static_non_pie(&native);
    assert_hot_text_first(&native);
    // The command npm linked (the node launcher), then `npx helix-gate` in a folder with
    // no node_modules: npx takes the globally installed package.
    assert_version(prefix.join("bin/helix-gate"), s);
    let empty = s.join("elsewhere");
    std::fs::create_dir(&empty).unwrap();
    let mut cmd = isolated(&npx, &empty);
    cmd.args(["--offline", "helix-gate", "--version"])
        .env("npm_config_prefix", &prefix);
    npm_env(&mut cmd);
    let text = ok(
        &bounded(&mut cmd, INSTALL_LIMIT),
        "npx helix-gate --version",
    );
    assert_eq!(text, format!("helix-gate {VERSION}\n"));

    // Installed without its optional dependencies the launcher says what is missing.
    let bare = s.join("bare");
    install(&bare, &[main]);
    let out = bounded(
        isolated(bare.join("bin/helix-gate"), s).arg("--version"),
        INSTALL_LIMIT,
    );
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("@helix-gate/cli-"), "{stderr}");
    assert!(
        stderr.contains("npm install -g ./helix-gate-cli-")
            && stderr.contains(&format!("-{VERSION}.tgz ./helix-gate-{VERSION}.tgz")),
        "{stderr}"
    );

    // The shim runs the native binary, so it needs no node: PATH is the prefix's bin only.
    let path = prefix.join("bin");
    assert_shim_finds(s, &[("PATH", path.to_str().unwrap())]);
}

/// The npm launcher (`packaging/npm/helix-gate/bin/helix-gate`) as `scripts/package.sh npm`
/// stages it (versions filled in), at `dir`/node_modules/helix-gate, run by node with
/// `--version`: (exit code, stderr, stdout). No package is built.
fn launcher_in(dir: &Path, node: &Path) -> (Option<i32>, String, String) {
    let staged = dir.join("node_modules/helix-gate");
    std::fs::create_dir_all(staged.join("bin")).unwrap();
    let source = manifest_dir().join("packaging/npm/helix-gate");
    std::fs::copy(source.join("bin/helix-gate"), staged.join("bin/helix-gate")).unwrap();
    let mut manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(source.join("package.json")).unwrap())
            .unwrap();
    manifest["version"] = VERSION.into();
    for version in manifest["optionalDependencies"]
        .as_object_mut()
        .unwrap()
        .values_mut()
    {
        *version = VERSION.into();
    }
    std::fs::write(staged.join("package.json"), manifest.to_string()).unwrap();
    let out = bounded(
        isolated(node, dir)
            .arg(staged.join("bin/helix-gate"))
            .arg("--version"),
        INSTALL_LIMIT,
    );
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code(), text(&out.stderr), text(&out.stdout))
}

/// Installed without its platform package (npm skips the optional dependency without a
/// word when helix-gate is installed from its .tgz alone), the launcher names the exact
/// package and version it looked for and how to install it; with it, it runs it.
#[test]
fn npm_launcher_alone_names_the_platform_package_to_install() {
    let Some(node) = require("node", "npm") else {
        return;
    };
    let key = ok(
        &bounded(
            isolated(&node, manifest_dir()).args(["-p", "process.platform + '-' + process.arch"]),
            INSTALL_LIMIT,
        ),
        "node -p",
    );
    let key = key.trim();
    let scratch = tempfile::tempdir().unwrap();
    let project = scratch.path().join("project");
    let (code, stderr, _) = launcher_in(&project, &node);
    assert_eq!(code, Some(2), "{stderr}");
    let listed = [
        "linux-x64",
        "linux-arm64",
        "darwin-x64",
        "darwin-arm64",
        "win32-x64",
        "win32-arm64",
    ]
    .contains(&key);
    if listed {
        for part in [
            format!("the platform package @helix-gate/cli-{key}@{VERSION} is not installed"),
            format!("npm install @helix-gate/cli-{key}@{VERSION}\n"),
            format!(
                "npm install ./helix-gate-cli-{key}-{VERSION}.tgz ./helix-gate-{VERSION}.tgz\n"
            ),
            "pip install helix-gate".to_owned(),
        ] {
            assert!(stderr.contains(&part), "{part}\n{stderr}");
        }
    } else {
        assert!(stderr.contains(&format!("no binary for {key}")), "{stderr}");
    }

    // A global install (<prefix>/lib/node_modules) is told to install globally.
    let (code, stderr, _) = launcher_in(&scratch.path().join("prefix/lib"), &node);
    assert_eq!(code, Some(2), "{stderr}");
    if listed {
        assert!(
            stderr.contains(&format!("npm install -g @helix-gate/cli-{key}@{VERSION}\n")),
            "{stderr}"
        );
    }

    // With the platform package in place the launcher runs its binary, arguments, output
    // and exit status passed through.
    if cfg!(unix) {
        let platform = project.join(format!("node_modules/@helix-gate/cli-{key}"));
        std::fs::create_dir_all(&platform).unwrap();
        std::fs::write(
            platform.join("helix-gate"),
            "#!/bin/sh\necho \"native $*\"\nexit 3\n",
        )
        .unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::set_permissions(
                platform.join("helix-gate"),
                std::fs::Permissions::from_mode(0o755),
            )
            .unwrap();
        }
        let (code, stderr, stdout) = launcher_in(&project, &node);
        assert_eq!(
            (code, stdout.as_str()),
            (Some(3), "native --version\n"),
            "{stderr}"
        );

        // On Windows x64 (node's platform and arch made so by a preloaded script) it runs
        // helix-gate.exe of @helix-gate/cli-win32-x64, a platform of its table.
        let win = project.join("node_modules/@helix-gate/cli-win32-x64");
        std::fs::create_dir_all(&win).unwrap();
        std::fs::copy(platform.join("helix-gate"), win.join("helix-gate.exe")).unwrap();
        let preload = scratch.path().join("as-win32-x64.js");
        std::fs::write(
            &preload,
            "Object.defineProperty(process, 'platform', { value: 'win32' });\n\
             Object.defineProperty(process, 'arch', { value: 'x64' });\n",
        )
        .unwrap();
        let out = bounded(
            isolated(&node, &project)
                .arg("-r")
                .arg(&preload)
                .arg(project.join("node_modules/helix-gate/bin/helix-gate"))
                .arg("--version"),
            INSTALL_LIMIT,
        );
        assert_eq!(
            (
                out.status.code(),
                String::from_utf8_lossy(&out.stdout).as_ref()
            ),
            (Some(3), "native --version\n"),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn pypi_wheel_installs_the_command_into_a_venv() {
    let Some(python) = require("python3", "pypi") else {
        return;
    };
    // Debian splits venv and ensurepip off python3 (python3-venv).
    let probe = Command::new(&python)
        .args(["-c", "import venv, ensurepip"])
        .output()
        .unwrap();
    if !probe.status.success() {
        missing("python3's venv and ensurepip modules", "pypi");
        return;
    }
    let wheel = package("pypi").pop().unwrap();
    let name = wheel.file_name().unwrap().to_str().unwrap();
    assert!(
        name.starts_with(&format!("helix_gate-{VERSION}-py3-none-"))
            && Path::new(name).extension() == Some(OsStr::new("whl")),
        "{name}"
    );
    // PyPI's project page is the README in METADATA: its links lead into the repository.
    let metadata = Command::new(&python)
        .arg("-c")
        .arg(
            "import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); \
             sys.stdout.write(z.read([n for n in z.namelist() if n.endswith('.dist-info/METADATA')][0]).decode())",
        )
        .arg(&wheel)
        .output()
        .unwrap();
    let metadata = String::from_utf8_lossy(&metadata.stdout).into_owned();
    assert!(
        metadata.contains("](https://github.com/helix-gate/helix-gate/blob/main/docs/src/")
            && !metadata.contains("](docs/"),
        "{metadata}"
    );
    let scratch = tempfile::tempdir().unwrap();
    let s = scratch.path();
    let venv = s.join("venv");
    let out = bounded(
        isolated(&python, s).arg("-m").arg("venv").arg(&venv),
        INSTALL_LIMIT,
    );
    ok(&out, "python3 -m venv");
    let out = bounded(
        isolated(venv.join("bin/pip"), s)
            .args(["install", "--no-index", "--no-deps", "--quiet"])
            .arg(&wheel)
            .env("PIP_CONFIG_FILE", "/dev/null")
            .env("PIP_DISABLE_PIP_VERSION_CHECK", "1")
            .env("HOME", s),
        INSTALL_LIMIT,
    );
    ok(&out, "pip install");
    let installed = venv.join("bin/helix-gate");
    assert_static_non_pie(&installed);
    assert_hot_text_first(&installed);
    assert_version(&installed, s);
    let path = venv.join("bin");
    assert_shim_finds(s, &[("PATH", path.to_str().unwrap())]);
}

#[test]
fn tarball_holds_the_binary_docs_and_completions() {
    let tarball = package("tarball").pop().unwrap();
    let stem = format!("helix-gate-{VERSION}-{}", host());
    assert_eq!(
        tarball.file_name().unwrap(),
        format!("{stem}.tar.gz").as_str()
    );
    let scratch = tempfile::tempdir().unwrap();
    let s = scratch.path();
    untar(&tarball, &s.join("opt"));
    let dir = s.join("opt").join(&stem);
    let files = tree(&dir);
    let names: Vec<&str> = files.keys().map(|p| p.to_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "CHANGELOG.md",
            "LICENSE",
            "README.md",
            "completions/_helix-gate",
            "completions/_helix-gate.ps1",
            "completions/helix-gate.bash",
            "completions/helix-gate.fish",
            "helix-gate",
            "man/helix-gate.1",
        ]
    );
    for (rel, bytes) in &files {
        if rel.starts_with("completions") {
            let text = String::from_utf8_lossy(bytes);
            assert!(text.contains("helix-gate"), "{}", rel.display());
        }
    }
    // Its links lead into the repository: the tarball has no book beside the README.
    let readme = String::from_utf8_lossy(&files[Path::new("README.md")]).into_owned();
    assert!(!readme.contains("](docs/"), "{readme}");
    assert!(
        readme.contains("](https://github.com/helix-gate/helix-gate/blob/main/docs/src/"),
        "{readme}"
    );
    let man = String::from_utf8_lossy(&files[Path::new("man/helix-gate.1")]).into_owned();
    assert!(man.contains(".TH helix-gate 1"), "{man}");
    assert_eq!(
        files[Path::new("LICENSE")],
        std::fs::read(manifest_dir().join("LICENSE")).unwrap()
    );
    let installed = dir.join("helix-gate");
    assert_static_non_pie(&installed);
    assert_hot_text_first(&installed);
    assert_version(&installed, s);
    // "On PATH": the folder it was unpacked into.
    assert_shim_finds(s, &[("PATH", dir.to_str().unwrap())]);
}

/// The release workflow's targets, the npm package's optional dependencies and the
/// CHANGELOG agree with each other and with the crate.
#[test]
fn release_targets_npm_platforms_and_changelog_agree() {
    let workflow =
        std::fs::read_to_string(manifest_dir().join(".github/workflows/release.yml")).unwrap();
    let targets: Vec<&str> = workflow
        .lines()
        .filter_map(|l| l.trim().strip_prefix("- { target: "))
        .map(|l| l.split(',').next().unwrap())
        .collect();
    assert!(targets.len() >= 4, "{targets:?}");
    let npm: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(manifest_dir().join("packaging/npm/helix-gate/package.json"))
            .unwrap(),
    )
    .unwrap();
    let mut platforms: Vec<String> = npm["optionalDependencies"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    let mut expected: Vec<String> = targets
        .iter()
        .map(|t| {
            let cpu = if t.starts_with("x86_64") {
                "x64"
            } else {
                "arm64"
            };
            let os = if t.contains("linux") {
                "linux"
            } else if t.contains("windows") {
                "win32"
            } else {
                "darwin"
            };
            format!("@helix-gate/cli-{os}-{cpu}")
        })
        .collect();
    platforms.sort();
    expected.sort();
    assert_eq!(platforms, expected);
    let changelog = std::fs::read_to_string(manifest_dir().join("CHANGELOG.md")).unwrap();
    assert!(
        changelog.contains(&format!("\n## [{VERSION}]")),
        "CHANGELOG.md has no section for {VERSION}"
    );
}

/// The Windows target this machine cross-builds (scripts/test-windows.sh).
const WINDOWS_TARGET: &str = "x86_64-pc-windows-gnu";

/// `scripts/package.sh CHANNEL` for the Windows target from its cross-built release binary,
/// into `out`: the paths it printed, each with a matching `.sha256`.
fn package_windows(channel: &str, out: &Path) -> Vec<PathBuf> {
    let out = bounded(
        isolated("bash", manifest_dir())
            .args(["scripts/package.sh", channel])
            .arg(out)
            .env("HELIX_GATE_TARGET", WINDOWS_TARGET),
        BUILD_LIMIT,
    );
    let paths: Vec<PathBuf> = ok(&out, &format!("package.sh {channel} (Windows)"))
        .lines()
        .map(PathBuf::from)
        .collect();
    for path in &paths {
        let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let name = path.file_name().unwrap().to_str().unwrap();
        let sum = std::fs::read_to_string(format!("{}.sha256", path.display())).unwrap();
        let hex = helix_gate::text::hex(&sha2::Sha256::digest(&bytes));
        assert_eq!(sum, format!("{hex}  {name}\n"), "{name}.sha256");
        eprintln!("{channel} (Windows): {name}, {} bytes", bytes.len());
    }
    paths
}

/// The names in the zip archive (or wheel) at `path`.
fn zip_names(python: &Path, path: &Path) -> Vec<String> {
    let out = Command::new(python)
        .arg("-c")
        .arg("import sys, zipfile; print('\\n'.join(zipfile.ZipFile(sys.argv[1]).namelist()))")
        .arg(path)
        .output()
        .unwrap();
    ok(&out, "python3 zipfile")
        .lines()
        .map(str::to_owned)
        .collect()
}

/// The Windows artifacts, built here from the MinGW cross-build: the `.zip` unpacks to
/// `helix-gate.exe` beside the docs, completions and man page, and that binary, run under
/// Wine, gives the documented findings for the examples (exit 1); the npm platform package
/// `@helix-gate/cli-win32-x64` and the `win_amd64` wheel carry the `.exe`. Skipped with a
/// note (failing under `CI`) without Wine, MinGW, python3 or npm.
#[test]
fn windows_zip_npm_package_and_wheel_carry_the_exe_that_runs_under_wine() {
    let (Some(wine), Some(_mingw), Some(python), Some(_npm)) = (
        require("wine", "Windows"),
        require("x86_64-w64-mingw32-gcc", "Windows"),
        require("python3", "Windows"),
        require("npm", "Windows"),
    ) else {
        return;
    };
    // The cross-built release binary (cargo's no-op when it is up to date).
    let build = bounded(
        isolated("cargo", manifest_dir())
            .args([
                "build",
                "--release",
                "--locked",
                "--quiet",
                "--target",
                WINDOWS_TARGET,
            ])
            .env("CARGO_TARGET_DIR", target_dir())
            .env(
                "CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER",
                "x86_64-w64-mingw32-gcc",
            ),
        BUILD_LIMIT,
    );
    ok(
        &build,
        "cargo build --release --target x86_64-pc-windows-gnu",
    );
    let out = tempfile::tempdir().unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let s = scratch.path();
    let exe = check_windows_zip(&wine, &python, out.path(), s);
    check_windows_npm_package(out.path(), s, &exe);

    // The wheel: win_amd64, the .exe as its script.
    let wheel = package_windows("pypi", out.path()).pop().unwrap();
    assert_eq!(
        wheel.file_name().unwrap(),
        format!("helix_gate-{VERSION}-py3-none-win_amd64.whl").as_str()
    );
    let names = zip_names(&python, &wheel);
    assert!(
        names
            .iter()
            .any(|n| n == &format!("helix_gate-{VERSION}.data/scripts/helix-gate.exe")),
        "{names:?}"
    );
}

/// The Windows zip built into `out`: its files, and its binary unpacked into `s` and run
/// under Wine; returns that binary.
fn check_windows_zip(wine: &Path, python: &Path, out: &Path, s: &Path) -> PathBuf {
    let zip = package_windows("zip", out).pop().unwrap();
    let name = format!("helix-gate-{VERSION}-{WINDOWS_TARGET}");
    assert_eq!(zip.file_name().unwrap(), format!("{name}.zip").as_str());
    let mut names = zip_names(python, &zip);
    names.sort();
    let expected: Vec<String> = [
        "CHANGELOG.md",
        "LICENSE",
        "README.md",
        "completions/_helix-gate.ps1",
        "completions/helix-gate.bash",
        "helix-gate.exe",
        "man/helix-gate.1",
    ]
    .iter()
    .map(|file| format!("{name}/{file}"))
    .collect();
    assert_eq!(names, expected);
    let unpack = Command::new(python)
        .args(["-m", "zipfile", "-e"])
        .arg(&zip)
        .arg(s)
        .output()
        .unwrap();
    ok(&unpack, "python3 -m zipfile -e");
    let dir = s.join(&name);
    let powershell = std::fs::read_to_string(dir.join("completions/_helix-gate.ps1")).unwrap();
    assert!(
        powershell.contains("Register-ArgumentCompleter"),
        "{powershell}"
    );
    let prefix = bounded(
        isolated("bash", manifest_dir()).arg("scripts/windows/wine-prefix.sh"),
        INSTALL_LIMIT,
    );
    let prefix = ok(&prefix, "wine-prefix.sh").trim().to_owned();
    let exe = dir.join("helix-gate.exe");
    let out_validate = bounded(
        isolated(wine, manifest_dir())
            .arg(&exe)
            .args(["validate", "examples/"])
            .env("WINEDEBUG", "-all")
            .env("WINEPREFIX", &prefix),
        INSTALL_LIMIT,
    );
    let text = String::from_utf8_lossy(&out_validate.stdout);
    assert_eq!(out_validate.status.code(), Some(1), "{text}");
    assert!(
        text.contains("examples/adr/002-adr-014-case.md:1: error[major-needs-migration] change_scope=major requires a migration plan: section \"Migration\" is missing\n"),
        "{text}"
    );
    assert!(
        text.ends_with("2 files checked: 5 errors, 3 warnings\n"),
        "{text}"
    );
    let version = bounded(
        isolated(wine, s)
            .arg(&exe)
            .arg("--version")
            .env("WINEDEBUG", "-all")
            .env("WINEPREFIX", &prefix),
        INSTALL_LIMIT,
    );
    assert_eq!(
        ok(&version, "helix-gate.exe --version"),
        format!("helix-gate {VERSION}\n")
    );

    exe
}

/// The npm platform package for Windows built into `out`: `@helix-gate/cli-win32-x64`,
/// for win32 x64 only, carrying `exe`.
fn check_windows_npm_package(out: &Path, s: &Path, exe: &Path) {
    let paths = package_windows("npm", out);
    let [platform, _main] = paths.as_slice() else {
        panic!("package.sh npm printed {paths:?}")
    };
    assert_eq!(
        platform.file_name().unwrap(),
        format!("helix-gate-cli-win32-x64-{VERSION}.tgz").as_str()
    );
    untar(platform, &s.join("npm"));
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(s.join("npm/package/package.json")).unwrap())
            .unwrap();
    assert_eq!(manifest["name"], "@helix-gate/cli-win32-x64");
    assert_eq!(
        (&manifest["os"], &manifest["cpu"]),
        (&serde_json::json!(["win32"]), &serde_json::json!(["x64"]))
    );
    assert_eq!(manifest["files"][0], "helix-gate.exe");
    assert_eq!(
        std::fs::read(s.join("npm/package/helix-gate.exe")).unwrap(),
        std::fs::read(exe).unwrap(),
        "the npm package carries the zip's binary"
    );
}
