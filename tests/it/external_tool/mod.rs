//! Tests that drive an external tool (Neovim, pre-commit) or an external file (the official
//! SARIF schema) find it first. When it is missing the test fails under CI (`CI` set to anything
//! but `""`, `0` or `false`: `.ci/run` and `.ci/test` install everything), and elsewhere it is
//! skipped visibly: libtest reports the test `ok` and hides its stderr, so the skip is also
//! appended to `target/tmp/primgraph-skipped.txt`, which `.ci/test` empties before the tests and
//! prints after them ("N checks did not run: …").

#![allow(dead_code)]

use std::io::Write;
use std::path::PathBuf;
use std::process::{Child, ExitStatus};
use std::time::{Duration, Instant};

/// Where skips are recorded for `.ci/test` to print (cargo's per-target scratch folder).
pub const SKIPPED_FILE: &str = concat!(env!("CARGO_TARGET_TMPDIR"), "/primgraph-skipped.txt");

/// Is this a CI run, where a skipped check is a failure?
pub fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !matches!(v.trim(), "" | "0" | "false" | "False" | "FALSE"))
}

/// Skip `test` because `why`: panics under CI; elsewhere says so on stderr and records it.
pub fn skip(test: &str, why: &str) {
    if under_ci() {
        panic!("{test}: {why}, and CI is set: the CI script must provide it");
    }
    eprintln!();
    eprintln!("======================================================================");
    eprintln!("SKIPPED {test}: {why}");
    eprintln!("======================================================================");
    let recorded = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(SKIPPED_FILE)
        .and_then(|mut f| writeln!(f, "{test}: {why}"));
    if let Err(e) = recorded {
        eprintln!("(could not record the skip in {SKIPPED_FILE}: {e})");
    }
}

/// The tool's path, or `None` after announcing the skip (panics under CI).
pub fn find(tool: &str, test: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let found = std::env::split_paths(&path)
        .map(|dir| dir.join(tool))
        .find(|candidate| candidate.is_file());
    if found.is_none() {
        skip(
            test,
            &format!("`{tool}` is not on PATH (install it to run this test)"),
        );
    }
    found
}

/// Wait for `child`, killing it after `limit`.
pub fn wait_bounded(child: &mut Child, limit: Duration) -> ExitStatus {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            return status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the tool did not finish within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}
