//! The documentation's transcripts are run and compared with what the tool prints, so a README
//! example cannot drift from the tool.
//!
//! # The convention (any section of `README.md`, `graphs/runs/README.md` or `docs/*.md` can opt in)
//!
//! - A fenced block tagged `console` is a transcript. Each line starting with `$ ` is a command;
//!   the lines after it, up to the next `$ ` line or the end of the block, are its expected
//!   standard output, line for line (stderr is not compared).
//! - Commands run with `sh -c` from the repository root, with the `primgraph` under test first on
//!   `PATH`. `/tmp/` in a command names a fresh folder per block (so blocks share no files and
//!   leave none behind), and that folder is written back as `/tmp/` in the output.
//! - A command ending in `# exit N` must exit with status N; any other must exit 0.
//! - An expected line that is exactly `…` matches any number of lines (a shortened output).
//! - Rendered output (Markdown that is not in a code block) is checked between
//!   `<!-- output of: $ COMMAND -->` and `<!-- end of output -->`: the lines between are the
//!   command's output, with the same rules.
//!
//! Blocks tagged `sh`, `text` or anything else are not run.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// One command and what it must print.
#[derive(Debug)]
struct Example {
    /// `FILE:LINE` of the command, for the failure message.
    at: String,
    command: String,
    exit: i32,
    expected: Vec<String>,
    /// Which block it belongs to (commands of one block share a `/tmp/` folder).
    block: usize,
}

/// `cmd  # exit 1` → (`cmd`, 1).
fn split_exit(line: &str) -> (String, i32) {
    if let Some((command, comment)) = line.rsplit_once("# exit ")
        && let Ok(code) = comment.trim().parse()
    {
        return (command.trim_end().to_string(), code);
    }
    (line.trim_end().to_string(), 0)
}

fn examples_in(file: &Path, block_base: usize) -> Vec<Example> {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let shown = file
        .strip_prefix(root())
        .unwrap_or(file)
        .display()
        .to_string();
    let mut out: Vec<Example> = Vec::new();
    let mut block = block_base;
    let mut in_console = false;
    let mut in_other_fence = false;
    let mut rendered = false;
    for (number, line) in text.lines().enumerate() {
        let number = number + 1;
        let fence = line.trim_start().starts_with("```");
        if in_console {
            if fence {
                in_console = false;
                continue;
            }
            if let Some(command) = line.strip_prefix("$ ") {
                let (command, exit) = split_exit(command);
                out.push(Example {
                    at: format!("{shown}:{number}"),
                    command,
                    exit,
                    expected: Vec::new(),
                    block,
                });
            } else if let Some(last) = out.last_mut() {
                last.expected.push(line.to_string());
            }
            continue;
        }
        if in_other_fence {
            in_other_fence = !fence;
            continue;
        }
        if rendered {
            if line.trim() == "<!-- end of output -->" {
                rendered = false;
            } else if let Some(last) = out.last_mut() {
                last.expected.push(line.to_string());
            }
            continue;
        }
        if fence {
            let tag = line.trim_start().trim_start_matches('`').trim();
            block += 1;
            if tag == "console" {
                in_console = true;
            } else {
                in_other_fence = true;
            }
            continue;
        }
        if let Some(rest) = line.trim().strip_prefix("<!-- output of: $ ")
            && let Some(command) = rest.strip_suffix("-->")
        {
            block += 1;
            let (command, exit) = split_exit(command.trim());
            out.push(Example {
                at: format!("{shown}:{number}"),
                command,
                exit,
                expected: Vec::new(),
                block,
            });
            rendered = true;
        }
    }
    out
}

/// Do `actual` lines match `expected` lines, where an expected `…` line matches any run of lines?
fn lines_match(expected: &[String], actual: &[&str]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((first, rest)) if first == "…" => {
            (0..=actual.len()).any(|skip| lines_match(rest, &actual[skip..]))
        }
        Some((first, rest)) => {
            actual.first().is_some_and(|a| a == first) && lines_match(rest, &actual[1..])
        }
    }
}

fn documents() -> Vec<PathBuf> {
    let mut files = vec![
        root().join("README.md"),
        root().join("graphs/runs/README.md"),
    ];
    if let Ok(entries) = std::fs::read_dir(root().join("docs")) {
        let mut docs: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "md"))
            .collect();
        docs.sort();
        files.extend(docs);
    }
    files
}

#[test]
fn every_transcript_in_the_docs_prints_what_it_shows() {
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_primgraph"))
        .parent()
        .expect("the binary's folder")
        .to_path_buf();
    let path = std::env::join_paths(std::iter::once(bin_dir).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .expect("PATH");
    let mut examples = Vec::new();
    for (i, file) in documents().iter().enumerate() {
        examples.extend(examples_in(file, i * 100_000));
    }
    let readme_examples = examples
        .iter()
        .filter(|e| e.at.starts_with("README.md"))
        .count();
    assert!(
        readme_examples >= 5,
        "the README's transcripts were found: {examples:#?}"
    );
    let mut failures = Vec::new();
    let mut folders: std::collections::BTreeMap<usize, tempfile::TempDir> = Default::default();
    for example in &examples {
        let folder = folders
            .entry(example.block)
            .or_insert_with(|| tempfile::tempdir().expect("temp dir"));
        let tmp = format!("{}/", folder.path().display());
        let command = example.command.replace("/tmp/", &tmp);
        let out = Command::new("sh")
            .arg("-c")
            .arg(&command)
            .current_dir(root())
            .env("PATH", &path)
            .env("NO_COLOR", "1")
            .env_remove("CI")
            .output()
            .unwrap_or_else(|e| panic!("{}: cannot run sh: {e}", example.at));
        let stdout = String::from_utf8_lossy(&out.stdout).replace(&tmp, "/tmp/");
        let mut expected = example.expected.clone();
        while expected.last().is_some_and(|l| l.is_empty()) {
            expected.pop();
        }
        let actual: Vec<&str> = stdout.trim_end_matches('\n').lines().collect();
        let actual: Vec<&str> = if stdout.trim().is_empty() {
            Vec::new()
        } else {
            actual
        };
        let code = out.status.code().unwrap_or(-1);
        if code != example.exit || !lines_match(&expected, &actual) {
            failures.push(format!(
                "{}: $ {}\nexit {code} (expected {})\n--- expected\n{}\n--- actual\n{}\n--- stderr\n{}",
                example.at,
                example.command,
                example.exit,
                expected.join("\n"),
                actual.join("\n"),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} documented commands do not print what the docs show:\n\n{}",
        failures.len(),
        examples.len(),
        failures.join("\n\n")
    );
}

#[test]
fn the_matcher_reads_the_convention() {
    let e = |lines: &[&str]| lines.iter().map(|l| l.to_string()).collect::<Vec<_>>();
    assert!(lines_match(&e(&["a", "…", "d"]), &["a", "b", "c", "d"]));
    assert!(lines_match(&e(&["a", "…"]), &["a"]));
    assert!(!lines_match(&e(&["a", "…", "d"]), &["a", "b", "c"]));
    assert!(!lines_match(&e(&["a"]), &["a", "b"]));
    assert_eq!(
        split_exit("primgraph x   # exit 1"),
        ("primgraph x".into(), 1)
    );
    assert_eq!(split_exit("primgraph x"), ("primgraph x".into(), 0));
}
