//! T306: compatibility could not be decided (warning).
//!
//! ## What it checks
//!
//! The bindings for which the schema checker (SPEC §3.2) could neither prove that the source
//! schema fits the target schema nor find a value that breaks it. The message gives the
//! checker's reason.
//!
//! ## Why it matters
//!
//! "unknown" is never a silent yes: the edge may fail at run time, and a reviewer
//! should look at it (or simplify the schemas until the checker can decide).
//!
//! ## What is decided
//!
//! So that unknown is left only where a decision procedure stops:
//!
//! - **Unknown keywords are annotations.** Draft 2020-12 gives a keyword outside its vocabulary
//!   no effect on validation, and the validators replay uses ignore it; so does the checker
//!   (`minimumForOptimizer`, `documentation_url`, `value`, `x-…`; `primgraph schema check`
//!   prints a note naming them). The exception is a keyword that looks like a typo of a real
//!   one, which would silently validate nothing: equal to a Draft 2020-12 keyword but for
//!   letter case or surrounding punctuation (`multipleOF`, `maxItems:`), a prefix of one keeping
//!   at least five letters (`maxLen`), or within edit distance 1 (keywords of up to five
//!   letters) or 2 (longer ones). Such a keyword answers unknown, with "did you mean
//!   `multipleOf`?" — unless the pair is incompatible all the same: a witness the validators
//!   confirm (they ignore the keyword) is reported as a "no" (T305) whose reason notes the typo.
//!   A "yes" is never given beside a suspected typo, so the typo is never hidden.
//! - **Patterns** (`pattern`, and the names of `patternProperties` and `propertyNames`) are
//!   compared as regular languages by automata, with ECMA-262 search semantics (unanchored unless
//!   `^`/`$`); a "no" carries the shortest string one admits and the other does not. The same
//!   search counts code points, so `minLength`/`maxLength` on either side are decided with the
//!   patterns (`^(ab){0,3}$` is not within `maxLength: 5`: "ababab"). `patternProperties` are
//!   compared by name languages: a target pattern whose every name a source property or pattern
//!   takes never meets the source's `additionalProperties`, and a "no" carries an object with a
//!   member name the automata find (a name both patterns match, or one only the target's
//!   pattern matches) and a value of the source's subschema for it. Unknown
//!   remains for patterns with look-around, back-references, word boundaries or another
//!   construct whose meaning differs between ECMA-262 and Rust regular expressions, and past the
//!   work bound (pattern length, automaton size, search states, time), with that reason.
//! - **Unions** (`anyOf`/`oneOf`, at the root or inside properties and items): a source union
//!   is checked branch by branch. Against a target union, the source (not itself a union) is
//!   first tried against each branch. For `anyOf` one branch containing it suffices; for `oneOf`
//!   the source must also be provably disjoint from every other branch (different types,
//!   `const`/`enum` values the other branch rejects, numeric or length ranges that do not meet,
//!   or a member one side requires whose schemas on the two sides are disjoint — including one
//!   the other side forbids), since each of its values must match exactly one branch. Failing
//!   that, the source is split into cases whose union is the source, on the first
//!   discriminating keyword the branches use and the source leaves open: its `type` (one case
//!   per type), the `const`/`enum` values of a property (one case per value, plus one where the
//!   property is absent unless the source requires it), or a name a branch `required`s (present,
//!   absent). Each case must then be contained by the same rule, possibly in a different branch;
//!   splits nest at most three deep. A "no" carries a witness taken from the case that fits no
//!   branch (or from a pattern inside a branch), confirmed by the validators. Unknown remains
//!   where disjointness or a split is beyond these rules — two `oneOf` branches told apart only
//!   by their patterns, or by numeric ranges the source straddles — and those pairs still go to
//!   the canonical algebra and the witness search.
//! - **Too deep**: a schema nested or `$ref`-chained past 64 levels is not walked; the edge is
//!   unknown with that reason (`primgraph schema check` refuses it with its location).
//!
//! ## Example
//!
//! (a look-ahead is not decided by automata.)
//!
//! ```text
//! source {"type": "string", "pattern": "^(?!-)[a-z-]+$"}  →  target {"type": "string", "pattern": "^[a-z0-9-]+$"}
//! ```
//!
//! Fixture `tests/fixtures/rules/t306_fires.graph.json` (against the test registry `tests/fixtures/rules/registry.json`) reports T306 at line 13:
//!
//! ```json
//! {"id": "branch", "primitive": "vcs.create_branch", "inputs": {"name": {"from": "name", "at": "/name"}}, "next": "locate"},
//! ```
//!
//! ## Fix
//!
//! Check this edge by hand, or simplify the schemas.
//!
//! Does not fire (two patterns, decided: every lower-case word is lower-case alphanumeric):
//!
//! ```text
//! source {"type": "string", "pattern": "^[a-z]+$"}  →  target {"type": "string", "pattern": "^[a-z0-9-]+$"}
//! ```
//!
//! ## Implements
//!
//! SPEC §3.2 (unknown is a warning, never a silent yes); the code is listed in §5.

use super::Context;
use crate::codes;
use crate::diagnostic::Diagnostic;
use crate::schema::CompatVerdict;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for finding in cx.compat() {
        let CompatVerdict::Unknown { reason } = &finding.verdict else {
            continue;
        };
        let consumer = cx.prim(finding.node).map_or("?", |p| p.id.as_str());
        out.push(codes::T306.at(
            finding.pointer.clone(),
            format!(
                "could not decide whether `{}` at `{}` fits input `{}` of `{consumer}`: {reason}",
                finding.from, finding.at, finding.property
            ),
        ));
    }
}
