//! Properties of the diagnostic pipeline: resolving any pointer against any document lands
//! inside the document, sorting is a deterministic total order, and no renderer panics or
//! loses a diagnostic, whatever the pointers, messages and sources.

use primgraph::diagnostic::{self, Diagnostic, FileReport, Severity, Witness, human, sarif};
use primgraph::json::{Limits, LineIndex, parse};
use proptest::prelude::*;
use serde_json::{Value, json};
use std::sync::Arc;

const DOC: &str = "{\n  \"a\": [1, {\"b/c\": \"é\"}],\n  \"d\": {\"e\": null}\n}\n";

fn arb_pointer() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        "(/(a|b~1c|d|e|0|1|2|x|~0|~|01)){1,4}",
        "\\PC{0,8}",
    ]
}

fn arb_diagnostic() -> impl Strategy<Value = Diagnostic> {
    (
        prop::sample::select(vec!["A407", "T305", "G001", "S203", "R102"]),
        prop::sample::select(vec![Severity::Error, Severity::Warning, Severity::Info]),
        arb_pointer(),
        "\\PC{0,12}",
        prop::collection::vec((arb_pointer(), "\\PC{0,6}"), 0..3),
        prop::option::of(prop_oneof![
            prop::collection::vec("[a-z]{1,4}", 0..4).prop_map(Witness::Path),
            any::<i64>().prop_map(|n| Witness::Value(json!({"n": n}))),
        ]),
        prop::option::of("\\PC{0,10}"),
    )
        .prop_map(
            |(code, severity, pointer, message, related, witness, help)| {
                let mut d = Diagnostic::new(code, severity, pointer, message);
                for (p, m) in related {
                    d = d.with_related(p, m);
                }
                d.witness = witness;
                d.help = help;
                d
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn resolve_lands_inside_the_document(mut diags in prop::collection::vec(arb_diagnostic(), 0..6)) {
        let parsed = parse(DOC.as_bytes(), &Limits::default()).map_err(|e| TestCaseError::fail(e.to_string()))?;
        diagnostic::resolve(&mut diags, &parsed);
        let lines = LineIndex::new(DOC);
        for d in &diags {
            prop_assert!(d.line >= 1 && (d.line as usize) <= lines.line_count());
            prop_assert!(d.column >= 1);
            let line_len = lines.line_text(DOC, d.line).map_or(0, |t| t.chars().count()) as u32;
            prop_assert!(d.column <= line_len.max(1));
            for r in &d.related {
                prop_assert!(r.line.is_some_and(|l| l >= 1) && r.column.is_some_and(|c| c >= 1));
            }
        }
    }

    #[test]
    fn sort_is_deterministic(mut diags in prop::collection::vec(arb_diagnostic(), 0..8), seed in any::<u64>()) {
        let parsed = parse(DOC.as_bytes(), &Limits::default()).map_err(|e| TestCaseError::fail(e.to_string()))?;
        diagnostic::resolve(&mut diags, &parsed);
        let mut shuffled = diags.clone();
        // A deterministic permutation from the seed.
        let n = shuffled.len();
        for i in (1..n).rev() {
            let j = (seed.wrapping_mul(6364136223846793005).wrapping_add(i as u64) % (i as u64 + 1)) as usize;
            shuffled.swap(i, j);
        }
        diagnostic::sort(&mut diags);
        diagnostic::sort(&mut shuffled);
        let key = |d: &Diagnostic| (d.line, d.column, d.code.clone(), d.pointer.clone(), d.message.clone());
        prop_assert_eq!(diags.iter().map(key).collect::<Vec<_>>(), shuffled.iter().map(key).collect::<Vec<_>>());
        for pair in diags.windows(2) {
            prop_assert!(key(&pair[0]) <= key(&pair[1]));
        }
    }

    #[test]
    fn renderers_never_panic_and_keep_every_diagnostic(
        diags in prop::collection::vec(arb_diagnostic(), 0..5),
        source in prop_oneof![Just(DOC.to_string()), "\\PC{0,40}", "[{}\\[\\]\"a:, \n]{0,30}"],
        resolved in any::<bool>(),
        line in 0u32..6,
        column in 0u32..50,
    ) {
        let mut diags = diags;
        match parse(source.as_bytes(), &Limits::default()) {
            Ok(parsed) if resolved => diagnostic::resolve(&mut diags, &parsed),
            _ => {
                for d in &mut diags {
                    d.line = line;
                    d.column = column;
                }
            }
        }
        let report = FileReport {
            file: "dir/a b.json".into(),
            graph: None,
            diagnostics: diags.clone(),
            source: Arc::from(source.as_str()),
        };
        let reports = [report];
        let text = human::render(&reports, false);
        for d in &diags {
            let header = format!("[{}]", d.code);
            prop_assert!(text.contains(&header), "{}", text);
        }
        let doc: Value = serde_json::from_str(&diagnostic::json::render(&reports)).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(doc["files"][0]["diagnostics"].as_array().map(Vec::len), Some(diags.len()));
        let log = sarif::to_value(&reports, &[]);
        let results = log["runs"][0]["results"].as_array().cloned().unwrap_or_default();
        prop_assert_eq!(results.len(), diags.len());
        for r in &results {
            let region = &r["locations"][0]["physicalLocation"]["region"];
            prop_assert!(region["startLine"].as_u64().is_some_and(|l| l >= 1));
            prop_assert!(region["startColumn"].as_u64().is_some_and(|c| c >= 1));
        }
    }
}
