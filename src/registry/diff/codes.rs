//! The documentation of the registry-diff codes V701–V720 (SPEC §6.1), one [`CodeDoc`] per
//! code, as `primgraph explain V7xx` prints it and SARIF describes its rules. Each doc has the
//! same parts: what it checks, why it matters, an example that fires, one that does not, the
//! fix, and the SPEC section. A code whose severity depends on the direction of the change
//! carries its most severe one here; the direction rule is in the doc.

use crate::diagnostic::{CodeDoc, Severity};

macro_rules! doc {
    ($code:literal, $severity:ident, $title:literal, $body:literal) => {
        CodeDoc {
            code: $code,
            severity: Severity::$severity,
            title: $title,
            doc: concat!(
                $code,
                ": ",
                $title,
                "\n\n",
                $body,
                "\nSpec: SPEC §6.1 (registry versions compared).\n"
            ),
        }
    };
}

pub const CODE_DOCS: &[CodeDoc] = &[
    doc!(
        "V701",
        Error,
        "a primitive is gone (its ID no longer resolves)",
        r#"What it checks: every primitive ID of OLD is an ID of NEW (primitives are matched by `id`).
The finding points into OLD, at the primitive that is gone.

Why it matters: a graph names its primitives by ID or alias; under NEW a node of the removed
primitive is R101, and a recorded run of it cannot replay.

Fires: OLD has `obs.list_files`; NEW's `primitives` no longer contains it.

Does not fire: NEW keeps every ID of OLD (reordered, or with new primitives besides).

The fix: keep the primitive (say in its `summary` that it is deprecated) until the next major;
remove it only with a major bump, after the graphs that use it have moved.
"#
    ),
    doc!(
        "V702",
        Error,
        "an alias is gone, or now names another primitive",
        r#"What it checks: every alias of OLD still names the same primitive in NEW.

Why it matters: graphs may reference a primitive by alias (`APPLY_PATCH`). A missing alias
makes them R101; a reassigned alias silently runs another contract.

Fires:

```json
{"id": "mut.apply_patch", "alias": "APPLY_DIFF"}
```

in NEW, where OLD said `"alias": "APPLY_PATCH"`.

Does not fire: the alias and ID pair is the same in both.

The fix: an alias keeps its primitive for ever; add a new primitive instead of renaming.
"#
    ),
    doc!(
        "V703",
        Info,
        "a primitive was added",
        r#"What it checks: the IDs of NEW that OLD does not have.

Why it matters: an addition breaks nothing (graphs valid under OLD stay valid), but graphs that
use it need NEW: it requires a higher minor, so that G005 tells old registries apart.

Fires: NEW adds `obs.list_symbols`.

Does not fire: NEW has exactly OLD's IDs.

The fix: none needed; raise the minor (`1.0.0` → `1.1.0`).
"#
    ),
    doc!(
        "V704",
        Error,
        "`class` or `authority` changed",
        r#"What it checks: a primitive's `class` and `authority` are the same in OLD and NEW.

Why it matters: the class decides how graphs use a node (decision primitives branch, verifiers
satisfy A407, policy nodes grant and sanitize) and the authority what it may do (A401–A403).

Fires:

```json
{"id": "ver.run_target_tests", "class": "deterministic", "authority": "propose"}
```

where OLD had `"class": "verification", "authority": "verify"`.

Does not fire: a change of `summary` only (that is V717).

The fix: give the new contract a new ID and keep the old one; or make the change in a major.
"#
    ),
    doc!(
        "V705",
        Error,
        "inputs narrowed: a value OLD's `inputs` admits and NEW's rejects (witness)",
        r#"What it checks: NEW's `inputs` schema admits every value OLD's admits (OLD ⊆ NEW), with the
§3.2 checker. A `no` comes with a witness value that OLD admits and NEW rejects, confirmed
against both registries' compiled schemas. When the checker cannot decide, V705 is a warning
saying `unknown` and why — never a silent pass.

Why it matters: every binding and constant valid under OLD must stay valid under NEW, and every
recorded input must still satisfy the schema (T305, T307, D606).

Fires (a new required input):

```json
{"inputs": {"type": "object", "properties": {"path": {"type": "string"}, "depth": {"type": "integer"}},
            "required": ["path", "depth"], "additionalProperties": false}}
```

where OLD required only `path`: witness `{"path": ""}`.

Does not fire: an optional input added, an enum widened, a bound relaxed (those are V720).

The fix: make the new input optional, or keep accepting the old values; or make the change in a
major.
"#
    ),
    doc!(
        "V706",
        Error,
        "outputs widened: a value NEW's `outputs` admits and OLD's rejects (witness)",
        r#"What it checks: NEW's `outputs` schema admits no value that OLD's rejects (NEW ⊆ OLD), with the
§3.2 checker; the witness is a value NEW may produce that OLD never did. Undecided: a warning
with `unknown` and the reason.

Why it matters: consumers were checked (T305) against OLD's outputs; a value outside them can
reach an input that rejects it, and a recorded output may fail D607 the other way round.

Fires: OLD's output `"status": {"enum": ["pass", "fail"]}` becomes
`{"enum": ["pass", "fail", "flaky"]}` in NEW: witness `{"status": "flaky", ...}`.

Does not fire: an output bound tightened (`maximum` lowered): V720.

The fix: keep the outputs within OLD's; add the new value in a major.
"#
    ),
    doc!(
        "V707",
        Error,
        "an output location OLD declares is gone from NEW",
        r#"What it checks: every output location of OLD — a path through `properties`, `prefixItems` and
`items` (any element, shown as `*`), through `allOf`/`anyOf`/`oneOf` and local `$ref`s — is
still declared in NEW. The outermost missing location is reported, in OLD.

Why it matters: a binding `{"from": "ls", "at": "/paths"}` selects a location of the source's
outputs; when NEW no longer declares it, the binding is T304 (even when the object stays open
and the schema check alone would not see it).

Fires: OLD's outputs declare `properties.truncated`; NEW's do not.

Does not fire: a location added, or the same locations with tighter schemas.

The fix: keep declaring the location (it may keep its schema, or be narrowed).
"#
    ),
    doc!(
        "V708",
        Error,
        "`outcomes` changed: one added or removed",
        r#"What it checks: a primitive's closed decision set `outcomes` is the same set in OLD and NEW (and
declared in both or in neither).

Why it matters: a node of it must branch on every outcome (S206); an added outcome leaves
existing `branches` incomplete, a removed one makes them name an undeclared outcome and makes
recorded runs that took it D610.

Fires: `"outcomes": ["allow", "deny", "escalate"]` in NEW, `["allow", "deny"]` in OLD.

Does not fire: the same outcomes in another order.

The fix: keep the decision set; a new set is a new primitive (or a major).
"#
    ),
    doc!(
        "V709",
        Error,
        "`grants`: one removed (error) / one added (warning)",
        r#"What it checks: the outcomes of a policy primitive that grant authority. A grant removed is an
error; a grant added is a warning.

Why it matters: a removed grant leaves the nodes behind that branch unreachable with authority
(A402 in graphs valid under OLD). An added grant breaks nothing but lets more paths run
authorized steps: a reviewer must see it.

Fires: `"grants": ["allow"]` in OLD, `["allow", "allow_once"]` in NEW (warning).

Does not fire: the same grants.

The fix: removed: keep the grant; added: confirm the new branch should grant.
"#
    ),
    doc!(
        "V710",
        Error,
        "`evidence`: a kind added (error) / removed (info)",
        r#"What it checks: the evidence kinds a recorded step must carry. A kind added is an error; a kind
removed is an info (a minor change).

Why it matters: runs recorded under OLD lack the new kind and stop replaying faithful (D608).
Requiring less breaks no run.

Fires: `"evidence": ["file_listing", "ignore_rules"]` in NEW, `["file_listing"]` in OLD.

Does not fire: the same kinds in another order.

The fix: require the new evidence only in a major, or record it as optional elsewhere.
"#
    ),
    doc!(
        "V711",
        Error,
        "`failure_modes`: one removed (error) / one added (info)",
        r#"What it checks: the error classes a primitive may end in. One removed is an error; one added is
an info (a minor change).

Why it matters: graphs with an `on_error` entry for a removed mode fail S208, and runs that
ended in it fail D609. A new mode is routed by `*` handlers or ends the run as before.

Fires: OLD's `"failure_modes": ["timeout", "path_not_found"]` loses `timeout` in NEW.

Does not fire: a mode added (info).

The fix: keep declaring the old mode.
"#
    ),
    doc!(
        "V712",
        Error,
        "`fallback` added, removed or changed",
        r#"What it checks: a primitive's `fallback` is the same in OLD and NEW.

Why it matters: recorded runs that fell back followed OLD's fallback; under NEW they diverge.

Fires: `"fallback": null` in OLD, `"fallback": "obs.search_text"` in NEW.

Does not fire: the same fallback.

The fix: keep the fallback, or change it in a major.
"#
    ),
    doc!(
        "V713",
        Error,
        "`effects`: one added (error) / one removed (warning)",
        r#"What it checks: a primitive's declared effects. One added is an error; one removed a warning.

Why it matters: effects drive the policy checks: a new `mints_permission`, `raises_spend` or
`crosses_workspace` makes S1 branches to it illegal (A404) and a new write needs authorization.
A removed effect breaks no graph but weakens those checks: a reviewer must see it.

Fires: `"effects": ["reads_workspace", "network"]` in NEW, `["reads_workspace"]` in OLD.

Does not fire: the same effects in another order.

The fix: added: make the change in a major; removed: confirm the primitive really lost it.
"#
    ),
    doc!(
        "V714",
        Error,
        "`requires_authorization` or `requires_verifier`: set (error) / cleared (warning)",
        r#"What it checks: the two safety flags of a primitive. Set in NEW where OLD had it clear: error;
cleared: warning.

Why it matters: graphs that reach the primitive without a grant now fail A402, or that end
without verification fail A407. Clearing breaks nothing but lets a step run with less
authorization or no verifier.

Fires: `"requires_verifier": true` in NEW, `false` in OLD (error).

Does not fire: the same flags.

The fix: set: in a major, with the graphs fixed; cleared: confirm it is safe.
"#
    ),
    doc!(
        "V715",
        Error,
        "`terminal`: cleared (error) / set (info)",
        r#"What it checks: whether a node of the primitive may end a graph. Cleared: error; set: info (a
minor change).

Why it matters: graphs that end at a node of it fail S204 once it is not terminal, and runs that
ended there fail D614.

Fires: `"terminal": false` in NEW, `true` in OLD.

Does not fire: set in NEW (info).

The fix: keep it terminal, or clear it in a major.
"#
    ),
    doc!(
        "V716",
        Error,
        "annotations: `x-trust`/`x-sink` added or `x-authority` changed (error); `x-trust`/`x-sink` removed (warning)",
        r#"What it checks: the safety annotations location by location (see V707 for locations):
`x-trust: untrusted` on outputs (inherited by everything inside, reported where it starts or
stops), `x-sink` on inputs, `x-authority` on both. `x-trust` added on an output location,
`x-sink` added on an input, `x-authority` added or removed: error. `x-trust` or `x-sink`
removed: warning.

Why it matters: graphs valid under OLD may route that output to a sink (A405) or bind an
authority input from another source (A403). Removing a mark breaks nothing but tracks less
taint: a reviewer must see it.

Fires:

```json
{"outputs": {"properties": {"text": {"type": "string", "x-trust": "untrusted"}}}}
```

in NEW where OLD had `{"type": "string"}`.

Does not fire: a `description` change beside the annotation.

The fix: added marks belong in a major; removed ones need a reviewer's confirmation.
"#
    ),
    doc!(
        "V717",
        Info,
        "metadata changed: `summary`, `family`, `evaluation`",
        r#"What it checks: the descriptive fields of a primitive (`summary`, `family`, `evaluation`), the
family table, schema descriptions, and schema rewrites the checker proves equivalent.

Why it matters: nothing breaks, but the registry says something else: it requires a higher
patch, so two files with the same `abi` always say the same.

Fires: a reworded `summary`.

Does not fire: no change at all.

The fix: raise the patch (`1.1.0` → `1.1.1`).
"#
    ),
    doc!(
        "V718",
        Error,
        "NEW's `abi` does not rise as the differences require",
        r#"What it checks: the required bump — any error: a higher major; otherwise any warning, an added
primitive (V703) or a minor-level info (V710 removed, V711 added, V715 set, V720): a higher
minor (or major); otherwise metadata (V717): a higher patch; no difference: none — against
NEW's `abi` (semver: a higher major satisfies everything, a higher minor with the same major
satisfies minor and patch). An `abi` lower than OLD's never satisfies. With `--graphs`, a V719
counts as an error.

Why it matters: graphs target an ABI (G005: same major, minor at least theirs); a breaking
registry that keeps its major lets old graphs run against contracts they were not checked
against.

Fires: a primitive removed (V701) and NEW's `"abi": "1.1.0"` over OLD's `"1.0.0"`.

Does not fire: the same with `"abi": "2.0.0"`.

The fix: set NEW's `abi` to at least the version named in the help.
"#
    ),
    doc!(
        "V719",
        Error,
        "with `--graphs`: a graph with no errors under OLD has errors under NEW",
        r#"What it checks: each graph given with `--graphs` (files, or folders searched recursively for
`*.graph.json`) is validated under OLD and under NEW — under NEW as if its `abi` targeted NEW,
so a major bump alone is not a finding. A graph with no errors under OLD and errors under NEW
is one V719, in the graph's file at its first new error; every error under NEW is a related
location (file, pointer, line, `CODE: message`).

Why it matters: a schema comparison says what may break; this says what does, on the real edges
of your graphs.

Fires: OLD → NEW narrows `mut.apply_patch`'s `patch` input, and a graph binds a value NEW rejects
(T305).

Does not fire: graphs already failing under OLD (counted in the summary), or graphs the change
does not touch.

The fix: fix the graph in the same change, or keep the old contract.
"#
    ),
    doc!(
        "V720",
        Info,
        "a compatible contract change: inputs widened, or outputs narrowed",
        r#"What it checks: a schema change the §3.2 checker proves safe: NEW's inputs admit every value
OLD's do, or NEW's outputs only values OLD's do. The witness, where the reverse check finds
one, shows the change (a value NEW now accepts, or one it no longer produces).

Why it matters: nothing valid breaks, but the contract changed: it requires a higher minor.

Fires: an input enum widened from `["low", "high"]` to `["low", "medium", "high"]`.

Does not fire: an equivalent rewrite (V717), or a narrowing of inputs (V705).

The fix: none needed; raise the minor.
"#
    ),
];

/// The documentation of one V code.
pub fn code_doc(code: &str) -> Option<&'static CodeDoc> {
    CODE_DOCS.iter().find(|d| d.code.eq_ignore_ascii_case(code))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_v701_to_v720_has_a_doc_with_every_part() {
        assert_eq!(CODE_DOCS.len(), 20);
        for (i, d) in CODE_DOCS.iter().enumerate() {
            assert_eq!(d.code, format!("V7{:02}", i + 1));
            for part in [
                "What it checks",
                "Why it matters",
                "Fires",
                "Does not fire",
                "The fix",
                "Spec: SPEC §6.1",
            ] {
                assert!(d.doc.contains(part), "{} lacks {part}", d.code);
            }
            assert!(d.doc.starts_with(d.code));
        }
    }
}
