//! L501: duplicate ID or alias (and duplicate JSON keys in the file).
//!
//! ## What it checks
//!
//! No two primitives share an `id`, no two share an `alias`, no alias equals
//! another primitive's ID, no two families share a `name` or a `prefix`, and no object anywhere
//! in the file has the same key twice. The finding points at the second occurrence and names
//! the first as a related location.
//!
//! ## Why it matters
//!
//! Lookup by ID or alias must name exactly one primitive, and the ISA enum has
//! one variant per ID. A duplicate JSON key is worse: a reviewer reads the first member while a
//! last-wins loader uses the second, so the contract in review is not the contract that runs.
//!
//! ## Example
//!
//! ```json
//! {"id": "obs.list_files", "alias": "LIST_FILES", ...},
//! {"id": "obs.list_files", "alias": "LIST_FILES_AGAIN", ...}
//! ```
//!
//! And on `{"id": "obs.read_file", "class": "retrieval", "class": "deterministic", ...}`.
//!
//! Fixture `tests/fixtures/registry/l501_duplicate_alias.json` (with `primgraph registry lint`) reports L501 at line 105:
//!
//! ```json
//! "id": "obs.read_file",
//! "alias": "LIST_FILES",
//! "family": "observation",
//! ```
//!
//! ## Fix
//!
//! Every ID, alias, family name and prefix must be unique; keep one.
//!
//! Does not fire:
//!
//! ```json
//! {"id": "obs.list_files", "alias": "LIST_FILES", ...},
//! {"id": "obs.read_file", "alias": "READ_FILE", ...}
//! ```
//!
//! ## Implements
//!
//! SPEC §1.3 (registry invariants); the code is listed in §5.

use super::{Finding, View};
use crate::codes::{self, Code};
use std::collections::HashMap;

/// This file\'s row of the code table.
const CODE: &Code = &codes::L501;

pub fn check(view: &View<'_>, out: &mut Vec<Finding>) {
    let mut ids: HashMap<&str, usize> = HashMap::new();
    let mut aliases: HashMap<&str, usize> = HashMap::new();
    for p in &view.primitives {
        if let Some(id) = p.id {
            if let Some(&first) = ids.get(id) {
                out.push(
                    Finding::new(CODE, p.pointer("id"), format!("duplicate ID `{id}`"))
                        .of(p)
                        .with_related(
                            format!("/primitives/{first}/id"),
                            format!("`{id}` first defined here"),
                        ),
                );
            } else {
                ids.insert(id, p.index);
            }
        }
        if let Some(&first) = aliases.get(p.alias) {
            out.push(
                Finding::new(
                    CODE,
                    p.pointer("alias"),
                    format!("duplicate alias `{}`", p.alias),
                )
                .of(p)
                .with_related(
                    format!("/primitives/{first}/alias"),
                    format!("`{}` first defined here", p.alias),
                ),
            );
        } else {
            aliases.insert(p.alias, p.index);
        }
    }
    for p in &view.primitives {
        if let Some(&owner) = ids.get(p.alias)
            && owner != p.index
        {
            out.push(
                Finding::new(
                    CODE,
                    p.pointer("alias"),
                    format!("alias `{}` is the ID of another primitive", p.alias),
                )
                .of(p)
                .with_related(format!("/primitives/{owner}/id"), "that ID"),
            );
        }
    }
    let mut names: HashMap<&str, usize> = HashMap::new();
    let mut prefixes: HashMap<&str, usize> = HashMap::new();
    for f in &view.families {
        for (map, value, field) in [
            (&mut names, f.name, "name"),
            (&mut prefixes, f.prefix, "prefix"),
        ] {
            if let Some(&first) = map.get(value) {
                out.push(
                    Finding::new(
                        CODE,
                        format!("/families/{}/{field}", f.index),
                        format!("duplicate family {field} `{value}`"),
                    )
                    .with_related(
                        format!("/families/{first}/{field}"),
                        format!("`{value}` first defined here"),
                    ),
                );
            } else {
                map.insert(value, f.index);
            }
        }
    }
}
