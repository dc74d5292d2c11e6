//! I903 (warning): a step whose input or output the source did not capture.
//!
//! ## What it checks
//!
//! A mapped step has its call's arguments and its result (or its error). OpenTelemetry's
//! `gen_ai.tool.call.arguments` and `gen_ai.tool.call.result` are opt-in; the Agents SDK leaves
//! `input` and `output` null when it is told not to include sensitive data. A step without them
//! is written with `"partial": true` and without the missing field (`input`, or `output` when
//! the source recorded no error either) — nothing is invented. The same warning, at the run,
//! when the mapping's `[final] node` asks for the run's final answer and the source did not
//! capture one (an OTel root span without `gen_ai.output.messages`): no final step is added.
//!
//! ## Why it matters
//!
//! Replay skips the checks that need the missing content for a partial step: its input against
//! the recomputed input (D605) and the schemas (D606, D607), and D605 of a later step whose
//! bindings read the partial step's output. Its node, order, evidence, failure modes and
//! budget are still checked. The import summary counts partial steps.
//!
//! ## Example
//!
//! An `execute_tool` span with `gen_ai.tool.name` but neither arguments nor result.
//!
//! Fixture `tests/fixtures/import/i903.otel.jsonl` (imported as `otel` against `tests/fixtures/import/lookup.graph.json`) reports I903 at line 2:
//!
//! ```json
//! {"resourceSpans":[…{"key":"gen_ai.tool.name","value":{"stringValue":"search_text"}}],"parentSpanId":"b7ad6b7169203331"}]}]}]}
//! ```
//!
//! ## Fix
//!
//! Turn on content capture in the instrumentation (for OpenTelemetry GenAI instrumentations,
//! `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`; for the Agents SDK,
//! `trace_include_sensitive_data`) and record the run again.
//!
//! Does not fire: an `execute_tool` span with `gen_ai.tool.call.arguments` and
//! `gen_ai.tool.call.result`.
//!
//! ## Implements
//!
//! SPEC §10 (content the source did not capture is absent, not invented: `partial`).
