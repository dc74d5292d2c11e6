//! The documentation of the registry-diff codes V701–V720 (SPEC §6.1): one file per code,
//! whose `//!` header is what `primgraph explain V7xx` prints, registered with its severity,
//! title and help in the one code table (`crate::codes`). A code whose severity depends on the
//! direction of the change has its most severe one in the table; the finding carries the
//! severity of its direction. The checks themselves live one concern per file in
//! `versions::registry_diff` and report through these rows.

mod v701_primitive_gone;
mod v702_alias_gone;
mod v703_primitive_added;
mod v704_class_or_authority_changed;
mod v705_inputs_narrowed;
mod v706_outputs_widened;
mod v707_output_location_gone;
mod v708_outcomes_changed;
mod v709_grants_changed;
mod v710_evidence_changed;
mod v711_failure_modes_changed;
mod v712_fallback_changed;
mod v713_effects_changed;
mod v714_requirement_flags_changed;
mod v715_terminal_changed;
mod v716_annotations_changed;
mod v717_metadata_changed;
mod v718_abi_bump_too_small;
mod v719_graphs_break;
mod v720_compatible_change;
