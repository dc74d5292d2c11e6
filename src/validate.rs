//! Validation driver (SPEC §3): parse each file with the spanned JSON parser (G001/G002), load it
//! into a `GraphDoc` (G003), run every rule of `crate::rules` on the shared model, resolve each
//! diagnostic's pointer to a line and column, and sort. Files are independent: one broken file
//! never hides the diagnostics of another, and many files are checked in parallel (rayon) with
//! the reports in a stable order. [`render_source`] draws a graph marked with its diagnostics
//! (`primgraph graph`): drawing is `crate::graph::render`'s, the diagnostics are this driver's.

use crate::codes;
use crate::diagnostic::{Diagnostic, FileReport};
use crate::graph::render;
use crate::registry::Registry;
use crate::rules;
use rayon::prelude::*;
use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// How graphs are read: the input limits and the pack path. The default is the command line's
/// without `--packs`; [`Options::with_packs`] adds a pack path.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Limits on the input document.
    #[doc(hidden)]
    pub limits: crate::json::Limits,
    /// The pack path, lock and trusted keys (SPEC §9.2): a graph that declares `packs` is
    /// checked against the effective registry they compose; `None` is an empty pack path.
    #[doc(hidden)]
    pub packs: Option<Arc<crate::pack::compose::Composer>>,
    /// How a P804 for a graph that declares packs, read with no pack path, says to give one:
    /// `None` names the command line's way (`--pack`, `packs` in primgraph.toml); an embedding
    /// names its own (the Python package: `Registry.with_packs`).
    #[doc(hidden)]
    pub pack_path_hint: Option<&'static str>,
}

impl Options {
    /// The default options with a pack path: a graph that declares `packs` is checked (and
    /// replayed) against the effective registry they compose over the pack path's base.
    pub fn with_packs(packs: &crate::pack::packs::Packs) -> Options {
        Options {
            packs: Some(packs.composer().clone()),
            ..Options::default()
        }
    }
}

/// Why validation of a set of paths could not run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ValidateError {
    #[error("{0}")]
    Input(#[from] crate::input::InputError),
    #[error("no *.graph.json under {0} (pass --allow-empty to accept an empty folder)")]
    Empty(String),
    #[error("cannot start {jobs} worker threads: {message}")]
    Threads { jobs: usize, message: String },
}

/// Check one graph document given as bytes; `file` is the name reported.
pub fn check_source(
    file: &str,
    bytes: &[u8],
    registry: &Registry,
    options: &Options,
) -> FileReport {
    check_source_parsed(file, bytes, registry, options).0
}

/// [`check_source`], with the graph's `abi` read as `abi` when given: `registry diff --graphs`
/// checks a graph under NEW as if it targeted NEW, so a major bump alone is not a finding.
pub fn check_source_targeting(
    file: &str,
    bytes: &[u8],
    registry: &Registry,
    options: &Options,
    abi: Option<&str>,
) -> FileReport {
    check_source_inner(file, Cow::Borrowed(bytes), registry, options, abi).0
}

/// [`check_source`], also handing back the parsed document (when it parsed), so that a caller
/// that needs spans of its own (the language server's ranges) does not parse it twice. The
/// document's span table and source are whole; its `value` has been consumed by loading
/// (it is `null`): locating a pointer does not need it.
pub fn check_source_parsed(
    file: &str,
    bytes: &[u8],
    registry: &Registry,
    options: &Options,
) -> (FileReport, Option<crate::json::Parsed>) {
    check_source_inner(file, Cow::Borrowed(bytes), registry, options, None)
}

fn check_source_inner(
    file: &str,
    bytes: Cow<'_, [u8]>,
    registry: &Registry,
    options: &Options,
    abi: Option<&str>,
) -> (FileReport, Option<crate::json::Parsed>) {
    let parsed = match bytes {
        Cow::Borrowed(bytes) => crate::json::parse(bytes, &options.limits).map_err(|error| {
            (
                error,
                Arc::from(String::from_utf8_lossy(bytes).as_ref()) as Arc<str>,
            )
        }),
        Cow::Owned(bytes) => crate::json::parse_owned(bytes, &options.limits).map_err(|e| *e),
    };
    let mut parsed = match parsed {
        Ok(parsed) => parsed,
        Err((error, source)) => {
            let d = rules::g002_duplicate_key::diagnostic(&error)
                .unwrap_or_else(|| rules::g001_invalid_json::diagnostic(&error));
            let report = FileReport {
                file: file.to_string(),
                graph: None,
                diagnostics: vec![d],
                source,
            };
            return (report, None);
        }
    };
    let mut report = FileReport {
        file: file.to_string(),
        graph: None,
        diagnostics: Vec::new(),
        source: parsed.source_arc(),
    };
    report.graph = parsed
        .value
        .get("graph")
        .and_then(serde_json::Value::as_str)
        .map(str::to_string);
    // Loading consumes the value tree node by node, so that a large graph is never held twice
    // (as values and as the loaded document); spans are found without it.
    let value = std::mem::take(&mut parsed.value);
    // Fragment uses are expanded before anything is checked (SPEC §9.3); every check then runs
    // on the expanded document and its findings are mapped back to what the user wrote.
    let (value, expansion) = if crate::pack::fragment_expand::has_uses(&value) {
        let shape = crate::graph::load::document_shape(&value);
        if !shape.is_empty() {
            // A document that does not have the graph's shape is only its G003s, as one without
            // fragment uses is; a finding built on a malformed member (P811 from a `packs` that
            // is no object) would mislead. The use sites' own shape errors come from expansion.
            let mut diagnostics: Vec<Diagnostic> = shape
                .iter()
                .map(rules::g003_document_shape::diagnostic)
                .collect();
            let at_use_sites = match expand_fragments(file, &value, &parsed, registry, options) {
                Ok(_) => Vec::new(),
                Err(found) => found,
            };
            diagnostics.extend(
                at_use_sites
                    .into_iter()
                    .filter(|d| d.code == codes::G003.code && d.file.is_none()),
            );
            crate::diagnostic::resolve(&mut diagnostics, &parsed);
            crate::diagnostic::sort(&mut diagnostics);
            report.diagnostics = diagnostics;
            return (report, Some(parsed));
        }
        match expand_fragments(file, &value, &parsed, registry, options) {
            Ok(expansion) => {
                let mut expansion = expansion;
                let expanded = std::mem::take(&mut expansion.value);
                (expanded, Some(expansion))
            }
            Err(mut diagnostics) => {
                // The expansion's findings stop the checks, but a node that runs a primitive of
                // a pack the graph does not declare is P811 whatever else is wrong.
                let more = undeclared_direct_primitives(&value, options, &diagnostics);
                diagnostics.extend(more);
                crate::diagnostic::resolve(&mut diagnostics, &parsed);
                crate::pack::fragment_map::sort_by_file(&mut diagnostics);
                report.diagnostics = diagnostics;
                return (report, Some(parsed));
            }
        }
    } else {
        (value, None)
    };
    let mut diagnostics = match crate::graph::load::load_owned(value) {
        Err(errors) => errors
            .iter()
            .map(rules::g003_document_shape::diagnostic)
            .collect(),
        Ok(mut doc) => {
            if let Some(abi) = abi {
                doc.abi = abi.to_string();
            }
            let origins = expansion.as_ref().map(|e| e.origins.as_slice());
            check_with_packs(file, &doc, registry, options, origins)
        }
    };
    if let Some(expansion) = &expansion {
        diagnostics = crate::pack::fragment_map::map_back(diagnostics, expansion, file, &parsed);
        // The boundary's warnings are located in what the user wrote already.
        diagnostics.extend(expansion.warnings.iter().cloned());
        crate::diagnostic::resolve(&mut diagnostics, &parsed);
        crate::pack::fragment_map::sort_by_file(&mut diagnostics);
    } else {
        crate::diagnostic::resolve(&mut diagnostics, &parsed);
        crate::diagnostic::sort(&mut diagnostics);
    }
    report.diagnostics = diagnostics;
    (report, Some(parsed))
}

/// Expand the fragment uses of a graph document against the composition of the packs it
/// declares (SPEC §9.3). `Err`: the findings that stop expansion (a composition that cannot be
/// built, an unknown fragment, a boundary that does not hold), located.
pub fn expand_fragments(
    file: &str,
    value: &serde_json::Value,
    parsed: &crate::json::Parsed,
    registry: &Registry,
    options: &Options,
) -> Result<crate::pack::fragment_expand::Expansion, Vec<Diagnostic>> {
    use crate::pack::fragment_expand::{Context, expand};
    let packs = declared_packs(value);
    let declared: Vec<String> = packs.keys().cloned().collect();
    let composition = match options.packs.as_deref() {
        Some(composer) if !packs.is_empty() => {
            let (requests, malformed) = requests_of(&packs);
            if !malformed.is_empty() {
                return Err(malformed);
            }
            match composer.compose(file, &requests) {
                Ok(c) => Some(c),
                Err(errors) => {
                    return Err(errors
                        .into_iter()
                        .map(|located| {
                            let mut d = located.diagnostic;
                            d.file = located.file;
                            d
                        })
                        .collect());
                }
            }
        }
        None if !packs.is_empty() => {
            return Err(packs
                .iter()
                .map(|(name, range)| {
                    codes::P804.at(
                        crate::json::pointer::push("/packs", name),
                        no_pack_path(name, range, options),
                    )
                })
                .collect());
        }
        _ => None,
    };
    let (effective, loaded): (&Registry, &[std::sync::Arc<crate::pack::Pack>]) = match &composition
    {
        Some(c) => (&c.registry, &c.packs),
        None => (registry, &[]),
    };
    let on_path: Vec<String> = options
        .packs
        .as_deref()
        .map(|c| c.path().names().map(str::to_string).collect())
        .unwrap_or_default();
    let cx = Context {
        file,
        parsed,
        registry: effective,
        packs: loaded,
        declared: &declared,
        on_path: &on_path,
    };
    expand(value, &cx)
}

/// P804's message for a declared pack when there is no pack path at all.
fn no_pack_path(name: &str, range: &str, options: &Options) -> String {
    let hint = options
        .pack_path_hint
        .unwrap_or("pass --pack DIR, or set `packs` in primgraph.toml");
    format!("pack `{name}` ({range:?}) is not on the pack path: no pack path is given ({hint})")
}

/// Run the rules on a loaded document against its effective registry (SPEC §9.2): the base
/// registry alone when the graph declares no packs and no pack path is given; else the
/// composition of the packs it declares, with P804–P807 (and a broken pack's own findings,
/// located in the pack's file) when that cannot be built, and P811 for a node that uses a
/// primitive of a pack the graph does not declare. A node a fragment put there (`origins`, one
/// per node of an expanded document) is served by its fragment's pack and that pack's
/// requirements too (SPEC §9.2: P811 is for a primitive "used directly in the graph").
fn check_with_packs(
    file: &str,
    doc: &crate::graph::doc::GraphDoc,
    registry: &Registry,
    options: &Options,
    origins: Option<&[crate::pack::fragment_expand::Origin]>,
) -> Vec<Diagnostic> {
    use crate::pack::compose::Located;
    let Some(composer) = options.packs.as_deref() else {
        if doc.packs.is_empty() {
            return rules::run_all(doc, registry);
        }
        // Declared packs and no pack path at all.
        let mut out: Vec<Diagnostic> = doc
            .packs
            .iter()
            .map(|(name, range)| {
                codes::P804.at(
                    crate::json::pointer::push("/packs", name),
                    no_pack_path(name, range, options),
                )
            })
            .collect();
        out.extend(without_pack_primitives(
            rules::run_all(doc, registry),
            doc,
            registry,
        ));
        return out;
    };
    let (requests, mut out) = pack_requests(doc);
    if !out.is_empty() {
        out.extend(without_pack_primitives(
            rules::run_all(doc, registry),
            doc,
            registry,
        ));
        return out;
    }
    if requests.is_empty() {
        let mut diags = rules::run_all(doc, registry);
        undeclared_from_path(&mut diags, doc, composer);
        return diags;
    }
    match composer.compose(file, &requests) {
        Ok(composition) => {
            let effective = &composition.registry;
            // Every loaded pack's rules on the same model (SPEC §9.2, §9.4).
            let pack_rules = crate::pack_rules::EffectiveRules::of(&composition);
            let mut diags =
                rules::run_all_then(doc, effective, |model, out| pack_rules.check(model, out));
            for (i, node) in doc.nodes.iter().enumerate() {
                let Some(idx) = effective.lookup_index(&node.primitive) else {
                    continue;
                };
                let Some(pack) = composition.pack_of(idx) else {
                    continue;
                };
                if doc.packs.get(&pack.name).is_some() {
                    continue;
                }
                let fragment_pack = match origins.and_then(|o| o.get(i)) {
                    Some(crate::pack::fragment_expand::Origin::Fragment { fragment, .. }) => {
                        Some(fragment.pack.as_str())
                    }
                    _ => None,
                };
                match fragment_pack.and_then(|owner| composition.pack(owner)) {
                    None => diags.push(p811(i, &node.primitive, &pack.name, &pack.version)),
                    Some(owner) => {
                        let serves = owner.name == pack.name
                            || owner.requires.iter().any(|r| r.name == pack.name);
                        if !serves {
                            diags.push(p811_in_fragment(i, &node.primitive, owner, pack));
                        }
                    }
                }
            }
            undeclared_from_path(&mut diags, doc, composer);
            diags
        }
        Err(errors) => {
            for Located { file, diagnostic } in errors {
                let mut d = diagnostic;
                d.file = file;
                out.push(d);
            }
            out.extend(without_pack_primitives(
                rules::run_all(doc, registry),
                doc,
                registry,
            ));
            out
        }
    }
}

/// The graph's `packs` entries as resolution requests, with G003 for a bad name or range.
pub fn pack_requests(
    doc: &crate::graph::doc::GraphDoc,
) -> (Vec<(String, crate::pack::Range)>, Vec<Diagnostic>) {
    requests_of(&doc.packs)
}

/// The `packs` entries of a graph document as written (name → range), read before the document
/// is loaded — a graph that uses fragments loads only once expanded, and expansion needs its
/// packs. A range that is not a string is left to the loader's G003.
pub fn declared_packs(value: &serde_json::Value) -> crate::graph::doc::SmallMap<String> {
    let mut packs = crate::graph::doc::SmallMap::new();
    if let Some(serde_json::Value::Object(members)) = value.get("packs") {
        for (name, range) in members {
            if let Some(range) = range.as_str() {
                packs.insert(name.clone(), range.to_string());
            }
        }
    }
    packs
}

/// `packs` entries (name → range as written) as resolution requests, with G003 for a bad name
/// or range: the graph's before expansion and after, and `pack lock`'s.
pub fn requests_of(
    packs: &crate::graph::doc::SmallMap<String>,
) -> (Vec<(String, crate::pack::Range)>, Vec<Diagnostic>) {
    let mut out = Vec::new();
    let mut requests = Vec::new();
    for (name, text) in packs.iter() {
        let pointer = crate::json::pointer::push("/packs", name);
        if !crate::pack::is_pack_name(name) {
            out.push(codes::G003.at(
                pointer.clone(),
                format!("pack name {name:?} must match ^[a-z][a-z0-9-]*$"),
            ));
            continue;
        }
        match crate::pack::parse_range(text) {
            Some(req) => requests.push((
                name.clone(),
                crate::pack::Range {
                    text: text.clone(),
                    req,
                    pointer,
                },
            )),
            None => out.push(codes::G003.at(
                pointer,
                format!(
                    "{text:?} is not a semver range (e.g. \"^1.2\", \"~1.2.3\", \">=1.0, <2\")"
                ),
            )),
        }
    }
    (requests, out)
}

/// The effective registry of a loaded graph (SPEC §9.2): `None` when it declares no packs or
/// there is no pack path; else its composition, or why it cannot be built. What replay,
/// simulate and the diffs use once [`check_source`] has reported the graph's findings.
pub fn composition_of(
    file: &str,
    doc: &crate::graph::doc::GraphDoc,
    options: &Options,
) -> Option<Result<Arc<crate::pack::compose::Composition>, Vec<Diagnostic>>> {
    let composer = options.packs.as_deref()?;
    let (requests, errors) = pack_requests(doc);
    if !errors.is_empty() {
        return Some(Err(errors));
    }
    if requests.is_empty() {
        return None;
    }
    Some(composer.compose(file, &requests).map_err(|errors| {
        errors
            .into_iter()
            .map(|l| {
                let mut d = l.diagnostic;
                d.file = l.file;
                d
            })
            .collect()
    }))
}

/// P811 at a node's `primitive`, with the `packs` entry to add.
fn p811(node: usize, primitive: &str, pack: &str, version: &crate::pack::Version) -> Diagnostic {
    codes::P811
        .at(
            format!("/nodes/{node}/primitive"),
            format!(
                "`{primitive}` is a primitive of pack `{pack}`, which this graph does not declare"
            ),
        )
        .with_help(format!(
            "add `\"{pack}\": \"^{}.{}\"` to the graph's `packs`",
            version.major, version.minor
        ))
}

/// P811 at a fragment node's `primitive` whose pack neither the graph declares nor the
/// fragment's own pack requires (the fragment works only by the graph's accident).
fn p811_in_fragment(
    node: usize,
    primitive: &str,
    owner: &crate::pack::Pack,
    pack: &crate::pack::Pack,
) -> Diagnostic {
    codes::P811
        .at(
            format!("/nodes/{node}/primitive"),
            format!(
                "`{primitive}` is a primitive of pack `{}`, which neither this fragment's pack \
                 `{}` requires nor the graph declares",
                pack.name, owner.name
            ),
        )
        .with_help(format!(
            "add `\"{}\": \"^{}.{}\"` to the `requires` of pack `{}`",
            pack.name, pack.version.major, pack.version.minor, owner.name
        ))
}

/// P811 for each node of the unexpanded document `value` that runs a primitive of a pack on the
/// pack path it does not declare (by the pack's root), unless `found` already says so: what a
/// graph whose fragments did not expand still learns about its own nodes.
fn undeclared_direct_primitives(
    value: &serde_json::Value,
    options: &Options,
    found: &[Diagnostic],
) -> Vec<Diagnostic> {
    let Some(composer) = options.packs.as_deref() else {
        return Vec::new();
    };
    let declared = declared_packs(value);
    let nodes = value.get("nodes").and_then(serde_json::Value::as_array);
    let mut out = Vec::new();
    for (i, node) in nodes.into_iter().flatten().enumerate() {
        let Some(primitive) = node.get("primitive").and_then(serde_json::Value::as_str) else {
            continue;
        };
        let pointer = format!("/nodes/{i}/primitive");
        let reported = found
            .iter()
            .any(|d| d.code == codes::P811.code && d.file.is_none() && d.pointer == pointer);
        if !reported && let Some(d) = p811_if_undeclared(i, primitive, &declared, composer) {
            out.push(d);
        }
    }
    out
}

/// P811 for node `i` when `primitive`'s root belongs to a pack on the pack path that
/// `declared` (the graph's `packs`) does not name.
fn p811_if_undeclared(
    i: usize,
    primitive: &str,
    declared: &crate::graph::doc::SmallMap<String>,
    composer: &crate::pack::compose::Composer,
) -> Option<Diagnostic> {
    let (root, _) = primitive.split_once('.')?;
    let owners = composer.path().owners_of_root(root);
    let owner = owners.first()?;
    declared
        .get(&owner.name)
        .is_none()
        .then(|| p811(i, primitive, &owner.name, &owner.version))
}

/// Turn R101 for a primitive of a pack on the pack path the graph does not declare into P811.
fn undeclared_from_path(
    diags: &mut [Diagnostic],
    doc: &crate::graph::doc::GraphDoc,
    composer: &crate::pack::compose::Composer,
) {
    for d in diags.iter_mut() {
        if d.code != codes::R101.code {
            continue;
        }
        let Some(i) = node_of_primitive_pointer(&d.pointer) else {
            continue;
        };
        let Some(node) = doc.nodes.get(i) else {
            continue;
        };
        if let Some(p811) = p811_if_undeclared(i, &node.primitive, &doc.packs, composer) {
            *d = p811;
        }
    }
}

fn node_of_primitive_pointer(pointer: &str) -> Option<usize> {
    pointer
        .strip_prefix("/nodes/")?
        .strip_suffix("/primitive")?
        .parse()
        .ok()
}

/// The base registry's diagnostics of a graph whose packs did not load, without R101 for the
/// primitives outside the base registry's families (they are the packs', reported above).
fn without_pack_primitives(
    diags: Vec<Diagnostic>,
    doc: &crate::graph::doc::GraphDoc,
    registry: &Registry,
) -> Vec<Diagnostic> {
    diags
        .into_iter()
        .filter(|d| {
            if d.code != codes::R101.code && d.code != codes::R103.code {
                return true;
            }
            let name = if d.code == codes::R101.code {
                node_of_primitive_pointer(&d.pointer)
                    .and_then(|i| doc.nodes.get(i))
                    .map(|n| n.primitive.as_str())
            } else {
                d.pointer
                    .strip_prefix("/capabilities/")
                    .and_then(|i| i.parse::<usize>().ok())
                    .and_then(|i| doc.capabilities.get(i))
                    .map(String::as_str)
            };
            let Some(name) = name else { return true };
            let root = name.split('.').next().unwrap_or("");
            !name.contains('.') || registry.families().iter().any(|f| f.prefix == root)
        })
        .collect()
}

/// The expanded document of a graph (SPEC §9.3, `primgraph graph expand`): the graph itself when
/// it uses no fragment, else its expansion. `Err`: the report of a document that does not parse,
/// or whose fragment uses cannot be expanded (the boundary findings, located).
pub fn expand_source(
    file: &str,
    bytes: &[u8],
    registry: &Registry,
    options: &Options,
) -> Result<serde_json::Value, FileReport> {
    let (parsed, expansion) = expansion_source(file, bytes, registry, options)?;
    Ok(match expansion {
        Some(expansion) => expansion.value,
        None => parsed.value,
    })
}

/// A graph document parsed, and its expansion with the origin of every expanded node when it
/// uses fragments (`None` when it uses none): what the drawings, the report and `graph diff`
/// work on. `Err` as [`expand_source`].
pub fn expansion_source(
    file: &str,
    bytes: &[u8],
    registry: &Registry,
    options: &Options,
) -> Result<
    (
        crate::json::Parsed,
        Option<crate::pack::fragment_expand::Expansion>,
    ),
    FileReport,
> {
    let parsed = match crate::json::parse(bytes, &options.limits) {
        Ok(parsed) => parsed,
        Err(_) => return Err(check_source(file, bytes, registry, options)),
    };
    if !crate::pack::fragment_expand::has_uses(&parsed.value) {
        return Ok((parsed, None));
    }
    match expand_fragments(file, &parsed.value, &parsed, registry, options) {
        Ok(expansion) => Ok((parsed, Some(expansion))),
        Err(mut diagnostics) => {
            crate::diagnostic::resolve(&mut diagnostics, &parsed);
            crate::pack::fragment_map::sort_by_file(&mut diagnostics);
            Err(FileReport {
                file: file.to_string(),
                graph: parsed
                    .value
                    .get("graph")
                    .and_then(serde_json::Value::as_str)
                    .map(str::to_string),
                diagnostics,
                source: parsed.source_arc(),
            })
        }
    }
}

/// Read and check one file. Only a regular file is read, and one over `options.limits.max_bytes`
/// is a G001 finding without being read (its size comes from the metadata).
pub fn check_file(
    path: &Path,
    registry: &Registry,
    options: &Options,
) -> Result<FileReport, ValidateError> {
    let file = path.display().to_string();
    let bytes = match crate::input::read_capped(path, options.limits.max_bytes) {
        Ok(bytes) => bytes,
        Err(crate::input::InputError::TooLarge { size, limit, .. }) => {
            let error = crate::json::JsonError {
                kind: crate::json::JsonErrorKind::TooLarge {
                    size: usize::try_from(size).unwrap_or(usize::MAX),
                    limit: usize::try_from(limit).unwrap_or(usize::MAX),
                },
                span: crate::json::Span {
                    line: 1,
                    column: 1,
                    end_line: 1,
                    end_column: 1,
                    ..Default::default()
                },
            };
            return Ok(FileReport {
                file,
                graph: None,
                diagnostics: vec![rules::g001_invalid_json::diagnostic(&error)],
                source: Arc::from(""),
            });
        }
        Err(error) => return Err(ValidateError::Input(error)),
    };
    Ok(check_source_inner(&file, Cow::Owned(bytes), registry, options, None).0)
}

/// Check every file in parallel on `jobs` threads (0: one per core); the reports come back in
/// the order of `paths`. Fails when a file cannot be read.
pub fn try_check_paths(
    paths: &[PathBuf],
    registry: &Registry,
    options: &Options,
    jobs: usize,
) -> Result<Vec<FileReport>, ValidateError> {
    let pool = crate::workers::pool(jobs).map_err(|e| ValidateError::Threads {
        jobs,
        message: e.to_string(),
    })?;
    pool.install(|| {
        paths
            .par_iter()
            .map(|path| check_file(path, registry, options))
            .collect()
    })
}

/// Expand files and folders (recursively `*.graph.json`) into a sorted, deduplicated list of
/// files. A file named explicitly is kept whatever its name; a path that does not exist, or that
/// is neither a regular file nor a folder (a FIFO, a device), is an error.
pub fn collect_paths(paths: &[PathBuf]) -> std::io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for path in paths {
        let metadata = std::fs::metadata(path)
            .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
        if metadata.is_dir() {
            crate::batch::walk(path, ".graph.json", &mut files).map_err(|e| {
                std::io::Error::new(e.source.kind(), format!("{}: {}", path.display(), e.source))
            })?;
        } else if metadata.is_file() {
            files.push(path.clone());
        } else {
            // A FIFO or device named as a path would block the read forever.
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!(
                    "{}: not a regular file or folder (it is {})",
                    path.display(),
                    crate::input::kind_of(metadata.file_type())
                ),
            ));
        }
    }
    files.sort();
    files.dedup();
    Ok(files)
}

// ---- drawing a graph with its diagnostics (`primgraph graph`) ------------------------------

/// Why a graph document could not be drawn.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// The document does not parse or load (G001–G003): there is no graph to draw. The report
    /// carries the located diagnostics.
    #[error("{} does not load as a graph ({} error(s))", .report.file, .report.diagnostics.len())]
    NotLoadable { report: FileReport },
}

/// A drawn graph and, when diagnostics were asked for, the report they came from.
#[derive(Debug)]
pub struct Drawing {
    pub text: String,
    pub report: Option<FileReport>,
}

/// Parse, load and draw one graph document. With `diagnostics`, validate it first
/// ([`check_source`]) and mark what the diagnostics name.
pub fn render_source(
    file: &str,
    bytes: &[u8],
    registry: &Registry,
    format: render::Format,
    diagnostics: bool,
) -> Result<Drawing, RenderError> {
    render_source_with(
        file,
        bytes,
        registry,
        &Options::default(),
        format,
        diagnostics,
    )
}

/// [`render_source`] with the pack path of `options`: a graph that uses fragments is drawn
/// expanded (SPEC §9.3), each fragment use a cluster labelled with its use site
/// (`pack::fragment_map::use_groups`), and the marks of its diagnostics — located in the
/// fragment files — land on the expanded nodes they are about; a graph that declares packs is
/// drawn against its effective registry (a pack primitive's class gives its shape).
pub fn render_source_with(
    file: &str,
    bytes: &[u8],
    registry: &Registry,
    options: &Options,
    format: render::Format,
    diagnostics: bool,
) -> Result<Drawing, RenderError> {
    let not_loadable = || RenderError::NotLoadable {
        report: check_source(file, bytes, registry, options),
    };
    let (parsed, expansion) = expansion_source(file, bytes, registry, options)
        .map_err(|report| RenderError::NotLoadable { report })?;
    let value = expansion.as_ref().map_or(&parsed.value, |e| &e.value);
    let doc = crate::graph::load(value).map_err(|_| not_loadable())?;
    let composition = match composition_of(file, &doc, options) {
        Some(Ok(c)) => Some(c),
        _ => None,
    };
    let effective = composition.as_ref().map_or(registry, |c| &c.registry);
    let groups = expansion
        .as_ref()
        .map(|e| crate::pack::fragment_map::use_groups(e, file, &parsed).0)
        .unwrap_or_default();
    let (marks, report) = if diagnostics {
        let report = check_source(file, bytes, registry, options);
        let marks = match &expansion {
            None => render::Marks::from_diagnostics(&doc, &report.diagnostics),
            Some(e) => {
                // Marks are drawn on the expanded nodes: each diagnostic re-pointed at the
                // expanded node it is about (its witness already names expanded IDs).
                let finder = crate::pack::fragment_map::NodeFinder::new(e, file, &parsed);
                let expanded: Vec<Diagnostic> = report
                    .diagnostics
                    .iter()
                    .map(|d| {
                        let mut d = d.clone();
                        d.pointer = finder
                            .node_of(&d)
                            .map(|k| format!("/nodes/{k}"))
                            .unwrap_or_default();
                        d
                    })
                    .collect();
                render::Marks::from_diagnostics(&doc, &expanded)
            }
        };
        (marks, Some(report))
    } else {
        (render::Marks::default(), None)
    };
    Ok(Drawing {
        text: render::draw(&doc, effective, format, &marks, &groups),
        report,
    })
}
