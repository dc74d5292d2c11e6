//! `pack lock` (SPEC §9.2): resolve the `packs` of every graph under the given paths on the
//! pack path — afresh, never through an existing lock — and build the `primgraph.lock`
//! document (`crate::pack::lock::LockBuilder`: packs sorted by name and version, `path`
//! relative to the lock's folder, `requested` keyed by graph file or `pack@version`). A graph
//! that does not read, a range no pack satisfies (P804), a cycle (P805), a broken pack: the
//! finding is located and the lock is not written (a lock of half the graphs would pass CI
//! for the other half).

use super::{Findings, ToolError};
use crate::codes;
use crate::pack::compose::Composer;
use crate::pack::lock::LockBuilder;
use crate::rules;
use std::path::{Path, PathBuf};

/// The lock built from a set of graphs.
#[derive(Debug)]
pub struct Locked {
    pub findings: Findings,
    pub builder: LockBuilder,
    /// The graph files read.
    pub graphs: usize,
    /// Of those, the ones that declare packs.
    pub with_packs: usize,
}

/// Resolve the packs of the graphs under `paths` (files, or folders searched for
/// `*.graph.json`) with `composer` (built without a lock), for a lock in `lock_dir`.
pub fn lock(paths: &[PathBuf], composer: &Composer, lock_dir: &Path) -> Result<Locked, ToolError> {
    let files =
        crate::validate::collect_paths(paths).map_err(|e| ToolError::Input(e.to_string()))?;
    let mut out = Locked {
        findings: Findings::new(),
        builder: LockBuilder::default(),
        graphs: files.len(),
        with_packs: 0,
    };
    for file in &files {
        let shown = file.display().to_string();
        let bytes = crate::input::read_capped(file, crate::json::Limits::default().max_bytes)
            .map_err(|e| ToolError::Input(e.to_string()))?;
        let parsed = match crate::json::parse(&bytes, &crate::json::Limits::default()) {
            Ok(p) => p,
            Err(e) => {
                let source = std::sync::Arc::from(String::from_utf8_lossy(&bytes).as_ref());
                out.findings.push(
                    &shown,
                    Some(source),
                    rules::g001_invalid_json::diagnostic(&e),
                );
                continue;
            }
        };
        // Only `packs` matters here, read before loading: a graph that uses fragments loads
        // only once expanded, and its other findings are `validate`'s to report.
        let mut bad = packs_shape(&parsed.value);
        let (requests, malformed) =
            crate::validate::requests_of(&crate::validate::declared_packs(&parsed.value));
        bad.extend(malformed);
        if !bad.is_empty() {
            crate::diagnostic::resolve(&mut bad, &parsed);
            for d in bad {
                out.findings.push(&shown, Some(parsed.source_arc()), d);
            }
            continue;
        }
        if requests.is_empty() {
            continue;
        }
        out.with_packs += 1;
        match composer.resolve(&shown, &requests) {
            Ok(resolution) => out.builder.add(&resolution, lock_dir),
            Err(located) => out.findings.extend_located(located, &shown, Some(&parsed)),
        }
    }
    Ok(out)
}

/// G003 for a `packs` member that is not an object of strings (SPEC §2).
fn packs_shape(value: &serde_json::Value) -> Vec<crate::diagnostic::Diagnostic> {
    match value.get("packs") {
        None | Some(serde_json::Value::Null) => Vec::new(),
        Some(serde_json::Value::Object(members)) => members
            .iter()
            .filter(|(_, range)| !range.is_string())
            .map(|(name, range)| {
                codes::G003.at(
                    crate::json::pointer::push("/packs", name),
                    format!(
                        "a `packs` range is a string (e.g. \"^1.2\"), not {}",
                        crate::graph::load::type_name(range)
                    ),
                )
            })
            .collect(),
        Some(other) => vec![codes::G003.at(
            "/packs",
            format!(
                "`packs` is an object (pack name → semver range), not {}",
                crate::graph::load::type_name(other)
            ),
        )],
    }
}

/// Write `text` to `path` through a temporary file beside it, renamed into place (a reader
/// never sees half a lock).
pub fn write_atomically(path: &Path, text: &str) -> Result<(), ToolError> {
    let err = |e: std::io::Error| ToolError::Write {
        path: path.display().to_string(),
        message: e.to_string(),
    };
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, text).map_err(err)?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        err(e)
    })
}
