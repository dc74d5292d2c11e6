//! Tests that drive an external tool (Neovim, pre-commit) find it on PATH. When it is missing
//! they fail under CI (the `CI` variable is set: `.ci/run` installs them) and otherwise print a
//! loud skip, so a developer without the tool still sees that nothing was tested.

#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Child, ExitStatus};
use std::time::{Duration, Instant};

/// The tool's path, or `None` after announcing the skip (panics under CI).
pub fn find(tool: &str, test: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let found = std::env::split_paths(&path)
        .map(|dir| dir.join(tool))
        .find(|candidate| candidate.is_file());
    if found.is_none() {
        if std::env::var_os("CI").is_some() {
            panic!("{test}: `{tool}` is not on PATH, and CI is set: the CI script must install it");
        }
        eprintln!();
        eprintln!("======================================================================");
        eprintln!("SKIPPED {test}: `{tool}` is not on PATH (install it to run this test)");
        eprintln!("======================================================================");
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
