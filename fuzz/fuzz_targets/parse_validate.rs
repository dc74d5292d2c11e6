//! Fuzz the whole validation of one document: any bytes go through `check_source` (parse, load,
//! every rule) without a panic, and the report is well formed: every diagnostic has a known code,
//! a line and column inside the source (1-based), and the order is the documented one. The
//! drawing code runs on every document that loads.
#![no_main]

use libfuzzer_sys::fuzz_target;
use primgraph::graph::render::Format;
use primgraph::registry::Registry;
use primgraph::validate::{Options, check_source};

fuzz_target!(|data: &[u8]| {
    let registry = Registry::builtin();
    let options = Options {
        limits: primgraph::json::Limits {
            max_bytes: 1 << 20,
            max_depth: 64,
        },
        ..Options::default()
    };
    let report = check_source("fuzz.graph.json", data, registry, &options);
    let lines = report.source.lines().count().max(1) as u32 + 1;
    for d in &report.diagnostics {
        assert!(
            primgraph::codes::find(&d.code).is_some(),
            "undocumented code {}",
            d.code
        );
        assert!(d.line >= 1 && d.line <= lines, "{d:?}");
        assert!(d.column >= 1, "{d:?}");
    }
    let mut sorted = report.diagnostics.clone();
    primgraph::diagnostic::sort(&mut sorted);
    assert_eq!(sorted, report.diagnostics, "diagnostics are sorted");
    if data.len() <= 1 << 20 {
        for (format, diagnostics) in [(Format::Dot, true), (Format::Mermaid, false)] {
            if let Ok(drawing) =
                primgraph::validate::render_source("fuzz.graph.json", data, registry, format, diagnostics)
            {
                assert!(!drawing.text.is_empty());
            }
        }
    }
});
