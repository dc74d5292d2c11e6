//! Versions compared (SPEC §6.1, §6.2): a registry against its successor (`registry_diff`:
//! every contract difference as a V7xx diagnostic, the required semver bump, and the graph-aware
//! gate), and a graph against its next version (`graph_diff`: structure, input schema, findings
//! introduced and resolved, recorded runs replayed against both). This layer sits above
//! validation and replay because both comparisons run them.

pub mod graph_diff;
pub mod pack_diff;
pub mod registry_diff;
