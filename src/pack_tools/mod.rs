//! What the `primgraph pack` subcommands do (SPEC §9.2, §9.5, §9.7), as library functions so the
//! command line stays thin: [`lock`] (resolve the packs of graphs into `primgraph.lock`),
//! [`sign`] (`pack.sig` with a §4.1 key), [`show`] (a pack's contents, derived capability
//! requirements and environment), [`lint`] (P8xx and L5xx of one pack, its rules' P840/P841 and
//! its plugins' P870–P872, located in `pack.json`) and [`fixtures`] (`pack test`: lint, validate
//! every fixture graph, replay every recorded run and compare it with `expect.json`, P850).
//!
//! This layer sits above `replay` because `pack test` validates and replays; `crate::pack`
//! below it loads, resolves and composes, and knows nothing of the commands. Every finding is a
//! located [`Diagnostic`] in a [`FileReport`] of the file it is in, so the §3.1 renderers print
//! it. Choices where the spec is silent: `docs/pack-commands.md`.

pub mod codes;
pub mod fixtures;
pub mod lint;
pub mod lock;
pub mod show;
pub mod sign;

use crate::diagnostic::{Diagnostic, FileReport};
use crate::pack::compose::Located;
use crate::pack::{Pack, PackErrors};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

/// Why a pack command could not run at all (exit 2): not a pack directory, an unreadable
/// key, a file that cannot be written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ToolError {
    #[error("{0}: not a pack directory (no pack.json)")]
    NotAPack(String),
    #[error("{0}")]
    Input(String),
    #[error("cannot write {path}: {message}")]
    Write { path: String, message: String },
}

/// Check that `dir` is a folder holding a `pack.json`. A `pack.json` that is not a regular file
/// (a symbolic link, a FIFO) is still a pack's: the loader reports it as a located P801 (exit
/// 1) without opening it, rather than "not a pack" (exit 2).
pub fn require_pack_dir(dir: &Path) -> Result<(), ToolError> {
    let shown = dir.display().to_string();
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => return Err(ToolError::NotAPack(shown)),
        Err(e) => return Err(ToolError::Input(format!("{shown}: {e}"))),
    }
    match std::fs::symlink_metadata(dir.join(crate::pack::MANIFEST)) {
        Ok(m) if !m.is_dir() => Ok(()),
        _ => Err(ToolError::NotAPack(shown)),
    }
}

/// Findings gathered file by file; rendered as one [`FileReport`] per file, the files sorted
/// by path and each file's diagnostics sorted (SPEC §3.1: by file, line, column, code), each
/// with the text the human renderer quotes.
#[derive(Debug, Default)]
pub struct Findings {
    by_file: BTreeMap<String, (Vec<Diagnostic>, Option<Arc<str>>)>,
    graphs: BTreeMap<String, String>,
}

impl Findings {
    pub fn new() -> Findings {
        Findings::default()
    }

    fn slot(&mut self, file: &str) -> &mut (Vec<Diagnostic>, Option<Arc<str>>) {
        self.by_file.entry(file.to_string()).or_default()
    }

    /// Make sure `file` has a report (even an empty one: a clean file is listed).
    pub fn touch(&mut self, file: &str, source: Option<Arc<str>>) {
        let slot = self.slot(file);
        if slot.1.is_none() {
            slot.1 = source;
        }
    }

    /// The whole report of a validated graph (its name, source and diagnostics). A finding it
    /// locates in another file that is reported there already is left out: `pack test`
    /// validates fixture graphs after linting the pack, and a graph reaches the pack's
    /// fragment files through its uses, so their findings come back (SPEC §3.1: once).
    pub fn push_report(&mut self, report: FileReport) {
        self.touch(&report.file, Some(report.source.clone()));
        if let Some(graph) = report.graph {
            self.graphs.insert(report.file.clone(), graph);
        }
        for d in report.diagnostics {
            let known = d.file.as_ref().is_some_and(|f| {
                *f != report.file
                    && self.by_file.get(f).is_some_and(|(ds, _)| {
                        ds.iter().any(|o| {
                            (&o.code, &o.pointer, &o.message, o.line, o.column)
                                == (&d.code, &d.pointer, &d.message, d.line, d.column)
                        })
                    })
            });
            if !known {
                self.slot(&report.file).0.push(d);
            }
        }
    }

    /// A located diagnostic in `file`.
    pub fn push(&mut self, file: &str, source: Option<Arc<str>>, d: Diagnostic) {
        self.touch(file, source);
        self.slot(file).0.push(d);
    }

    /// A diagnostic in a pack's `pack.json`, its pointer resolved there.
    pub fn push_in_pack(&mut self, pack: &Pack, d: Diagnostic) {
        let located = Located::in_pack(pack, d);
        self.push(
            &pack.manifest,
            Some(pack.source.source_arc()),
            located.diagnostic,
        );
    }

    /// Findings of composition: in a pack file (located), or `None`, meaning `default_file`
    /// (whose parsed source resolves the pointer).
    pub fn extend_located(
        &mut self,
        located: Vec<Located>,
        default_file: &str,
        default_source: Option<&crate::json::Parsed>,
    ) {
        for Located { file, diagnostic } in located {
            match file {
                Some(f) => self.push(&f, None, diagnostic),
                None => {
                    let mut d = diagnostic;
                    if let Some(parsed) = default_source {
                        crate::diagnostic::resolve(std::slice::from_mut(&mut d), parsed);
                    }
                    self.push(default_file, default_source.map(|p| p.source_arc()), d);
                }
            }
        }
    }

    /// The findings of a pack that did not load.
    pub fn extend_errors(&mut self, errors: PackErrors) {
        for report in errors.reports {
            let source = (!report.source.is_empty()).then(|| report.source.clone());
            self.touch(&report.file, source);
            for d in report.diagnostics {
                self.slot(&report.file).0.push(d);
            }
        }
    }

    /// Whether any diagnostic of error severity was found.
    pub fn has_errors(&self) -> bool {
        self.by_file.values().any(|(ds, _)| {
            ds.iter()
                .any(|d| d.severity == crate::codes::Severity::Error && !d.is_suppressed())
        })
    }

    /// One report per file, by path; the source of a file not given one is read (for the
    /// human renderer's quoted line; a file that cannot be read quotes nothing).
    pub fn into_reports(self) -> Vec<FileReport> {
        let mut graphs = self.graphs;
        self.by_file
            .into_iter()
            .map(|(file, (mut diagnostics, source))| {
                crate::diagnostic::sort(&mut diagnostics);
                let source = source.unwrap_or_else(|| quoted_source(Path::new(&file)));
                FileReport {
                    graph: graphs.remove(&file),
                    file,
                    diagnostics,
                    source,
                }
            })
            .collect()
    }
}

/// The text of a file a finding is in, for the human renderer's quoted line: read only when it
/// is a regular file itself — a symbolic link in a pack is a finding (P801), and following it
/// would print the first line of whatever it points at (`/etc/passwd`).
/// `pack` composed with the packs it requires, resolved on a pack path whose first entry is
/// its own folder, then `pack_path`: what `pack lint` checks it against and `pack show` reads
/// its nested fragments from.
pub fn compose_with_requirements(
    pack: &Pack,
    base: crate::pack::compose::Base,
    pack_path: &[std::path::PathBuf],
    trusted: Vec<String>,
) -> Result<Arc<crate::pack::compose::Composition>, Vec<Located>> {
    use crate::pack::compose::{Composer, ComposerOptions};
    let mut path = vec![pack.dir.clone()];
    path.extend(pack_path.iter().cloned());
    let composer = Composer::new(
        base,
        crate::pack::path::PackPath::scan(&path),
        ComposerOptions {
            trusted,
            lock: None,
            locked: false,
        },
    );
    let version = format!("={}", pack.version);
    let Some(req) = crate::pack::parse_range(&version) else {
        return Err(Vec::new());
    };
    let range = crate::pack::Range {
        text: version,
        req,
        pointer: "/version".into(),
    };
    composer.compose(&pack.manifest, &[(pack.name.clone(), range)])
}

fn quoted_source(path: &Path) -> Arc<str> {
    let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    if is_link {
        return Arc::from("");
    }
    crate::input::read_capped(path, crate::pack::MAX_FILE_BYTES)
        .map(|b| Arc::from(String::from_utf8_lossy(&b).as_ref()))
        .unwrap_or_else(|_| Arc::from(""))
}
