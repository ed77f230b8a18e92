//! The packages a manifest declares, for `forbid_dependency`: `Cargo.toml`,
//! `package.json`, `pyproject.toml`, `requirements*.txt` and `go.mod`.
//!
//! A manifest that does not parse declares nothing (the build tool says why);
//! the rule compares the packages now declared with those declared before, so a
//! package already there is not this change's doing.

use std::collections::BTreeSet;

/// Manifest file names (requirements files match `requirements*.txt`).
pub const MANIFESTS: [&str; 5] = [
    "Cargo.toml",
    "package.json",
    "pyproject.toml",
    "requirements.txt",
    "go.mod",
];

/// Packages in `after` and not in `before` that `packages` forbids, with the line
/// where each is declared (when found).
pub fn added(
    path: &str,
    before: Option<&str>,
    after: &str,
    packages: &[String],
) -> Vec<(Option<usize>, String)> {
    let name = path.rsplit('/').next().unwrap_or(path);
    let Some(kind) = Manifest::of_name(name) else {
        return Vec::new();
    };
    let old = before.map(|b| kind.packages(b)).unwrap_or_default();
    kind.packages(after)
        .into_iter()
        .filter(|p| !old.contains(p))
        .filter(|p| packages.iter().any(|f| kind.is_within(p, f)))
        .map(|p| (line_naming(after, &p), p))
        .collect()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Manifest {
    Cargo,
    Npm,
    Pyproject,
    Requirements,
    GoMod,
}

impl Manifest {
    fn of_name(name: &str) -> Option<Manifest> {
        Some(match name {
            "Cargo.toml" => Manifest::Cargo,
            "package.json" => Manifest::Npm,
            "pyproject.toml" => Manifest::Pyproject,
            "go.mod" => Manifest::GoMod,
            _ if name.starts_with("requirements")
                && std::path::Path::new(name)
                    .extension()
                    .is_some_and(|ext| ext.eq_ignore_ascii_case("txt")) =>
            {
                Manifest::Requirements
            }
            _ => return None,
        })
    }

    /// Whether the declared `package` is the forbidden `name` (Python names compare
    /// normalised; a Go module path includes its subpaths).
    fn is_within(self, package: &str, name: &str) -> bool {
        match self {
            Manifest::Pyproject | Manifest::Requirements => {
                python_name(package) == python_name(name)
            }
            Manifest::GoMod => {
                package == name
                    || package
                        .strip_prefix(name)
                        .is_some_and(|rest| rest.starts_with('/'))
            }
            _ => package == name,
        }
    }

    fn packages(self, text: &str) -> BTreeSet<String> {
        match self {
            Manifest::Cargo => cargo(text),
            Manifest::Npm => npm(text),
            Manifest::Pyproject => pyproject(text),
            Manifest::Requirements => text.lines().filter_map(requirement).collect(),
            Manifest::GoMod => go_mod(text),
        }
    }
}

/// PEP 503 normalisation: lower case, runs of `-_.` as one `-`.
fn python_name(name: &str) -> String {
    let mut out = String::new();
    for c in name.trim().chars() {
        if matches!(c, '-' | '_' | '.') {
            if !out.ends_with('-') {
                out.push('-');
            }
        } else {
            out.push(c.to_ascii_lowercase());
        }
    }
    out
}

/// The package of a PEP 508 requirement (`requests[socks]>=2; python_version<"3"`).
fn requirement(line: &str) -> Option<String> {
    let line = line.split('#').next()?.trim();
    if line.is_empty() || line.starts_with('-') {
        return None;
    }
    let end = line
        .find(|c: char| !(c.is_alphanumeric() || matches!(c, '-' | '_' | '.')))
        .unwrap_or(line.len());
    (end > 0).then(|| line[..end].to_owned())
}

fn toml(text: &str) -> Option<toml_edit::DocumentMut> {
    text.parse::<toml_edit::DocumentMut>().ok()
}

fn table_keys(item: Option<&toml_edit::Item>, out: &mut BTreeSet<String>) {
    if let Some(table) = item.and_then(toml_edit::Item::as_table_like) {
        out.extend(table.iter().map(|(k, _)| k.to_owned()));
    }
}

fn cargo(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let Some(doc) = toml(text) else {
        return out;
    };
    let sections = ["dependencies", "dev-dependencies", "build-dependencies"];
    for section in sections {
        table_keys(doc.get(section), &mut out);
    }
    if let Some(ws) = doc
        .get("workspace")
        .and_then(toml_edit::Item::as_table_like)
    {
        table_keys(ws.get("dependencies"), &mut out);
    }
    if let Some(targets) = doc.get("target").and_then(toml_edit::Item::as_table_like) {
        for (_, target) in targets.iter() {
            if let Some(target) = target.as_table_like() {
                for section in sections {
                    table_keys(target.get(section), &mut out);
                }
            }
        }
    }
    out
}

fn npm(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let Ok(serde_json::Value::Object(doc)) = serde_json::from_str::<serde_json::Value>(text) else {
        return out;
    };
    for key in [
        "dependencies",
        "devDependencies",
        "peerDependencies",
        "optionalDependencies",
    ] {
        if let Some(serde_json::Value::Object(deps)) = doc.get(key) {
            out.extend(deps.keys().cloned());
        }
    }
    out
}

fn pyproject(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let Some(doc) = toml(text) else {
        return out;
    };
    let strings = |item: Option<&toml_edit::Item>, out: &mut BTreeSet<String>| {
        if let Some(array) = item.and_then(toml_edit::Item::as_array) {
            out.extend(
                array
                    .iter()
                    .filter_map(|v| v.as_str())
                    .filter_map(requirement),
            );
        }
    };
    if let Some(project) = doc.get("project").and_then(toml_edit::Item::as_table_like) {
        strings(project.get("dependencies"), &mut out);
        if let Some(optional) = project
            .get("optional-dependencies")
            .and_then(toml_edit::Item::as_table_like)
        {
            for (_, group) in optional.iter() {
                strings(Some(group), &mut out);
            }
        }
    }
    if let Some(groups) = doc
        .get("dependency-groups")
        .and_then(toml_edit::Item::as_table_like)
    {
        for (_, group) in groups.iter() {
            strings(Some(group), &mut out);
        }
    }
    if let Some(poetry) = doc
        .get("tool")
        .and_then(|t| t.get("poetry"))
        .and_then(toml_edit::Item::as_table_like)
    {
        let mut keys = BTreeSet::new();
        table_keys(poetry.get("dependencies"), &mut keys);
        table_keys(poetry.get("dev-dependencies"), &mut keys);
        if let Some(groups) = poetry.get("group").and_then(toml_edit::Item::as_table_like) {
            for (_, group) in groups.iter() {
                table_keys(group.get("dependencies"), &mut keys);
            }
        }
        keys.remove("python");
        out.extend(keys);
    }
    out
}

fn go_mod(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut block = false;
    for line in text.lines() {
        let line = line.split("//").next().unwrap_or("").trim();
        if block {
            if line.starts_with(')') {
                block = false;
            } else if let Some(path) = line.split_whitespace().next() {
                out.insert(path.to_owned());
            }
        } else if let Some(rest) = line.strip_prefix("require") {
            let rest = rest.trim();
            if rest.starts_with('(') {
                block = true;
            } else if let Some(path) = rest.split_whitespace().next() {
                out.insert(path.to_owned());
            }
        }
    }
    out
}

/// The first line that names `package` as a word (1-based).
fn line_naming(text: &str, package: &str) -> Option<usize> {
    text.lines()
        .position(|line| {
            line.match_indices(package).any(|(at, _)| {
                let before = line[..at].chars().next_back();
                let after = line[at + package.len()..].chars().next();
                let word = |c: Option<char>| {
                    c.is_some_and(|c| c.is_alphanumeric() || c == '-' || c == '_')
                };
                !word(before) && !word(after)
            })
        })
        .map(|i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn forbid(
        path: &str,
        before: Option<&str>,
        after: &str,
        name: &str,
    ) -> Vec<(Option<usize>, String)> {
        added(path, before, after, &[name.to_owned()])
    }

    #[test]
    fn cargo_compares_with_before() {
        let before = "[package]\nname = \"x\"\n\n[dependencies]\nserde = \"1\"\n";
        let after = "[package]\nname = \"x\"\n\n[dependencies]\nserde = \"1\"\nreqwest = { version = \"0.12\" }\n\n[target.'cfg(unix)'.dev-dependencies]\nlibc = \"0.2\"\n";
        assert_eq!(
            forbid("Cargo.toml", Some(before), after, "reqwest"),
            [(Some(6), "reqwest".to_owned())]
        );
        assert_eq!(forbid("sub/Cargo.toml", None, after, "libc").len(), 1);
        assert!(forbid("Cargo.toml", Some(before), after, "serde").is_empty());
        assert!(forbid("Cargo.toml", None, "not [toml", "serde").is_empty());
    }

    #[test]
    fn npm_python_go() {
        let pkg =
            "{\"dependencies\": {\"react\": \"18\"}, \"devDependencies\": {\"lodash\": \"4\"}}";
        assert_eq!(forbid("package.json", Some("{}"), pkg, "lodash").len(), 1);
        assert_eq!(
            forbid(
                "requirements-dev.txt",
                Some("flask\n"),
                "flask\nRequests[socks]>=2\n",
                "requests"
            ),
            [(Some(2), "Requests".to_owned())]
        );
        let py = "[project]\ndependencies = [\"httpx>=0.27\"]\n[project.optional-dependencies]\ndev = [\"py_test\"]\n[tool.poetry.dependencies]\npython = \"^3.11\"\nDjango = \"5\"\n";
        assert_eq!(forbid("pyproject.toml", None, py, "httpx").len(), 1);
        assert_eq!(forbid("pyproject.toml", None, py, "py-test").len(), 1);
        assert_eq!(forbid("pyproject.toml", None, py, "django").len(), 1);
        assert!(forbid("pyproject.toml", None, py, "python").is_empty());
        let go = "module x\n\nrequire github.com/a/b v1.0.0\nrequire (\n\tgithub.com/gin-gonic/gin v1.9.0 // indirect\n)\n";
        assert_eq!(
            forbid("go.mod", None, go, "github.com/gin-gonic/gin").len(),
            1
        );
        assert_eq!(forbid("go.mod", None, go, "github.com/a").len(), 1);
        assert!(forbid("README.md", None, go, "github.com/a").is_empty());
    }
}
