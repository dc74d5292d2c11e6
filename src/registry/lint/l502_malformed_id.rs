//! L502: malformed ID or alias, or an ID whose first segment is not its family's prefix.
//!
//! ## What it checks
//!
//! Every `id` matches `^[a-z][a-z0-9]*(\.[a-z][a-z0-9_]*)+$` (lower-case dotted,
//! at least two segments), every `alias` matches `^[A-Z][A-Z0-9_]*$` (upper snake case), every
//! family `prefix` matches `^[a-z][a-z0-9]*$`, and the first segment of an ID is the prefix of
//! the primitive's declared family (when that family exists; an unknown family is L508).
//!
//! ## Why it matters
//!
//! Graphs and capability patterns (`obs.*`) name primitives by these strings; a
//! stable, predictable form is what makes `prefix.*` mean "this family" and keeps IDs and
//! aliases from colliding (an alias is never dotted, an ID never upper case).
//!
//! ## Example
//!
//! ```json
//! {"id": "Obs.ListFiles", "alias": "LIST_FILES", "family": "observation", ...}
//! {"id": "mut.list_files", "alias": "LIST_FILES", "family": "observation", ...}
//! {"id": "obs.list_files", "alias": "list-files", "family": "observation", ...}
//! ```
//!
//! Fixture `tests/fixtures/registry/l502_malformed_alias.json` (with `primgraph registry lint`) reports L502 at line 105:
//!
//! ```json
//! "id": "obs.read_file",
//! "alias": "read-file",
//! "family": "observation",
//! ```
//!
//! ## Fix
//!
//! IDs are `prefix.lower_snake`, aliases `UPPER_SNAKE`, the prefix the family's.
//!
//! Does not fire: (with family `observation` of prefix `obs`.)
//!
//! ```json
//! {"id": "obs.list_files", "alias": "LIST_FILES", "family": "observation", ...}
//! ```
//!
//! ## Implements
//!
//! SPEC §1.3 (registry invariants); the code is listed in §5.

use super::{Finding, View};
use crate::codes::{self, Code};

/// This file\'s row of the code table.
const CODE: &Code = &codes::L502;

/// `^[a-z][a-z0-9]*(\.[a-z][a-z0-9_]*)+$`
pub fn is_well_formed_id(id: &str) -> bool {
    let mut segments = id.split('.');
    let Some(first) = segments.next() else {
        return false;
    };
    if !is_prefix(first) {
        return false;
    }
    let mut rest = 0;
    for seg in segments {
        rest += 1;
        let mut bytes = seg.bytes();
        let Some(head) = bytes.next() else {
            return false;
        };
        if !head.is_ascii_lowercase()
            || !bytes.all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        {
            return false;
        }
    }
    rest >= 1
}

/// `^[a-z][a-z0-9]*$`
pub fn is_prefix(s: &str) -> bool {
    let mut bytes = s.bytes();
    matches!(bytes.next(), Some(b) if b.is_ascii_lowercase())
        && bytes.all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
}

/// `^[A-Z][A-Z0-9_]*$`
pub fn is_well_formed_alias(alias: &str) -> bool {
    let mut bytes = alias.bytes();
    matches!(bytes.next(), Some(b) if b.is_ascii_uppercase())
        && bytes.all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
}

pub fn check(view: &View<'_>, out: &mut Vec<Finding>) {
    for f in &view.families {
        if !is_prefix(f.prefix) {
            out.push(Finding::new(
                CODE,
                format!("/families/{}/prefix", f.index),
                format!(
                    "family prefix `{}` is not of the form ^[a-z][a-z0-9]*$",
                    f.prefix
                ),
            ));
        }
    }
    for p in &view.primitives {
        let id = p.label();
        if !is_well_formed_id(id) {
            out.push(
                Finding::new(
                    CODE,
                    p.pointer("id"),
                    format!("ID `{id}` is not of the form ^[a-z][a-z0-9]*(\\.[a-z][a-z0-9_]*)+$"),
                )
                .of(p),
            );
        } else if let Some(family) = view.family(p.family) {
            let first = id.split('.').next().unwrap_or("");
            if first != family.prefix {
                out.push(
                    Finding::new(
                        CODE,
                        p.pointer("id"),
                        format!(
                            "ID `{id}` starts with `{first}` but its family `{}` has prefix `{}`",
                            family.name, family.prefix
                        ),
                    )
                    .of(p)
                    .with_related(
                        format!("/families/{}/prefix", family.index),
                        "the family's prefix",
                    ),
                );
            }
        }
        if !is_well_formed_alias(p.alias) {
            out.push(
                Finding::new(
                    CODE,
                    p.pointer("alias"),
                    format!("alias `{}` is not of the form ^[A-Z][A-Z0-9_]*$", p.alias),
                )
                .of(p),
            );
        }
    }
}
