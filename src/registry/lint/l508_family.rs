//! L508: an unknown family, or an empty one.
//!
//! What it checks: every primitive's `family` is the `name` of a family declared in the
//! top-level `families`, and every declared family has at least one primitive.
//!
//! Why it matters: families are how the registry is organised and how capability patterns
//! (`prefix.*`) scope a graph's tool boundary; a primitive outside every family escapes that
//! organisation, and an empty family is a capability pattern that can only match nothing.
//!
//! Fires:
//!
//!     "families": [{"name": "observation", "prefix": "obs", ...},
//!                  {"name": "planning", "prefix": "plan", ...}],
//!     "primitives": [{"id": "obs.list_files", "family": "observation", ...}]
//!
//! (`planning` is empty), and on `{"id": "obs.list_files", "family": "observations", ...}`.
//!
//! Does not fire: every primitive names a declared family and every family has a primitive.

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
