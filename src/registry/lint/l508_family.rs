//! L508: an unknown family, or an empty one.
//!
//! ## What it checks
//!
//! Every primitive's `family` is the `name` of a family declared in the
//! top-level `families`, and every declared family has at least one primitive.
//!
//! ## Why it matters
//!
//! Families are how the registry is organised and how capability patterns
//! (`prefix.*`) scope a graph's tool boundary; a primitive outside every family escapes that
//! organisation, and an empty family is a capability pattern that can only match nothing.
//!
//! ## Example
//!
//! ```json
//! "families": [{"name": "observation", "prefix": "obs", ...},
//!              {"name": "planning", "prefix": "plan", ...}],
//! "primitives": [{"id": "obs.list_files", "family": "observation", ...}]
//! ```
//!
//! (`planning` is empty), and on `{"id": "obs.list_files", "family": "observations", ...}`.
//!
//! Fixture `tests/fixtures/registry/l508_empty_family.json` (with `primgraph registry lint`) reports L508 at line 46:
//!
//! ```json
//! },
//! {
//!   "name": "planning",
//! ```
//!
//! ## Fix
//!
//! Declare the family, or remove it if nothing belongs to it.
//!
//! Does not fire: Every primitive names a declared family and every family has a primitive.
//!
//! ## Implements
//!
//! SPEC §1.3 (registry invariants); the code is listed in §5.

use super::{Finding, View};
use crate::codes::{self, Code};

/// This file\'s row of the code table.
const CODE: &Code = &codes::L508;

pub fn check(view: &View<'_>, out: &mut Vec<Finding>) {
    for p in &view.primitives {
        if view.family(p.family).is_none() {
            out.push(
                Finding::new(
                    CODE,
                    p.pointer("family"),
                    format!("unknown family `{}`", p.family),
                )
                .of(p),
            );
        }
    }
    for f in &view.families {
        if !view.primitives.iter().any(|p| p.family == f.name) {
            out.push(Finding::new(
                CODE,
                format!("/families/{}", f.index),
                format!("family `{}` has no primitive", f.name),
            ));
        }
    }
}
