//! The repository as a pre-commit hook source: the real `pre-commit` (pinned in
//! `.ci/requirements-precommit.txt`) runs this repository's `primgraph-validate` hook
//! (`pre-commit try-repo`, which clones the working tree locally: no network) in a temporary git
//! repository holding a good and a bad graph, and passes on the good one and fails on the bad.
//! Needs `pre-commit` and `git` on PATH; see `external_tool`.

use crate::external_tool;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

fn run(dir: &Path, program: &Path, args: &[&str], path_with_primgraph: &str) -> (bool, String) {
    let mut child = Command::new(program)
        .args(args)
        .current_dir(dir)
        .env("PATH", path_with_primgraph)
        .env("PRE_COMMIT_HOME", dir.join(".pre-commit-home"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{}: {e}", program.display()));
    let mut stdout = child.stdout.take().expect("stdout");
    let mut stderr = child.stderr.take().expect("stderr");
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut s).ok();
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut stderr, &mut s).ok();
        s
    });
    let status = external_tool::wait_bounded(&mut child, Duration::from_secs(300));
    let text = format!(
        "{}{}",
        out.join().unwrap_or_default(),
        err.join().unwrap_or_default()
    );
    (status.success(), text)
}

#[test]
fn the_hook_passes_a_good_graph_and_fails_a_bad_one() {
    let test = "the_hook_passes_a_good_graph_and_fails_a_bad_one";
    let Some(pre_commit) = external_tool::find("pre-commit", test) else {
        return;
    };
    let Some(git) = external_tool::find("git", test) else {
        return;
    };
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_primgraph"))
        .parent()
        .expect("bin dir");
    let path = std::env::join_paths(std::iter::once(bin_dir.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .expect("PATH")
    .to_string_lossy()
    .into_owned();

    let dir = tempfile::tempdir().expect("temp dir");
    let work = dir.path();
    std::fs::copy(
        repo.join("graphs/fix-failing-test.graph.json"),
        work.join("good.graph.json"),
    )
    .expect("good graph");
    std::fs::copy(
        repo.join("tests/fixtures/editor/grant-bypass.graph.json"),
        work.join("bad.graph.json"),
    )
    .expect("bad graph");
    for args in [
        &["init", "-q"][..],
        &[
            "-c",
            "user.email=t@example.com",
            "-c",
            "user.name=t",
            "add",
            ".",
        ][..],
    ] {
        let (ok, text) = run(work, &git, args, &path);
        assert!(ok, "git {args:?}: {text}");
    }
    let repo_arg = repo.to_string_lossy().into_owned();
    let hook = |file: &str| {
        run(
            work,
            &pre_commit,
            &["try-repo", &repo_arg, "primgraph-validate", "--files", file],
            &path,
        )
    };
    let (ok, text) = hook("good.graph.json");
    assert!(ok, "the good graph fails the hook:\n{text}");
    assert!(
        text.contains("primgraph validate") && text.contains("Passed"),
        "{text}"
    );
    let (ok, text) = hook("bad.graph.json");
    assert!(!ok, "the bad graph passes the hook:\n{text}");
    assert!(text.contains("A402"), "{text}");
}
