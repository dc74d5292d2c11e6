//! I904 (warning): steps whose order the source leaves ambiguous.
//!
//! ## What it checks
//!
//! Span sources (OpenTelemetry, the Agents SDK) order steps by parent, then by start time.
//! Two spans with the same parent and the same start time have no recorded order: the importer
//! orders them by span ID (so the import is deterministic) and reports it once per trace.
//!
//! ## Why it matters
//!
//! Replay checks that each step is the one the graph selects next; when the source cannot say
//! which of two steps came first, a divergence between them may be an artefact of the tie. The
//! order of an Inspect sample is its event list, which is never ambiguous.
//!
//! ## Example
//!
//! Two `execute_tool` spans under one agent span, both starting at the same nanosecond.
//!
//! Fixture `tests/fixtures/import/i904.otel.jsonl` (imported as `otel` against `tests/fixtures/import/lookup.graph.json`) reports I904 at line 2:
//!
//! ```json
//! {"resourceSpans":[…"spanId":"2222222222222222"…"spanId":"3333333333333333"…
//! ```
//!
//! ## Fix
//!
//! Record start times at a finer resolution, or nest the calls under the span that made them
//! in order.
//!
//! Does not fire: the same spans starting one nanosecond apart.
//!
//! ## Implements
//!
//! SPEC §10 (steps ordered by parent and start time; ambiguity reported).
