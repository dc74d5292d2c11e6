//! I901 (error): a source that is not of its format.
//!
//! ## What it checks
//!
//! Every source file, zip entry and record is what its format says: an Inspect `.eval` log is
//! a readable zip (not truncated, no entry name escaping the archive with `..` or an absolute
//! path, no entry inflating past the per-entry limit or more than 200 times its compressed size
//! past 1 MiB — a zip bomb) whose `samples/ID_epoch_N.json` entries are Inspect samples (valid
//! UTF-8 JSON, no repeated key among the fields the importer reads, an `id`); an OTLP/JSON file
//! is a stream of `{"resourceSpans": …}` documents whose trace and span IDs are hex or base64 of
//! 16 and 8 bytes; an Agents SDK export is a stream of `trace` and `trace.span` items. Within a
//! trace, a span ID seen twice, and spans in a parent loop, are I901 too.
//!
//! ## Why it matters
//!
//! A record the importer cannot read is never turned into a guess: the rest of the source is
//! still imported (every other sample, document or trace), and the finding says where the
//! unreadable part is — file, zip entry, sample, JSON pointer, line and column — so it can be
//! fixed or dropped knowingly. The import exits 1.
//!
//! ## Example
//!
//! An OTel file whose second line is the Python SDK's console exporter output rather than
//! OTLP/JSON.
//!
//! Fixture `tests/fixtures/import/i901.otel.jsonl` (imported as `otel` against `tests/fixtures/import/lookup.graph.json`) reports I901 at line 2:
//!
//! ```json
//! {"name":"execute_tool search_text","context":{"trace_id":"0x0af7651916cd43dd8448eb211c80319c",…
//! ```
//!
//! ## Fix
//!
//! Export the source in the format named on the command line (the collector's file exporter
//! for `otel`, the `.eval` or `.json` log Inspect writes for `inspect`, the SDK's exported items
//! for `openai-agents`); re-copy a truncated file; raise `--max-entry-bytes` for a genuinely
//! large sample.
//!
//! Does not fire: a line `{"resourceSpans":[…]}` with hex or base64 IDs.
//!
//! ## Implements
//!
//! SPEC §10 (a source that is not of its format, located by file, entry and pointer).
