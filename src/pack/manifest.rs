//! The strict loader of one pack directory (SPEC §9.1): `pack.json` read through
//! `crate::input::read_capped` and the spanned parser, every member checked (unknown fields,
//! duplicate keys, bad names, versions and ranges are P801 with their pointer), decision sets
//! expanded into `outcomes`, schema files bundled into each contract's `$defs`, and the
//! primitives put through the registry's own lint core (L501–L510 located in `pack.json`), then
//! the pack-level checks P802, P808, P809, the digest and the signature.

use super::{
    Command, ContextRule, Environment, LIMITS, MANIFEST, MAX_FILE_BYTES, Pack, PackErrors,
    PackPrimitive, Range, RawSection, Requirement, is_pack_name, parse_range, parse_version,
};
use crate::codes::{self, Code};
use crate::diagnostic::{self, Diagnostic, FileReport};
use crate::json::{self, Parsed};
use crate::registry::{Effect, Family, Primitive, Registry, lint};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashMap};
use std::path::{Component, Path};
use std::sync::Arc;

/// The members `pack.json` may have (`$schema`, for editors, is allowed and ignored).
pub const FIELDS: &[&str] = &[
    "$schema",
    "pack",
    "version",
    "summary",
    "kernel_abi",
    "requires",
    "roots",
    "families",
    "primitives",
    "decision_sets",
    "error_classes",
    "schemas",
    "commands",
    "context_rules",
    "environment",
    "fragments",
    "rules",
    "fixtures",
    "plugins",
];

/// The members of a pack primitive: §1.2's, plus `commands`.
const PRIMITIVE_FIELDS: &[&str] = &[
    "id",
    "alias",
    "family",
    "class",
    "authority",
    "summary",
    "inputs",
    "outputs",
    "outcomes",
    "grants",
    "evidence",
    "failure_modes",
    "fallback",
    "evaluation",
    "effects",
    "requires_authorization",
    "requires_verifier",
    "terminal",
    "commands",
];

const FAMILY_FIELDS: &[&str] = &["name", "prefix", "group", "summary"];

/// Diagnostics collected for one file, resolved against its parse at the end.
struct FileFindings {
    file: String,
    parsed: Option<Arc<Parsed>>,
    diagnostics: Vec<Diagnostic>,
}

/// Findings of a whole pack, file by file (`pack.json` first).
struct Findings {
    files: Vec<FileFindings>,
}

impl Findings {
    fn new(manifest: &str, parsed: Arc<Parsed>) -> Findings {
        Findings {
            files: vec![FileFindings {
                file: manifest.to_string(),
                parsed: Some(parsed),
                diagnostics: Vec::new(),
            }],
        }
    }

    fn push(&mut self, d: Diagnostic) {
        self.files[0].diagnostics.push(d);
    }

    fn at(&mut self, code: &'static Code, pointer: impl Into<String>, message: impl Into<String>) {
        self.push(code.at(pointer, message));
    }

    /// A finding in another file, already located (`line`/`column` set) or to be resolved
    /// against `parsed`.
    fn in_file(&mut self, file: &str, parsed: Option<Arc<Parsed>>, d: Diagnostic) {
        match self.files.iter_mut().find(|f| f.file == file) {
            Some(f) => f.diagnostics.push(d),
            None => self.files.push(FileFindings {
                file: file.to_string(),
                parsed,
                diagnostics: vec![d],
            }),
        }
    }

    fn has_errors(&self) -> bool {
        self.files.iter().any(|f| !f.diagnostics.is_empty())
    }

    fn finish(self) -> PackErrors {
        let reports = self
            .files
            .into_iter()
            .filter(|f| !f.diagnostics.is_empty())
            .map(|f| {
                let mut diagnostics = f.diagnostics;
                let source = match &f.parsed {
                    Some(parsed) => {
                        // Diagnostics already located (line set) keep their place.
                        let (mut open, done): (Vec<_>, Vec<_>) =
                            diagnostics.into_iter().partition(|d| d.line == 0);
                        diagnostic::resolve(&mut open, parsed);
                        diagnostics = open;
                        diagnostics.extend(done);
                        parsed.source_arc()
                    }
                    None => {
                        for d in &mut diagnostics {
                            if d.line == 0 {
                                d.line = 1;
                                d.column = 1;
                            }
                        }
                        Arc::from("")
                    }
                };
                diagnostic::sort(&mut diagnostics);
                FileReport {
                    file: f.file,
                    graph: None,
                    diagnostics,
                    source,
                }
            })
            .collect();
        PackErrors { reports }
    }
}

/// A JSON parse failure of a pack file as a located P801 (a duplicate key with its first
/// occurrence related).
pub fn json_error(error: &json::JsonError) -> Diagnostic {
    if let Some(d) = diagnostic::duplicate_key(&codes::P801, error) {
        return d;
    }
    let mut d = codes::P801.at("", error.kind.to_string());
    d.line = error.span.line;
    d.column = error.span.column;
    d
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn ptr(base: &str, token: &str) -> String {
    json::pointer::push(base, token)
}

/// Load and check the pack in `dir` against `base` (the registry it extends: its family
/// prefixes are reserved). `Err` holds every finding, located; nothing of a pack with an error
/// is usable (SPEC §9.1).
pub fn load(dir: &Path, base: &Registry) -> Result<Pack, PackErrors> {
    let manifest_path = dir.join(MANIFEST);
    let file = manifest_path.display().to_string();
    match std::fs::symlink_metadata(&manifest_path) {
        Ok(m) if m.file_type().is_symlink() => {
            return Err(PackErrors::whole_file(
                &file,
                codes::P801.at(
                    "",
                    "`pack.json` is a symbolic link; a pack's files must be regular files in the \
                     pack directory (the digest covers their bytes)",
                ),
            ));
        }
        Ok(_) => {}
        Err(e) => {
            return Err(PackErrors::whole_file(
                &file,
                codes::P801.at("", format!("cannot read `pack.json`: {e}")),
            ));
        }
    }
    let bytes = crate::input::read_capped(&manifest_path, super::MAX_MANIFEST_BYTES)
        .map_err(|e| PackErrors::whole_file(&file, codes::P801.at("", e.to_string())))?;
    load_manifest(dir, &bytes, true, base)
}

/// [`load`] with `pack.json`'s text given (an editor's unsaved buffer, SPEC §8): the rest of
/// the pack (schema files, fragments, the digest, `pack.sig`) is read from `dir`.
pub fn load_bytes(dir: &Path, bytes: &[u8], base: &Registry) -> Result<Pack, PackErrors> {
    load_manifest(dir, bytes, false, base)
}

/// [`load_bytes`]; `on_disk`: `bytes` are `pack.json`'s on disk (read by [`load`]), so the
/// digest uses them instead of reading the file again.
fn load_manifest(
    dir: &Path,
    bytes: &[u8],
    on_disk: bool,
    base: &Registry,
) -> Result<Pack, PackErrors> {
    let file = dir.join(MANIFEST).display().to_string();
    if bytes.len() > super::MAX_MANIFEST_BYTES {
        return Err(PackErrors::whole_file(
            &file,
            codes::P801.at(
                "",
                format!(
                    "`pack.json` is {} bytes, over the limit of {}",
                    bytes.len(),
                    super::MAX_MANIFEST_BYTES
                ),
            ),
        ));
    }
    let parsed = json::parse(bytes, &LIMITS).map_err(|e| {
        let mut errors = PackErrors::whole_file(&file, json_error(&e));
        if let Some(r) = errors.reports.first_mut() {
            r.source = Arc::from(String::from_utf8_lossy(bytes).as_ref());
            if let Some(d) = r.diagnostics.first_mut() {
                d.line = e.span.line;
                d.column = e.span.column;
            }
        }
        errors
    })?;
    // The tree moves into the contracts (uncopied); the pack keeps the text and its spans,
    // which is all locating needs.
    let mut parsed = parsed;
    let root = std::mem::take(&mut parsed.value);
    let parsed = Arc::new(parsed);
    let mut loader = Loader {
        dir,
        base,
        findings: Findings::new(&file, parsed.clone()),
        schema_files: HashMap::new(),
        may_refer: may_refer(parsed.source()),
    };
    let pack = loader.manifest(root, &file, parsed.clone());
    let digest = match super::digest::DigestFiles::read(dir, on_disk) {
        Ok(d) => Some(d),
        Err(errors) => {
            for report in errors.reports {
                for d in report.diagnostics {
                    loader.findings.in_file(&report.file, None, d);
                }
            }
            None
        }
    };
    if loader.findings.has_errors() {
        return Err(loader.findings.finish());
    }
    let (Some(mut pack), Some(digest)) = (pack, digest) else {
        // Every path that leaves the pack out records a finding; this is a guard.
        loader
            .findings
            .at(&codes::P801, "", "the pack could not be loaded");
        return Err(loader.findings.finish());
    };
    pack.digest_files = digest;
    match super::signature::read(dir, &pack) {
        Ok(signature) => pack.signature = signature,
        Err(d) => {
            let sig_file = dir.join(super::SIGNATURE).display().to_string();
            loader.findings.in_file(&sig_file, None, d);
            return Err(loader.findings.finish());
        }
    }
    Ok(pack)
}

/// A schema file of the pack, read and bundled once.
#[derive(Clone)]
struct SchemaFile {
    /// The file with its own `$ref`s rewritten to bundle-local ones.
    value: Value,
    /// The files it refers to (relative to the pack root).
    refs: Vec<String>,
}

struct Loader<'a> {
    dir: &'a Path,
    base: &'a Registry,
    findings: Findings,
    /// Pack-relative path → the file bundled, or `None` when it could not be read.
    schema_files: HashMap<String, Option<SchemaFile>>,
    /// Whether `pack.json` can hold a `$ref` at all (see [`may_refer`]): when it cannot, no
    /// schema of it is walked for references to bundle.
    may_refer: bool,
}

impl Loader<'_> {
    fn p801(&mut self, pointer: impl Into<String>, message: impl Into<String>) {
        self.findings.at(&codes::P801, pointer, message);
    }

    fn unknown_fields(&mut self, at: &str, object: &Map<String, Value>, allowed: &[&str]) {
        for key in object.keys() {
            if !allowed.contains(&key.as_str()) {
                let expected = diagnostic::suggest::nearest(key, allowed.iter().copied(), 1)
                    .into_iter()
                    .next()
                    .map(|s| format!("; did you mean `{s}`?"))
                    .unwrap_or_default();
                self.p801(ptr(at, key), format!("unknown field `{key}`{expected}"));
            }
        }
    }

    fn string<'v>(
        &mut self,
        object: &'v Map<String, Value>,
        at: &str,
        key: &str,
        required: bool,
    ) -> Option<&'v str> {
        match object.get(key) {
            None => {
                if required {
                    self.p801(at.to_string(), format!("missing required field `{key}`"));
                }
                None
            }
            Some(Value::String(s)) => Some(s),
            Some(other) => {
                self.p801(
                    ptr(at, key),
                    format!("`{key}` must be a string, found {}", kind(other)),
                );
                None
            }
        }
    }

    fn strings(&mut self, value: &Value, at: &str, what: &str) -> Vec<String> {
        let Value::Array(items) = value else {
            self.p801(
                at.to_string(),
                format!(
                    "`{what}` must be an array of strings, found {}",
                    kind(value)
                ),
            );
            return Vec::new();
        };
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            match item {
                Value::String(s) => out.push(s.clone()),
                other => self.p801(
                    ptr(at, &i.to_string()),
                    format!("`{what}` entries must be strings, found {}", kind(other)),
                ),
            }
        }
        out
    }

    fn range(&mut self, text: &Value, pointer: String, what: &str) -> Option<Range> {
        let Value::String(text) = text else {
            self.p801(
                pointer,
                format!(
                    "{what} must be a semver range string such as \"^1.0\", found {}",
                    kind(text)
                ),
            );
            return None;
        };
        match parse_range(text) {
            Some(req) => Some(Range {
                text: text.clone(),
                req,
                pointer,
            }),
            None => {
                self.p801(
                    pointer,
                    format!(
                        "{what} {text:?} is not a semver range (e.g. \"^1.2\", \"~1.2.3\", \
                         \">=1.0, <2\", \"=1.2.3\")"
                    ),
                );
                None
            }
        }
    }

    fn object<'v>(
        &mut self,
        value: &'v Value,
        at: &str,
        what: &str,
    ) -> Option<&'v Map<String, Value>> {
        match value {
            Value::Object(o) => Some(o),
            other => {
                self.p801(
                    at.to_string(),
                    format!("`{what}` must be an object, found {}", kind(other)),
                );
                None
            }
        }
    }

    fn manifest(&mut self, root: Value, file: &str, parsed: Arc<Parsed>) -> Option<Pack> {
        self.object(&root, "", "pack.json")?;
        let Value::Object(mut top) = root else {
            return None;
        };
        let top = &mut top;
        self.unknown_fields("", top, FIELDS);
        let name = self.string(top, "", "pack", true).map(str::to_string);
        if let Some(n) = &name
            && !is_pack_name(n)
        {
            self.p801(
                "/pack",
                format!("pack name {n:?} must match ^[a-z][a-z0-9-]*$"),
            );
        }
        let version = match self.string(top, "", "version", true) {
            Some(v) => {
                let parsed = parse_version(v);
                if parsed.is_none() {
                    self.p801(
                        "/version",
                        format!("`version` must be a semver MAJOR.MINOR.PATCH, found {v:?}"),
                    );
                }
                parsed
            }
            None => None,
        };
        let summary = self.string(top, "", "summary", false).map(str::to_string);
        let kernel_abi = match top.get("kernel_abi") {
            None => {
                self.p801("", "missing required field `kernel_abi`");
                None
            }
            Some(v) => self.range(v, "/kernel_abi".to_string(), "`kernel_abi`"),
        };
        let mut requires = Vec::new();
        if let Some(v) = top.get("requires")
            && let Some(o) = self.object(v, "/requires", "requires")
        {
            for (dep, range) in o {
                let pointer = ptr("/requires", dep);
                if !is_pack_name(dep) {
                    self.p801(
                        pointer.clone(),
                        format!("pack name {dep:?} must match ^[a-z][a-z0-9-]*$"),
                    );
                }
                if name.as_deref() == Some(dep.as_str()) {
                    self.findings.at(
                        &codes::P805,
                        pointer.clone(),
                        format!("pack `{dep}` requires itself"),
                    );
                }
                if let Some(range) = self.range(range, pointer, &format!("`requires.{dep}`")) {
                    requires.push(Requirement {
                        name: dep.clone(),
                        range,
                    });
                }
            }
        }
        let roots = match top.get("roots") {
            None => {
                self.p801("", "missing required field `roots`");
                Vec::new()
            }
            Some(v) => self.strings(v, "/roots", "roots"),
        };
        self.check_roots(&roots);
        let decision_sets = self.decision_sets(top.get("decision_sets"));
        let error_classes = match top.get("error_classes") {
            None => Vec::new(),
            Some(v) => {
                let classes = self.strings(v, "/error_classes", "error_classes");
                for (i, c) in classes.iter().enumerate() {
                    if !is_snake(c) {
                        self.p801(
                            format!("/error_classes/{i}"),
                            format!("error class {c:?} must match ^[a-z][a-z0-9_]*$"),
                        );
                    }
                    if classes[..i].contains(c) {
                        self.p801(
                            format!("/error_classes/{i}"),
                            format!("error class `{c}` is listed twice"),
                        );
                    }
                }
                classes
            }
        };
        let schemas = self.schemas(top.get("schemas"));
        let commands = self.commands(top.get("commands"));
        let environment = top.get("environment").and_then(|v| self.environment(v));
        let context_rules = self.context_rules(top.get("context_rules"));
        let (fragments, fragment_files) = self.fragments(top.get("fragments"));
        let rules = top.get("rules").map(|v| {
            if !v.is_array() {
                self.p801(
                    "/rules",
                    format!("`rules` must be an array of rules, found {}", kind(v)),
                );
            }
            RawSection {
                pointer: "/rules".into(),
                value: v.clone(),
            }
        });
        let fixtures = top.get("fixtures").map(|v| {
            if !v.is_array() {
                self.p801(
                    "/fixtures",
                    format!("`fixtures` must be an array of fixtures, found {}", kind(v)),
                );
            }
            RawSection {
                pointer: "/fixtures".into(),
                value: v.clone(),
            }
        });
        let (families, families_shaped) = self.families(top.get("families"), &roots);
        let written = top.remove("primitives");
        let primitives = self.primitives(
            written,
            families_shaped.then(|| top.get("families")),
            &roots,
            &decision_sets,
            &commands,
            environment.as_ref(),
        );
        let (plugins, plugin_files) = self.plugins(top.get("plugins"), &primitives);
        Some(Pack {
            name: name?,
            version: version?,
            summary,
            kernel_abi: kernel_abi?,
            requires,
            roots,
            families,
            primitives,
            decision_sets,
            error_classes,
            schemas,
            commands,
            context_rules,
            environment,
            fragments,
            fragment_files,
            rules,
            fixtures,
            plugins,
            plugin_files,
            dir: self.dir.to_path_buf(),
            manifest: file.to_string(),
            source: parsed,
            digest_files: Default::default(),
            digest_value: Default::default(),
            signature: None,
        })
    }

    /// Roots are first segments of IDs, distinct, and never a base registry's family prefix
    /// (the kernel cannot be changed by a pack).
    fn check_roots(&mut self, roots: &[String]) {
        for (i, root) in roots.iter().enumerate() {
            let pointer = format!("/roots/{i}");
            if !is_root(root) {
                self.p801(
                    pointer.clone(),
                    format!("root {root:?} must be an ID's first segment, ^[a-z][a-z0-9]*$"),
                );
            }
            if roots[..i].contains(root) {
                self.p801(pointer.clone(), format!("root `{root}` is listed twice"));
            }
            if let Some(f) = self.base.families().iter().find(|f| &f.prefix == root) {
                let message = format!(
                    "root `{root}` is the prefix of the registry's family `{}`: a pack extends \
                     the registry in its own namespace and can never change the kernel's",
                    f.name
                );
                self.findings.at(&codes::P802, pointer, message);
            }
        }
    }

    fn decision_sets(&mut self, value: Option<&Value>) -> BTreeMap<String, Vec<String>> {
        let mut out = BTreeMap::new();
        let Some(v) = value else { return out };
        let Some(o) = self.object(v, "/decision_sets", "decision_sets") else {
            return out;
        };
        for (name, outcomes) in o {
            let at = ptr("/decision_sets", name);
            if !is_snake_or_kebab(name) {
                self.p801(
                    at.clone(),
                    format!("decision set name {name:?} must match ^[a-z][a-z0-9_-]*$"),
                );
            }
            let list = self.strings(outcomes, &at, "decision set");
            if list.is_empty() && outcomes.is_array() {
                self.p801(at.clone(), "a decision set is a non-empty list of outcomes");
            }
            for (i, o) in list.iter().enumerate() {
                if list[..i].contains(o) {
                    self.p801(
                        format!("{at}/{i}"),
                        format!("outcome `{o}` is listed twice"),
                    );
                }
            }
            out.insert(name.clone(), list);
        }
        out
    }

    fn schemas(&mut self, value: Option<&Value>) -> BTreeMap<String, String> {
        let mut out = BTreeMap::new();
        let Some(v) = value else { return out };
        let Some(o) = self.object(v, "/schemas", "schemas") else {
            return out;
        };
        for (name, path) in o {
            let at = ptr("/schemas", name);
            let Value::String(path) = path else {
                self.p801(
                    at,
                    format!(
                        "a schema is the path of a JSON Schema file in the pack, found {}",
                        kind(path)
                    ),
                );
                continue;
            };
            let Some(rel) = normalize_relative(path) else {
                self.p801(
                    at,
                    format!(
                        "schema path {path:?} must be relative to the pack root and stay inside \
                         it (no `..`, not absolute)"
                    ),
                );
                continue;
            };
            out.insert(name.clone(), rel.clone());
            // Every declared file is read and checked, referenced or not.
            if let Some(file) = self.schema_file(&rel, &at)
                && let Err(e) = jsonschema::validator_for(&file.value)
            {
                self.p801(
                    at,
                    format!("schema file `{rel}` is not a valid JSON Schema: {e}"),
                );
            }
        }
        out
    }

    /// Read (once) and bundle a schema file of the pack; `at` is the pointer in `pack.json`
    /// that names it, where a missing or unreadable file is reported.
    fn schema_file(&mut self, rel: &str, at: &str) -> Option<SchemaFile> {
        if let Some(done) = self.schema_files.get(rel) {
            return done.clone();
        }
        // Mark as in progress, so a reference cycle between schema files ends.
        self.schema_files.insert(rel.to_string(), None);
        let path = self.dir.join(rel);
        let shown = path.display().to_string();
        let meta = match std::fs::symlink_metadata(&path) {
            Ok(m) => m,
            Err(_) => {
                self.findings.at(
                    &codes::P808,
                    at.to_string(),
                    format!("schema file `{rel}` does not exist in the pack"),
                );
                return None;
            }
        };
        if meta.file_type().is_symlink() {
            self.p801(
                at.to_string(),
                format!(
                    "schema file `{rel}` is a symbolic link; a pack's files must be regular files"
                ),
            );
            return None;
        }
        let bytes = match crate::input::read_capped(&path, MAX_FILE_BYTES) {
            Ok(b) => b,
            Err(e) => {
                self.p801(at.to_string(), format!("schema file `{rel}`: {e}"));
                return None;
            }
        };
        let parsed = match json::parse(&bytes, &LIMITS) {
            Ok(p) => p,
            Err(e) => {
                let mut d = json_error(&e);
                d.line = e.span.line;
                d.column = e.span.column;
                self.findings.in_file(&shown, None, d);
                return None;
            }
        };
        let key = def_key(rel);
        let parsed = Arc::new(parsed);
        let mut value = parsed.value.clone();
        if let Value::Object(o) = &mut value {
            // The bundle is one document: the file's identity goes, its refs become local.
            o.remove("$id");
            o.remove("$schema");
        }
        let mut refs = Vec::new();
        let base_dir = parent_of(rel);
        let mut bad = Vec::new();
        rewrite_refs(&mut value, "", &mut |r, pointer| {
            if let Some(local) = r.strip_prefix('#') {
                return Some(format!(
                    "#/$defs/{}{local}",
                    json::pointer::escape_token(&key)
                ));
            }
            let (file, fragment) = split_ref(r);
            match normalize_relative(&join(&base_dir, file)) {
                Some(target) => {
                    refs.push(target.clone());
                    Some(format!(
                        "#/$defs/{}{fragment}",
                        json::pointer::escape_token(&def_key(&target))
                    ))
                }
                None => {
                    bad.push((pointer.to_string(), r.to_string()));
                    None
                }
            }
        });
        for (pointer, r) in bad {
            self.findings.in_file(
                &shown,
                Some(parsed.clone()),
                codes::P808.at(
                    pointer,
                    format!("`$ref` {r:?} leaves the pack (a schema refers to files in the pack)"),
                ),
            );
        }
        let file = SchemaFile { value, refs };
        self.schema_files
            .insert(rel.to_string(), Some(file.clone()));
        Some(file)
    }

    fn commands(&mut self, value: Option<&Value>) -> BTreeMap<String, Command> {
        let mut out = BTreeMap::new();
        let Some(v) = value else { return out };
        let Some(o) = self.object(v, "/commands", "commands") else {
            return out;
        };
        for (name, command) in o {
            let at = ptr("/commands", name);
            let Some(c) = self.object(command, &at, "command") else {
                continue;
            };
            self.unknown_fields(&at, c, &["argv", "effects"]);
            let argv = match c.get("argv") {
                None => {
                    self.p801(at.clone(), "missing required field `argv`");
                    Vec::new()
                }
                Some(v) => {
                    let argv = self.strings(v, &ptr(&at, "argv"), "argv");
                    if argv.is_empty() && v.is_array() {
                        self.p801(ptr(&at, "argv"), "`argv` names at least the program");
                    }
                    argv
                }
            };
            let effects = match c.get("effects") {
                None => Vec::new(),
                Some(v) => self.effects(v, &ptr(&at, "effects")),
            };
            out.insert(name.clone(), Command { argv, effects });
        }
        out
    }

    fn effects(&mut self, value: &Value, at: &str) -> Vec<Effect> {
        let names = self.strings(value, at, "effects");
        let mut out = Vec::new();
        for (i, n) in names.iter().enumerate() {
            match parse_effect(n) {
                Some(e) => out.push(e),
                None => self.p801(
                    format!("{at}/{i}"),
                    format!(
                        "unknown effect `{n}` (expected one of {})",
                        lint::shape::EFFECTS.join(", ")
                    ),
                ),
            }
        }
        out
    }

    fn environment(&mut self, value: &Value) -> Option<Environment> {
        let o = self.object(value, "/environment", "environment")?;
        self.unknown_fields("/environment", o, &["requires", "network"]);
        let requires = match o.get("requires") {
            None => Vec::new(),
            Some(v) => self.strings(v, "/environment/requires", "environment.requires"),
        };
        let network = match o.get("network") {
            None => None,
            Some(Value::Bool(b)) => Some(*b),
            Some(other) => {
                self.p801(
                    "/environment/network",
                    format!("`network` must be a boolean, found {}", kind(other)),
                );
                None
            }
        };
        Some(Environment { requires, network })
    }

    fn context_rules(&mut self, value: Option<&Value>) -> Vec<ContextRule> {
        let mut out = Vec::new();
        let Some(v) = value else { return out };
        let Value::Array(items) = v else {
            self.p801(
                "/context_rules",
                format!("`context_rules` must be an array, found {}", kind(v)),
            );
            return out;
        };
        for (i, item) in items.iter().enumerate() {
            let at = format!("/context_rules/{i}");
            let Some(o) = self.object(item, &at, "context rule") else {
                continue;
            };
            self.unknown_fields(&at, o, &["primitive", "read", "deny"]);
            let Some(primitive) = self.string(o, &at, "primitive", true).map(str::to_string) else {
                continue;
            };
            let read = o
                .get("read")
                .map_or_else(Vec::new, |v| self.strings(v, &ptr(&at, "read"), "read"));
            let deny = o
                .get("deny")
                .map_or_else(Vec::new, |v| self.strings(v, &ptr(&at, "deny"), "deny"));
            let read_set = self.globs(&read, &ptr(&at, "read"));
            let deny_set = self.globs(&deny, &ptr(&at, "deny"));
            if let (Some(read_set), Some(deny_set)) = (read_set, deny_set) {
                out.push(ContextRule {
                    primitive,
                    read,
                    deny,
                    pointer: at,
                    deny_set,
                    read_set,
                });
            }
        }
        out
    }

    fn globs(&mut self, globs: &[String], at: &str) -> Option<globset::GlobSet> {
        let mut builder = globset::GlobSetBuilder::new();
        let mut ok = true;
        for (i, g) in globs.iter().enumerate() {
            match glob(g) {
                Ok(glob) => {
                    builder.add(glob);
                }
                Err(e) => {
                    ok = false;
                    self.p801(format!("{at}/{i}"), format!("glob {g:?}: {e}"));
                }
            }
        }
        let set = builder.build().ok()?;
        ok.then_some(set)
    }

    fn fragments(&mut self, value: Option<&Value>) -> (Option<RawSection>, Vec<String>) {
        let Some(v) = value else {
            return (None, Vec::new());
        };
        let raw = RawSection {
            pointer: "/fragments".into(),
            value: v.clone(),
        };
        let globs = self.strings(v, "/fragments", "fragments");
        if globs.is_empty() {
            return (Some(raw), Vec::new());
        }
        let files = match super::digest::list_files(self.dir) {
            Ok(files) => files,
            // The digest reports what is wrong with the directory.
            Err(_) => return (Some(raw), Vec::new()),
        };
        let mut matched = Vec::new();
        for (i, g) in globs.iter().enumerate() {
            let at = format!("/fragments/{i}");
            if normalize_relative(g).is_none() {
                self.p801(
                    at,
                    format!("fragment glob {g:?} must be relative to the pack root, inside it"),
                );
                continue;
            }
            let matcher = match glob(g.trim_start_matches("./")) {
                Ok(glob) => glob.compile_matcher(),
                Err(e) => {
                    self.p801(at, format!("glob {g:?}: {e}"));
                    continue;
                }
            };
            let hits: Vec<&String> = files
                .iter()
                .filter(|f| matcher.is_match(f.as_str()))
                .collect();
            if hits.is_empty() {
                self.findings.at(
                    &codes::P808,
                    at,
                    format!("fragment glob {g:?} matches no file in the pack"),
                );
            }
            matched.extend(hits.into_iter().cloned());
        }
        matched.sort();
        matched.dedup();
        (Some(raw), matched)
    }

    fn plugins(
        &mut self,
        value: Option<&Value>,
        primitives: &[PackPrimitive],
    ) -> (Option<RawSection>, BTreeMap<String, String>) {
        let mut files = BTreeMap::new();
        let Some(v) = value else {
            return (None, files);
        };
        let raw = RawSection {
            pointer: "/plugins".into(),
            value: v.clone(),
        };
        let Some(o) = self.object(v, "/plugins", "plugins") else {
            return (Some(raw), files);
        };
        for (id, path) in o {
            let at = ptr("/plugins", id);
            if !primitives.iter().any(|p| &p.contract.id == id) {
                self.findings.at(
                    &codes::P808,
                    at.clone(),
                    format!("plugin for `{id}`, which is not a primitive of this pack"),
                );
            }
            let Value::String(path) = path else {
                self.p801(at, format!("a plugin is a file path, found {}", kind(path)));
                continue;
            };
            let Some(rel) = normalize_relative(path) else {
                self.p801(
                    at,
                    format!("plugin path {path:?} must be relative to the pack root, inside it"),
                );
                continue;
            };
            match std::fs::symlink_metadata(self.dir.join(&rel)) {
                Ok(m) if m.file_type().is_file() => {
                    files.insert(id.clone(), rel);
                }
                Ok(m) => self.p801(
                    at,
                    format!(
                        "plugin `{rel}` is {}, not a regular file",
                        crate::input::kind_of(m.file_type())
                    ),
                ),
                Err(_) => self.findings.at(
                    &codes::P808,
                    at,
                    format!("plugin file `{rel}` does not exist in the pack"),
                ),
            }
        }
        (Some(raw), files)
    }

    /// The families, and whether every entry has the shape the registry lint core reads (a
    /// `false` has been reported here as P801 already).
    fn families(&mut self, value: Option<&Value>, roots: &[String]) -> (Vec<Family>, bool) {
        let mut out = Vec::new();
        let Some(v) = value else {
            return (out, true);
        };
        let Value::Array(items) = v else {
            self.p801(
                "/families",
                format!("`families` must be an array, found {}", kind(v)),
            );
            return (out, false);
        };
        let mut shaped = true;
        for (i, item) in items.iter().enumerate() {
            let at = format!("/families/{i}");
            let Some(o) = self.object(item, &at, "family") else {
                shaped = false;
                continue;
            };
            self.unknown_fields(&at, o, FAMILY_FIELDS);
            let fields: Vec<Option<String>> = FAMILY_FIELDS
                .iter()
                .map(|k| self.string(o, &at, k, true).map(str::to_string))
                .collect();
            let [Some(name), Some(prefix), Some(group), Some(summary)] =
                <[Option<String>; 4]>::try_from(fields).unwrap_or_default()
            else {
                shaped = false;
                continue;
            };
            if !roots.contains(&prefix) {
                self.findings.at(
                    &codes::P802,
                    ptr(&at, "prefix"),
                    format!(
                        "family `{name}` has prefix `{prefix}`, which is not one of the pack's \
                         roots ({})",
                        list(roots)
                    ),
                );
            }
            out.push(Family {
                name,
                prefix,
                group,
                summary,
            });
        }
        (out, shaped)
    }

    /// The contracts, checked by the registry lint core over the registry-shaped document.
    /// `families` as written (`Some(None)`: none), `None` when they are not the shape the core
    /// reads. The core is not run then, nor when a primitive is not an object: that is reported as P801 already, the core's own shape check would
    /// report it again, and its invariants mean nothing over an ill-shaped document.
    fn primitives(
        &mut self,
        value: Option<Value>,
        families: Option<Option<&Value>>,
        roots: &[String],
        decision_sets: &BTreeMap<String, Vec<String>>,
        commands: &BTreeMap<String, Command>,
        environment: Option<&Environment>,
    ) -> Vec<PackPrimitive> {
        let Some(v) = value else {
            return Vec::new();
        };
        let items = match v {
            Value::Array(items) => items,
            other => {
                self.p801(
                    "/primitives",
                    format!("`primitives` must be an array, found {}", kind(&other)),
                );
                return Vec::new();
            }
        };
        // The registry-shaped document the lint core reads: same indices, so its pointers are
        // pointers into `pack.json`.
        let mut shaped = families.is_some();
        let mut normalized = Vec::with_capacity(items.len());
        let mut extras: Vec<(Vec<String>, Option<String>)> = Vec::with_capacity(items.len());
        for (i, item) in items.into_iter().enumerate() {
            let at = format!("/primitives/{i}");
            let mut p = match item {
                Value::Object(o) => o,
                other => {
                    self.p801(
                        at,
                        format!("a primitive must be an object, found {}", kind(&other)),
                    );
                    normalized.push(other);
                    extras.push((Vec::new(), None));
                    shaped = false;
                    continue;
                }
            };
            self.unknown_fields(&at, &p, PRIMITIVE_FIELDS);
            let id = p
                .get("id")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            let id = id.as_str();
            let root = id.split('.').next().unwrap_or("");
            if !id.is_empty() && !roots.iter().any(|r| r == root) {
                self.findings.at(
                    &codes::P802,
                    ptr(&at, "id"),
                    format!(
                        "primitive `{id}` is outside the pack's roots ({}): its first segment \
                         must be one of them",
                        list(roots)
                    ),
                );
            }
            let mut decision_set = None;
            if let Some(Value::Object(ds)) = p.get("outcomes") {
                let oat = ptr(&at, "outcomes");
                self.unknown_fields(&oat, ds, &["decision_set"]);
                let named = ds.get("decision_set").map(|v| match v {
                    Value::String(name) => Some(name.clone()),
                    _ => None,
                });
                match named {
                    Some(Some(name)) => {
                        match decision_sets.get(&name) {
                            Some(list) => {
                                decision_set = Some(name);
                                p.insert(
                                    "outcomes".into(),
                                    Value::Array(list.iter().cloned().map(Value::String).collect()),
                                );
                            }
                            None => {
                                let known = decision_sets.keys().map(String::as_str);
                                let hint = diagnostic::suggest::nearest(&name, known, 1)
                                    .into_iter()
                                    .next()
                                    .map(|s| format!("; did you mean `{s}`?"))
                                    .unwrap_or_default();
                                self.findings.at(
                                &codes::P808,
                                ptr(&oat, "decision_set"),
                                format!("decision set `{name}` is not declared in `decision_sets`{hint}"),
                            );
                                p.remove("outcomes");
                                p.remove("grants");
                            }
                        }
                    }
                    _ => {
                        self.p801(
                            oat,
                            "`outcomes` is a list of outcomes or {\"decision_set\": NAME}",
                        );
                        p.remove("outcomes");
                        p.remove("grants");
                    }
                }
            }
            let mut own_commands = Vec::new();
            if let Some(c) = p.remove("commands") {
                let cat = ptr(&at, "commands");
                own_commands = self.strings(&c, &cat, "commands");
                let effects: Vec<&str> = p
                    .get("effects")
                    .and_then(Value::as_array)
                    .map(|a| a.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                for (j, name) in own_commands.iter().enumerate() {
                    let jat = format!("{cat}/{j}");
                    match commands.get(name) {
                        None => {
                            let hint = diagnostic::suggest::nearest(
                                name,
                                commands.keys().map(String::as_str),
                                1,
                            )
                            .into_iter()
                            .next()
                            .map(|s| format!("; did you mean `{s}`?"))
                            .unwrap_or_default();
                            self.findings.at(
                                &codes::P808,
                                jat,
                                format!("command `{name}` is not declared in `commands`{hint}"),
                            );
                        }
                        Some(command) => {
                            let outside: Vec<&str> = command
                                .effects
                                .iter()
                                .map(|e| e.as_str())
                                .filter(|e| !effects.contains(e))
                                .collect();
                            if !outside.is_empty() {
                                let d = codes::P809
                                    .at(
                                        jat,
                                        format!(
                                            "command `{name}` has the effects {} that primitive \
                                             `{id}` does not declare",
                                            outside.join(", ")
                                        ),
                                    )
                                    .with_related(
                                        format!("/commands/{}/effects", name),
                                        format!("the effects of command `{name}`"),
                                    );
                                self.findings.push(d);
                            }
                        }
                    }
                }
            }
            if let Some(env) = environment
                && env.network == Some(false)
                && let Some(effects) = p.get("effects").and_then(Value::as_array)
                && let Some(k) = effects.iter().position(|e| e == "network")
            {
                let d = codes::P809
                    .at(
                        format!("{at}/effects/{k}"),
                        format!(
                            "primitive `{id}` declares the effect `network`, but the pack's \
                             environment says `\"network\": false`"
                        ),
                    )
                    .with_related("/environment/network", "the environment has no network");
                self.findings.push(d);
            }
            for side in ["inputs", "outputs"] {
                if let Some(schema) = p.get_mut(side) {
                    self.bundle(schema, &ptr(&at, side));
                }
            }
            normalized.push(Value::Object(p));
            extras.push((own_commands, decision_set));
        }
        if let Some(env) = environment
            && env.network == Some(false)
        {
            for (name, c) in commands {
                if c.effects.contains(&Effect::Network) {
                    let d = codes::P809
                        .at(
                            format!("/commands/{name}/effects"),
                            format!(
                                "command `{name}` has the effect `network`, but the pack's \
                                 environment says `\"network\": false`"
                            ),
                        )
                        .with_related("/environment/network", "the environment has no network");
                    self.findings.push(d);
                }
            }
        }
        if !shaped {
            return Vec::new();
        }
        // Built by moving `normalized` in: `json!` would serialize (deep-copy) every primitive.
        let mut doc = Map::new();
        doc.insert("abi".into(), Value::String(self.base.abi().to_string()));
        doc.insert(
            "families".into(),
            families
                .flatten()
                .cloned()
                .unwrap_or(Value::Array(Vec::new())),
        );
        doc.insert("primitives".into(), Value::Array(normalized));
        let doc = Value::Object(doc);
        // `lint_value` checks the shape first (a P801 with its pointer, as any shape error).
        match lint::lint_value(&doc) {
            Ok(findings) => {
                for f in findings {
                    if f.code == &codes::L507 && deferred_fallback(&f, &doc, roots) {
                        continue;
                    }
                    let mut d = f.code.at(f.pointer, f.message);
                    if let Some((pointer, message)) = f.related {
                        d = d.with_related(pointer, message);
                    }
                    self.findings.push(d);
                }
            }
            Err(e) => {
                self.p801(e.pointer, e.message);
                return Vec::new();
            }
        }
        // The document is done with: its primitives move into the contracts, uncopied.
        let Value::Object(mut doc) = doc else {
            return Vec::new();
        };
        let Some(Value::Array(prims)) = doc.remove("primitives") else {
            return Vec::new();
        };
        let mut out = Vec::with_capacity(prims.len());
        for (i, (mut value, (commands, decision_set))) in prims.into_iter().zip(extras).enumerate()
        {
            // The schemas move into the contract as they are: deserializing a `Value` into a
            // `Value` would build every map of them again.
            let mut schemas = [None, None];
            if let Value::Object(o) = &mut value {
                for (side, slot) in ["inputs", "outputs"].into_iter().zip(&mut schemas) {
                    if let Some(v) = o.get_mut(side) {
                        *slot = Some(std::mem::take(v));
                    }
                }
            }
            match serde_json::from_value::<Primitive>(value) {
                Ok(mut contract) => {
                    let [inputs, outputs] = schemas;
                    if let Some(v) = inputs {
                        contract.inputs = Arc::new(v);
                    }
                    if let Some(v) = outputs {
                        contract.outputs = Arc::new(v);
                    }
                    out.push(PackPrimitive {
                        contract,
                        commands,
                        decision_set,
                        pointer: format!("/primitives/{i}"),
                    })
                }
                Err(e) => self.p801(format!("/primitives/{i}"), e.to_string()),
            }
        }
        out
    }

    /// Bundle the pack schema files a contract schema refers to into its `$defs` (JSON Schema
    /// 2020-12 bundling: each `$ref` to a file becomes `#/$defs/KEY`, transitively), so the
    /// contract is one self-contained document.
    fn bundle(&mut self, schema: &mut Value, at: &str) {
        if !self.may_refer {
            return;
        }
        let mut wanted: Vec<(String, String)> = Vec::new();
        let mut bad = Vec::new();
        rewrite_refs(schema, at, &mut |r, pointer| {
            if r.starts_with('#') {
                return None;
            }
            let (file, fragment) = split_ref(r);
            match normalize_relative(file) {
                Some(rel) => {
                    let key = def_key(&rel);
                    wanted.push((rel, pointer.to_string()));
                    Some(format!(
                        "#/$defs/{}{fragment}",
                        json::pointer::escape_token(&key)
                    ))
                }
                None => {
                    bad.push((pointer.to_string(), r.to_string()));
                    None
                }
            }
        });
        for (pointer, r) in bad {
            self.findings.at(
                &codes::P808,
                pointer,
                format!(
                    "`$ref` {r:?} is not a file in the pack (a path relative to the pack root)"
                ),
            );
        }
        if wanted.is_empty() {
            return;
        }
        let mut defs: BTreeMap<String, Value> = BTreeMap::new();
        let mut queue = wanted;
        let mut seen: Vec<String> = Vec::new();
        while let Some((rel, pointer)) = queue.pop() {
            if seen.contains(&rel) {
                continue;
            }
            seen.push(rel.clone());
            let Some(file) = self.schema_file(&rel, &pointer) else {
                // Already a finding (P801, P808) and the pack will not load: an accept-all
                // stand-in keeps the `$ref` resolvable, so the lint does not add an L505 per
                // primitive that refers to the file.
                defs.insert(def_key(&rel), Value::Bool(true));
                continue;
            };
            for r in &file.refs {
                queue.push((r.clone(), pointer.clone()));
            }
            defs.insert(def_key(&rel), file.value);
        }
        let Value::Object(o) = schema else {
            self.p801(
                at.to_string(),
                "a schema that refers to files must be an object",
            );
            return;
        };
        let entry = o
            .entry("$defs")
            .or_insert_with(|| Value::Object(Map::new()));
        let Value::Object(existing) = entry else {
            self.p801(ptr(at, "$defs"), "`$defs` must be an object");
            return;
        };
        for (key, value) in defs {
            if existing.contains_key(&key) {
                self.p801(
                    ptr(&ptr(at, "$defs"), &key),
                    format!("`$defs/{key}` is taken; the bundled schema file needs that name"),
                );
                continue;
            }
            existing.insert(key, value);
        }
    }
}

/// Whether a JSON text can hold the key `$ref`: written plainly, or with some of its characters
/// as `\u` escapes (none of `$`, `r`, `e`, `f` has a shorter escape). A text with neither has
/// no reference to bundle.
fn may_refer(text: &str) -> bool {
    text.contains("$ref") || text.contains("\\u")
}

/// The `$defs` key of a bundled file: its pack-relative path, which is unique and says where
/// the schema came from (`#/$defs/schemas~1patch.json`).
fn def_key(rel: &str) -> String {
    rel.to_string()
}

/// Whether an L507 "names no primitive" finding is about a fallback outside the pack's roots:
/// that one names a primitive of the base registry or of a required pack, checked when the
/// composition is known.
fn deferred_fallback(f: &lint::Finding, doc: &Value, roots: &[String]) -> bool {
    let Some(target) = doc.pointer(&f.pointer).and_then(Value::as_str) else {
        return false;
    };
    let root = target.split('.').next().unwrap_or("");
    f.pointer.ends_with("/fallback")
        && !roots.iter().any(|r| r == root)
        && !f.message.contains("cycle")
}

/// Walk a JSON Schema and rewrite every `$ref` string `f` maps (pointer of the `$ref` given).
fn rewrite_refs(value: &mut Value, at: &str, f: &mut dyn FnMut(&str, &str) -> Option<String>) {
    let mut pointer = at.to_string();
    rewrite_refs_rec(value, &mut pointer, f, 0);
}

/// One level of [`rewrite_refs`]; `at` is the pointer of `value`, extended in place for each
/// child and restored after it (no string built per node).
fn rewrite_refs_rec(
    value: &mut Value,
    at: &mut String,
    f: &mut dyn FnMut(&str, &str) -> Option<String>,
    depth: usize,
) {
    // The parser bounds depth (LIMITS.max_depth), so this recursion is bounded too.
    if depth > LIMITS.max_depth + 1 {
        return;
    }
    let len = at.len();
    match value {
        Value::Object(o) => {
            for (k, v) in o.iter_mut() {
                // Values of annotation keywords are data, not schemas.
                if matches!(k.as_str(), "const" | "enum" | "examples" | "default") {
                    continue;
                }
                let is_ref = k == "$ref";
                if !matches!(v, Value::Object(_) | Value::Array(_) | Value::String(_)) {
                    continue;
                }
                at.push('/');
                at.push_str(&json::pointer::escape_token(k));
                match v {
                    Value::String(r) if is_ref => {
                        if let Some(new) = f(r, at) {
                            *r = new;
                        }
                    }
                    Value::String(_) => {}
                    _ => rewrite_refs_rec(v, at, f, depth + 1),
                }
                at.truncate(len);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter_mut().enumerate() {
                if matches!(v, Value::Object(_) | Value::Array(_)) {
                    use std::fmt::Write as _;
                    let _ = write!(at, "/{i}");
                    rewrite_refs_rec(v, at, f, depth + 1);
                    at.truncate(len);
                }
            }
        }
        _ => {}
    }
}

/// `file#/frag` → (`file`, `/frag`).
fn split_ref(r: &str) -> (&str, &str) {
    match r.split_once('#') {
        Some((file, fragment)) => (file, fragment),
        None => (r, ""),
    }
}

fn parent_of(rel: &str) -> String {
    match rel.rsplit_once('/') {
        Some((dir, _)) => dir.to_string(),
        None => String::new(),
    }
}

fn join(dir: &str, rel: &str) -> String {
    if dir.is_empty() || rel.starts_with('/') {
        rel.to_string()
    } else {
        format!("{dir}/{rel}")
    }
}

/// A relative path with `/` separators that stays inside the pack: `.` segments dropped, `..`
/// resolved (never above the root), not absolute, not empty, no URL scheme.
pub fn normalize_relative(path: &str) -> Option<String> {
    if path.is_empty() || path.contains(':') || path.contains('\\') {
        return None;
    }
    let mut parts: Vec<&str> = Vec::new();
    for c in Path::new(path).components() {
        match c {
            Component::Normal(s) => parts.push(s.to_str()?),
            Component::CurDir => {}
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

fn glob(pattern: &str) -> Result<globset::Glob, globset::Error> {
    globset::GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
}

fn parse_effect(name: &str) -> Option<Effect> {
    serde_json::from_value(Value::String(name.to_string())).ok()
}

fn is_root(s: &str) -> bool {
    let mut b = s.bytes();
    b.next().is_some_and(|c| c.is_ascii_lowercase())
        && b.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
}

fn is_snake(s: &str) -> bool {
    let mut b = s.bytes();
    b.next().is_some_and(|c| c.is_ascii_lowercase())
        && b.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_')
}

fn is_snake_or_kebab(s: &str) -> bool {
    let mut b = s.bytes();
    b.next().is_some_and(|c| c.is_ascii_lowercase())
        && b.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_' || c == b'-')
}

fn list(items: &[String]) -> String {
    if items.is_empty() {
        "none".to_string()
    } else {
        items
            .iter()
            .map(|s| format!("`{s}`"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::may_refer;

    #[test]
    fn a_reference_is_seen_however_its_key_is_written() {
        assert!(may_refer(r#"{"inputs": {"$ref": "schemas/a.json"}}"#));
        assert!(may_refer(r#"{"inputs": {"\u0024ref": "schemas/a.json"}}"#));
        assert!(may_refer(r#"{"inputs": {"$\u0072ef": "schemas/a.json"}}"#));
        // Every escaped key is parsed as the same key: `\u` anywhere means "maybe".
        assert!(may_refer(r#"{"summary": "caf\u00e9"}"#));
        assert!(!may_refer(
            r#"{"inputs": {"type": "object", "ref": "$re f"}}"#
        ));
    }

    #[test]
    fn an_escaped_reference_key_is_the_key_the_parser_reads() {
        let parsed = crate::json::parse(br#"{"\u0024ref": "x"}"#, &Default::default()).unwrap();
        assert_eq!(parsed.value.get("$ref"), Some(&serde_json::json!("x")));
    }
}
