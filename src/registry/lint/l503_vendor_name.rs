//! L503: vendor or model name in an ID.
//!
//! ## What it checks
//!
//! No word of an `id` names a model vendor or a model. The ID is split into
//! words at `.` and `_`; a word fires when it equals a listed name, or is a listed name followed
//! only by digits (`gpt4`, `llama3`). The list ([`VENDOR_NAMES`]): openai, gpt, chatgpt,
//! claude, anthropic, gemini, bard, google, deepmind, llama, mistral, mixtral, cohere, deepseek,
//! qwen, alibaba, grok, xai, copilot, microsoft, vicuna, huggingface. Words that are also
//! ordinary English (`meta`, `phi`, `palm`, `falcon`) are left out: whole-word matching would
//! flag legitimate IDs.
//!
//! ## Why it matters
//!
//! A primitive names an operation, not the model behind it. An ABI that bakes in
//! a vendor freezes that vendor into every graph, and swapping models becomes an ABI change.
//!
//! ## Example
//!
//! ```json
//! {"id": "synth.claude_patch", ...}
//! {"id": "tool.gpt4_summarize", ...}
//! ```
//!
//! Fixture `tests/fixtures/registry/l503_vendor_name.json` (with `primgraph registry lint`) reports L503 at line 216:
//!
//! ```json
//! {
//!   "id": "synth.claude_patch",
//!   "alias": "DRAFT_PATCH",
//! ```
//!
//! ## Fix
//!
//! Name the operation, not the model or vendor behind it.
//!
//! Does not fire:
//!
//! ```json
//! {"id": "synth.draft_patch", ...}
//! {"id": "obs.read_gptfile", ...}    (words are matched whole: `gptfile` is not `gpt`)
//! ```
//!
//! ## Implements
//!
//! SPEC §1.3 (registry invariants); the code is listed in §5.

use super::{Finding, View};
use crate::codes::{self, Code};

/// This file\'s row of the code table.
const CODE: &Code = &codes::L503;

/// Vendor and model names that never appear as a word of an ID.
pub const VENDOR_NAMES: &[&str] = &[
    "openai",
    "gpt",
    "chatgpt",
    "claude",
    "anthropic",
    "gemini",
    "bard",
    "google",
    "deepmind",
    "llama",
    "mistral",
    "mixtral",
    "cohere",
    "deepseek",
    "qwen",
    "alibaba",
    "grok",
    "xai",
    "copilot",
    "microsoft",
    "vicuna",
    "huggingface",
];

/// The vendor or model name a word of `id` names, if any.
pub fn vendor_in(id: &str) -> Option<&'static str> {
    id.split(['.', '_']).find_map(|word| {
        VENDOR_NAMES.iter().copied().find(|name| {
            word.strip_prefix(name)
                .is_some_and(|rest| rest.bytes().all(|b| b.is_ascii_digit()))
        })
    })
}

pub fn check(view: &View<'_>, out: &mut Vec<Finding>) {
    for p in &view.primitives {
        if let Some(id) = p.id
            && let Some(name) = vendor_in(id)
        {
            out.push(
                Finding::new(
                    CODE,
                    p.pointer("id"),
                    format!("ID `{id}` names the vendor or model `{name}`"),
                )
                .of(p),
            );
        }
    }
}
