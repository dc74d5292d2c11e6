//! Pack versions compared, `primgraph pack diff OLD NEW` (SPEC §9.6): the §6.1 comparison of
//! the pack's primitives (each side's primitives made a registry and handed to
//! [`registry_diff::diff_with`], so V701–V720, their witnesses and the bump rules are §6.1's
//! own code), plus each fragment's interface (P860 breaking, P861 compatible or added), the
//! rules (P862 a rule added or made stricter), the required bump against NEW's `version`
//! (V718, at `/version`), and with `--graphs` the graphs NEW breaks (V719, each graph checked
//! with OLD's pack and then with NEW's). The report is a [`RegistryDiff`], so every output
//! format of `registry diff` prints it.
//!
//! Choices where the spec is silent (also in `docs/packs.md`):
//! - A fragment's interface is its `params` schema, its `inputs` ports (name → schema), its
//!   `outputs` ports (name → the schema of the output its `{"from", "at"}` names, resolved
//!   through the node's primitive in the pack and the base registry) and its `exits`.
//! - `params`: OLD ⊆ NEW (every `with` that passed still passes) is compatible, anything else
//!   breaking, with the witness; a `required` parameter added shows as such a witness.
//! - An input port added or removed is breaking (uses bind every port exactly once, P823); an
//!   output port added is compatible; an output port whose source cannot be resolved is
//!   compared by its `from` and `at` as written.
//! - A rule is "made stricter" when its severity rises, its `bounded` limit falls, or its
//!   definition otherwise changes (a changed selector may match more nodes; it is reported
//!   for review). A rule removed or relaxed is no finding.
//! - P862 requires a minor bump (as a §6.1 warning does); a fragment file that does not parse
//!   is skipped here (`pack lint` reports it).

mod codes;

use super::registry_diff::{self, DiffSide, Finding, GateSummary, Place, RegistryDiff};
use super::registry_diff::{Bump, graphs::GateError};
use crate::codes as table;
use crate::diagnostic::{self, Diagnostic, Severity};
use crate::json::Parsed;
use crate::pack::Pack;
use crate::pack_rules::{Kind, PackRule};
use crate::registry::Registry;
use crate::schema::CompatVerdict;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

/// Why a pack diff could not be made.
#[derive(Debug, thiserror::Error)]
pub enum PackDiffError {
    /// A side's primitives do not make a registry (they loaded as a pack, so this is rare).
    #[error("{file}: the pack's primitives do not load as a registry: {message}")]
    Primitives { file: String, message: String },
    #[error(transparent)]
    Gate(#[from] GateError),
}

/// Compare two loaded packs (usually two versions of one pack).
pub fn diff(old: &Pack, new: &Pack, base: &Registry) -> Result<RegistryDiff, PackDiffError> {
    diff_with_graphs(old, new, base, None)
}

/// How `--graphs` checks a graph with one side's pack: the caller builds the composer (the
/// side's folder first on the pack path, then the rest of the user's pack path).
pub type GraphCheck<'a> = &'a (dyn Fn(&str, &[u8]) -> crate::diagnostic::FileReport + Sync);

/// [`diff`], and with `graphs` (paths, OLD's check, NEW's check) the V719 gate over them.
pub fn diff_with_graphs(
    old: &Pack,
    new: &Pack,
    base: &Registry,
    graphs: Option<(&[PathBuf], GraphCheck<'_>, GraphCheck<'_>)>,
) -> Result<RegistryDiff, PackDiffError> {
    let old_side = side(old)?;
    let new_side = side(new)?;
    let mut extra = Vec::new();
    let mut sources: Vec<(String, Arc<str>)> = Vec::new();
    fragments(old, new, base, &mut extra, &mut sources);
    rules(old, new, &mut extra);
    let mut gate = None;
    if let Some((paths, under_old, under_new)) = graphs {
        let gated = registry_diff::graphs::gate_by(
            paths,
            &old.label(),
            &new.label(),
            under_old,
            under_new,
        )?;
        extra.extend(gated.findings);
        sources.extend(gated.sources);
        gate = Some(gated.summary);
    }
    // Every fragment file a finding names keeps its text, for the human rendering.
    sources.sort_by(|a, b| a.0.cmp(&b.0));
    sources.dedup_by(|a, b| a.0 == b.0);
    Ok(registry_diff::diff_with(
        &old_side,
        &new_side,
        extra,
        gate.or(None::<GateSummary>),
        sources,
        "/version",
    ))
}

/// A pack's primitives as a registry side whose `abi` is the pack's `version`, located in
/// its `pack.json` (the registry's primitive `i` is `/primitives/i` there).
fn side(pack: &Pack) -> Result<DiffSide, PackDiffError> {
    let primitives: Vec<&crate::registry::Primitive> =
        pack.primitives.iter().map(|p| &p.contract).collect();
    let document = json!({
        "abi": pack.version.to_string(),
        "families": pack.families,
        "primitives": primitives,
    });
    let bytes = serde_json::to_vec(&document).unwrap_or_default();
    let registry =
        Registry::from_slice(&bytes, &pack.manifest).map_err(|e| PackDiffError::Primitives {
            file: pack.manifest.clone(),
            message: e.to_string(),
        })?;
    let parsed = reparse(pack)?;
    Ok(DiffSide::from_registry(&pack.manifest, registry, parsed))
}

fn reparse(pack: &Pack) -> Result<Parsed, PackDiffError> {
    let text = pack.source.source_arc();
    crate::json::parse(text.as_bytes(), &crate::pack::LIMITS).map_err(|e| {
        PackDiffError::Primitives {
            file: pack.manifest.clone(),
            message: e.to_string(),
        }
    })
}

// ---- fragments (P860, P861) ---------------------------------------------------------------

/// One fragment's interface as read from its file.
struct Interface {
    file: String,
    parsed: Parsed,
    params: Value,
    inputs: BTreeMap<String, Value>,
    /// Port → (from, at, the schema there when it resolves).
    outputs: BTreeMap<String, (String, String, Option<Value>)>,
    exits: Vec<String>,
}

fn interfaces(pack: &Pack, base: &Registry) -> BTreeMap<String, Interface> {
    let mut out = BTreeMap::new();
    for rel in &pack.fragment_files {
        let path = pack.dir.join(rel);
        let Ok(bytes) = crate::input::read_capped(&path, crate::pack::MAX_FILE_BYTES) else {
            continue;
        };
        let Ok(parsed) = crate::json::parse(&bytes, &crate::pack::LIMITS) else {
            continue;
        };
        let value = &parsed.value.clone();
        let Some(name) = value.get("fragment").and_then(Value::as_str) else {
            continue;
        };
        let nodes: BTreeMap<&str, &str> = value
            .get("nodes")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|n| {
                Some((
                    n.get("id")?.as_str()?,
                    n.get("primitive").and_then(Value::as_str).unwrap_or(""),
                ))
            })
            .collect();
        let output_schema = |from: &str, at: &str| -> Option<Value> {
            let primitive = nodes.get(from)?;
            let contract = pack
                .primitive(primitive)
                .map(|p| &p.contract)
                .or_else(|| base.lookup(primitive))?;
            schema_at(&contract.outputs, at)
        };
        let object = |key: &str| -> BTreeMap<String, Value> {
            value
                .get(key)
                .and_then(Value::as_object)
                .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
                .unwrap_or_default()
        };
        let outputs = object("outputs")
            .into_iter()
            .map(|(port, v)| {
                let from = v
                    .get("from")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string();
                let at = v
                    .get("at")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string();
                let schema = output_schema(&from, &at);
                (port, (from, at, schema))
            })
            .collect();
        let interface = Interface {
            file: path.display().to_string(),
            params: value
                .get("params")
                .cloned()
                .unwrap_or_else(|| json!({"type": "object"})),
            inputs: object("inputs"),
            outputs,
            exits: value
                .get("exits")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|e| e.as_str().map(str::to_string))
                .collect(),
            parsed,
        };
        out.insert(name.to_string(), interface);
    }
    out
}

/// The subschema at a JSON pointer into the instance (`/commit/sha`), through `properties`
/// (and `$defs` references of the bundle are left as they are).
fn schema_at(schema: &Value, at: &str) -> Option<Value> {
    let mut current = schema;
    for token in at.split('/').skip(1) {
        let token = token.replace("~1", "/").replace("~0", "~");
        current = current.get("properties")?.get(&token)?;
    }
    let mut out = current.clone();
    // A `$ref` into the bundle keeps its `$defs` along (a contract's are at its root).
    if let (Some(obj), Some(defs)) = (out.as_object_mut(), schema.get("$defs"))
        && obj.contains_key("$ref")
        && !obj.contains_key("$defs")
    {
        obj.insert("$defs".into(), defs.clone());
    }
    Some(out)
}

fn fragments(
    old: &Pack,
    new: &Pack,
    base: &Registry,
    out: &mut Vec<Finding>,
    sources: &mut Vec<(String, Arc<str>)>,
) {
    let (a, b) = (interfaces(old, base), interfaces(new, base));
    let mut push =
        |iface: &Interface, code: &'static table::Code, pointer: String, message: String| {
            let mut d = code.at(pointer, message);
            diagnostic::resolve(std::slice::from_mut(&mut d), &iface.parsed);
            sources.push((iface.file.clone(), iface.parsed.source_arc()));
            out.push(Finding {
                bump: if d.severity == Severity::Error {
                    Bump::Major
                } else {
                    Bump::Minor
                },
                diagnostic: d,
                primitive: None,
                place: Place::Graph(iface.file.clone()),
                verdict: None,
                new_anchor: None,
                shown_in_new: None,
            });
        };
    for (name, o) in &a {
        let Some(n) = b.get(name) else {
            push(
                o,
                &table::P860,
                "/fragment".into(),
                format!("fragment `{name}` is gone from NEW: every graph that uses it breaks"),
            );
            continue;
        };
        // params: every `with` OLD accepted must pass NEW's schema.
        if !json_equal(&o.params, &n.params) {
            match crate::schema::check(&o.params, &n.params) {
                CompatVerdict::No { witness, reason } => push(
                    n,
                    &table::P860,
                    "/params".into(),
                    format!(
                        "fragment `{name}`: `params` narrowed: OLD accepts `with` {} and NEW rejects it ({reason})",
                        compact(&witness)
                    ),
                ),
                CompatVerdict::Unknown { reason } => push(
                    n,
                    &table::P860,
                    "/params".into(),
                    format!(
                        "fragment `{name}`: `params` changed and OLD ⊆ NEW is undecided ({reason})"
                    ),
                ),
                CompatVerdict::Yes => push(
                    n,
                    &table::P861,
                    "/params".into(),
                    format!(
                        "fragment `{name}`: `params` widened (every `with` OLD accepted still passes)"
                    ),
                ),
            }
        }
        for (port, schema) in &o.inputs {
            let pointer = crate::json::pointer::push("/inputs", port);
            match n.inputs.get(port) {
                None => push(
                    o,
                    &table::P860,
                    pointer,
                    format!(
                        "fragment `{name}`: input port `{port}` is gone: uses that bind it break (P823)"
                    ),
                ),
                Some(now) if !json_equal(schema, now) => match crate::schema::check(schema, now) {
                    CompatVerdict::Yes => push(
                        n,
                        &table::P861,
                        pointer,
                        format!("fragment `{name}`: input port `{port}` widened"),
                    ),
                    CompatVerdict::No { witness, reason } => push(
                        n,
                        &table::P860,
                        pointer,
                        format!(
                            "fragment `{name}`: input port `{port}` narrowed: OLD accepts {} and NEW rejects it ({reason})",
                            compact(&witness)
                        ),
                    ),
                    CompatVerdict::Unknown { reason } => push(
                        n,
                        &table::P860,
                        pointer,
                        format!(
                            "fragment `{name}`: input port `{port}` changed and OLD ⊆ NEW is undecided ({reason})"
                        ),
                    ),
                },
                Some(_) => {}
            }
        }
        for port in n.inputs.keys().filter(|p| !o.inputs.contains_key(*p)) {
            push(
                n,
                &table::P860,
                crate::json::pointer::push("/inputs", port),
                format!(
                    "fragment `{name}`: input port `{port}` added: every use must now bind it (P823)"
                ),
            );
        }
        for (k, exit) in n.exits.iter().enumerate() {
            if !o.exits.contains(exit) {
                push(
                    n,
                    &table::P860,
                    format!("/exits/{k}"),
                    format!(
                        "fragment `{name}`: exit `{exit}` added: every use must wire it (P826)"
                    ),
                );
            }
        }
        for (k, exit) in o.exits.iter().enumerate() {
            if !n.exits.contains(exit) {
                push(
                    o,
                    &table::P860,
                    format!("/exits/{k}"),
                    format!(
                        "fragment `{name}`: exit `{exit}` removed: uses that wire it break (P826)"
                    ),
                );
            }
        }
        for (port, (from, at, schema)) in &o.outputs {
            let pointer = crate::json::pointer::push("/outputs", port);
            let Some((new_from, new_at, new_schema)) = n.outputs.get(port) else {
                push(
                    o,
                    &table::P860,
                    pointer,
                    format!(
                        "fragment `{name}`: output port `{port}` is gone: bindings that read it break"
                    ),
                );
                continue;
            };
            match (schema, new_schema) {
                (Some(s), Some(t)) if !json_equal(s, t) => match crate::schema::check(t, s) {
                    CompatVerdict::Yes => push(
                        n,
                        &table::P861,
                        pointer,
                        format!(
                            "fragment `{name}`: output port `{port}` narrowed (its values are still OLD's)"
                        ),
                    ),
                    CompatVerdict::No { witness, reason } => push(
                        n,
                        &table::P860,
                        pointer,
                        format!(
                            "fragment `{name}`: output port `{port}` widened: NEW may produce {}, which OLD's schema rejects ({reason})",
                            compact(&witness)
                        ),
                    ),
                    CompatVerdict::Unknown { reason } => push(
                        n,
                        &table::P860,
                        pointer,
                        format!(
                            "fragment `{name}`: output port `{port}` changed and NEW ⊆ OLD is undecided ({reason})"
                        ),
                    ),
                },
                (Some(_), Some(_)) => {}
                _ if (from, at) != (new_from, new_at) => push(
                    n,
                    &table::P860,
                    pointer,
                    format!(
                        "fragment `{name}`: output port `{port}` now reads `{new_from}` at `{new_at}` (was `{from}` at `{at}`) and its schema cannot be compared"
                    ),
                ),
                _ => {}
            }
        }
        for port in n.outputs.keys().filter(|p| !o.outputs.contains_key(*p)) {
            push(
                n,
                &table::P861,
                crate::json::pointer::push("/outputs", port),
                format!("fragment `{name}`: output port `{port}` added"),
            );
        }
    }
    for (name, n) in &b {
        if !a.contains_key(name) {
            push(
                n,
                &table::P861,
                "/fragment".into(),
                format!("fragment `{name}` added"),
            );
        }
    }
}

// ---- rules (P862) ---------------------------------------------------------------------------

fn rules(old: &Pack, new: &Pack, out: &mut Vec<Finding>) {
    let (a, _) = crate::pack_rules::effective::rules_of(old);
    let (b, _) = crate::pack_rules::effective::rules_of(new);
    for rule in &b {
        let message = match a.iter().find(|r| r.id == rule.id) {
            None => Some(format!(
                "rule `{}` added: graphs that passed may now fail ({} `{}`)",
                rule.code,
                rule.severity.as_str(),
                rule.kind.name()
            )),
            Some(was) => stricter(was, rule),
        };
        if let Some(message) = message {
            out.push(Finding {
                diagnostic: table::P862.at(rule.pointer.clone(), message),
                primitive: None,
                place: Place::New,
                bump: Bump::Minor,
                verdict: None,
                new_anchor: None,
                shown_in_new: None,
            });
        }
    }
}

fn rank(severity: Severity) -> u8 {
    match severity {
        Severity::Info => 0,
        Severity::Warning => 1,
        Severity::Error => 2,
    }
}

/// How NEW's rule is stricter than OLD's, if it may be.
fn stricter(old: &PackRule, new: &PackRule) -> Option<String> {
    if rank(new.severity) > rank(old.severity) {
        return Some(format!(
            "rule `{}` made stricter: severity {} → {}",
            new.code,
            old.severity.as_str(),
            new.severity.as_str()
        ));
    }
    if let (
        Kind::Bounded {
            max_visits: a,
            target: ta,
        },
        Kind::Bounded {
            max_visits: b,
            target: tb,
        },
    ) = (&old.kind, &new.kind)
        && ta == tb
    {
        return (b < a).then(|| {
            format!(
                "rule `{}` made stricter: `max_visits` bound {a} → {b}",
                new.code
            )
        });
    }
    (old.kind != new.kind).then(|| {
        format!(
            "rule `{}` changed (`{}` → `{}`, or its selectors): it may fire where it did not; review it",
            new.code,
            old.kind.name(),
            new.kind.name()
        )
    })
}

fn json_equal(a: &Value, b: &Value) -> bool {
    a == b
}

fn compact(value: &Value) -> String {
    let text = serde_json::to_string(value).unwrap_or_default();
    if text.chars().count() > 120 {
        let cut: String = text.chars().take(117).collect();
        format!("{cut}…")
    } else {
        text
    }
}

/// Every finding a [`RegistryDiff`] of two packs holds, as diagnostics (for tests and tools).
pub fn diagnostics(diff: &RegistryDiff) -> Vec<&Diagnostic> {
    diff.findings.iter().map(|f| &f.diagnostic).collect()
}
