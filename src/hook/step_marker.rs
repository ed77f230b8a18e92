//! The STEP marker: every consultant answer must END with `<!-- STEP: <step> -->`.
//!
//! The seed sketch accepted a marker anywhere in the answer; the rule says "at
//! the end", so only trailing whitespace may follow the marker here.

use std::sync::LazyLock;

use regex::Regex;

static MARKER_AT_END: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"<!--\s*STEP:\s*([A-Za-z_-]+)\s*-->\s*\z").ok());

/// What is wrong with an answer's ending, if anything.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MarkerProblem {
    Missing,
    /// A marker elsewhere in the text, but not at the end.
    NotAtEnd,
    UnknownStep(String),
}

/// Check that `message` ends with a marker naming one of `steps`.
pub fn check(message: &str, steps: &[String]) -> Result<String, MarkerProblem> {
    let Some(regex) = MARKER_AT_END.as_ref() else {
        return Err(MarkerProblem::Missing);
    };
    match regex.captures(message) {
        Some(caps) => {
            let step = caps.get(1).map_or("", |m| m.as_str()).to_lowercase();
            if steps.iter().any(|s| s.eq_ignore_ascii_case(&step)) {
                Ok(step)
            } else {
                Err(MarkerProblem::UnknownStep(step))
            }
        }
        None if message.contains("<!-- STEP:") || message.contains("<!--STEP:") => {
            Err(MarkerProblem::NotAtEnd)
        }
        None => Err(MarkerProblem::Missing),
    }
}

/// The exact format to use, e.g. `<!-- STEP: what|why|constraints|generate|finalize|done -->`.
pub fn format_hint(steps: &[String]) -> String {
    format!("<!-- STEP: {} -->", steps.join("|"))
}

/// What the Stop gate tells the model about `problem`: what is wrong and the
/// exact line to end the answer with.
pub fn feedback(problem: &MarkerProblem, steps: &[String]) -> String {
    let what = match problem {
        MarkerProblem::Missing => "Your last answer does not end with a STEP marker.".to_owned(),
        MarkerProblem::NotAtEnd => {
            "Your last answer has a STEP marker, but not at its very end.".to_owned()
        }
        MarkerProblem::UnknownStep(step) => {
            format!("Your last answer ends with the unknown step `{step}`.")
        }
    };
    format!(
        "{what} Repeat your answer (unchanged) and end it with exactly one line in this format, choosing one step:\n{}\nExample: <!-- STEP: {} -->",
        format_hint(steps),
        steps.first().map_or("done", String::as_str)
    )
}

/// The seed's heuristic step for an answer that never got a marker.
pub fn heuristic_step(message: &str) -> &'static str {
    let tail: String = {
        let chars: Vec<char> = message.chars().collect();
        chars[chars.len().saturating_sub(200)..].iter().collect()
    };
    if message.contains("ADR-") && message.to_lowercase().contains("erstellt") {
        "generate"
    } else if tail.contains('?') {
        "what"
    } else {
        "done"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steps() -> Vec<String> {
        ["what", "why", "constraints", "generate", "finalize", "done"]
            .map(String::from)
            .to_vec()
    }

    #[test]
    fn marker_must_end_the_answer() {
        assert_eq!(
            check("Answer.\n\n<!-- STEP: what -->\n", &steps()),
            Ok("what".into())
        );
        assert_eq!(check("x <!--STEP:done-->", &steps()), Ok("done".into()));
        assert_eq!(
            check("<!-- STEP: what -->\nMore text after it.", &steps()),
            Err(MarkerProblem::NotAtEnd)
        );
        assert_eq!(check("No marker.", &steps()), Err(MarkerProblem::Missing));
        assert_eq!(
            check("x\n<!-- STEP: discussing -->", &steps()),
            Err(MarkerProblem::UnknownStep("discussing".into()))
        );
    }

    #[test]
    fn heuristic_matches_the_seed() {
        assert_eq!(heuristic_step("ADR-038 wurde erstellt."), "generate");
        assert_eq!(heuristic_step("Was meinst du?"), "what");
        assert_eq!(heuristic_step("Fertig."), "done");
    }
}
