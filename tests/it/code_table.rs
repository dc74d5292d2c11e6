//! The code table (`primgraph::codes`) against the spec's code tables (§5, §9's packs and §10's
//! importers): every code the spec lists has exactly one row with the spec's severity, every row
//! is a code of the spec, and `primgraph explain` prints each row's documentation.

use primgraph::codes::{self, Severity};
use std::process::Command;

/// SPEC §5, transcribed: (code, severity). L501–L510 are one spec row, one code each.
const SPEC_CODES: &[(&str, Severity)] = &[
    ("G001", Severity::Error),
    ("G002", Severity::Error),
    ("G003", Severity::Error),
    ("G004", Severity::Error),
    ("G005", Severity::Error),
    ("R101", Severity::Error),
    ("R102", Severity::Info),
    ("R103", Severity::Warning),
    ("R104", Severity::Error),
    ("S201", Severity::Error),
    ("S202", Severity::Error),
    ("S203", Severity::Warning),
    ("S204", Severity::Error),
    ("S205", Severity::Error),
    ("S206", Severity::Error),
    ("S207", Severity::Error),
    ("S208", Severity::Error),
    ("S209", Severity::Error),
    ("T301", Severity::Error),
    ("T302", Severity::Error),
    ("T303", Severity::Error),
    ("T304", Severity::Error),
    ("T305", Severity::Error),
    ("T306", Severity::Warning),
    ("T307", Severity::Error),
    ("T308", Severity::Error),
    ("T309", Severity::Error),
    ("A401", Severity::Error),
    ("A402", Severity::Error),
    ("A403", Severity::Error),
    ("A404", Severity::Error),
    ("A405", Severity::Error),
    ("A406", Severity::Error),
    ("A407", Severity::Error),
    ("L501", Severity::Error),
    ("L502", Severity::Error),
    ("L503", Severity::Error),
    ("L504", Severity::Error),
    ("L505", Severity::Error),
    ("L506", Severity::Error),
    ("L507", Severity::Error),
    ("L508", Severity::Error),
    ("L509", Severity::Error),
    ("L510", Severity::Error),
    ("D601", Severity::Error),
    ("D602", Severity::Warning),
    ("D603", Severity::Error),
    ("D604", Severity::Error),
    ("D605", Severity::Error),
    ("D606", Severity::Error),
    ("D607", Severity::Error),
    ("D608", Severity::Error),
    ("D609", Severity::Error),
    ("D610", Severity::Error),
    ("D611", Severity::Error),
    ("D612", Severity::Error),
    ("D613", Severity::Error),
    ("D614", Severity::Error),
    ("D615", Severity::Error),
    ("D616", Severity::Error),
    ("D617", Severity::Error),
    ("V701", Severity::Error),
    ("V702", Severity::Error),
    ("V703", Severity::Info),
    ("V704", Severity::Error),
    ("V705", Severity::Error),
    ("V706", Severity::Error),
    ("V707", Severity::Error),
    ("V708", Severity::Error),
    ("V709", Severity::Error),
    ("V710", Severity::Error),
    ("V711", Severity::Error),
    ("V712", Severity::Error),
    ("V713", Severity::Error),
    ("V714", Severity::Error),
    ("V715", Severity::Error),
    ("V716", Severity::Error),
    ("V717", Severity::Info),
    ("V718", Severity::Error),
    ("V719", Severity::Error),
    ("V720", Severity::Info),
    ("D618", Severity::Error),
    // SPEC §9 (packs, fragments, the plugin ABI).
    ("P801", Severity::Error),
    ("P802", Severity::Error),
    ("P803", Severity::Error),
    ("P804", Severity::Error),
    ("P805", Severity::Error),
    ("P806", Severity::Error),
    ("P807", Severity::Error),
    ("P808", Severity::Error),
    ("P809", Severity::Error),
    ("P811", Severity::Error),
    ("P821", Severity::Error),
    ("P822", Severity::Error),
    ("P823", Severity::Error),
    ("P824", Severity::Error),
    ("P825", Severity::Warning),
    ("P826", Severity::Error),
    ("P827", Severity::Error),
    ("P828", Severity::Error),
    ("P840", Severity::Error),
    ("P841", Severity::Warning),
    ("P850", Severity::Error),
    ("P860", Severity::Error),
    ("P861", Severity::Info),
    ("P862", Severity::Warning),
    ("P870", Severity::Error),
    ("P871", Severity::Error),
    ("P872", Severity::Error),
    ("D619", Severity::Warning),
    ("D620", Severity::Error),
    // SPEC §10 (importers).
    ("I901", Severity::Error),
    ("I902", Severity::Warning),
    ("I903", Severity::Warning),
    ("I904", Severity::Warning),
];

/// SPEC §5 gives V701–V720 the severity "by change": §6.1's table gives each its directions,
/// and the row carries the most severe one.
const BY_CHANGE: &str = "by change";

#[test]
fn every_spec_code_has_one_row_with_its_severity() {
    for &(code, severity) in SPEC_CODES {
        let rows: Vec<_> = codes::ALL.iter().filter(|r| r.code == code).collect();
        assert_eq!(rows.len(), 1, "{code}: {} rows", rows.len());
        assert_eq!(rows[0].severity, severity, "{code}");
    }
    for row in codes::ALL {
        assert!(
            SPEC_CODES.iter().any(|(c, _)| *c == row.code),
            "{} is not a code of the spec (§5, §9, §10)",
            row.code
        );
    }
    let order: Vec<&str> = codes::ALL.iter().map(|r| r.code).collect();
    let mut sorted = order.clone();
    sorted.sort_by_key(|c| ("GRSTALDVPI".find(&c[..1]), c.to_string()));
    assert_eq!(order, sorted, "rows are in code order");
}

/// When the spec itself is at hand (`../shared/SPEC.md`, beside the checkout in CI and for
/// the developers), its code tables (§5, §9, §10) list exactly the transcribed codes.
#[test]
fn the_transcription_matches_the_spec_when_it_is_at_hand() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let Some(text) = [
        root.join("../shared/SPEC.md"),
        root.join("../../shared/SPEC.md"),
    ]
    .iter()
    .find_map(|p| std::fs::read_to_string(p).ok()) else {
        eprintln!("SPEC.md not found beside the checkout; the transcription stands alone");
        return;
    };
    let section = |heading: &str| {
        text.split(heading)
            .nth(1)
            .and_then(|s| s.split("\n## ").next())
            .unwrap_or_else(|| panic!("SPEC has {heading}"))
            .to_string()
    };
    let tables = [
        section("\n## 5. "),
        section("\n## 9. "),
        section("\n## 10. "),
    ]
    .join("\n");
    let mut listed = Vec::new();
    for line in tables.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() < 4 {
            continue;
        }
        let (code, severity) = (cells[1], cells[2]);
        let (first, last) = code.split_once('–').unwrap_or((code, code));
        let (Some(prefix), Ok(a), Ok(b)) = (
            first.chars().next().filter(char::is_ascii_uppercase),
            first.get(1..).unwrap_or("").parse::<u32>(),
            last.trim_start_matches(|c: char| c.is_ascii_alphabetic())
                .parse::<u32>(),
        ) else {
            continue;
        };
        for n in a..=b {
            listed.push((format!("{prefix}{n:03}"), severity.to_string()));
        }
    }
    for (code, severity) in &listed {
        let row = SPEC_CODES.iter().find(|(c, _)| c == code);
        let Some((_, sev)) = row else {
            panic!("the spec lists {code}, the transcription does not");
        };
        if severity != BY_CHANGE {
            assert_eq!(format!("{sev:?}").to_lowercase(), *severity, "{code}");
        }
    }
    assert_eq!(listed.len(), SPEC_CODES.len());
}

#[test]
fn every_row_names_its_file_and_explain_prints_its_doc() {
    for row in codes::ALL {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(row.file);
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {}: {e}", row.code, path.display()));
        assert_eq!(
            text, row.source,
            "{}: the row holds its file's text",
            row.code
        );
        let doc = row.doc();
        assert!(
            doc.starts_with(row.code),
            "{}: the doc starts with its code",
            row.code
        );
        assert!(!doc.contains("//!"), "{}", row.code);
        assert!(!row.help.is_empty(), "{}: a help line", row.code);
    }
}

#[test]
fn explain_prints_every_code_and_rejects_unknown_ones() {
    let bin = env!("CARGO_BIN_EXE_primgraph");
    for row in codes::ALL {
        let out = Command::new(bin)
            .args(["explain", &row.code.to_lowercase()])
            .output()
            .expect("run primgraph");
        assert_eq!(out.status.code(), Some(0), "{}", row.code);
        // The documentation, then the file that implements the code.
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            format!(
                "{}\n\nImplemented in `{}`.\n",
                row.doc().trim_end(),
                row.file
            ),
            "{}",
            row.code
        );
    }
    let out = Command::new(bin)
        .args(["explain", "X999"])
        .output()
        .expect("run primgraph");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("D617"));
}

/// The headings of every code's documentation, in ruff's order.
const HEADINGS: &[&str] = &[
    "## What it checks",
    "## Why it matters",
    "## Example",
    "## Fix",
    "## Implements",
];

/// The doc's sections by heading (text up to the next heading).
fn sections(code: &str, doc: &str) -> Vec<String> {
    let mut at = Vec::new();
    for heading in HEADINGS {
        let found: Vec<usize> = doc
            .match_indices(&format!("\n{heading}\n"))
            .map(|(i, _)| i)
            .collect();
        assert_eq!(
            found.len(),
            1,
            "{code}: `{heading}` appears {} times",
            found.len()
        );
        at.push((found[0], heading.len() + 2));
    }
    assert!(
        at.windows(2).all(|w| w[0].0 < w[1].0),
        "{code}: headings out of order"
    );
    (0..at.len())
        .map(|k| {
            let start = at[k].0 + at[k].1;
            let end = at.get(k + 1).map_or(doc.len(), |next| next.0);
            doc[start..end].trim().to_string()
        })
        .collect()
}

/// The fenced blocks of a text, with their tags; fails on an untagged or unclosed fence.
fn fences(code: &str, text: &str) -> Vec<(String, Vec<String>)> {
    let mut blocks = Vec::new();
    let mut open: Option<(String, Vec<String>)> = None;
    for line in text.lines() {
        if let Some(tag) = line.trim_start().strip_prefix("```") {
            match open.take() {
                Some(block) => blocks.push(block),
                None => {
                    assert!(
                        ["json", "text", "sh"].contains(&tag),
                        "{code}: a fence tagged `{tag}` (json, text or sh)"
                    );
                    open = Some((tag.to_string(), Vec::new()));
                }
            }
        } else if let Some((_, lines)) = open.as_mut() {
            lines.push(line.to_string());
        }
    }
    assert!(open.is_none(), "{code}: an unclosed fence");
    blocks
}

/// The text between the first pair of backticks after `marker`.
fn quoted_after<'a>(text: &'a str, marker: &str) -> Option<&'a str> {
    let rest = &text[text.find(marker)? + marker.len()..];
    let rest = &rest[rest.find('`')? + 1..];
    Some(&rest[..rest.find('`')?])
}

/// Does `line` match `pattern`, where `…` in the pattern stands for any text?
fn matches(pattern: &str, line: &str) -> bool {
    let mut rest = line;
    for (k, part) in pattern.split('…').enumerate() {
        match rest.find(part) {
            Some(i) if k > 0 || i == 0 => rest = &rest[i + part.len()..],
            _ => return false,
        }
    }
    pattern.ends_with('…') || rest.is_empty()
}

/// A table code as `&'static str` (every fixture here fires table codes).
fn table_code(code: &primgraph::codes::CodeName) -> &'static str {
    code.as_static().expect("a code of the table")
}

/// A pack or import fixture, run through the binary as its example says — `(linted with
/// `primgraph pack lint`)`, `(tested with `primgraph pack test DIR`)`, `(validated with
/// `--pack DIR`)`, `(validating the graph beside it)` (from the fixture's folder, where the lock
/// is), `(imported as `FORMAT` against `GRAPH`)` — with `--format json`: the (code, line) of each
/// diagnostic located in the fixture's file.
fn command_fixture(code: &str, example: &str, path: &str) -> Vec<(&'static str, u32)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let sentence = &example[example.find("Fixture").unwrap_or(0)..];
    let parent = std::path::Path::new(path)
        .parent()
        .unwrap_or_else(|| panic!("{code}: {path} has a folder"));
    let out_dir = tempfile::tempdir().unwrap();
    let mut cwd = root.to_path_buf();
    // `reports CODE at line N of `FILE``: the finding is located in another file (a fragment's).
    let mut target = quoted_after(sentence, " of ")
        .filter(|_| sentence.contains(&format!("reports {code} at line ")))
        .unwrap_or(path)
        .to_string();
    let args: Vec<String> = if sentence.contains("linted with `primgraph pack lint`") {
        let mut args = vec!["pack".into(), "lint".into(), parent.display().to_string()];
        // `(linted with `DIR` on the pack path)` earlier in the example: the packs it requires.
        if let Some(dir) =
            quoted_after(example, "linted with ").filter(|d| !d.starts_with("primgraph"))
        {
            args.extend(["--pack".to_string(), dir.to_string()]);
        }
        args
    } else if let Some(dir) = quoted_after(sentence, "tested with ") {
        let dir = dir.trim_start_matches("primgraph pack test ").to_string();
        vec!["pack".into(), "test".into(), dir]
    } else if let Some(pack_path) = quoted_after(sentence, "validated with ") {
        let pack_path = pack_path.trim_start_matches("--pack ").to_string();
        vec!["validate".into(), path.into(), "--pack".into(), pack_path]
    } else if sentence.contains("validating the graph beside it") {
        cwd = root.join(parent);
        let graph = std::fs::read_dir(&cwd)
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
            .find(|n| n.ends_with(".graph.json"))
            .unwrap_or_else(|| panic!("{code}: a graph beside {path}"));
        target = std::path::Path::new(path)
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        vec!["validate".into(), graph]
    } else if let Some(format) = quoted_after(sentence, "imported as ") {
        let graph = quoted_after(sentence, " against ").unwrap_or_else(|| {
            panic!("{code}: the example names the graph it is imported against")
        });
        vec![
            "import".into(),
            format.into(),
            path.into(),
            "--graph".into(),
            graph.into(),
            "--out".into(),
            out_dir.path().display().to_string(),
        ]
    } else {
        panic!(
            "{code}: the example says how its fixture is run (linted, tested, validated or imported)"
        )
    };
    let out = Command::new(env!("CARGO_BIN_EXE_primgraph"))
        .args(&args)
        .args(["--format", "json"])
        .current_dir(&cwd)
        .output()
        .expect("run primgraph");
    let text = String::from_utf8_lossy(&out.stdout);
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap_or_else(|e| {
        panic!(
            "{code}: primgraph {} printed no JSON ({e}): {text}{}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    // §3.1's `files` (a diagnostic in another file carries its own `file`), or the import
    // report's `diagnostics` (each with its `file`).
    let mut located: Vec<(String, &serde_json::Value)> = Vec::new();
    for file in doc["files"].as_array().into_iter().flatten() {
        let name = file["file"].as_str().unwrap_or_default();
        for d in file["diagnostics"].as_array().into_iter().flatten() {
            located.push((d["file"].as_str().unwrap_or(name).to_string(), d));
        }
    }
    for d in doc["diagnostics"].as_array().into_iter().flatten() {
        located.push((d["file"].as_str().unwrap_or_default().to_string(), d));
    }
    located
        .into_iter()
        .filter(|(file, _)| file == &target || file.ends_with(&format!("/{target}")))
        .map(|(_, d)| {
            let row = codes::find(d["code"].as_str().unwrap_or_default())
                .unwrap_or_else(|| panic!("{code}: a code of the table: {d}"));
            (row.code, d["line"].as_u64().unwrap_or(0) as u32)
        })
        .collect()
}

/// The (code, line) of every diagnostic a fixture really produces, the way a user meets it.
fn run_fixture(code: &str, example: &str, path: &str) -> Vec<(&'static str, u32)> {
    use primgraph::registry::Registry;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(root.join(path)).unwrap_or_else(|e| panic!("{code}: {path}: {e}"));
    let registry =
        |p: &str| Registry::from_path(&root.join(p)).unwrap_or_else(|e| panic!("{code}: {p}: {e}"));
    match &code[..1] {
        "L" => primgraph::registry::lint_source(&bytes)
            .unwrap_or_else(|e| panic!("{code}: {path}: {e}"))
            .iter()
            .map(|d| (table_code(&d.code), d.line))
            .collect(),
        "V" => {
            // `Fixture P (OLD O, NEW N[, graphs G])`: the diff of O and N (with the gate over G),
            // the findings located in P.
            use primgraph::versions::registry_diff::{self, DiffSide};
            let sentence = &example[example.find("Fixture").unwrap_or(0)..];
            let side = |marker: &str| {
                let p = quoted_after(sentence, marker)
                    .unwrap_or_else(|| panic!("{code}: the example names {marker}"));
                DiffSide::open(root.join(p).to_str().unwrap())
                    .unwrap_or_else(|e| panic!("{code}: {p}: {e}"))
            };
            let (old, new) = (side("(OLD "), side(", NEW "));
            let report = match quoted_after(sentence, ", graphs ") {
                Some(g) => registry_diff::diff_with_graphs(&old, &new, &[root.join(g)]).unwrap(),
                None => registry_diff::diff(&old, &new),
            };
            let target = root.join(path).display().to_string();
            report
                .file_reports()
                .iter()
                .filter(|r| r.file == target)
                .flat_map(|r| r.diagnostics.iter().map(|d| (table_code(&d.code), d.line)))
                .collect()
        }
        "D" if example.contains("with the pack path") => {
            // A trace of a graph that declares packs (D619, D620): the embedded registry and
            // the pack path the sentence names.
            use primgraph::pack::compose::{Base, Composer, ComposerOptions};
            let sentence = &example[example.find("Fixture").unwrap_or(0)..];
            let graph_path = quoted_after(sentence, "replayed against").expect("the graph");
            let packs = quoted_after(sentence, "with the pack path ").expect("the pack path");
            let options = primgraph::validate::Options {
                packs: Some(std::sync::Arc::new(Composer::new(
                    Base::Builtin,
                    primgraph::pack::path::PackPath::scan(&[root.join(packs)]),
                    ComposerOptions::default(),
                ))),
                ..Default::default()
            };
            let base = Registry::builtin();
            let graph_bytes = std::fs::read(root.join(graph_path)).unwrap();
            let graph =
                primgraph::replay::ReplayGraph::load_with(graph_path, &graph_bytes, base, &options)
                    .unwrap_or_else(|e| panic!("{code}: {graph_path}: {e:?}"));
            let composition = graph.composition.clone();
            let registry = composition.as_ref().map_or(base, |c| &c.registry);
            primgraph::replay::Replayer::new(registry, graph, Default::default())
                .replay_slice(path, &bytes)
                .diagnostics
                .iter()
                .map(|d| (table_code(&d.diagnostic.code), d.diagnostic.line))
                .collect()
        }
        "P" if example.contains("(pack diff of ") => {
            // `Fixture F (pack diff of OLD and NEW)`: the findings of the pack diff in F.
            let sentence = &example[example.find("Fixture").unwrap_or(0)..];
            let old = quoted_after(sentence, "(pack diff of ").expect("OLD");
            let new = quoted_after(sentence, " and ").expect("NEW");
            let load = |p: &str| {
                primgraph::pack::manifest::load(&root.join(p), Registry::builtin())
                    .unwrap_or_else(|e| panic!("{code}: {p}: {e}"))
            };
            let report =
                primgraph::versions::pack_diff::diff(&load(old), &load(new), Registry::builtin())
                    .unwrap_or_else(|e| panic!("{code}: {e}"));
            let target = root.join(path).display().to_string();
            report
                .file_reports()
                .iter()
                .filter(|r| r.file == target)
                .flat_map(|r| r.diagnostics.iter().map(|d| (table_code(&d.code), d.line)))
                .collect()
        }
        "D" => {
            let registry = registry("tests/fixtures/replay/registry.json");
            let sentence = &example[example.find("Fixture").unwrap_or(0)..];
            let graph_path = quoted_after(sentence, "replayed against").unwrap_or_else(|| {
                panic!("{code}: the example names the graph it is replayed against")
            });
            let graph_bytes = std::fs::read(root.join(graph_path)).unwrap();
            let graph = primgraph::replay::ReplayGraph::load(graph_path, &graph_bytes, &registry)
                .unwrap_or_else(|e| panic!("{code}: {graph_path}: {e:?}"));
            let replayer = primgraph::replay::Replayer::new(&registry, graph, Default::default());
            replayer
                .replay_slice(path, &bytes)
                .diagnostics
                .iter()
                .map(|d| (table_code(&d.diagnostic.code), d.diagnostic.line))
                .collect()
        }
        "P" | "I" => command_fixture(code, example, path),
        _ => {
            let registry = registry("tests/fixtures/rules/registry.json");
            let options = primgraph::validate::Options::default();
            primgraph::validate::check_source(path, &bytes, &registry, &options)
                .diagnostics
                .iter()
                .map(|d| (table_code(&d.code), d.line))
                .collect()
        }
    }
}

#[test]
fn every_doc_has_the_layout_and_an_example_that_really_fires() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for row in codes::ALL {
        let code = row.code;
        let doc = row.doc();
        let parts = sections(code, &doc);
        for (heading, text) in HEADINGS.iter().zip(&parts) {
            assert!(!text.is_empty(), "{code}: `{heading}` is empty");
        }
        fences(code, &doc);
        assert!(
            parts[4].contains("SPEC §"),
            "{code}: names its SPEC section"
        );
        let example = &parts[2];
        let path = quoted_after(example, "Fixture")
            .unwrap_or_else(|| panic!("{code}: the example names its fixture"));
        let line: u32 = example
            .split_once(&format!("reports {code} at line "))
            .and_then(|(_, rest)| rest.split(|c: char| !c.is_ascii_digit()).next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{code}: the example says the line it fires at"));
        let found = run_fixture(code, example, path);
        assert!(
            found.contains(&(code, line)),
            "{code}: {path} does not report {code} at line {line}: {found:?}"
        );
        // The excerpt (the last fence of the example) stands in the fixture, line for line.
        let (_, excerpt) = fences(code, example).pop().expect("an excerpt");
        let located_in =
            quoted_after(example, &format!("reports {code} at line {line} of ")).unwrap_or(path);
        let fixture = std::fs::read_to_string(root.join(located_in)).unwrap_or_default();
        let fixture: Vec<&str> = fixture.lines().map(str::trim).collect();
        let excerpt: Vec<&str> = excerpt.iter().map(|l| l.trim()).collect();
        let found_at = (0..fixture.len()).find(|&i| {
            excerpt.iter().enumerate().all(|(k, pattern)| {
                fixture
                    .get(i + k)
                    .is_some_and(|line| matches(pattern, line))
            })
        });
        assert!(
            found_at.is_some(),
            "{code}: the excerpt is not in {path}:\n{}",
            excerpt.join("\n")
        );
    }
}
