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
    "replay",     // traces, replay, simulation, summaries
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
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    files
        .into_iter()
        .map(|path| {
            let rel = path
                .strip_prefix(src())
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

#[test]
fn only_the_binary_prints() {
    let mut found = Vec::new();
    for (rel, text) in sources() {
        if rel == "main.rs" || rel.starts_with("cli/") {
            continue;
        }
        let code = code_only(&text);
        for needle in [
            "print!",
            "println!",
            "eprint!",
            "eprintln!",
            "dbg!",
            "io::stdout",
            "io::stderr",
        ] {
            for line in token_lines(&code, needle) {
                found.push(format!("src/{rel}:{line}: {needle}"));
            }
        }
    }
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
    let mut found = Vec::new();
    for (rel, text) in sources() {
        if !pure(&rel) {
            continue;
        }
        let code = code_only(&text);
        for needle in [
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
        ] {
            for line in token_lines(&code, needle) {
                found.push(format!("src/{rel}:{line}: {needle}"));
            }
        }
    }
    assert!(
        found.is_empty(),
        "rules and the replay engine are pure functions of their inputs (no file system, no \
         clock, no printing):\n{}",
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
         `open_regular`; `primgraph::input::…` in python/src/): they refuse a FIFO or device and \
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
