//! The contract fields compared (SPEC §6.1): the primitive set matched by `id` (V701 gone, V703
//! added), aliases (V702), and every field that is not a schema — `class`/`authority` (V704),
//! `outcomes` (V708), `grants` (V709), `evidence` (V710), `failure_modes` (V711), `fallback`
//! (V712), `effects` (V713), `requires_authorization`/`requires_verifier` (V714), `terminal`
//! (V715) and metadata (V717: `summary`, `family`, `evaluation`, and the family table).

use super::{BREAKING, Bump, COMPATIBLE, Draft, METADATA, Place, REVIEW, Sink, field_pointer};
use crate::codes::{self, Code};
use crate::diagnostic::Severity;
use crate::registry::{Primitive, Registry};
use rustc_hash::FxHashMap;

/// V701, V702, V703 and the families' V717.
pub(super) fn compare_sets(sink: &mut Sink, old: &Registry, new: &Registry) {
    let new_by_id: FxHashMap<&str, &Primitive> = new
        .primitives()
        .iter()
        .map(|p| (p.id.as_str(), p))
        .collect();
    let old_by_id: FxHashMap<&str, &Primitive> = old
        .primitives()
        .iter()
        .map(|p| (p.id.as_str(), p))
        .collect();
    let new_by_alias: FxHashMap<&str, &Primitive> = new
        .primitives()
        .iter()
        .map(|p| (p.alias.as_str(), p))
        .collect();
    for p in old.primitives() {
        let kept = new_by_id.get(p.id.as_str());
        if kept.is_none() {
            sink.push(Draft {
                code: &codes::V701,
                severity: Severity::Error,
                bump: Bump::Major,
                place: Place::Old,
                primitive: Some(p.id.clone()),
                pointer: field_pointer(p, ""),
                message: format!("primitive `{}` ({}) is gone from NEW", p.id, p.alias),
                help: "graphs and recorded runs that name it no longer resolve (R101); keep it until the next major, or restore it".into(),
            })
            .new_anchor = Some("/primitives".into());
        }
        match new_by_alias.get(p.alias.as_str()) {
            Some(owner) if owner.id != p.id => {
                sink.push(Draft::in_new(
                    &codes::V702,
                    BREAKING,
                    &p.id,
                    field_pointer(owner, "alias"),
                    format!(
                        "alias `{}` named `{}` in OLD and names `{}` in NEW",
                        p.alias, p.id, owner.id
                    ),
                    "a graph that says the alias now runs another primitive; an alias keeps its primitive for ever",
                ));
            }
            Some(_) => {}
            // A removed primitive's alias goes with it (V701 says so); a kept one lost it.
            None => {
                if let Some(kept) = kept {
                    sink.push(Draft::in_new(
                        &codes::V702,
                        BREAKING,
                        &p.id,
                        field_pointer(kept, "alias"),
                        format!(
                            "alias `{}` of `{}` is gone (NEW calls it `{}`)",
                            p.alias, p.id, kept.alias
                        ),
                        format!(
                            "graphs that say `{}` no longer resolve (R101); keep the old alias",
                            p.alias
                        ),
                    ));
                }
            }
        }
    }
    for p in new.primitives() {
        if !old_by_id.contains_key(p.id.as_str()) {
            sink.push(Draft::in_new(
                &codes::V703,
                COMPATIBLE,
                &p.id,
                field_pointer(p, ""),
                format!("primitive `{}` ({}) was added", p.id, p.alias),
                "a compatible addition: it needs a higher minor",
            ));
        }
    }
    compare_families(sink, old, new);
}

fn compare_families(sink: &mut Sink, old: &Registry, new: &Registry) {
    let metadata = |place, pointer: String, message: String| Draft {
        code: &codes::V717,
        severity: Severity::Info,
        bump: Bump::Patch,
        place,
        primitive: None,
        pointer,
        message,
        help: "metadata: it needs a higher patch".into(),
    };
    for (i, f) in old.families().iter().enumerate() {
        match new.families().iter().position(|g| g.name == f.name) {
            None => {
                sink.push(metadata(
                    Place::Old,
                    format!("/families/{i}"),
                    format!("family `{}` is gone from NEW", f.name),
                ))
                .new_anchor = Some("/families".into());
            }
            Some(j) => {
                let g = &new.families()[j];
                for (field, a, b) in [
                    ("prefix", &f.prefix, &g.prefix),
                    ("group", &f.group, &g.group),
                    ("summary", &f.summary, &g.summary),
                ] {
                    if a != b {
                        sink.push(metadata(
                            Place::New,
                            format!("/families/{j}/{field}"),
                            format!("family `{}`: `{field}` changed", f.name),
                        ));
                    }
                }
            }
        }
    }
    for (j, g) in new.families().iter().enumerate() {
        if !old.families().iter().any(|f| f.name == g.name) {
            sink.push(metadata(
                Place::New,
                format!("/families/{j}"),
                format!("family `{}` was added", g.name),
            ));
        }
    }
}

/// The members of `old` not in `new`, and those of `new` not in `old` with their index in `new`.
fn list_diff<'a>(old: &'a [String], new: &'a [String]) -> (Vec<&'a str>, Vec<(usize, &'a str)>) {
    let removed = old
        .iter()
        .filter(|x| !new.contains(x))
        .map(String::as_str)
        .collect();
    let added = new
        .iter()
        .enumerate()
        .filter(|(_, x)| !old.contains(x))
        .map(|(i, x)| (i, x.as_str()))
        .collect();
    (removed, added)
}

/// One list field: a diagnostic per removed member (at the list in NEW) and per added member
/// (at the member).
struct ListRule {
    field: &'static str,
    code: &'static Code,
    removed: ((Severity, Bump), &'static str),
    added: ((Severity, Bump), &'static str),
}

fn compare_list(
    sink: &mut Sink,
    rule: &ListRule,
    new: &Primitive,
    old_l: &[String],
    new_l: &[String],
) {
    let (removed, added) = list_diff(old_l, new_l);
    let id = &new.id;
    for member in removed {
        let (change, help) = rule.removed;
        sink.push(Draft::in_new(
            rule.code,
            change,
            id,
            field_pointer(new, rule.field),
            format!("`{id}`: {} `{member}` was removed", singular(rule.field)),
            help,
        ));
    }
    for (index, member) in added {
        let (change, help) = rule.added;
        sink.push(Draft::in_new(
            rule.code,
            change,
            id,
            field_pointer(new, &format!("{}/{index}", rule.field)),
            format!("`{id}`: {} `{member}` was added", singular(rule.field)),
            help,
        ));
    }
}

fn singular(field: &str) -> &str {
    match field {
        "outcomes" => "outcome",
        "grants" => "grant",
        "evidence" => "evidence kind",
        "failure_modes" => "failure mode",
        "effects" => "effect",
        other => other,
    }
}

const LISTS: &[ListRule] = &[
    ListRule {
        field: "grants",
        code: &codes::V709,
        removed: (
            BREAKING,
            "graphs whose `allow` branch relied on this grant now reach authorized nodes without one (A402)",
        ),
        added: (
            REVIEW,
            "a new branch now grants authority: a reviewer must confirm the gate still asks the right question",
        ),
    },
    ListRule {
        field: "evidence",
        code: &codes::V710,
        removed: (
            COMPATIBLE,
            "recorded runs carry more evidence than now required: compatible",
        ),
        added: (
            BREAKING,
            "runs recorded under OLD lack this evidence and no longer replay faithful (D608)",
        ),
    },
    ListRule {
        field: "failure_modes",
        code: &codes::V711,
        removed: (
            BREAKING,
            "graphs with an `on_error` entry for it fail S208, and recorded runs ending in it fail D609",
        ),
        added: (
            COMPATIBLE,
            "a new error class: graphs without a `*` handler simply do not route it",
        ),
    },
];

/// Every non-schema field of a primitive present in both.
pub(super) fn compare_fields(sink: &mut Sink, old: &Primitive, new: &Primitive) {
    let id = &new.id;
    let push = |sink: &mut Sink, code, change, field: &str, message: String, help: &str| {
        sink.push(Draft::in_new(
            code,
            change,
            id,
            field_pointer(new, field),
            message,
            help,
        ));
    };
    if old.class != new.class {
        push(
            sink,
            &codes::V704,
            BREAKING,
            "class",
            format!(
                "`{id}`: class changed from `{}` to `{}`",
                old.class, new.class
            ),
            "graphs rely on a primitive's class (decisions branch, verifiers verify, policy gates grant); give the new contract a new ID instead",
        );
    }
    if old.authority != new.authority {
        push(
            sink,
            &codes::V704,
            BREAKING,
            "authority",
            format!(
                "`{id}`: authority changed from `{}` to `{}`",
                old.authority, new.authority
            ),
            "the authority decides what a node of it may do (A401–A403); give the new contract a new ID instead",
        );
    }
    compare_outcomes(sink, old, new);
    for rule in LISTS {
        let (o, n) = match rule.field {
            "grants" => (&old.grants, &new.grants),
            "evidence" => (&old.evidence, &new.evidence),
            _ => (&old.failure_modes, &new.failure_modes),
        };
        compare_list(sink, rule, new, o, n);
    }
    if old.fallback != new.fallback {
        let message = match (&old.fallback, &new.fallback) {
            (None, Some(b)) => format!("`{id}`: fallback `{b}` was added"),
            (Some(a), None) => format!("`{id}`: fallback `{a}` was removed"),
            (Some(a), Some(b)) => format!("`{id}`: fallback changed from `{a}` to `{b}`"),
            (None, None) => String::new(),
        };
        push(
            sink,
            &codes::V712,
            BREAKING,
            "fallback",
            message,
            "recorded runs that fell back followed the old fallback and no longer replay faithful",
        );
    }
    let effects = |p: &Primitive| -> Vec<String> {
        p.effects.iter().map(|e| e.as_str().to_string()).collect()
    };
    compare_list(
        sink,
        &ListRule {
            field: "effects",
            code: &codes::V713,
            removed: (
                REVIEW,
                "fewer declared effects loosen the checks that read them (A404, grants): confirm the primitive really lost it",
            ),
            added: (
                BREAKING,
                "a new effect may make S1 branches to it illegal (A404) and needs authorization (L509); graphs valid under OLD may break",
            ),
        },
        new,
        &effects(old),
        &effects(new),
    );
    for (field, o, n) in [
        (
            "requires_authorization",
            old.requires_authorization,
            new.requires_authorization,
        ),
        (
            "requires_verifier",
            old.requires_verifier,
            new.requires_verifier,
        ),
    ] {
        if o == n {
            continue;
        }
        if n {
            push(
                sink,
                &codes::V714,
                BREAKING,
                field,
                format!("`{id}`: `{field}` is now set"),
                if field == "requires_authorization" {
                    "graphs that reach it without a grant now fail A402"
                } else {
                    "graphs with a path from it to a terminal that skips verification now fail A407"
                },
            );
        } else {
            push(
                sink,
                &codes::V714,
                REVIEW,
                field,
                format!("`{id}`: `{field}` was cleared"),
                if field == "requires_authorization" {
                    "a step of it may now run without a grant: a reviewer must confirm that is safe"
                } else {
                    "a change by it may now end a run unverified: a reviewer must confirm that is safe"
                },
            );
        }
    }
    if old.terminal != new.terminal {
        if new.terminal {
            push(
                sink,
                &codes::V715,
                COMPATIBLE,
                "terminal",
                format!("`{id}`: `terminal` is now set"),
                "a node of it may now end a graph: compatible",
            );
        } else {
            push(
                sink,
                &codes::V715,
                BREAKING,
                "terminal",
                format!("`{id}`: `terminal` was cleared"),
                "graphs that end at a node of it now fail S204, and runs that ended there fail D614",
            );
        }
    }
    let metadata: [(&str, bool); 3] = [
        ("summary", old.summary != new.summary),
        ("family", old.family != new.family),
        (
            "evaluation",
            old.evaluation.method != new.evaluation.method
                || old.evaluation.metric != new.evaluation.metric,
        ),
    ];
    for (field, changed) in metadata {
        if changed {
            push(
                sink,
                &codes::V717,
                METADATA,
                field,
                format!("`{id}`: `{field}` changed"),
                "metadata: it needs a higher patch",
            );
        }
    }
}

/// V708: an outcome added or removed (and a decision set declared or dropped).
fn compare_outcomes(sink: &mut Sink, old: &Primitive, new: &Primitive) {
    let empty = Vec::new();
    let (o, n) = (
        old.outcomes.as_ref().unwrap_or(&empty),
        new.outcomes.as_ref().unwrap_or(&empty),
    );
    let help_removed = "graphs that branch on it fail S206, and runs that recorded it fail D610";
    let help_added = "graphs that branch on this primitive no longer cover every outcome (S206)";
    compare_list(
        sink,
        &ListRule {
            field: "outcomes",
            code: &codes::V708,
            removed: (BREAKING, help_removed),
            added: (BREAKING, help_added),
        },
        new,
        o,
        n,
    );
    if o.is_empty() && n.is_empty() && old.outcomes.is_some() != new.outcomes.is_some() {
        let message = if new.outcomes.is_some() {
            format!(
                "`{}`: an (empty) decision set `outcomes` is now declared",
                new.id
            )
        } else {
            format!(
                "`{}`: its (empty) decision set `outcomes` was dropped",
                new.id
            )
        };
        sink.push(Draft::in_new(
            &codes::V708,
            BREAKING,
            &new.id,
            field_pointer(new, "outcomes"),
            message,
            "whether a node must branch (S207) depends on whether the primitive declares outcomes",
        ));
    }
}
