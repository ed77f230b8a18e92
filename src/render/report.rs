//! `helix-gate report`: one self-contained HTML page from the numbers the decision
//! log and the approval history hold.
//!
//! Self-contained means no network at all: no scripts, fonts, images or style
//! sheets from elsewhere (the page is opened from disk, attached to tickets, and
//! must not call home). Charts are inline SVG drawn here; every text that came
//! from a file (paths, rule ids, session ids) is HTML-escaped.

use std::fmt::Write as _;

use super::escape_markup as escape;

/// Decisions of one day.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Day {
    /// `YYYY-MM-DD`.
    pub date: String,
    pub block: usize,
    pub pass: usize,
    pub escalate: usize,
    /// Every other verdict (warn, allow, skip, error, ...).
    pub other: usize,
    /// Hook latency of the day's decisions, median and 95th percentile (µs).
    pub p50_us: u64,
    pub p95_us: u64,
}

/// An escalation: the budget was spent (hook) or the reviewer kept rejecting (approval).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Escalation {
    pub time: String,
    /// `hook` or `approval`.
    pub source: String,
    pub files: Vec<String>,
    /// The hook's failing rules, or the approval's attempts.
    pub detail: String,
}

/// Reviewer runs of one day.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReviewDay {
    pub date: String,
    pub runs: usize,
    pub cost_usd: f64,
    /// Median reviewer duration of the day (s).
    pub median_seconds: f64,
}

/// How often the rules of one ADR (`ADR-014/no-direct-http`) were found broken in
/// code, blocked, and overridden by a person.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct AdrRules {
    pub adr: String,
    /// Findings of its rules (every decision that named one, per rule named).
    pub findings: usize,
    /// Decisions that blocked (an agent's write, a commit) on one of its rules.
    pub blocks: usize,
    /// Persons' overrides of one of its rules (`helix-gate override`).
    pub overrides: usize,
}

/// One status change a person made (`helix-gate accept`, `reject`, `deprecate`).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct StatusChange {
    /// The ADR's file, relative to the repository.
    pub path: String,
    pub from: String,
    pub to: String,
    pub by: String,
    pub time: String,
    pub reason: String,
}

/// Everything the page shows, aggregated by the caller.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReportData {
    pub project: String,
    pub generated: String,
    pub decisions: usize,
    pub damaged_lines: usize,
    pub days: Vec<Day>,
    /// Rule id and how many blocking decisions named it, most first.
    pub failing_rules: Vec<(String, usize)>,
    /// Targets (session + file) that were blocked at least once.
    pub blocked_targets: usize,
    /// Of those, the ones that passed later in the same session before any escalation.
    pub fixed_within_budget: usize,
    pub escalations: Vec<Escalation>,
    /// Reviewer verdict and count (approved, rejected, `needs_revision`).
    pub verdicts: Vec<(String, usize)>,
    pub review_days: Vec<ReviewDay>,
    pub total_cost_usd: f64,
    /// ADRs of the repository, and those with a current approval.
    pub coverage: (usize, usize),
    /// The rules of ADRs on code, per ADR, most findings first.
    pub adr_rules: Vec<AdrRules>,
    /// The status changes persons made, per ADR (sorted by path), oldest first.
    pub status_changes: Vec<StatusChange>,
}

const BLOCK: &str = "#d64545";
const PASS: &str = "#2f9e5b";
const ESCALATE: &str = "#e8a33d";
const OTHER: &str = "#9aa5b1";
const INK: &str = "#1f2933";
const ACCENT: &str = "#3b6fd4";

const STYLE: &str = "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:0;background:#f5f7fa;color:#1f2933}\
header{background:#1f2933;color:#fff;padding:18px 32px}header h1{margin:0;font-size:22px}header p{margin:4px 0 0;color:#cbd2d9;font-size:13px}\
main{padding:20px 32px;display:grid;grid-template-columns:repeat(auto-fit,minmax(520px,1fr));gap:20px}\
section{background:#fff;border-radius:8px;padding:16px 20px;box-shadow:0 1px 3px rgba(0,0,0,.12)}\
section.wide{grid-column:1/-1}h2{font-size:16px;margin:0 0 10px}\
.kpis{display:flex;gap:24px;flex-wrap:wrap}.kpi b{display:block;font-size:28px}.kpi span{font-size:12px;color:#52606d}\
table{border-collapse:collapse;width:100%;font-size:13px}td,th{text-align:left;padding:4px 8px;border-bottom:1px solid #e4e7eb;vertical-align:top}\
.legend span{display:inline-block;margin-right:14px;font-size:12px}.legend i{display:inline-block;width:10px;height:10px;margin-right:4px;border-radius:2px}\
svg text{font-size:11px;fill:#52606d}.muted{color:#7b8794;font-size:13px}";

/// The whole page.
pub fn html(data: &ReportData) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
<title>helix-gate report: {project}</title><style>{STYLE}</style></head><body>\
<header><h1>helix-gate report</h1><p>{project} · generated {generated} · {decisions} hook decisions{damaged}</p></header><main>",
        project = escape(&data.project),
        generated = escape(&data.generated),
        decisions = data.decisions,
        damaged = if data.damaged_lines > 0 {
            format!(" · {} damaged log line(s) skipped", data.damaged_lines)
        } else {
            String::new()
        },
    );
    kpis(&mut out, data);
    decisions_over_time(&mut out, data);
    failing_rules(&mut out, data);
    adr_rules(&mut out, data);
    status_changes(&mut out, data);
    fixed_share(&mut out, data);
    verdicts(&mut out, data);
    cost_and_latency(&mut out, data);
    escalations(&mut out, data);
    out.push_str("</main></body></html>\n");
    out
}

fn kpis(out: &mut String, data: &ReportData) {
    let count = |f: fn(&Day) -> usize| data.days.iter().map(f).sum::<usize>();
    let reviews: usize = data.review_days.iter().map(|d| d.runs).sum();
    let _ = write!(
        out,
        "<section class=\"wide\"><h2>Summary</h2><div class=\"kpis\">\
<div class=\"kpi\"><b>{}</b><span>decisions</span></div>\
<div class=\"kpi\"><b style=\"color:{BLOCK}\">{}</b><span>blocks</span></div>\
<div class=\"kpi\"><b style=\"color:{PASS}\">{}</b><span>passes</span></div>\
<div class=\"kpi\"><b style=\"color:{ESCALATE}\">{}</b><span>escalations</span></div>\
<div class=\"kpi\"><b>{}</b><span>fixed within the budget</span></div>\
<div class=\"kpi\"><b>{reviews}</b><span>reviewer runs</span></div>\
<div class=\"kpi\"><b>${:.2}</b><span>reviewer cost</span></div>\
<div class=\"kpi\"><b>{}</b><span>ADRs with a current approval ({} of {}; target &gt; 90 %)</span></div></div></section>",
        data.decisions,
        count(|d| d.block),
        count(|d| d.pass),
        count(|d| d.escalate)
            + data
                .escalations
                .iter()
                .filter(|e| e.source == "approval")
                .count(),
        percent(data.fixed_within_budget, data.blocked_targets),
        data.total_cost_usd,
        percent(data.coverage.1, data.coverage.0),
        data.coverage.1,
        data.coverage.0,
    );
}

fn percent(part: usize, whole: usize) -> String {
    (part * 100)
        .checked_div(whole)
        .map_or_else(|| "-".to_owned(), |p| format!("{p} %"))
}

/// `value` scaled to `0..=height` against `max`.
fn scale(value: f64, max: f64, height: f64) -> f64 {
    if max <= 0.0 {
        0.0
    } else {
        value / max * height
    }
}

#[expect(
    clippy::cast_precision_loss,
    reason = "counts stay far below 2^52, where f64 is exact"
)]
fn f(value: usize) -> f64 {
    value as f64
}

/// Chart widths in SVG units: full-width sections and half-width ones, so that text keeps
/// about the page's size when the SVG is scaled to its section.
const W: f64 = 1100.0;
const HALF: f64 = 520.0;
const H: f64 = 180.0;
const LEFT: f64 = 40.0;
const BOTTOM: f64 = 20.0;

/// Day labels along the x axis: about eight of them.
fn x_labels(out: &mut String, dates: &[&str], step: f64) {
    let every = dates.len().div_ceil(8).max(1);
    for (i, date) in dates.iter().enumerate().filter(|(i, _)| i % every == 0) {
        let _ = write!(
            out,
            "<text x=\"{:.1}\" y=\"{:.1}\">{}</text>",
            LEFT + f(i) * step,
            H + 14.0,
            escape(date.get(5..).unwrap_or(date))
        );
    }
}

fn y_axis(out: &mut String, max: &str) {
    let _ = write!(
        out,
        "<line x1=\"{LEFT}\" y1=\"0\" x2=\"{LEFT}\" y2=\"{H}\" stroke=\"#cbd2d9\"/>\
<line x1=\"{LEFT}\" y1=\"{H}\" x2=\"{W}\" y2=\"{H}\" stroke=\"#cbd2d9\"/>\
<text x=\"0\" y=\"10\">{}</text><text x=\"0\" y=\"{H}\">0</text>",
        escape(max)
    );
}

fn legend(out: &mut String, items: &[(&str, &str)]) {
    out.push_str("<div class=\"legend\">");
    for (color, label) in items {
        let _ = write!(
            out,
            "<span><i style=\"background:{color}\"></i>{}</span>",
            escape(label)
        );
    }
    out.push_str("</div>");
}

fn decisions_over_time(out: &mut String, data: &ReportData) {
    out.push_str("<section class=\"wide\"><h2>Decisions over time</h2>");
    legend(
        out,
        &[
            (BLOCK, "block"),
            (PASS, "pass"),
            (ESCALATE, "escalate"),
            (OTHER, "other"),
        ],
    );
    if data.days.is_empty() {
        out.push_str("<p class=\"muted\">No decisions logged yet.</p></section>");
        return;
    }
    let max = data
        .days
        .iter()
        .map(|d| d.block + d.pass + d.escalate + d.other)
        .max()
        .unwrap_or(0);
    let step = (W - LEFT) / f(data.days.len());
    let bar = (step * 0.8).max(1.0);
    let _ = write!(
        out,
        "<svg role=\"img\" aria-label=\"decisions per day\" viewBox=\"0 0 {W} {}\" width=\"100%\">",
        H + BOTTOM
    );
    y_axis(out, &max.to_string());
    for (i, day) in data.days.iter().enumerate() {
        let x = LEFT + f(i) * step;
        let mut y = H;
        for (count, color, label) in [
            (day.block, BLOCK, "block"),
            (day.pass, PASS, "pass"),
            (day.escalate, ESCALATE, "escalate"),
            (day.other, OTHER, "other"),
        ] {
            if count == 0 {
                continue;
            }
            let h = scale(f(count), f(max), H);
            y -= h;
            let _ = write!(
                out,
                "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{bar:.1}\" height=\"{h:.1}\" fill=\"{color}\"><title>{} {label}: {count}</title></rect>",
                escape(&day.date)
            );
        }
    }
    let dates: Vec<&str> = data.days.iter().map(|d| d.date.as_str()).collect();
    x_labels(out, &dates, step);
    out.push_str("</svg></section>");
}

fn horizontal_bars(out: &mut String, rows: &[(String, usize)], color: &str, empty: &str) {
    if rows.is_empty() {
        let _ = write!(out, "<p class=\"muted\">{}</p>", escape(empty));
        return;
    }
    let max = rows.iter().map(|(_, n)| *n).max().unwrap_or(0);
    let row_h = 22.0;
    let label_w = 200.0;
    let _ = write!(
        out,
        "<svg role=\"img\" viewBox=\"0 0 {HALF} {:.0}\" width=\"100%\">",
        row_h * f(rows.len())
    );
    for (i, (label, count)) in rows.iter().enumerate() {
        let y = f(i) * row_h;
        let w = scale(f(*count), f(max), HALF - label_w - 40.0).max(1.0);
        let _ = write!(
            out,
            "<text x=\"0\" y=\"{:.1}\">{}</text><rect x=\"{label_w}\" y=\"{:.1}\" width=\"{w:.1}\" height=\"{:.1}\" fill=\"{color}\"/><text x=\"{:.1}\" y=\"{:.1}\">{count}</text>",
            y + 15.0,
            escape(label),
            y + 3.0,
            row_h - 6.0,
            label_w + w + 6.0,
            y + 15.0,
        );
    }
    out.push_str("</svg>");
}

fn failing_rules(out: &mut String, data: &ReportData) {
    out.push_str("<section><h2>Rules that fail most</h2>");
    horizontal_bars(
        out,
        &data.failing_rules,
        BLOCK,
        "No rule has blocked the model yet.",
    );
    out.push_str("</section>");
}

/// A section with a table: `empty` when there are no `rows`; everything is HTML
/// (the callers escape their text).
fn table_section(out: &mut String, title: &str, empty: &str, head: &[&str], rows: &[Vec<String>]) {
    let _ = write!(out, "<section><h2>{title}</h2>");
    if rows.is_empty() {
        let _ = write!(out, "<p class=\"muted\">{empty}</p></section>");
        return;
    }
    out.push_str("<table><thead><tr>");
    for h in head {
        let _ = write!(out, "<th>{h}</th>");
    }
    out.push_str("</tr></thead><tbody>");
    for row in rows {
        out.push_str("<tr>");
        for cell in row {
            let _ = write!(out, "<td>{cell}</td>");
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table></section>");
}

fn adr_rules(out: &mut String, data: &ReportData) {
    let rows: Vec<Vec<String>> = data
        .adr_rules
        .iter()
        .map(|a| {
            vec![
                escape(&a.adr),
                a.findings.to_string(),
                a.blocks.to_string(),
                a.overrides.to_string(),
            ]
        })
        .collect();
    table_section(
        out,
        "Decisions that govern code",
        "No rule of an ADR has been found broken in code yet.",
        &["ADR", "Rule findings", "Blocks", "Overrides"],
        &rows,
    );
}

fn status_changes(out: &mut String, data: &ReportData) {
    let rows: Vec<Vec<String>> = data
        .status_changes
        .iter()
        .map(|c| {
            vec![
                escape(&c.path),
                format!("{} &rarr; {}", escape(&c.from), escape(&c.to)),
                escape(&c.by),
                escape(&c.time),
                escape(&c.reason),
            ]
        })
        .collect();
    table_section(
        out,
        "Status changes by a person",
        "No ADR's status was changed with <code>helix-gate accept</code>, <code>reject</code> or <code>deprecate</code> yet.",
        &["ADR", "Change", "By", "When", "Why"],
        &rows,
    );
}

fn fixed_share(out: &mut String, data: &ReportData) {
    let _ = write!(
        out,
        "<section><h2>Blocks the model fixed within the budget</h2>\
<p class=\"muted\">A file blocked, then passed in the same session before an escalation.</p>\
<div class=\"kpis\"><div class=\"kpi\"><b>{}</b><span>{} of {} blocked files</span></div></div>",
        percent(data.fixed_within_budget, data.blocked_targets),
        data.fixed_within_budget,
        data.blocked_targets
    );
    if data.blocked_targets > 0 {
        let fixed = scale(f(data.fixed_within_budget), f(data.blocked_targets), HALF);
        let _ = write!(
            out,
            "<svg role=\"img\" aria-label=\"share fixed\" viewBox=\"0 0 {HALF} 24\" width=\"100%\">\
<rect x=\"0\" y=\"2\" width=\"{HALF}\" height=\"20\" fill=\"{ESCALATE}\"/>\
<rect x=\"0\" y=\"2\" width=\"{fixed:.1}\" height=\"20\" fill=\"{PASS}\"/></svg>"
        );
        legend(out, &[(PASS, "fixed"), (ESCALATE, "not fixed")]);
    }
    out.push_str("</section>");
}

fn verdicts(out: &mut String, data: &ReportData) {
    out.push_str("<section><h2>Reviewer verdicts</h2>");
    horizontal_bars(out, &data.verdicts, ACCENT, "No approval recorded yet.");
    out.push_str("</section>");
}

/// A polyline of `values` over the day axis; a single day (a polyline of one point
/// draws nothing) is a dot, so the first day's charts are not empty.
fn line(out: &mut String, values: &[f64], max: f64, step: f64, color: &str) {
    let points: Vec<(f64, f64)> = values
        .iter()
        .enumerate()
        .map(|(i, v)| (LEFT + f(i) * step + step / 2.0, H - scale(*v, max, H)))
        .collect();
    if let [(x, y)] = points.as_slice() {
        let _ = write!(
            out,
            "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"4\" fill=\"{color}\"/>"
        );
        return;
    }
    let points: Vec<String> = points
        .iter()
        .map(|(x, y)| format!("{x:.1},{y:.1}"))
        .collect();
    let _ = write!(
        out,
        "<polyline fill=\"none\" stroke=\"{color}\" stroke-width=\"2\" points=\"{}\"/>",
        points.join(" ")
    );
}

#[expect(
    clippy::cast_precision_loss,
    reason = "microseconds stay far below 2^52, where f64 is exact"
)]
fn cost_and_latency(out: &mut String, data: &ReportData) {
    out.push_str("<section class=\"wide\"><h2>Cost and latency over time</h2>");
    if data.review_days.is_empty() {
        out.push_str("<p class=\"muted\">No reviewer runs recorded yet.</p>");
    } else {
        legend(
            out,
            &[
                (ACCENT, "reviewer cost per day (USD)"),
                (ESCALATE, "median reviewer duration (s)"),
            ],
        );
        let step = (W - LEFT) / f(data.review_days.len());
        let cost: Vec<f64> = data.review_days.iter().map(|d| d.cost_usd).collect();
        let secs: Vec<f64> = data.review_days.iter().map(|d| d.median_seconds).collect();
        let max_cost = cost.iter().copied().fold(0.0, f64::max);
        let max_secs = secs.iter().copied().fold(0.0, f64::max);
        let _ = write!(
            out,
            "<svg role=\"img\" aria-label=\"reviewer cost and duration\" viewBox=\"0 0 {W} {}\" width=\"100%\">",
            H + BOTTOM
        );
        y_axis(out, &format!("${max_cost:.2} / {max_secs:.0} s"));
        line(out, &cost, max_cost, step, ACCENT);
        line(out, &secs, max_secs, step, ESCALATE);
        let dates: Vec<&str> = data.review_days.iter().map(|d| d.date.as_str()).collect();
        x_labels(out, &dates, step);
        out.push_str("</svg>");
    }
    if !data.days.is_empty() {
        legend(
            out,
            &[
                (INK, "hook latency p50 (ms)"),
                (BLOCK, "hook latency p95 (ms)"),
            ],
        );
        let step = (W - LEFT) / f(data.days.len());
        let p50: Vec<f64> = data.days.iter().map(|d| d.p50_us as f64 / 1000.0).collect();
        let p95: Vec<f64> = data.days.iter().map(|d| d.p95_us as f64 / 1000.0).collect();
        let max = p95.iter().chain(&p50).copied().fold(0.0, f64::max);
        let _ = write!(
            out,
            "<svg role=\"img\" aria-label=\"hook latency\" viewBox=\"0 0 {W} {}\" width=\"100%\">",
            H + BOTTOM
        );
        y_axis(out, &format!("{max:.1} ms"));
        line(out, &p50, max, step, INK);
        line(out, &p95, max, step, BLOCK);
        let dates: Vec<&str> = data.days.iter().map(|d| d.date.as_str()).collect();
        x_labels(out, &dates, step);
        out.push_str("</svg>");
    }
    out.push_str("</section>");
}

/// Escalations shown in the table; the rest are counted.
const ESCALATION_ROWS: usize = 50;

/// [`Escalation::source`] of a person's override: the way out of an escalation.
pub const PERSON_OVERRIDE: &str = "person override";
/// [`Escalation::source`] of a person's override of an ADR rule for one commit.
pub const RULE_OVERRIDE: &str = "rule override";

fn escalations(out: &mut String, data: &ReportData) {
    let overrides = data
        .escalations
        .iter()
        .filter(|e| e.source == PERSON_OVERRIDE || e.source == RULE_OVERRIDE)
        .count();
    let _ = write!(
        out,
        "<section class=\"wide\"><h2>Escalations ({}{})</h2>",
        data.escalations.len() - overrides,
        if overrides > 0 {
            format!(", person overrides {overrides}")
        } else {
            String::new()
        }
    );
    if data.escalations.is_empty() {
        out.push_str("<p class=\"muted\">No escalation: every block was resolved within the budget.</p></section>");
        return;
    }
    out.push_str(
        "<table><thead><tr><th>Time</th><th>Source</th><th>Files</th><th>Detail</th></tr></thead><tbody>",
    );
    // Newest first: the recent ones are the ones to act on.
    for e in data.escalations.iter().rev().take(ESCALATION_ROWS) {
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&e.time),
            escape(&e.source),
            e.files
                .iter()
                .map(|f| escape(f))
                .collect::<Vec<_>>()
                .join("<br>"),
            escape(&e.detail)
        );
    }
    out.push_str("</tbody></table>");
    if data.escalations.len() > ESCALATION_ROWS {
        let _ = write!(
            out,
            "<p class=\"muted\">{} older escalations not shown.</p>",
            data.escalations.len() - ESCALATION_ROWS
        );
    }
    out.push_str("</section>");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> ReportData {
        ReportData {
            project: "demo <repo>".to_owned(),
            generated: "2026-11-23T06:00:00Z".to_owned(),
            decisions: 3,
            days: vec![Day {
                date: "2026-11-20".to_owned(),
                block: 1,
                pass: 2,
                p50_us: 900,
                p95_us: 2000,
                ..Day::default()
            }],
            failing_rules: vec![("section-missing".to_owned(), 1)],
            blocked_targets: 1,
            fixed_within_budget: 1,
            escalations: vec![Escalation {
                time: "t".to_owned(),
                source: "hook".to_owned(),
                files: vec!["adr/<script>alert(1)</script>.md".to_owned()],
                detail: "x".to_owned(),
            }],
            ..ReportData::default()
        }
    }

    #[test]
    fn text_from_files_is_escaped() {
        let page = html(&sample());
        assert!(page.contains("demo &lt;repo&gt;"));
        assert!(page.contains("&lt;script&gt;alert(1)"));
        assert!(!page.contains("<script"));
    }

    #[test]
    fn a_single_day_is_drawn_as_a_point() {
        // A polyline of one point draws nothing: the first day's charts were empty.
        let page = html(&sample());
        let latency = page
            .split("aria-label=\"hook latency\"")
            .nth(1)
            .and_then(|rest| rest.split("</svg>").next())
            .unwrap();
        assert_eq!(latency.matches("<circle").count(), 2, "{latency}");
    }

    #[test]
    fn adr_rules_are_a_table() {
        let mut data = sample();
        assert!(html(&data).contains("No rule of an ADR has been found broken"));
        data.adr_rules.push(AdrRules {
            adr: "ADR-014".to_owned(),
            findings: 3,
            blocks: 2,
            overrides: 1,
        });
        assert!(html(&data).contains("<tr><td>ADR-014</td><td>3</td><td>2</td><td>1</td></tr>"));
    }

    #[test]
    fn page_loads_nothing_from_elsewhere() {
        for data in [sample(), ReportData::default()] {
            let page = html(&data);
            for needle in ["http://", "https://", "<script", "<link", "@import", "url("] {
                assert!(!page.contains(needle), "{needle}");
            }
        }
    }
}
