//! `--help` describes everything, for every subcommand the binary has (walked from `primgraph
//! -h`, so a new subcommand is checked too): every option and argument has a description, every
//! `--format` value says what it writes, `--registry` is always `<FILE>`, and `compare --help`
//! names the metrics `--fail-on` accepts.

use std::process::Command;

fn help(path: &[&str], flag: &str) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_primgraph"))
        .args(path)
        .arg(flag)
        .output()
        .expect("run primgraph");
    assert!(out.status.success(), "{path:?} {flag}");
    String::from_utf8(out.stdout).expect("UTF-8 help")
}

/// The lines of one section (`Commands:`, `Options:`, `Arguments:`) of a short help.
fn section<'h>(text: &'h str, title: &str) -> Vec<&'h str> {
    let mut lines = text.lines().skip_while(|l| *l != title);
    lines.next();
    lines.take_while(|l| !l.is_empty()).collect()
}

/// Every command path with no further subcommands: `["replay"]`, `["graph", "diff"]`, …
fn leaf_commands() -> Vec<Vec<String>> {
    let mut leaves = Vec::new();
    let mut todo: Vec<Vec<String>> = vec![Vec::new()];
    while let Some(path) = todo.pop() {
        let args: Vec<&str> = path.iter().map(String::as_str).collect();
        let text = help(&args, "-h");
        let subcommands: Vec<String> = section(&text, "Commands:")
            .iter()
            .filter_map(|l| l.split_whitespace().next())
            .filter(|name| *name != "help")
            .map(String::from)
            .collect();
        if subcommands.is_empty() {
            leaves.push(path);
        } else {
            for name in subcommands {
                let mut next = path.clone();
                next.push(name);
                todo.push(next);
            }
        }
    }
    leaves.sort();
    leaves
}

#[test]
fn every_option_and_argument_of_every_command_is_described() {
    let leaves = leaf_commands();
    assert!(leaves.len() >= 15, "{leaves:?}");
    let mut undescribed = Vec::new();
    for path in &leaves {
        let args: Vec<&str> = path.iter().map(String::as_str).collect();
        let text = help(&args, "-h");
        for title in ["Options:", "Arguments:"] {
            for line in section(&text, title) {
                // `      --runs <N>  How many runs …`: the flag, two spaces, the description.
                let trimmed = line.trim_start();
                if !trimmed.starts_with('-')
                    && !trimmed.starts_with('<')
                    && !trimmed.starts_with('[')
                {
                    continue; // a wrapped description line
                }
                // The description, not only `[default: …]` / `[possible values: …]`.
                let described = trimmed
                    .split_once("  ")
                    .is_some_and(|(_, rest)| !rest.trim_start().starts_with('['));
                if !described {
                    undescribed.push(format!("{}: {trimmed}", path.join(" ")));
                }
            }
        }
        // Every `--format` value is described (the long help lists them one a line).
        if text.contains("--format") {
            let long = help(&args, "--help");
            let values: Vec<&str> = long
                .lines()
                .skip_while(|l| !l.trim_start().starts_with("--format"))
                .skip_while(|l| !l.contains("Possible values:"))
                .skip(1)
                .take_while(|l| l.trim_start().starts_with("- "))
                .collect();
            assert!(
                !values.is_empty(),
                "{}: --format lists its values:\n{long}",
                path.join(" ")
            );
            for value in values {
                if !value.contains(": ") {
                    undescribed.push(format!(
                        "{} --format value {}",
                        path.join(" "),
                        value.trim()
                    ));
                }
            }
        }
        if text.contains("--registry") {
            assert!(
                text.contains("--registry <FILE>"),
                "{}: one placeholder for --registry:\n{text}",
                path.join(" ")
            );
        }
    }
    assert!(
        undescribed.is_empty(),
        "undescribed in --help:\n{}",
        undescribed.join("\n")
    );
}

#[test]
fn compare_help_names_the_metrics_fail_on_accepts() {
    let text = help(&["compare"], "--help");
    let fail_on: String = text
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("--fail-on"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    for metric in [
        "failure_rate",
        "faithful_rate",
        "mean_spend_usd",
        "mean_steps",
        "paired_success",
        "success_rate",
    ] {
        assert!(fail_on.contains(metric), "{metric} in: {fail_on}");
    }
    assert!(fail_on.contains("not visits_per_run"), "{fail_on}");
    let simulate = help(&["simulate"], "-h");
    assert!(
        simulate.contains("--runs <N>") && simulate.contains("--seed <S>"),
        "{simulate}"
    );
}
