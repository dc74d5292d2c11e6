//! The validation worker: one thread that runs the (synchronous, CPU-bound) checker off the
//! server's main loop, so a keystroke's hover or completion never waits for a validation.
//! Before each batch it drains its queue and keeps only the newest job per document, so a burst
//! of edits costs one validation; the main loop drops any result whose version is no longer the
//! document's (a stale result is never published).

use super::diagnostics::Source;
use super::position::LineMap;
use super::scan::Outline;
use super::settings::Settings;
use crate::validate::{Options, check_source_parsed};
use crossbeam_channel::{Receiver, Sender};
use lsp_types::Uri;
use std::sync::Arc;

/// A document version to validate.
pub struct Job {
    pub uri: Uri,
    pub version: i32,
    pub text: Arc<str>,
}

/// The outcome of one job.
pub struct Analysis {
    pub uri: Uri,
    pub version: i32,
    pub diagnostics: Vec<lsp_types::Diagnostic>,
    /// The document's nodes at this version (so the main loop need not scan a large text).
    pub outline: Arc<Outline>,
    /// Why the configuration could not be used, if it could not.
    pub config_error: Option<String>,
}

/// Validate one document version: check it with its configuration's registry, apply the
/// severity overrides, convert to LSP diagnostics. An excluded document gets none.
pub fn analyze(settings: &Settings, uri: &Uri, version: i32, text: &str) -> Analysis {
    let doc = settings.for_uri(uri);
    let path = super::settings::uri_to_path(uri);
    let excluded = match (&doc.config, &path) {
        (Some(config), Some(path)) => config.is_excluded(path),
        _ => false,
    };
    let outline = Arc::new(Outline::of(text));
    if excluded {
        return Analysis {
            uri: uri.clone(),
            version,
            diagnostics: Vec::new(),
            outline,
            config_error: doc.error,
        };
    }
    let file = path
        .as_ref()
        .map_or_else(|| uri.as_str().to_string(), |p| p.display().to_string());
    let (mut report, parsed) =
        check_source_parsed(&file, text.as_bytes(), &doc.registry, &Options::default());
    if let (Some(config), Some(path)) = (&doc.config, &path) {
        config.apply(path, &mut report.diagnostics);
    }
    let lines = LineMap::new(text);
    let source = Source {
        uri,
        text,
        lines: &lines,
        parsed: parsed.as_ref(),
    };
    Analysis {
        uri: uri.clone(),
        version,
        diagnostics: source.convert_all(&report.diagnostics),
        outline,
        config_error: doc.error,
    }
}

/// Start the worker; it ends when `jobs`' sender is dropped or `results`' receiver is.
pub fn spawn(
    settings: Arc<Settings>,
    jobs: Receiver<Job>,
    results: Sender<Analysis>,
) -> std::io::Result<std::thread::JoinHandle<()>> {
    std::thread::Builder::new()
        .name("primgraph-validate".into())
        .spawn(move || {
            while let Ok(first) = jobs.recv() {
                let mut batch = vec![first];
                for job in jobs.try_iter() {
                    match batch.iter_mut().find(|j| j.uri == job.uri) {
                        Some(older) => *older = job,
                        None => batch.push(job),
                    }
                }
                for job in batch {
                    let analysis = analyze(&settings, &job.uri, job.version, &job.text);
                    if results.send(analysis).is_err() {
                        return;
                    }
                }
            }
        })
}
