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

/// A generated graph (valid by construction) made to have findings: `capabilities` cut to its
/// first `keep` entries (R104, each related to `capabilities`), node `misspelt` given an unknown
/// primitive (R101), an unreachable node added (S203, in a workspace named with non-ASCII);
/// written pretty (short lines), or with a
/// node per line (a line per node, long).
fn graph_with_findings(seed: u64, keep: usize, misspelt: usize, one_line_nodes: bool) -> String {
    let registry = primgraph::registry::Registry::builtin();
    let mut graph = primgraph::graph::generate::generate(6, seed, registry)
        .unwrap_or_else(|e| panic!("the built-in registry generates graphs: {e}"));
    if let Some(caps) = graph["capabilities"].as_array_mut() {
        caps.truncate(keep);
    }
    if let Some(nodes) = graph["nodes"].as_array_mut() {
        let at = misspelt % nodes.len().max(1);
        if let Some(node) = nodes.get_mut(at) {
            node["primitive"] = json!("obs.lsit_files");
        }
        // Non-ASCII before a located member on its line: columns count chars.
        nodes.push(json!({"id": "stray", "workspace": "bäck", "primitive": "done.finish_success", "inputs": {}}));
    }
    if !one_line_nodes {
        return serde_json::to_string_pretty(&graph).unwrap_or_default();
    }
    let mut text = String::from("{\n");
    let Value::Object(members) = &graph else {
        return String::new();
    };
    for (i, (key, value)) in members.iter().enumerate() {
        let comma = if i + 1 == members.len() { "" } else { "," };
        match value.as_array().filter(|_| key == "nodes") {
            Some(nodes) => {
                let lines: Vec<String> = nodes.iter().map(|n| format!("    {n}")).collect();
                text.push_str(&format!(
                    "  \"nodes\": [\n{}\n  ]{comma}\n",
                    lines.join(",\n")
                ));
            }
            None => text.push_str(&format!("  {}: {value}{comma}\n", json!(key))),
        }
    }
    text.push_str("}\n");
    text
}

/// The text of `source` from (line, column) to (end_line, end_column), columns in chars and the
/// end exclusive — counted here from the text itself, not by the renderer's own conversion; an
/// empty extent is the char at its start.
fn text_between(source: &str, extent: diagnostic::Extent) -> Option<String> {
    let source_lines: Vec<&str> = source.split('\n').collect();
    let offset = |line: u32, column: u32| -> Option<usize> {
        let before: usize = source_lines
            .get(..(line as usize).checked_sub(1)?)?
            .iter()
            .map(|l| l.len() + 1)
            .sum();
        let text = source_lines.get(line as usize - 1)?;
        let within: usize = text
            .chars()
            .take((column as usize).checked_sub(1)?)
            .map(char::len_utf8)
            .sum();
        Some(before + within)
    };
    let start = offset(extent.line, extent.column)?;
    let mut end = offset(extent.end_line, extent.end_column)?;
    if end == start {
        end = start + source[start..].chars().next().map_or(0, char::len_utf8);
    }
    source.get(start..end).map(str::to_string)
}

/// What the human rendering of a lone diagnostic underlines with `^` on the source line it
/// quotes: the chars of that line under the carets (`None` when no caret line is found).
fn underlined(rendered: &str, line: u32) -> Option<String> {
    let rendered_lines: Vec<&str> = rendered.lines().collect();
    let prefix = format!("{line} |");
    let at = rendered_lines
        .iter()
        .position(|l| l.trim_start().starts_with(&prefix))?;
    let quoted = rendered_lines[at];
    let marks = rendered_lines.get(at + 1)?;
    let bar = quoted.find('|')?;
    let text: Vec<char> = quoted.get(bar + 2..)?.chars().collect();
    let marks: Vec<char> = marks.get(bar + 2..)?.chars().collect();
    let first = marks.iter().position(|&c| c == '^')?;
    let count = marks[first..].iter().take_while(|&&c| c == '^').count();
    Some(text.get(first..first + count)?.iter().collect())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Every located diagnostic of a graph (and each related location in it) has an end at or
    /// after its start, inside the file and on the start's line; JSON and SARIF carry that end;
    /// and the human rendering underlines exactly the text between start and end (issue 22:
    /// the extent is resolved once, and every renderer shows the same one).
    #[test]
    fn every_location_ends_inside_the_file_and_is_what_is_underlined(
        seed in any::<u64>(),
        keep in 0usize..4,
        misspelt in 0usize..8,
        one_line_nodes in any::<bool>(),
    ) {
        let source = graph_with_findings(seed, keep, misspelt, one_line_nodes);
        let report = primgraph::validate::check_source(
            "g.graph.json",
            source.as_bytes(),
            primgraph::registry::Registry::builtin(),
            &primgraph::validate::Options::default(),
        );
        prop_assert!(!report.diagnostics.is_empty(), "the graph has findings:\n{source}");
        let lines = LineIndex::new(&source);
        let json = diagnostic::json::to_value(std::slice::from_ref(&report));
        let sarif = sarif::to_value(std::slice::from_ref(&report), &[]);
        for (i, d) in report.diagnostics.iter().enumerate() {
            let extent = d.extent().ok_or_else(|| TestCaseError::fail(format!("{d:?} located")))?;
            let locations = std::iter::once(extent).chain(d.related.iter().filter_map(|r| r.extent()));
            for e in locations {
                prop_assert!((e.end_line, e.end_column) >= (e.line, e.column), "{e:?}");
                prop_assert_eq!(e.end_line, e.line, "an underline stays on its line: {:?}", e);
                let line_len = lines.line_text(&source, e.line).map_or(0, |t| t.chars().count()) as u32;
                prop_assert!(e.end_column <= line_len + 1, "{:?} inside line of {} chars", e, line_len);
                let text = text_between(&source, e).unwrap_or_default();
                prop_assert!(!text.is_empty() && text.chars().count() <= diagnostic::SHORT_SPAN, "{:?}: {:?}", e, text);
            }
            let shown = &json["files"][0]["diagnostics"][i];
            prop_assert_eq!(
                (&shown["end_line"], &shown["end_column"]),
                (&json!(d.end_line), &json!(d.end_column))
            );
            let region = &sarif["runs"][0]["results"][i]["locations"][0]["physicalLocation"]["region"];
            prop_assert_eq!(
                (&region["startLine"], &region["startColumn"], &region["endLine"], &region["endColumn"]),
                (&json!(extent.line), &json!(extent.column), &json!(extent.end_line), &json!(extent.end_column))
            );
            // Alone (no related location sharing its line), a long source line may be cut by
            // the renderer; the quoted line is shown whole up to 100 chars.
            let line_len = lines.line_text(&source, extent.line).map_or(0, |t| t.chars().count());
            if line_len <= 100 {
                let mut alone = d.clone();
                alone.related.clear();
                let lone = FileReport { diagnostics: vec![alone], ..report.clone() };
                let rendered = human::render(&[lone], false);
                let expected = text_between(&source, extent);
                prop_assert_eq!(underlined(&rendered, extent.line), expected, "{}", rendered);
            }
        }
    }
}
