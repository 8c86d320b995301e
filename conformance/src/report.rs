//! What a run tells people and CI systems: a summary per specification module (checks passed,
//! failed and skipped; operations checked; item messages asserted) and JUnit XML.

use std::{collections::BTreeMap, fmt::Write};

use serde_json::Value;

use crate::{Fail, Outcome, said};

/// The counts of one module (or of the whole run).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Tally {
    /// Checks that passed.
    pub passed: usize,
    /// Checks that failed.
    pub failed: usize,
    /// Checks that could not run.
    pub skipped: usize,
    /// Operations of the document in the module.
    pub operations: usize,
    /// Operations at least one check sent and none failed.
    pub operations_passed: usize,
    /// Item messages the module's descriptions state.
    pub messages: usize,
    /// Of those, the ones a passing check asserted.
    pub messages_asserted: usize,
}

/// The tallies of a run: per module in document order of modules, and the whole.
pub fn tally(outcomes: &[Outcome], document: &Value) -> (Vec<(&'static str, Tally)>, Tally) {
    let mut modules: BTreeMap<usize, (&'static str, Tally)> = BTreeMap::new();
    let mut order: Vec<&'static str> = Vec::new();
    for operation in core_api::operations::ALL {
        if !order.contains(&operation.module) {
            order.push(operation.module);
        }
        let index = order
            .iter()
            .position(|module| *module == operation.module)
            .unwrap_or(0);
        let (_, tally) = modules
            .entry(index)
            .or_insert_with(|| (operation.module, Tally::default()));
        let mine: Vec<&Outcome> = outcomes
            .iter()
            .filter(|outcome| outcome.operation.id == operation.id)
            .collect();
        tally.operations += 1;
        if !mine.is_empty()
            && mine
                .iter()
                .all(|outcome| !matches!(outcome.result, Err(Fail::Failed(_))))
        {
            tally.operations_passed += 1;
        }
        for outcome in &mine {
            match &outcome.result {
                Ok(()) => tally.passed += 1,
                Err(Fail::Failed(_)) => tally.failed += 1,
                Err(Fail::Skipped(_)) => tally.skipped += 1,
            }
        }
        let stated = said::stated(document, operation);
        tally.messages += stated.len();
        tally.messages_asserted += stated
            .iter()
            .filter(|template| {
                mine.iter().any(|outcome| {
                    outcome.result.is_ok()
                        && outcome
                            .says
                            .iter()
                            .any(|text| said::matches(template, text) || text == template)
                })
            })
            .count();
    }
    let modules: Vec<(&'static str, Tally)> = modules.into_values().collect();
    let mut whole = Tally::default();
    for (_, tally) in &modules {
        whole.passed += tally.passed;
        whole.failed += tally.failed;
        whole.skipped += tally.skipped;
        whole.operations += tally.operations;
        whole.operations_passed += tally.operations_passed;
        whole.messages += tally.messages;
        whole.messages_asserted += tally.messages_asserted;
    }
    (modules, whole)
}

/// The item messages stated by the operations' descriptions that no passing check asserted, by
/// operation id.
pub fn unasserted(outcomes: &[Outcome], document: &Value) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    for operation in core_api::operations::ALL {
        for template in said::stated(document, operation) {
            let asserted = outcomes.iter().any(|outcome| {
                outcome.operation.id == operation.id
                    && outcome.result.is_ok()
                    && outcome
                        .says
                        .iter()
                        .any(|text| said::matches(&template, text))
            });
            if !asserted {
                out.push((operation.id, template));
            }
        }
    }
    out
}

/// The human summary: every failure and skip with its reason, then one line per module and
/// the total.
pub fn summary(outcomes: &[Outcome], document: &Value) -> String {
    let mut out = String::new();
    for outcome in outcomes {
        match &outcome.result {
            Err(Fail::Failed(reason)) => {
                let _ = writeln!(out, "FAILED  {}\n        {reason}", outcome.name);
            }
            Err(Fail::Skipped(reason)) => {
                let _ = writeln!(out, "skipped {}: {reason}", outcome.name);
            }
            Ok(()) => {}
        }
    }
    let (modules, whole) = tally(outcomes, document);
    let line = |name: &str, tally: &Tally| {
        format!(
            "{name:<7} {} passed, {} failed, {} skipped; operations {}/{} passing; item messages asserted {}/{}",
            tally.passed,
            tally.failed,
            tally.skipped,
            tally.operations_passed,
            tally.operations,
            tally.messages_asserted,
            tally.messages
        )
    };
    let unasserted = unasserted(outcomes, document);
    if !unasserted.is_empty() {
        let _ = writeln!(out, "item messages no passing check asserted:");
        for (operation, template) in &unasserted {
            let _ = writeln!(out, "  {operation}: \"{template}\"");
        }
    }
    for (module, tally) in &modules {
        let _ = writeln!(out, "{}", line(module, tally));
    }
    let _ = writeln!(out, "{}", line("all", &whole));
    out
}

/// The run as JUnit XML: one `testsuite` per module, one `testcase` per check (classname
/// `<module>.<operationId>`), a `failure` or `skipped` element with its reason.
pub fn junit(outcomes: &[Outcome], document: &Value) -> String {
    let (modules, whole) = tally(outcomes, document);
    let seconds = |outcomes: &mut dyn Iterator<Item = &Outcome>| {
        outcomes
            .map(|outcome| outcome.took.as_secs_f64())
            .sum::<f64>()
    };
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"core-conformance\" tests=\"{}\" failures=\"{}\" skipped=\"{}\" time=\"{:.3}\">",
        whole.passed + whole.failed + whole.skipped,
        whole.failed,
        whole.skipped,
        seconds(&mut outcomes.iter())
    );
    for (module, tally) in &modules {
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" skipped=\"{}\" time=\"{:.3}\">",
            escape(module),
            tally.passed + tally.failed + tally.skipped,
            tally.failed,
            tally.skipped,
            seconds(
                &mut outcomes
                    .iter()
                    .filter(|outcome| outcome.operation.module == *module)
            )
        );
        for outcome in outcomes
            .iter()
            .filter(|outcome| outcome.operation.module == *module)
        {
            let _ = write!(
                out,
                "    <testcase classname=\"{}.{}\" name=\"{}\" time=\"{:.3}\"",
                escape(module),
                escape(outcome.operation.id),
                escape(&outcome.name),
                outcome.took.as_secs_f64()
            );
            match &outcome.result {
                Ok(()) => out.push_str("/>\n"),
                Err(Fail::Failed(reason)) => {
                    let _ = writeln!(
                        out,
                        ">\n      <failure message=\"{}\">{}</failure>\n    </testcase>",
                        escape(first_line(reason)),
                        escape(reason)
                    );
                }
                Err(Fail::Skipped(reason)) => {
                    let _ = writeln!(
                        out,
                        ">\n      <skipped message=\"{}\"/>\n    </testcase>",
                        escape(reason)
                    );
                }
            }
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default()
}

/// Text made safe for XML content and attributes (control characters XML cannot carry become
/// `?`).
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\t' | '\n' | '\r' => out.push(ch),
            ch if (ch as u32) < 0x20 || ch == '\u{FFFE}' || ch == '\u{FFFF}' => out.push('?'),
            ch => out.push(ch),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::Kind;

    fn outcome(name: &str, result: crate::Checked) -> Outcome {
        Outcome {
            name: name.to_string(),
            operation: &core_api::operations::KEYWORDS_PERSIST,
            kind: Kind::Messages,
            says: vec![core_api::messages::THE_KEYWORD_HAS_BEEN_CREATED_SUCCESSFULLY],
            result,
            took: Duration::from_millis(5),
        }
    }

    #[test]
    fn failures_and_skips_are_counted_reported_and_escaped() {
        let outcomes = [
            outcome("keywordsPersist: creates a keyword", Ok(())),
            outcome(
                "keywordsPersist: <b> & \"c\"",
                Err(Fail::because("expected 200, got 500\nsecond line")),
            ),
            outcome(
                "keywordsPersist: limited",
                Err(Fail::Skipped("needs --limited-token".into())),
            ),
        ];
        let document = crate::judge::published();
        let (modules, whole) = tally(&outcomes, document);
        assert_eq!((whole.passed, whole.failed, whole.skipped), (1, 1, 1));
        let common = &modules
            .iter()
            .find(|(name, _)| *name == "Common")
            .expect("Common")
            .1;
        assert_eq!((common.operations, common.operations_passed), (9, 0));
        assert_eq!(whole.messages_asserted, 1);
        let text = summary(&outcomes, document);
        assert!(
            text.contains("FAILED  keywordsPersist: <b> & \"c\"\n        expected 200, got 500"),
            "{text}"
        );
        assert!(
            text.contains("skipped keywordsPersist: limited: needs --limited-token"),
            "{text}"
        );
        assert!(
            text.contains("all     1 passed, 1 failed, 1 skipped; operations 0/27 passing"),
            "{text}"
        );
        let xml = junit(&outcomes, document);
        assert!(
            xml.contains(
                "<testsuites name=\"core-conformance\" tests=\"3\" failures=\"1\" skipped=\"1\""
            ),
            "{xml}"
        );
        assert!(
            xml.contains("name=\"keywordsPersist: &lt;b&gt; &amp; &quot;c&quot;\""),
            "{xml}"
        );
        assert!(xml.contains("<failure message=\"expected 200, got 500\">expected 200, got 500\nsecond line</failure>"), "{xml}");
        assert!(
            xml.contains("<skipped message=\"needs --limited-token\"/>"),
            "{xml}"
        );
        assert_eq!(
            xml.matches("<testsuite ").count(),
            5,
            "one suite per module"
        );
    }
}
