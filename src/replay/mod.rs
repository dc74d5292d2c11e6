//! Recorded runs (SPEC §4): the trace format, its writer, the replay engine and corpus summaries.
//!
//! SKELETON: filled in by the replay work.
