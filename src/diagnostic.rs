//! One findings model, rendered to every output format (terminal, JSON, hook feedback).
//!
//! A rule violation is data here, never a pre-formatted string and never an `Err`.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Info,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }

    pub fn parse(text: &str) -> Option<Severity> {
        match text {
            "error" => Some(Severity::Error),
            "warning" => Some(Severity::Warning),
            "info" => Some(Severity::Info),
            _ => None,
        }
    }
}

/// Who produced a finding.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    /// A deterministic rule of helix-gate (the rule id is in the registry).
    #[default]
    Deterministic,
    /// The independent reviewer's verdict (the rule is the reviewer's check name).
    Reviewer,
    /// helix-gate about itself: a failure of the tool or the reviewer
    /// (`infrastructure`), or the confidence gate (`confidence`, `verdict`).
    HelixGate,
}

impl Source {
    pub fn is_deterministic(&self) -> bool {
        *self == Source::Deterministic
    }
}

/// One problem found in one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// Stable kebab-case rule id (for a reviewer's finding: its check name).
    pub rule: String,
    pub severity: Severity,
    /// The file the finding concerns, repository-relative. `None` inside a
    /// [`FileReport`], whose path it is; set where findings of several files
    /// are listed together (an approval). For a reviewer's finding it is the
    /// place the reviewer named, which need not be a path.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// 1-based line, counting the front matter.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    #[serde(skip_serializing_if = "Source::is_deterministic")]
    pub source: Source,
}

impl Finding {
    pub fn new(rule: impl Into<String>, severity: Severity, message: impl Into<String>) -> Self {
        Finding {
            rule: rule.into(),
            severity,
            path: None,
            line: None,
            message: message.into(),
            hint: None,
            source: Source::Deterministic,
        }
    }

    #[must_use]
    pub fn in_file(mut self, path: impl Into<String>) -> Self {
        self.path = Some(path.into());
        self
    }

    #[must_use]
    pub fn from_source(mut self, source: Source) -> Self {
        self.source = source;
        self
    }

    /// `path:line`, `path`, or None when the finding names no place.
    pub fn location(&self) -> Option<String> {
        match (&self.path, self.line) {
            (Some(path), Some(line)) => Some(format!("{path}:{line}")),
            (Some(path), None) => Some(path.clone()),
            (None, Some(line)) => Some(format!("line {line}")),
            (None, None) => None,
        }
    }

    #[must_use]
    pub fn at(mut self, line: usize) -> Self {
        self.line = Some(line);
        self
    }

    #[must_use]
    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
}

/// The findings of one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileReport {
    /// Path as shown to the user (relative to the repository root when inside it).
    pub path: String,
    pub findings: Vec<Finding>,
}

impl FileReport {
    pub fn has_errors(&self) -> bool {
        self.findings.iter().any(|f| f.severity == Severity::Error)
    }

    /// Where `finding` (one of this report's) points: `path:line` or `path`.
    pub fn location(&self, finding: &Finding) -> String {
        let path = finding.path.as_deref().unwrap_or(&self.path);
        match finding.line {
            Some(line) => format!("{path}:{line}"),
            None => path.to_owned(),
        }
    }

    /// Sort by line, then severity, then rule id, so output is stable.
    pub fn sort(&mut self) {
        self.findings
            .sort_by(|a, b| (a.line, a.severity, &a.rule).cmp(&(b.line, b.severity, &b.rule)));
    }
}

/// Counts over a set of file reports.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub files: usize,
    pub errors: usize,
    pub warnings: usize,
    pub infos: usize,
}

impl Summary {
    pub fn of(reports: &[FileReport]) -> Summary {
        let mut summary = Summary {
            files: reports.len(),
            ..Summary::default()
        };
        for finding in reports.iter().flat_map(|r| &r.findings) {
            match finding.severity {
                Severity::Error => summary.errors += 1,
                Severity::Warning => summary.warnings += 1,
                Severity::Info => summary.infos += 1,
            }
        }
        summary
    }
}
