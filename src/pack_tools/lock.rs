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
use crate::pack::{Range, is_pack_name, parse_range};
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
        let mut parsed = match crate::json::parse(&bytes, &crate::json::Limits::default()) {
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
        let value = std::mem::take(&mut parsed.value);
        // A graph that uses fragments is not a loadable document until it is expanded, and
        // expansion needs the packs this resolves: read its `packs` member alone (validation
        // reports the rest).
        let packs = if crate::pack::fragment_expand::has_uses(&value) {
            let mut packs = crate::graph::doc::SmallMap::new();
            if let Some(serde_json::Value::Object(members)) = value.get("packs") {
                for (name, range) in members {
                    if let Some(range) = range.as_str() {
                        packs.insert(name.clone(), range.to_string());
                    }
                }
            }
            packs
        } else {
            match crate::graph::load::load_owned(value) {
                Ok(doc) => doc.packs,
                Err(errors) => {
                    let mut ds: Vec<_> = errors
                        .iter()
                        .map(rules::g003_document_shape::diagnostic)
                        .collect();
                    crate::diagnostic::resolve(&mut ds, &parsed);
                    for d in ds {
                        out.findings.push(&shown, Some(parsed.source_arc()), d);
                    }
                    continue;
                }
            }
        };
        if packs.is_empty() {
            continue;
        }
        out.with_packs += 1;
        let mut requests = Vec::new();
        let mut bad = Vec::new();
        for (name, text) in packs.iter() {
            let pointer = crate::json::pointer::push("/packs", name);
            if !is_pack_name(name) {
                bad.push(codes::G003.at(
                    pointer,
                    format!("pack name {name:?} must match ^[a-z][a-z0-9-]*$"),
                ));
                continue;
            }
            match parse_range(text) {
                Some(req) => requests.push((
                    name.clone(),
                    Range {
                        text: text.clone(),
                        req,
                        pointer,
                    },
                )),
                None => bad.push(codes::G003.at(
                    pointer,
                    format!(
                        "{text:?} is not a semver range (e.g. \"^1.2\", \"~1.2.3\", \">=1.0, <2\")"
                    ),
                )),
            }
        }
        if !bad.is_empty() {
            crate::diagnostic::resolve(&mut bad, &parsed);
            for d in bad {
                out.findings.push(&shown, Some(parsed.source_arc()), d);
            }
            continue;
        }
        match composer.resolve(&shown, &requests) {
            Ok(resolution) => out.builder.add(&resolution, lock_dir),
            Err(located) => out.findings.extend_located(located, &shown, Some(&parsed)),
        }
    }
    Ok(out)
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
