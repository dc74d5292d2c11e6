//! The architecture, enforced (ARCHITECTURE.md, "Layers" and "Invariants"): every file under
//! `src/` opens with its `//!` paragraph; the library prints nothing (only `src/cli/` and
//! `src/main.rs` do); the rules and the replay engine and codes touch no file system and no
//! clock; a check reports through its row of the code table, never with `Diagnostic::new`; a
//! module imports only modules of lower layers; every crate root forbids `unsafe`; and a named
//! input is read only through `src/input.rs` (in `src/` and `python/src/`). The source is read
//! as text with comments and string literals blanked, so prose that names a forbidden thing does
//! not count.

use std::path::{Path, PathBuf};

/// The layers, lowest first: a module may import its own and lower layers only. A new
/// top-level module goes in here at the layer its imports put it (and in ARCHITECTURE.md).
const LAYERS: &[&str] = &[
    "json",       // the spanned parser: std and serde_json only
    "codes",      // the code table: serde only (build.rs includes it)
    "rng",        // the one seeded PRNG (SplitMix64)
    "input",      // reading a named input file safely
    "workers",    // the thread pool behind --jobs
    "batch",      // folders into files
    "diagnostic", // Diagnostic, resolution, order, renderers, suggestions
    "schema",     // schema compatibility
    "registry",   // contracts, lookup, lint
    "plugin",     // primitive plugins (SPEC §9.7) read and checked, never run
    "graph",      // the document, loader, model, pictures
    "rules",      // one file per validation code
    "pack",       // packs: loader, resolution, composition, lock (SPEC §9.1, §9.2)
    "pack_rules", // pack rules (SPEC §9.4) over the rules' model
    "config",     // project configuration
    "validate",   // the driver
    "replay",     // traces, replay, summaries
    "simulate",   // synthetic runs and seeded faults (SPEC §4.3)
    "pack_tools", // the `pack` commands: lock, sign, show, lint, test (SPEC §9.2, §9.5)
    "import",     // runs recorded by other tools imported as traces (SPEC §10)
    "versions",   // registry and graph versions compared (SPEC §6.1, §6.2)
    "compare",    // evaluations compared (SPEC §6.3)
    "report",     // the HTML report (SPEC §11)
    "lsp",        // the language server
    "cli",        // the binary (src/cli/, src/main.rs)
];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
}

/// The files of `src/`, as (path relative to `src/`, text).
fn sources() -> Vec<(String, String)> {
    sources_at(&src())
}

/// The files under `root`, as (path relative to `root`, text).
fn sources_at(root: &Path) -> Vec<(String, String)> {
    let mut files = Vec::new();
    rust_files(root, &mut files);
    files
        .into_iter()
        .map(|path| {
            let rel = path
                .strip_prefix(root)
                .expect("under src")
                .to_string_lossy()
                .replace('\\', "/");
            let text = std::fs::read_to_string(&path).expect("a UTF-8 source file");
            (rel, text)
        })
        .collect()
}

/// The code of a Rust file with comments, string and char literals blanked (lengths and line
/// breaks kept), so searches see only code.
fn code_only(text: &str) -> String {
    #[derive(PartialEq)]
    enum State {
        Code,
        LineComment,
        BlockComment(u32),
        Str,
        RawStr(usize),
    }
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut state = State::Code;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        match state {
            State::Code => {
                if c == '/' && next == Some('/') {
                    state = State::LineComment;
                    out.push(' ');
                } else if c == '/' && next == Some('*') {
                    state = State::BlockComment(1);
                    out.push_str("  ");
                    i += 1;
                } else if c == '"' {
                    state = State::Str;
                    out.push('"');
                } else if c == 'r'
                    && (next == Some('"') || next == Some('#'))
                    && !chars
                        .get(i.wrapping_sub(1))
                        .is_some_and(|p| p.is_alphanumeric() || *p == '_')
                {
                    let hashes = chars[i + 1..].iter().take_while(|&&h| h == '#').count();
                    if chars.get(i + 1 + hashes) == Some(&'"') {
                        state = State::RawStr(hashes);
                        // `r`, the hashes, the quote: one char each, so positions hold.
                        out.push_str(&" ".repeat(1 + hashes));
                        out.push('"');
                        i += 1 + hashes;
                    } else {
                        out.push(c);
                    }
                } else if c == '\'' {
                    // A char literal ('x', '\n', '"'); a lifetime has no closing quote soon.
                    let close = if next == Some('\\') { 3 } else { 2 };
                    if chars.get(i + close) == Some(&'\'')
                        || (next == Some('\\') && chars.get(i + 4) == Some(&'\''))
                    {
                        let end = if chars.get(i + close) == Some(&'\'') {
                            i + close
                        } else {
                            i + 4
                        };
                        out.push_str(&" ".repeat(end - i + 1));
                        i = end;
                    } else {
                        out.push(c);
                    }
                } else {
                    out.push(c);
                }
            }
            State::LineComment => {
                if c == '\n' {
                    state = State::Code;
                    out.push('\n');
                } else {
                    out.push(' ');
                }
            }
            State::BlockComment(depth) => {
                if c == '*' && next == Some('/') {
                    state = if depth == 1 {
                        State::Code
                    } else {
                        State::BlockComment(depth - 1)
                    };
                    out.push_str("  ");
                    i += 1;
                } else if c == '/' && next == Some('*') {
                    state = State::BlockComment(depth + 1);
                    out.push_str("  ");
                    i += 1;
                } else {
                    out.push(if c == '\n' { '\n' } else { ' ' });
                }
            }
            State::Str => {
                if c == '\\' {
                    out.push_str("  ");
                    if next == Some('\n') {
                        out.pop();
                        out.push('\n');
                    }
                    i += 1;
                } else if c == '"' {
                    state = State::Code;
                    out.push('"');
                } else {
                    out.push(if c == '\n' { '\n' } else { ' ' });
                }
            }
            State::RawStr(hashes) => {
                if c == '"'
                    && chars[i + 1..]
                        .iter()
                        .take(hashes)
                        .filter(|&&h| h == '#')
                        .count()
                        == hashes
                {
                    state = State::Code;
                    out.push('"');
                    out.push_str(&" ".repeat(hashes));
                    i += hashes;
                } else {
                    out.push(if c == '\n' { '\n' } else { ' ' });
                }
            }
        }
        i += 1;
    }
    out
}

/// Where `needle` occurs in `code` as a whole token (not inside a longer identifier), as line
/// numbers.
fn token_lines(code: &str, needle: &str) -> Vec<usize> {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut lines = Vec::new();
    for (start, _) in code.match_indices(needle) {
        let before = code[..start].chars().next_back();
        let after = code[start + needle.len()..].chars().next();
        let starts_clean = !before.is_some_and(ident) || !needle.starts_with(ident);
        let ends_clean = !after.is_some_and(ident) || !needle.ends_with(ident);
        if starts_clean && ends_clean {
            lines.push(code[..start].matches('\n').count() + 1);
        }
    }
    lines
}

/// The top-level module a file belongs to (`rules` for `rules/a402_grant_bypass.rs`, `cli` for
/// `main.rs`), `None` for the crate root.
fn top_module(rel: &str) -> Option<&str> {
    match rel {
        "lib.rs" => None,
        "main.rs" => Some("cli"),
        _ => Some(rel.split('/').next()?.trim_end_matches(".rs")),
    }
}

/// The top-level modules a file's code names: `crate::X…`, `crate::{X, Y…}`, and `super::X`
/// from a file whose parent is the crate root.
fn imported_modules(rel: &str, code: &str) -> Vec<(String, usize)> {
    let mut found = Vec::new();
    let head = |s: &str| -> String {
        s.trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    for (start, _) in code.match_indices("crate::") {
        let before = code[..start].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let line = code[..start].matches('\n').count() + 1;
        let rest = &code[start + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let group = &group[..group.find('}').unwrap_or(group.len())];
            for item in group.split(',') {
                let name = head(item);
                if !name.is_empty() {
                    found.push((name, line));
                }
            }
        } else {
            found.push((head(rest), line));
        }
    }
    let at_root = !rel.contains('/') || rel.matches('/').count() == 1 && rel.ends_with("/mod.rs");
    if at_root {
        for (start, _) in code.match_indices("super::") {
            let line = code[..start].matches('\n').count() + 1;
            found.push((head(&code[start + "super::".len()..]), line));
        }
    }
    found
}

#[test]
fn every_source_file_opens_with_its_doc_paragraph() {
    let mut missing = Vec::new();
    for (rel, text) in sources() {
        let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        let words = text
            .lines()
            .take_while(|l| l.starts_with("//!"))
            .map(|l| l.trim_start_matches("//!").trim())
            .collect::<Vec<_>>()
            .join(" ");
        if !first.starts_with("//!") || words.split_whitespace().count() < 4 {
            missing.push(rel);
        }
    }
    assert!(
        missing.is_empty(),
        "these files do not open with a `//!` paragraph saying what they own: {missing:?}"
    );
}

/// `src/FILE:LINE: NEEDLE` for each needle found in the code (comments and literals blanked)
/// of every `src` file `select` takes; with `skip_unit_tests`, `#[cfg(test)]` modules aside.
fn tokens_in(
    select: impl Fn(&str) -> bool,
    needles: &[&str],
    skip_unit_tests: bool,
) -> Vec<String> {
    let mut found = Vec::new();
    for (rel, text) in sources() {
        if !select(&rel) {
            continue;
        }
        let mut code = code_only(&text);
        if skip_unit_tests {
            code = without_test_modules(&code);
        }
        for needle in needles {
            for line in token_lines(&code, needle) {
                found.push(format!("src/{rel}:{line}: {needle}"));
            }
        }
    }
    found
}

#[test]
fn only_the_binary_prints() {
    let found = tokens_in(
        |rel| rel != "main.rs" && !rel.starts_with("cli/"),
        &[
            "print!",
            "println!",
            "eprint!",
            "eprintln!",
            "dbg!",
            "io::stdout",
            "io::stderr",
        ],
        false,
    );
    assert!(
        found.is_empty(),
        "the library returns what it has to say; only src/cli/ and src/main.rs print:\n{}",
        found.join("\n")
    );
}

#[test]
fn rules_and_the_replay_engine_do_no_io_and_read_no_clock() {
    let pure = |rel: &str| {
        rel.starts_with("rules/") || rel == "replay/engine.rs" || rel.starts_with("replay/codes/")
    };
    let found = tokens_in(
        pure,
        &[
            "std::fs",
            "fs::",
            "File::",
            "Instant",
            "SystemTime",
            "print!",
            "println!",
            "eprint!",
            "eprintln!",
            "std::env",
        ],
        false,
    );
    assert!(
        found.is_empty(),
        "rules and the replay engine are pure functions of their inputs (no file system, no \
         clock, no printing):\n{}",
        found.join("\n")
    );
}

/// The renderers read the extents `diagnostic::resolve` carried (issue 22, item 2): none parses
/// a report's source again to find what to underline.
#[test]
fn renderers_parse_no_source() {
    let renderer = |rel: &str| {
        rel.starts_with("diagnostic/")
            || rel == "lsp/diagnostics.rs"
            || rel == "versions/registry_diff/render.rs"
    };
    let found = tokens_in(renderer, &["json::parse", "parse_owned", "reparse"], true);
    assert!(
        found.is_empty(),
        "renderers locate through the diagnostics' extents, never by parsing the source:\n{}",
        found.join("\n")
    );
}

/// Reading a file by name outside `src/input.rs` (issue 21, item 10): every named input goes
/// through `input::read_capped` (or its streaming siblings `open_regular`, `open_capped`), which
/// refuse a FIFO or device before opening it and check the size before reading.
const DIRECT_READS: &[&str] = &[
    "fs::read",
    "fs::read_to_string",
    "File::open",
    "File::options",
    "OpenOptions",
];

/// The genuine exceptions, each with why: (file, needle).
const DIRECT_READS_ALLOWED: &[(&str, &str)] = &[
    // Writing a new key file (`create_new`, mode 0600 on Unix): a write, not a read.
    ("src/replay/seal.rs", "OpenOptions"),
    // Creating a new trace file (`create_new` unless `overwrite=True`): a write, not a read.
    ("python/src/writer.rs", "OpenOptions"),
];

/// `code` (already passed through `code_only`) with every `#[cfg(test)] mod … { … }` blanked:
/// unit tests may read their fixtures however they like.
fn without_test_modules(code: &str) -> String {
    let mut out: Vec<char> = code.chars().collect();
    let text: String = out.iter().collect();
    let mut from = 0;
    while let Some(found) = text[from..].find("#[cfg(test)]") {
        let start = from + found;
        let rest = &text[start + "#[cfg(test)]".len()..];
        from = start + "#[cfg(test)]".len();
        if !rest.trim_start().starts_with("mod ") {
            continue;
        }
        let Some(open) = rest.find('{') else { break };
        let mut depth = 0usize;
        let mut end = text.len();
        for (i, c) in rest[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = from + open + i + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        // Blank by char position (the code is ASCII-blanked, but keep it general).
        let first = text[..start].chars().count();
        let last = text[..end].chars().count();
        for c in &mut out[first..last] {
            if *c != '\n' {
                *c = ' ';
            }
        }
        from = end;
    }
    out.into_iter().collect()
}

/// The files of `src/` and `python/src/`, as (path relative to the repository, text).
fn library_and_binding_sources() -> Vec<(String, String)> {
    let mut all: Vec<(String, String)> = sources()
        .into_iter()
        .map(|(rel, text)| (format!("src/{rel}"), text))
        .collect();
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join("python/src");
    let mut files = Vec::new();
    rust_files(&python, &mut files);
    for path in files {
        let rel = path
            .strip_prefix(Path::new(env!("CARGO_MANIFEST_DIR")))
            .expect("under the repository")
            .to_string_lossy()
            .replace('\\', "/");
        let text = std::fs::read_to_string(&path).expect("a UTF-8 source file");
        all.push((rel, text));
    }
    all
}

#[test]
fn every_named_input_is_read_through_the_one_reader() {
    let mut found = Vec::new();
    let mut used = vec![false; DIRECT_READS_ALLOWED.len()];
    for (rel, text) in library_and_binding_sources() {
        if rel == "src/input.rs" {
            continue;
        }
        let code = without_test_modules(&code_only(&text));
        for needle in DIRECT_READS {
            for line in token_lines(&code, needle) {
                match DIRECT_READS_ALLOWED
                    .iter()
                    .position(|&(file, n)| file == rel && n == *needle)
                {
                    Some(i) => used[i] = true,
                    None => found.push(format!("{rel}:{line}: {needle}")),
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "read a named input through `crate::input::read_capped` (or `open_capped`, \
         `open_regular`; `primgraph::read_input` in python/src/): they refuse a FIFO or device and \
         check the size before reading:\n{}",
        found.join("\n")
    );
    let stale: Vec<_> = DIRECT_READS_ALLOWED
        .iter()
        .zip(&used)
        .filter(|(_, used)| !**used)
        .map(|(entry, _)| entry)
        .collect();
    assert!(
        stale.is_empty(),
        "allowed exceptions no longer needed: {stale:?}"
    );
}

/// The direct-read scan: code counts, a unit-test module and prose do not.
#[test]
fn the_direct_read_scan_skips_unit_tests_only() {
    let text = "/// std::fs::read(p)\nfn a() { std::fs::read(p); }\n#[cfg(test)]\nmod tests {\n    \
                fn b() { if x { File::open(p); } }\n}\nfn c() { File::open(q); }\n";
    let code = without_test_modules(&code_only(text));
    assert_eq!(token_lines(&code, "fs::read"), vec![2]);
    assert_eq!(token_lines(&code, "File::open"), vec![7]);
    assert!(token_lines(&code, "fs::read_to_string").is_empty());
}

#[test]
fn checks_report_through_their_row_of_the_code_table() {
    let mut found = Vec::new();
    for (rel, text) in sources() {
        // A pack rule's finding has no row: its code, severity and help are the rule's data
        // (SPEC §9.4), so `pack_rules/` builds it with `Diagnostic::new`.
        if rel.starts_with("diagnostic/") || rel == "codes.rs" || rel.starts_with("pack_rules/") {
            continue;
        }
        for line in token_lines(&code_only(&text), "Diagnostic::new") {
            found.push(format!("src/{rel}:{line}"));
        }
    }
    assert!(
        found.is_empty(),
        "report with `codes::CODE.at(pointer, message)` (the row holds code, severity and \
         help), not `Diagnostic::new`:\n{}",
        found.join("\n")
    );
}

#[test]
fn every_top_level_module_is_in_the_layer_table() {
    let mut unknown = Vec::new();
    for (rel, _) in sources() {
        if let Some(top) = top_module(&rel)
            && !LAYERS.contains(&top)
            && !unknown.contains(&top.to_string())
        {
            unknown.push(top.to_string());
        }
    }
    assert!(
        unknown.is_empty(),
        "top-level module(s) {unknown:?} are not in the layer table: add each to `LAYERS` in \
         tests/it/tidy.rs at the layer its imports put it (above every module it uses, below every \
         module that uses it), and to the layer list in ARCHITECTURE.md"
    );
}

#[test]
fn no_module_imports_a_higher_layer() {
    let rank = |m: &str| LAYERS.iter().position(|l| *l == m);
    let mut found = Vec::new();
    for (rel, text) in sources() {
        let Some(top) = top_module(&rel) else {
            continue;
        };
        let Some(own) = rank(top) else {
            continue; // reported by every_top_level_module_is_in_the_layer_table
        };
        for (module, line) in imported_modules(&rel, &code_only(&text)) {
            if let Some(theirs) = rank(&module)
                && theirs > own
            {
                found.push(format!(
                    "src/{rel}:{line}: `{top}` imports `{module}`, a higher layer"
                ));
            }
        }
    }
    assert!(
        found.is_empty(),
        "layers (lowest first): {}\n{}",
        LAYERS.join(" → "),
        found.join("\n")
    );
}

/// The modules `src/lib.rs` hides from the API: `pub mod X;` under `#[doc(hidden)]` (other
/// attributes such as `#[cfg(…)]` may stand between).
fn hidden_modules(lib: &str) -> Vec<String> {
    let mut hidden = Vec::new();
    let mut under_hidden = false;
    for line in lib.lines().map(str::trim) {
        if line == "#[doc(hidden)]" {
            under_hidden = true;
        } else if under_hidden && line.starts_with("#[") {
            continue;
        } else {
            if under_hidden
                && let Some(name) = line
                    .strip_prefix("pub mod ")
                    .and_then(|rest| rest.strip_suffix(';'))
            {
                hidden.push(name.to_string());
            }
            under_hidden = false;
        }
    }
    hidden
}

/// Where code reaches into a hidden module of the crate: `primgraph::M::…`, or `M::…`/`M`
/// inside a `primgraph::{…}` group; as (line, module).
fn hidden_paths(code: &str, hidden: &[String]) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for module in hidden {
        for line in token_lines(code, &format!("primgraph::{module}::")) {
            found.push((line, module.clone()));
        }
    }
    for (start, _) in code.match_indices("primgraph::{") {
        let open = start + "primgraph::{".len();
        let (mut depth, mut entry_start) = (1, open);
        let mut entries = Vec::new();
        for (offset, c) in code[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' | ',' if depth == 1 => {
                    entries.push((entry_start, &code[entry_start..open + offset]));
                    entry_start = open + offset + 1;
                    if c == '}' {
                        break;
                    }
                }
                '}' => depth -= 1,
                _ => {}
            }
        }
        for (at, entry) in entries {
            let head = entry.trim().split([':', ' ']).next().unwrap_or("");
            if hidden.iter().any(|m| m == head) {
                let line = code[..at + entry.len() - entry.trim_start().len()]
                    .matches('\n')
                    .count()
                    + 1;
                found.push((line, head.to_string()));
            }
        }
    }
    found.sort();
    found
}

/// The Python binding and the embedding bench are embedders: they use the API (the crate
/// root's items and its public modules), never a `#[doc(hidden)]` module (SPEC §7).
#[test]
fn the_binding_and_embed_bench_use_the_root_only() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lib = std::fs::read_to_string(src().join("lib.rs")).expect("src/lib.rs");
    let hidden = hidden_modules(&code_only(&lib));
    assert!(
        hidden.iter().any(|m| m == "replay") && hidden.iter().any(|m| m == "validate"),
        "the hidden modules of src/lib.rs were not found: {hidden:?}"
    );
    let mut files: Vec<(String, String)> = library_and_binding_sources()
        .into_iter()
        .filter(|(rel, _)| rel.starts_with("python/src/"))
        .collect();
    let bench = "benches/embed.rs";
    let text = std::fs::read_to_string(root.join(bench)).expect("benches/embed.rs");
    files.push((bench.to_string(), text));
    let mut found = Vec::new();
    for (rel, text) in files {
        for (line, module) in hidden_paths(&code_only(&text), &hidden) {
            found.push(format!("{rel}:{line}: primgraph::{module}"));
        }
    }
    assert!(
        found.is_empty(),
        "the binding and the embedding bench use the crate root's API only (add what they need \
         there, documented, with an example); these reach into hidden modules:\n{}",
        found.join("\n")
    );
}

/// The hidden-path scan finds a hidden module named directly or in a `use` group, and not a
/// public module, a root item or prose.
#[test]
fn the_root_only_scan_sees_hidden_paths() {
    let hidden = hidden_modules(
        "#[doc(hidden)]\npub mod replay;\n#[cfg(feature = \"lsp\")]\n#[doc(hidden)]\npub mod lsp;\n\
         pub mod registry;\n",
    );
    assert_eq!(hidden, ["replay", "lsp"]);
    let code = code_only(
        "use primgraph::{Registry, replay::Summary};\n// primgraph::replay::x\n\
         let a = primgraph::registry::LIMITS;\nlet b = primgraph::lsp::serve();\n\
         use primgraph::{\n    Cost,\n    lsp,\n};\n",
    );
    assert_eq!(
        hidden_paths(&code, &hidden),
        [
            (1, "replay".to_string()),
            (4, "lsp".to_string()),
            (7, "lsp".to_string())
        ]
    );
}

/// Where the string literal `"$input"` stands in code (not in a comment, a longer literal or a
/// unit-test module), as line numbers.
fn input_word_literals(text: &str) -> Vec<usize> {
    const LITERAL: &str = "\"$input\"";
    let raw: Vec<char> = text.chars().collect();
    let code: Vec<char> = without_test_modules(&code_only(text)).chars().collect();
    let width = LITERAL.chars().count();
    let mut lines = Vec::new();
    for at in 0..raw.len().saturating_sub(width - 1) {
        let here: String = raw[at..at + width].iter().collect();
        // In code the literal keeps its quotes and only its contents are blanked.
        if here == LITERAL
            && code[at] == '"'
            && code[at + width - 1] == '"'
            && code[at + 1..at + width - 1].iter().all(|c| *c == ' ')
        {
            lines.push(raw[..at].iter().filter(|c| **c == '\n').count() + 1);
        }
    }
    lines
}

/// `"$input"` is a graph-document word: the document module spells it once
/// (`graph::INPUT_WORD`) and the loader turns it into `Source::Input`; everything downstream
/// matches on the enum or names the constant.
#[test]
fn the_input_word_is_spelled_in_the_document_module_only() {
    const ALLOWED: &[&str] = &["src/graph/doc.rs"];
    let mut found = Vec::new();
    let mut seen = false;
    for (rel, text) in library_and_binding_sources() {
        for line in input_word_literals(&text) {
            if ALLOWED.contains(&rel.as_str()) {
                seen = true;
            } else {
                found.push(format!("{rel}:{line}"));
            }
        }
    }
    assert!(
        seen,
        "src/graph/doc.rs no longer spells `\"$input\"`: update this test"
    );
    assert!(
        found.is_empty(),
        "compare a binding's source with `graph::Source::Input` (or name `graph::INPUT_WORD` \
         where the JSON text is read before load), not the literal `\"$input\"`:\n{}",
        found.join("\n")
    );
}

/// The `"$input"` scan counts the literal in code, not in prose, a longer literal or a unit test.
#[test]
fn the_input_word_scan_sees_code_only() {
    let text = "// \"$input\"\nlet a = \"$input\";\nlet b = r#\"{\"from\": \"$input\"}\"#;\n\
                if from == \"$input\" {}\n#[cfg(test)]\nmod tests {\n    const W: &str = \"$input\";\n}\n";
    assert_eq!(input_word_literals(text), vec![2, 4]);
}

/// The scanner itself: comments and literals do not count, code does.
#[test]
fn the_scanner_sees_code_only() {
    let code = code_only(
        "let a = \"println!\"; // println!\n/* std::fs */ let b = '\"'; println!(\"x\");\n",
    );
    assert_eq!(token_lines(&code, "println!"), vec![2]);
    assert!(token_lines(&code, "std::fs").is_empty());
    assert_eq!(token_lines("eprintln!(x)", "println!"), Vec::<usize>::new());
    let imports = imported_modules(
        "graph/load.rs",
        &code_only("use crate::{json::parse, rules};\nlet x = crate::validate::check();"),
    );
    let names: Vec<&str> = imports.iter().map(|(m, _)| m.as_str()).collect();
    assert_eq!(names, ["json", "rules", "validate"]);
}

#[test]
fn every_crate_root_forbids_unsafe_code() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut missing = Vec::new();
    for crate_root in ["src/lib.rs", "src/main.rs", "python/src/lib.rs"] {
        let text = std::fs::read_to_string(root.join(crate_root))
            .unwrap_or_else(|e| panic!("{crate_root}: {e}"));
        if !code_only(&text).contains("#![forbid(unsafe_code)]") {
            missing.push(crate_root);
        }
    }
    assert!(
        missing.is_empty(),
        "crate root(s) without `#![forbid(unsafe_code)]`: {missing:?}"
    );
}

/// The replay room's inner floors (issue 22), lowest first: a file of `src/replay/` may name
/// files of its own and lower floors only. A floor lists file stems relative to `src/replay/`;
/// `codes/*` is every file under `codes/`, which share the engine's floor (the engine's `impl`
/// is split across them: the one circle the room keeps).
const REPLAY_FLOORS: &[&[&str]] = &[
    &["digest"],     // SHA-256, RFC 8785, the graph digest, the task key
    &["trace"],      // the format: header and event parsing, the line reader
    &["seal"],       // keys and signatures of sealed traces
    &["report"],     // a run's report
    &["graph"],      // the graph as replay resolves it
    &["next_node"],  // which node comes next (`Expected`, `select_next`)
    &["schema_gen"], // instances of a schema, for synthetic inputs
    &["writer"],     // the writer a runtime records with, and a `Plan` to write
    &["fault"],      // the injectors' toolkit
    &["step_memo"],  // the checks one step shares between the runs of a pair
    &["engine", "codes/*"],
    &["summary"],      // the monoid
    &["summary_file"], // the summary file, and a summary read back
    &["corpus"],       // a corpus replayed into reports and a summary
    &["pair"],         // one trace replayed against two graphs
    &["render"],       // reports and summaries as text
    &["mod"],          // the room's door: its re-exports
];

/// The floor of a file of the room (its path relative to `src/replay/`), `None` when the table
/// does not name it.
fn replay_floor(file: &str) -> Option<usize> {
    let stem = file.trim_end_matches(".rs");
    REPLAY_FLOORS.iter().position(|floor| {
        floor.iter().any(|name| match name.strip_suffix('*') {
            Some(dir) => stem.starts_with(dir),
            None => *name == stem,
        })
    })
}

/// The inline modules of `code` (already passed through `code_only`): (name, the byte range
/// of its body).
fn inline_modules(code: &str) -> Vec<(String, std::ops::Range<usize>)> {
    let mut found = Vec::new();
    for start in token_lines_offsets(code, "mod") {
        let rest = &code[start + 3..];
        let name: String = rest
            .trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let after = rest.trim_start()[name.len()..].trim_start();
        if name.is_empty() || !after.starts_with('{') {
            continue; // `mod x;`: a file of its own
        }
        let open = start + 3 + (rest.len() - after.len());
        let mut depth = 0usize;
        for (i, c) in code[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        found.push((name.clone(), open..open + i + 1));
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    found
}

/// Byte offsets where `needle` occurs in `code` as a whole token.
fn token_lines_offsets(code: &str, needle: &str) -> Vec<usize> {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    code.match_indices(needle)
        .map(|(start, _)| start)
        .filter(|&start| {
            !code[..start].chars().next_back().is_some_and(ident)
                && !code[start + needle.len()..]
                    .chars()
                    .next()
                    .is_some_and(ident)
        })
        .collect()
}

/// The paths a use tree at the start of `text` names, each as its segments (`a::{b, c::d}`
/// gives `a::b` and `a::c::d`; `self` in a group names the group's prefix).
fn use_paths(text: &str) -> Vec<Vec<String>> {
    fn tree(text: &str, prefix: &[String], out: &mut Vec<Vec<String>>) -> usize {
        let mut path = prefix.to_vec();
        let mut i = 0;
        let bytes = text.as_bytes();
        loop {
            while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            if i < bytes.len() && bytes[i] == b'{' {
                i += 1;
                loop {
                    i += tree(&text[i..], &path, out);
                    while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                        i += 1;
                    }
                    match bytes.get(i) {
                        Some(b',') => i += 1,
                        Some(b'}') => return i + 1,
                        _ => return i,
                    }
                    while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                        i += 1;
                    }
                    if bytes.get(i) == Some(&b'}') {
                        return i + 1;
                    }
                }
            }
            let name: String = text[i..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '*')
                .collect();
            i += name.len();
            if !name.is_empty() {
                path.push(name);
            }
            if text[i..].starts_with("::") {
                i += 2;
                continue;
            }
            if path.len() > prefix.len() {
                out.push(path);
            }
            return i;
        }
    }
    let mut out = Vec::new();
    tree(text, &[], &mut out);
    out
}

/// Every reference from a file of `src/replay/` to another file of the room: (the file named,
/// line). Paths through `crate::replay::`, `super::` and `self::` count (unit-test modules do
/// not); a path is taken to the longest prefix that is a file of the room, so a name the
/// room's `mod.rs` re-exports counts as naming `mod.rs`.
fn replay_room_references(rel: &str, text: &str, room: &[String]) -> Vec<(String, usize)> {
    let code = without_test_modules(&code_only(text));
    let mut module: Vec<String> = rel
        .trim_end_matches(".rs")
        .split('/')
        .map(str::to_string)
        .collect();
    if module.last().is_some_and(|m| m == "mod") {
        module.pop();
    }
    let inline = inline_modules(&code);
    let file_of = |path: &[String]| -> Option<String> {
        (1..=path.len()).rev().find_map(|k| {
            let joined = path[..k].join("/");
            [format!("{joined}.rs"), format!("{joined}/mod.rs")]
                .into_iter()
                .find(|f| room.contains(f))
        })
    };
    let mut found = Vec::new();
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    for head in ["crate::", "super::", "self::"] {
        for (start, _) in code.match_indices(head) {
            let before = code[..start].chars().next_back();
            // `pub(in crate::replay)` is a visibility, not a reference.
            let visibility = code[..start].trim_end().ends_with("(in");
            if before.is_some_and(ident) || code[..start].ends_with("::") || visibility {
                continue;
            }
            let mut base = module.clone();
            base.extend(
                inline
                    .iter()
                    .filter(|(_, body)| body.contains(&start))
                    .map(|(name, _)| name.clone()),
            );
            let mut rest = &code[start..];
            match head {
                "crate::" => {
                    base.clear();
                    rest = &rest["crate::".len()..];
                }
                "self::" => rest = &rest["self::".len()..],
                _ => {
                    while let Some(r) = rest.strip_prefix("super::") {
                        base.pop();
                        rest = r;
                    }
                }
            }
            let line = code[..start].matches('\n').count() + 1;
            for tail in use_paths(rest) {
                let mut path = base.clone();
                path.extend(tail.into_iter().filter(|s| s != "self"));
                if path.first().is_none_or(|m| m != "replay") {
                    continue;
                }
                let target = file_of(&path).unwrap_or_else(|| "replay/mod.rs".to_string());
                if target != rel && !found.contains(&(target.clone(), line)) {
                    found.push((target, line));
                }
            }
        }
    }
    // A module a `use` brought in names files by its own name too (`codes::d616::parse_line`
    // after `use super::codes`).
    let aliases: Vec<(String, Vec<String>)> = found
        .iter()
        .filter_map(|(target, _)| {
            let module: Vec<String> = target
                .trim_end_matches(".rs")
                .trim_end_matches("/mod")
                .split('/')
                .map(str::to_string)
                .collect();
            Some((module.last()?.clone(), module))
        })
        .collect();
    for (name, module) in aliases {
        let token = format!("{name}::");
        for (start, _) in code.match_indices(&token) {
            let before = code[..start].chars().next_back();
            if before.is_some_and(ident) || code[..start].ends_with("::") {
                continue;
            }
            let line = code[..start].matches('\n').count() + 1;
            for tail in use_paths(&code[start + token.len()..]) {
                let mut path = module.clone();
                path.extend(tail.into_iter().filter(|s| s != "self"));
                if let Some(target) = file_of(&path)
                    && target != rel
                    && !found.contains(&(target.clone(), line))
                {
                    found.push((target, line));
                }
            }
        }
    }
    found.sort_by_key(|(_, line)| *line);
    found
}

/// The types (`struct`, `enum`) `code` defines.
fn defined_types(code: &str) -> Vec<String> {
    let mut names = Vec::new();
    for keyword in ["struct", "enum"] {
        for start in token_lines_offsets(code, keyword) {
            let name: String = code[start + keyword.len()..]
                .trim_start()
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                names.push(name);
            }
        }
    }
    names
}

/// The types `code` has `impl` blocks for, with the line of each block and the functions it
/// defines.
fn implemented_types(code: &str) -> Vec<(String, usize, Vec<String>)> {
    let mut found = Vec::new();
    for start in token_lines_offsets(code, "impl") {
        let header = &code[start + 4..];
        let header = &header[..header.find('{').unwrap_or(header.len())];
        // Skip the block's own generics (`impl<'a> X`), then take what follows ` for `.
        let mut rest = header.trim_start();
        if rest.starts_with('<') {
            let mut depth = 0;
            for (i, c) in rest.char_indices() {
                match c {
                    '<' => depth += 1,
                    '>' => {
                        depth -= 1;
                        if depth == 0 {
                            rest = &rest[i + 1..];
                            break;
                        }
                    }
                    _ => {}
                }
            }
        }
        if let Some(i) = rest.find(" for ") {
            rest = &rest[i + 5..];
        }
        let name: String = rest
            .trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if name.is_empty() {
            continue;
        }
        let open = start + 4 + header.len();
        let mut depth = 0usize;
        let mut end = code.len();
        for (i, c) in code[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + i;
                        break;
                    }
                }
                _ => {}
            }
        }
        let body = &code[open.min(end)..end];
        let functions = token_lines_offsets(body, "fn")
            .into_iter()
            .map(|at| {
                body[at + 2..]
                    .trim_start()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect()
            })
            .collect();
        found.push((name, code[..start].matches('\n').count() + 1, functions));
    }
    found
}

/// Whether `code` calls one of `functions` (as a method or through a path).
fn calls_any(code: &str, functions: &[String]) -> bool {
    functions.iter().any(|f| {
        token_lines_offsets(code, f)
            .into_iter()
            .any(|at| code[..at].ends_with('.') || code[..at].ends_with("::"))
    })
}

/// The files of the room (relative to `src/`) and, for each, the files it names.
fn replay_room() -> Vec<(String, Vec<(String, usize)>)> {
    replay_room_at(&src())
}

/// The room of the source tree at `root` (a `src/` directory).
fn replay_room_at(root: &Path) -> Vec<(String, Vec<(String, usize)>)> {
    let files: Vec<(String, String)> = sources_at(root)
        .into_iter()
        .filter(|(rel, _)| rel.starts_with("replay/"))
        .collect();
    let room: Vec<String> = files.iter().map(|(rel, _)| rel.clone()).collect();
    let mut graph: Vec<(String, Vec<(String, usize)>)> = files
        .iter()
        .map(|(rel, text)| (rel.clone(), replay_room_references(rel, text, &room)))
        .collect();
    // A type's `impl` in another file whose functions the type's own file calls is part of
    // that file: it depends on the block's file (the engine calls `RunState`'s checks in
    // `codes/`). A block its file does not call (`Summary::from_json` in `summary_file.rs`)
    // only extends the type from above.
    let code: Vec<String> = files
        .iter()
        .map(|(_, text)| without_test_modules(&code_only(text)))
        .collect();
    let types: Vec<Vec<String>> = code.iter().map(|c| defined_types(c)).collect();
    for (i, (rel, _)) in files.iter().enumerate() {
        for (name, line, functions) in implemented_types(&code[i]) {
            if types[i].contains(&name) {
                continue;
            }
            for j in 0..files.len() {
                if j != i
                    && types[j].contains(&name)
                    && calls_any(&code[j], &functions)
                    && !graph[j].1.contains(&(rel.clone(), line))
                {
                    graph[j].1.push((rel.clone(), line));
                }
            }
        }
    }
    graph
}

/// The strongly connected components of more than one file (Tarjan's algorithm): the room's
/// circles.
fn circles(graph: &[(String, Vec<(String, usize)>)]) -> Vec<Vec<String>> {
    struct Tarjan<'g> {
        edges: Vec<Vec<usize>>,
        names: Vec<&'g str>,
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<String>>,
    }
    impl Tarjan<'_> {
        fn visit(&mut self, v: usize) {
            self.index[v] = Some(self.next);
            self.low[v] = self.next;
            self.next += 1;
            self.stack.push(v);
            self.on_stack[v] = true;
            for w in self.edges[v].clone() {
                match self.index[w] {
                    None => {
                        self.visit(w);
                        self.low[v] = self.low[v].min(self.low[w]);
                    }
                    Some(iw) if self.on_stack[w] => self.low[v] = self.low[v].min(iw),
                    Some(_) => {}
                }
            }
            if Some(self.low[v]) == self.index[v] {
                let mut component = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack[w] = false;
                    component.push(self.names[w].to_string());
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    self.out.push(component);
                }
            }
        }
    }
    let names: Vec<&str> = graph.iter().map(|(f, _)| f.as_str()).collect();
    let edges = graph
        .iter()
        .map(|(_, refs)| {
            refs.iter()
                .filter_map(|(t, _)| names.iter().position(|n| n == t))
                .collect()
        })
        .collect();
    let n = names.len();
    let mut t = Tarjan {
        edges,
        names,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if t.index[v].is_none() {
            t.visit(v);
        }
    }
    t.out
}

/// The references of the room that go up a floor, as messages naming file, line and floors.
fn upward_references(graph: &[(String, Vec<(String, usize)>)]) -> Vec<String> {
    let local = |rel: &str| rel.trim_start_matches("replay/").to_string();
    let mut found = Vec::new();
    for (rel, refs) in graph {
        let Some(own) = replay_floor(&local(rel)) else {
            found.push(format!("src/{rel}: not in `REPLAY_FLOORS`"));
            continue;
        };
        for (target, line) in refs {
            if let Some(theirs) = replay_floor(&local(target))
                && theirs > own
            {
                found.push(format!(
                    "src/{rel}:{line}: names `{}` (floor {theirs}), above its own floor {own}",
                    local(target)
                ));
            }
        }
    }
    found
}

#[test]
fn replay_room_imports_only_lower_floors() {
    let graph = replay_room();
    let found = upward_references(&graph);
    let order: Vec<String> = REPLAY_FLOORS.iter().map(|f| f.join(" + ")).collect();
    assert!(
        found.is_empty(),
        "the replay room's floors (lowest first): {}\n{}",
        order.join(" → "),
        found.join("\n")
    );
}

#[test]
fn the_replay_rooms_one_circle_is_the_engines_impl() {
    let graph = replay_room();
    let stray: Vec<Vec<String>> = circles(&graph)
        .into_iter()
        .filter(|c| {
            !c.iter()
                .all(|f| f == "replay/engine.rs" || f.starts_with("replay/codes/"))
        })
        .collect();
    assert!(
        stray.is_empty(),
        "circles in src/replay/ other than the engine's `impl` across `codes/`: {stray:?}"
    );
}

/// The room's import scanner: `use` trees, `super::` chains, inline modules, and a name the
/// room's door re-exports.
#[test]
fn the_replay_room_scanner_resolves_paths() {
    let room: Vec<String> = [
        "replay/mod.rs",
        "replay/trace.rs",
        "replay/graph.rs",
        "replay/codes/mod.rs",
        "replay/codes/d603_divergence.rs",
        "replay/engine.rs",
        "replay/codes/d604_x.rs",
    ]
    .map(String::from)
    .to_vec();
    let text = "use super::super::{engine::RunState, graph::{NodeIdx, ReplayGraph}};\n\
                use super::d603_divergence::Expected;\n\
                mod inner {\n    use super::*;\n}\n\
                fn f() { crate::replay::trace::parse(); let _ = super::super::Replayer::new(); }\n";
    let refs = replay_room_references("replay/codes/d604_x.rs", text, &room);
    assert_eq!(
        refs,
        [
            ("replay/engine.rs".to_string(), 1),
            ("replay/graph.rs".to_string(), 1),
            ("replay/codes/d603_divergence.rs".to_string(), 2),
            ("replay/trace.rs".to_string(), 6),
            ("replay/mod.rs".to_string(), 6),
        ]
    );
    let graph = vec![
        ("a".to_string(), vec![("b".to_string(), 1)]),
        ("b".to_string(), vec![("a".to_string(), 1)]),
        ("c".to_string(), vec![("a".to_string(), 1)]),
    ];
    assert_eq!(circles(&graph), [["a", "b"]]);
}

/// The before and after figures of issue 22 (run with `--ignored --nocapture`): every upward
/// reference of the room and its circles, in this tree or in the `src/` directory
/// `REPLAY_ROOM_SRC` names (an older tree: `git archive REV src | tar -x -C DIR`).
#[test]
#[ignore = "a report, not a check"]
fn replay_room_figures() {
    let root = std::env::var_os("REPLAY_ROOM_SRC").map_or_else(src, PathBuf::from);
    let graph = replay_room_at(&root);
    let up = upward_references(&graph);
    println!("{} upward references:\n{}", up.len(), up.join("\n"));
    for c in circles(&graph) {
        println!("circle of {} files: {}", c.len(), c.join(", "));
    }
}

// ---------------------------------------------------------------------------------------------
// The code map (ARCHITECTURE.md, "Code map") leads to the file in one hop: one `###` heading
// per top-level module, in layer order; every `src` file over 300 lines named in its module's
// section; every bench, fuzz target and `.ci` script named somewhere in the map.

/// Files longer than this must be named in the code map.
const NAMED_ABOVE_LINES: usize = 300;

fn architecture() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("ARCHITECTURE.md");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The code map's sections, as (the top-level modules its heading names, its text).
fn code_map_sections(doc: &str) -> Vec<(Vec<String>, String)> {
    let start = doc
        .find("## Code map\n")
        .expect("ARCHITECTURE.md has a `## Code map` section");
    let rest = &doc[start + "## Code map\n".len()..];
    let map = &rest[..rest.find("\n## ").unwrap_or(rest.len())];
    map.split("\n### ")
        .skip(1)
        .map(|section| {
            let heading = section.lines().next().unwrap_or_default();
            let modules = heading
                .split('`')
                .skip(1)
                .step_by(2)
                .filter_map(|path| path.strip_prefix("src/"))
                .filter_map(|path| top_module(path.trim_end_matches('/')))
                .map(str::to_string)
                .collect();
            (modules, section.to_string())
        })
        .collect()
}

#[test]
fn the_code_map_has_one_heading_per_module_in_layer_order() {
    let sections = code_map_sections(&architecture());
    let headed: Vec<&str> = sections
        .iter()
        .flat_map(|(modules, _)| modules.iter().map(String::as_str))
        .collect();
    let mut seen = Vec::new();
    for module in headed {
        if !seen.contains(&module) {
            seen.push(module);
        }
    }
    assert_eq!(
        seen,
        LAYERS.to_vec(),
        "ARCHITECTURE.md's code map must have a `### `src/MODULE…`` heading for every top-level \
         module, in the layer order of `LAYERS` (lowest first)"
    );
}

/// How a file is named in its module's section: its path below the module (`pattern/mod.rs`
/// by its folder `pattern/`), or the module's own path for a single-file module.
fn names_in_section(rel: &str) -> Vec<String> {
    let parts: Vec<&str> = rel.split('/').collect();
    match parts.as_slice() {
        [single] => vec![format!("src/{single}")],
        [.., folder, "mod.rs"] => vec![format!("{folder}/"), format!("{folder}/mod.rs")],
        [.., file] => {
            let below = parts[1..].join("/");
            vec![file.to_string(), below]
        }
        [] => Vec::new(),
    }
}

#[test]
fn every_large_source_file_is_named_in_its_module_section() {
    let doc = architecture();
    let sections = code_map_sections(&doc);
    let mut missing = Vec::new();
    for (rel, text) in sources() {
        if text.lines().count() <= NAMED_ABOVE_LINES {
            continue;
        }
        let module = top_module(&rel).map(str::to_string);
        let section = sections
            .iter()
            .find(|(modules, _)| module.as_ref().is_some_and(|m| modules.contains(m)))
            .map(|(_, text)| text.as_str())
            .unwrap_or(&doc);
        let names = names_in_section(&rel);
        if !names
            .iter()
            .any(|name| section.contains(&format!("`{name}`")) || section.contains(name.as_str()))
        {
            missing.push(format!("src/{rel} ({} lines)", text.lines().count()));
        }
    }
    assert!(
        missing.is_empty(),
        "files over {NAMED_ABOVE_LINES} lines not named in their module's section of \
         ARCHITECTURE.md's code map: {missing:#?}"
    );
}

#[test]
fn every_bench_fuzz_target_and_ci_script_is_named_in_the_code_map() {
    let doc = architecture();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut missing = Vec::new();
    for (dir, strip) in [
        ("benches", ".rs"),
        ("fuzz/fuzz_targets", ".rs"),
        (".ci", ""),
    ] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            panic!("{dir}: not a folder");
        };
        for entry in entries {
            let path = entry.expect("a directory entry").path();
            if !path.is_file() {
                continue;
            }
            let name = path.file_name().expect("a file name").to_string_lossy();
            let Some(stem) = name.strip_suffix(strip) else {
                continue;
            };
            if dir == ".ci" && stem.starts_with("requirements-") {
                continue; // named as "the pinned requirements"
            }
            if !doc.contains(&format!("`{stem}`")) && !doc.contains(&format!("{stem}`")) {
                missing.push(format!("{dir}/{name}"));
            }
        }
    }
    missing.sort();
    assert!(
        missing.is_empty(),
        "not named in ARCHITECTURE.md's code map: {missing:#?}"
    );
}

/// One naming scheme for the files that implement a code (ARCHITECTURE.md, "The code table"):
/// `<code>_<slug>.rs`, the code in lower case and a snake_case slug, in every `codes/` folder,
/// `src/rules/` and `src/registry/lint/`.
#[test]
fn every_code_file_is_named_code_and_slug() {
    let mut wrong = Vec::new();
    for (rel, _) in sources() {
        let (folder, name) = rel.rsplit_once('/').unwrap_or(("", rel.as_str()));
        let holds_codes =
            folder.ends_with("codes") || folder == "rules" || folder == "registry/lint";
        if !holds_codes || name == "mod.rs" || name == "shape.rs" {
            continue;
        }
        let stem = name.trim_end_matches(".rs");
        let (code, slug) = stem.split_at(stem.len().min(4));
        let code_ok = code.len() == 4
            && code.as_bytes()[0].is_ascii_lowercase()
            && code[1..].bytes().all(|b| b.is_ascii_digit());
        let slug_ok = slug.len() > 1
            && slug.starts_with('_')
            && slug[1..]
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
        if !(code_ok && slug_ok) {
            wrong.push(format!("src/{rel}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "code files not named `<code>_<slug>.rs` (e.g. `t305_incompatible_binding.rs`): {wrong:#?}"
    );
}

/// The integration tests are one binary (`tests/it/`, ARCHITECTURE.md "tests/"): a file added
/// beside it would quietly become a binary of its own, linking the library again, and a file in
/// `tests/it/` that `main.rs` does not declare would never run.
#[test]
fn the_integration_tests_are_one_binary() {
    const APART: &[&str] = &[
        "registry_alloc.rs",
        "report_browser.rs",
        "validate_memory.rs",
    ];
    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut stray = Vec::new();
    for entry in std::fs::read_dir(&tests).expect("tests/") {
        let path = entry.expect("a directory entry").path();
        let name = path
            .file_name()
            .expect("a name")
            .to_string_lossy()
            .to_string();
        if path.extension().is_some_and(|x| x == "rs") && !APART.contains(&name.as_str()) {
            stray.push(format!("tests/{name}"));
        }
    }
    let main = std::fs::read_to_string(tests.join("it/main.rs")).expect("tests/it/main.rs");
    let declared: Vec<&str> = main
        .lines()
        .filter_map(|l| l.trim().strip_prefix("mod ")?.strip_suffix(';'))
        .collect();
    for entry in std::fs::read_dir(tests.join("it")).expect("tests/it/") {
        let path = entry.expect("a directory entry").path();
        let name = path
            .file_name()
            .expect("a name")
            .to_string_lossy()
            .to_string();
        let module = if path.is_dir() {
            if !path.join("mod.rs").exists() {
                continue; // `snapshots/`
            }
            name.clone()
        } else if let Some(stem) = name.strip_suffix(".rs") {
            if stem == "main" {
                continue;
            }
            stem.to_string()
        } else {
            continue;
        };
        if !declared.contains(&module.as_str()) {
            stray.push(format!(
                "tests/it/{name} (not declared in tests/it/main.rs)"
            ));
        }
    }
    stray.sort();
    assert!(
        stray.is_empty(),
        "a test file outside the one binary: move it to tests/it/ and declare it with `mod` in \
         tests/it/main.rs (only {APART:?} stay apart): {stray:#?}"
    );
}
