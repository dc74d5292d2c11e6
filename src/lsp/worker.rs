//! The validation worker: one thread that runs the (synchronous, CPU-bound) checker off the
//! server's main loop for every document of `VALIDATE_ON_LOOP_BYTES` and more, so a keystroke's
//! hover or completion never waits for a long validation (a small document is checked on the
//! loop, with the same [`analyze`] and [`publish`]).
//! Before each batch it drains its queue and keeps only the newest job per document, so a burst
//! of edits costs one validation.
//!
//! The worker publishes a document's diagnostics to the client itself, through the [`Shared`]
//! table of open documents' versions that the main loop keeps current: under that table's lock
//! it publishes only if the version it checked is still the document's (a stale result is never
//! published; the main loop's `didClose` publish is under the same lock, so nothing of a closed
//! document follows it). Going straight to the client, not back through the main loop, keeps one
//! thread handoff and one wait for the loop out of every keystroke's round.
//!
//! A large document's outline (the nodes, for hover, completion, definition, symbols and code
//! actions) is also scanned here, after its diagnostics are out, and handed to the main loop, so
//! that a request on a 20 MB text does not scan it on the loop; a small one's is scanned on the
//! loop when a request first needs it (tens of microseconds), not on every keystroke.

use super::diagnostics::Source;
use super::position::LineMap;
use super::scan::Outline;
use super::settings::Settings;
use crate::validate::{Options, check_source_parsed};
use crossbeam_channel::{Receiver, Sender};
use lsp_server::{Message, Notification};
use lsp_types::notification::{self as note, Notification as _};
use lsp_types::{PublishDiagnosticsParams, Uri};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// Below this size the main loop validates a document itself: checking 16 KiB takes a few
/// milliseconds at most, which no request notices, while handing it to this thread costs a wake
/// and a wait to be scheduled (hundreds of microseconds on a loaded machine, more than the
/// checking of a typical graph). Anything larger is validated here, off the loop.
pub const VALIDATE_ON_LOOP_BYTES: usize = 16 * 1024;

/// From this size on, the worker scans a document's outline (below it, the main loop does when
/// a request needs it: at the scanner's speed, well under a millisecond).
pub const OUTLINE_ON_WORKER_BYTES: usize = 256 * 1024;

/// A document version to validate.
pub struct Job {
    pub uri: Uri,
    pub version: i32,
    pub text: Arc<str>,
}

/// A large document's outline at one version, for the main loop.
pub struct OutlineReady {
    pub uri: Uri,
    pub version: i32,
    pub outline: Arc<Outline>,
}

/// What the main loop and the worker share: the client's stream while the session lasts, each
/// open document's current version, and the configuration errors already shown.
#[derive(Default)]
pub struct Published {
    /// `None` once the session is over (nothing more is sent, and the stream can close).
    pub client: Option<Sender<Message>>,
    pub versions: HashMap<Uri, i32>,
    reported_errors: Vec<String>,
}

pub type Shared = Arc<Mutex<Published>>;

/// The table of a session that publishes on `client`.
pub fn shared(client: Sender<Message>) -> Shared {
    Arc::new(Mutex::new(Published {
        client: Some(client),
        ..Published::default()
    }))
}

/// Lock the table. A panic while holding it cannot leave it inconsistent (single inserts and
/// removals), so a poisoned lock is used as is.
pub fn lock(shared: &Shared) -> MutexGuard<'_, Published> {
    shared.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The outcome of one job.
pub struct Analysis {
    pub uri: Uri,
    pub version: i32,
    pub diagnostics: Vec<lsp_types::Diagnostic>,
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
    if excluded {
        return Analysis {
            uri: uri.clone(),
            version,
            diagnostics: Vec::new(),
            config_error: doc.error,
        };
    }
    let file = path
        .as_ref()
        .map_or_else(|| uri.as_str().to_string(), |p| p.display().to_string());
    if let Some(path) = &path
        && path.file_name().is_some_and(|n| n == crate::pack::MANIFEST)
    {
        return analyze_pack(&doc, uri, version, text, path);
    }
    if let Some(path) = &path
        && path
            .to_string_lossy()
            .ends_with(crate::pack::fragment::SUFFIX)
    {
        return analyze_fragment(settings, &doc, uri, version, text, path);
    }
    let options = Options {
        packs: doc.packs.clone(),
        ..Options::default()
    };
    let (mut report, parsed) = check_source_parsed(&file, text.as_bytes(), &doc.registry, &options);
    // A diagnostic located in another file (a declared pack's `pack.json`) is that file's, not
    // this document's: it is shown at the graph's `packs` entry, naming where it is. One inside
    // a fragment this graph uses carries its use sites (SPEC §9.3): the conversion shows it at
    // the outermost one, written here, with the fragment's place related.
    for d in report.diagnostics.iter_mut() {
        let used_here = d
            .related
            .iter()
            .any(|r| r.file.as_deref().is_none_or(|f| f == file));
        if used_here {
            continue;
        }
        if let Some(other) = d.file.take() {
            d.message = format!("{} (in {other}:{}:{})", d.message, d.line, d.column);
            d.pointer = "/packs".into();
            d.related.clear();
            if let Some(parsed) = &parsed {
                crate::diagnostic::resolve(std::slice::from_mut(d), parsed);
            }
        }
    }
    if let (Some(config), Some(path)) = (&doc.config, &path) {
        config.apply(path, &mut report.diagnostics);
    }
    // One line table per version, shared by every diagnostic's ranges.
    let lines = LineMap::new(text);
    let source = Source {
        uri,
        text,
        lines: &lines,
    };
    Analysis {
        uri: uri.clone(),
        version,
        diagnostics: source.convert_all(&report.diagnostics),
        config_error: doc.error,
    }
}

/// Send `analysis` to the client if its version is still the document's (and its configuration
/// error, once per session). `false` when the session is over.
pub fn publish(shared: &Shared, analysis: Analysis) -> bool {
    let mut table = lock(shared);
    let Some(client) = table.client.clone() else {
        return false;
    };
    if let Some(error) = analysis.config_error
        && !table.reported_errors.contains(&error)
    {
        let message = Notification::new(
            note::ShowMessage::METHOD.into(),
            lsp_types::ShowMessageParams {
                typ: lsp_types::MessageType::ERROR,
                message: format!("primgraph: {error} (using the defaults)"),
            },
        );
        table.reported_errors.push(error);
        if client.send(message.into()).is_err() {
            return false;
        }
    }
    if table.versions.get(&analysis.uri) != Some(&analysis.version) {
        return true; // closed, or a newer version is on its way
    }
    let message = Notification::new(
        note::PublishDiagnostics::METHOD.into(),
        PublishDiagnosticsParams::new(analysis.uri, analysis.diagnostics, Some(analysis.version)),
    );
    client.send(message.into()).is_ok()
}

/// Start the worker; it ends when `jobs`' sender is dropped, the session is over, or `outlines`'
/// receiver is dropped.
pub fn spawn(
    settings: Arc<Settings>,
    shared: Shared,
    jobs: Receiver<Job>,
    outlines: Sender<OutlineReady>,
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
                    if !publish(&shared, analysis) {
                        return;
                    }
                    // Only for the version still current, and not when a newer one is queued.
                    if job.text.len() >= OUTLINE_ON_WORKER_BYTES
                        && jobs.is_empty()
                        && lock(&shared).versions.get(&job.uri) == Some(&job.version)
                    {
                        let outline = Arc::new(Outline::of(&job.text));
                        let ready = OutlineReady {
                            uri: job.uri,
                            version: job.version,
                            outline,
                        };
                        if outlines.send(ready).is_err() {
                            return;
                        }
                    }
                }
            }
        })
}

/// A pack's `pack.json` (SPEC §9.1): the loader's findings in this file, from the editor's text
/// (the pack's other files are read from disk), and when it loads, the rules' P840 and the
/// conflicts it takes part in on the pack path (`conflicts_on_path`).
fn analyze_pack(
    doc: &super::settings::DocSettings,
    uri: &Uri,
    version: i32,
    text: &str,
    path: &std::path::Path,
) -> Analysis {
    let dir = path.parent().unwrap_or(std::path::Path::new("."));
    let file = path.display().to_string();
    let diagnostics = match crate::pack::manifest::load_bytes(dir, text.as_bytes(), &doc.registry) {
        Ok(pack) => {
            let mut found = crate::pack_rules::effective::rules_of(&pack).1;
            found.extend(conflicts_on_path(doc, pack));
            found
        }
        Err(errors) => errors
            .reports
            .into_iter()
            .filter(|r| r.file == file)
            .flat_map(|r| r.diagnostics)
            .collect(),
    };
    located_analysis(
        doc,
        (uri, version, text, path),
        &crate::pack::LIMITS,
        diagnostics,
    )
}

/// An analysis of a pack file open in the editor: `diagnostics` (in this file) located in its
/// text, the configuration's severities applied.
fn located_analysis(
    doc: &super::settings::DocSettings,
    (uri, version, text, path): (&Uri, i32, &str, &std::path::Path),
    limits: &crate::json::Limits,
    mut diagnostics: Vec<crate::diagnostic::Diagnostic>,
) -> Analysis {
    let parsed = crate::json::parse(text.as_bytes(), limits).ok();
    if let Some(parsed) = &parsed {
        crate::diagnostic::resolve(&mut diagnostics, parsed);
    }
    if let Some(config) = &doc.config {
        config.apply(path, &mut diagnostics);
    }
    let lines = LineMap::new(text);
    let source = Source {
        uri,
        text,
        lines: &lines,
    };
    Analysis {
        uri: uri.clone(),
        version,
        diagnostics: source.convert_all(&diagnostics),
        config_error: doc.error.clone(),
    }
}

/// P802 and P803 of the pack open in the editor (SPEC §9.1, §9.2): the library's composition
/// check (`Composition::build`) of the base registry, the highest version of every other pack on
/// the configured pack path, and this pack last — so that a root or an ID it shares with any of
/// them is reported in this file (the composition reports a clash in the pack that comes
/// second). Only P802/P803 are kept: what else a composition of packs that need not go together
/// reports (a required pack's error classes, a fallback) is `pack lint`'s, with the packs the
/// pack actually requires.
fn conflicts_on_path(
    doc: &super::settings::DocSettings,
    pack: crate::pack::Pack,
) -> Vec<crate::diagnostic::Diagnostic> {
    use crate::pack::compose::Composition;
    let mut packs = Vec::new();
    if let Some(composer) = &doc.packs {
        for name in composer.path().names() {
            if name == pack.name {
                continue;
            }
            if let Some(candidate) = composer.path().versions(name).first()
                && let Ok(other) = composer.load(candidate)
            {
                packs.push(other);
            }
        }
    }
    let manifest = pack.manifest.clone();
    packs.push(Arc::new(pack));
    match Composition::build(&doc.registry, packs) {
        Ok(_) => Vec::new(),
        Err(located) => located
            .into_iter()
            .filter(|l| l.file.as_deref() == Some(manifest.as_str()))
            .map(|l| l.diagnostic)
            .filter(|d| d.code == "P802" || d.code == "P803")
            .collect(),
    }
}

/// An open `*.fragment.json` (SPEC §9.3), checked from the editor's text without a use site:
/// the strict loader's P801s, then `fragment_expand::check_alone` over its pack composed with the
/// packs it requires (the pack is the nearest folder upwards with a `pack.json`; without one, or
/// when it does not load, the loader's findings alone).
fn analyze_fragment(
    settings: &Settings,
    doc: &super::settings::DocSettings,
    uri: &Uri,
    version: i32,
    text: &str,
    path: &std::path::Path,
) -> Analysis {
    let file = path.display().to_string();
    let base = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = base
        .strip_suffix(crate::pack::fragment::SUFFIX)
        .unwrap_or(&base)
        .to_string();
    let own = settings.own_pack(path, doc, true);
    let dir = super::fragments::pack_dir_of(path);
    let pack = own
        .as_ref()
        .and_then(|c| c.packs.iter().find(|p| Some(&p.dir) == dir.as_ref()))
        .map(|p| p.name.clone())
        .unwrap_or_default();
    let mut diagnostics =
        match crate::pack::fragment::load_source(&pack, &file, &stem, text.as_bytes()) {
            Err(errors) => errors,
            Ok(fragment) => match &own {
                Some(c) => crate::pack::fragment_expand::check_alone(
                    &Arc::new(fragment),
                    &c.registry,
                    &c.packs,
                ),
                None => Vec::new(),
            },
        };
    diagnostics.retain(|d| d.file.as_deref().is_none_or(|f| f == file));
    for d in &mut diagnostics {
        d.file = None;
    }
    located_analysis(
        doc,
        (uri, version, text, path),
        &crate::pack::fragment::LIMITS,
        diagnostics,
    )
}
