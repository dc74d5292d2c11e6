//! The one table of diagnostic codes (SPEC §5): every code the library reports — validation
//! (G, R, S, T, A), registry lint (L), replay (D) and, as they land, registry comparison (V) —
//! is one row here with its code, severity, title, the source file whose `//!` header is its
//! documentation, and its help line. Code and severity are written only here: a check reports
//! through its row (`codes::S203.at(pointer, message)`, see `crate::diagnostic`), never with a
//! code string of its own, and `primgraph explain CODE` prints the row's documentation.
//!
//! Registering a code: add one `Code … ;` row to the `table!` below, in code order, naming the
//! file (relative to `src/`) whose `//!` header documents it in the layout the `explain` doc
//! test (`tests/it/code_table.rs`) checks: `## What it checks`, `## Why it matters`, `## Example`
//! (a fenced, tagged example that really produces the code), `## Fix`, `## Implements` (the SPEC
//! section).
//!
//! This file depends on nothing but `serde`: `build.rs` includes it by `#[path]` with the lint
//! core, whose findings carry their rows too.

use serde::Serialize;

/// How serious a finding is (SPEC §3.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Info,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// One row of the code table.
#[derive(Clone, Copy)]
pub struct Code {
    /// `G001`, `D615`, …: stable once published.
    pub code: &'static str,
    pub severity: Severity,
    /// One line: what the code means (SPEC §5's wording).
    pub title: &'static str,
    /// The file that implements the code, relative to the crate root (`src/rules/…`).
    pub file: &'static str,
    /// That file's text; its `//!` header is the documentation ([`Code::doc`]).
    pub source: &'static str,
    /// The help line a diagnostic of this code carries unless its check says something more
    /// specific.
    pub help: &'static str,
}

impl Code {
    /// The documentation `primgraph explain` prints: the `//!` header of [`Code::file`] with
    /// the `//! ` prefixes stripped.
    pub fn doc(&self) -> String {
        module_doc(self.source)
    }
}

impl std::fmt::Debug for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.code)
    }
}

impl PartialEq for Code {
    fn eq(&self, other: &Code) -> bool {
        self.code == other.code
    }
}

impl Eq for Code {}

/// The code a diagnostic carries: a row of the table below (`A402`, borrowed for free), or a
/// pack rule's `PACK/RULE` (SPEC §9.4), known only once the pack is loaded and shared between
/// its findings. It compares, orders, hashes and serializes as its text, so a renderer or a
/// configuration treats both alike.
#[derive(Clone)]
pub struct CodeName(CodeText);

#[derive(Clone)]
enum CodeText {
    Table(&'static str),
    Shared(std::sync::Arc<str>),
}

impl CodeName {
    /// A code of the table (or any static text).
    pub const fn from_static(code: &'static str) -> CodeName {
        CodeName(CodeText::Table(code))
    }

    pub fn as_str(&self) -> &str {
        match &self.0 {
            CodeText::Table(code) => code,
            CodeText::Shared(code) => code,
        }
    }

    /// The text as `&'static str` when it is static (a row of the table), `None` for a pack
    /// rule's code.
    pub fn as_static(&self) -> Option<&'static str> {
        match &self.0 {
            CodeText::Table(code) => Some(code),
            CodeText::Shared(_) => None,
        }
    }

    /// Whether this is a pack rule's code (`PACK/RULE`) rather than a row of the table.
    pub fn is_pack_rule(&self) -> bool {
        self.as_str().contains('/')
    }
}

impl From<&'static str> for CodeName {
    fn from(code: &'static str) -> CodeName {
        CodeName::from_static(code)
    }
}

impl From<String> for CodeName {
    fn from(code: String) -> CodeName {
        CodeName(CodeText::Shared(code.into()))
    }
}

impl From<std::sync::Arc<str>> for CodeName {
    fn from(code: std::sync::Arc<str>) -> CodeName {
        CodeName(CodeText::Shared(code))
    }
}

impl std::ops::Deref for CodeName {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for CodeName {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl std::borrow::Borrow<str> for CodeName {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl std::fmt::Display for CodeName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::fmt::Debug for CodeName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl PartialEq for CodeName {
    fn eq(&self, other: &CodeName) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for CodeName {}

impl PartialEq<str> for CodeName {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for CodeName {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<CodeName> for &str {
    fn eq(&self, other: &CodeName) -> bool {
        *self == other.as_str()
    }
}

impl PartialOrd for CodeName {
    fn partial_cmp(&self, other: &CodeName) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for CodeName {
    fn cmp(&self, other: &CodeName) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl std::hash::Hash for CodeName {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state)
    }
}

impl Serialize for CodeName {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// The `//!` header of a source file with the `//! ` prefixes stripped.
pub fn module_doc(source: &str) -> String {
    let mut doc = String::new();
    for line in source.lines() {
        let Some(rest) = line.strip_prefix("//!") else {
            break;
        };
        doc.push_str(rest.strip_prefix(' ').unwrap_or(rest));
        doc.push('\n');
    }
    doc
}

/// The row of `code` (case-insensitive), if the code is known.
pub fn find(code: &str) -> Option<&'static Code> {
    ALL.iter()
        .copied()
        .find(|row| row.code.eq_ignore_ascii_case(code))
}

macro_rules! table {
    ($($code:ident $severity:ident $file:literal $title:literal help $help:literal;)*) => {
        $(
            #[doc = concat!("`", stringify!($code), "`: ", $title, ".")]
            pub static $code: Code = Code {
                code: stringify!($code),
                severity: Severity::$severity,
                title: $title,
                file: concat!("src/", $file),
                source: include_str!($file),
                help: $help,
            };
        )*
        /// Every row, in code order.
        pub static ALL: &[&Code] = &[$(&$code),*];
    };
}

table! {
    G001 Error "rules/g001_invalid_json.rs" "the file is not valid JSON (line, column)"
        help "fix the syntax at the marked position";
    G002 Error "rules/g002_duplicate_key.rs" "duplicate object key"
        help "keep one member: readers and runtimes disagree on which one counts";
    G003 Error "rules/g003_document_shape.rs" "document shape: missing, unknown or mistyped field"
        help "see SPEC §2 for the graph document's fields";
    G004 Error "rules/g004_duplicate_node_id.rs" "duplicate node id"
        help "give every node its own id";
    G005 Error "rules/g005_abi_mismatch.rs" "`abi` not satisfied by the registry"
        help "a registry satisfies a graph with the same major and a minor at least the graph's; pass --registry FILE for another registry";
    R101 Error "rules/r101_unknown_primitive.rs" "unknown primitive (with the nearest IDs as suggestions)"
        help "name a primitive of the registry by dotted ID or alias";
    R102 Info "rules/r102_alias_reference.rs" "primitive referenced by alias"
        help "name the primitive by its dotted ID";
    R103 Warning "rules/r103_capability_matches_nothing.rs" "capability pattern matches no primitive"
        help "use an exact ID, an alias, or `prefix.*` with a family prefix";
    R104 Error "rules/r104_outside_capabilities.rs" "node primitive outside the graph's capabilities"
        help "add the primitive (or its family's `prefix.*`) to `capabilities`";
    S201 Error "rules/s201_unknown_entry.rs" "`entry` names no node"
        help "name the first node's id";
    S202 Error "rules/s202_unknown_target.rs" "`next`/`branches`/`on_error` names no node"
        help "target the id of a node of this graph";
    S203 Warning "rules/s203_unreachable_node.rs" "node unreachable from `entry`"
        help "remove the node or add an edge to it";
    S204 Error "rules/s204_missing_successor.rs" "non-terminal primitive with no successor"
        help "add `next`, or end the graph with a terminal (`done.*`) node";
    S205 Error "rules/s205_unbounded_cycle.rs" "unbounded cycle"
        help "set `max_visits` on a node of the cycle";
    S206 Error "rules/s206_branch_coverage.rs" "`branches` does not cover the outcomes, or names an undeclared outcome"
        help "add a branch for each missing outcome, or a `\"*\"` branch";
    S207 Error "rules/s207_next_branches_mismatch.rs" "`next` on a decision primitive, or `branches` on one without outcomes"
        help "replace `next` with `branches` over the outcomes";
    S208 Error "rules/s208_undeclared_failure_mode.rs" "`on_error` names an undeclared failure mode"
        help "handle a declared failure mode, or use `\"*\"`";
    S209 Error "rules/s209_step_budget.rs" "worst-case steps exceed `budget.max_steps`"
        help "raise `budget.max_steps` or lower the `max_visits` bounds; `primgraph explain S209` shows the formula";
    T301 Error "rules/t301_undeclared_input.rs" "input property the primitive does not declare"
        help "bind only the input properties the primitive declares";
    T302 Error "rules/t302_required_input_unbound.rs" "required input not bound"
        help "bind every required input property in `inputs`";
    T303 Error "rules/t303_unknown_source.rs" "binding from an unknown node"
        help "bind from a node id or `$input`";
    T304 Error "rules/t304_pointer_not_in_schema.rs" "binding pointer not in the source's output schema"
        help "point at a property the source's output schema declares";
    T305 Error "rules/t305_incompatible_binding.rs" "incompatible binding (witness value)"
        help "bind a source whose schema fits, or narrow the source";
    T306 Warning "rules/t306_undecided_compatibility.rs" "compatibility could not be decided"
        help "check this edge by hand, or simplify the schemas";
    T307 Error "rules/t307_constant_violates_schema.rs" "constant violates the input schema"
        help "give a constant the input's schema accepts";
    T308 Error "rules/t308_source_not_dominating.rs" "binding source does not dominate its consumer"
        help "bind from a node that runs on every path to the consumer";
    T309 Error "rules/t309_optional_source_required_input.rs" "optional source bound to a required input"
        help "bind from a required property of the source";
    A401 Error "rules/a401_non_policy_authorize.rs" "non-policy primitive with `authorize` authority"
        help "only policy primitives may authorize; fix the registry or use a policy gate";
    A402 Error "rules/a402_grant_bypass.rs" "authorization-requiring node reachable without a grant (witness path)"
        help "route every path to it through a granting branch of a policy gate (e.g. `allow`)";
    A403 Error "rules/a403_authority_data.rs" "authority input bound from a non-policy source"
        help "bind it from the grant output of the policy gate that authorizes this node, e.g. {\"from\": \"gate\", \"at\": \"/grant\"}";
    A404 Error "rules/a404_s1_privileged_branch.rs" "S1 branch targets a privileged node"
        help "branch to a policy gate that authorizes the privileged step";
    A405 Error "rules/a405_untrusted_to_sink.rs" "untrusted data reaches a sink (witness path)"
        help "pass the value through a verification or policy node before the sink";
    A406 Error "rules/a406_workspace_crossing.rs" "workspace crossing outside a crossing primitive"
        help "move the data through a primitive with the `crosses_workspace` effect";
    A407 Error "rules/a407_verifier_bypass.rs" "verifier bypass (witness path)"
        help "route every path from it to a terminal through a verification node";
    L501 Error "registry/lint/l501_duplicate.rs" "duplicate ID or alias (and duplicate JSON keys in the file)"
        help "every ID, alias, family name and prefix must be unique; keep one";
    L502 Error "registry/lint/l502_malformed_id.rs" "malformed ID or alias, or an ID whose first segment is not its family's prefix"
        help "IDs are `prefix.lower_snake`, aliases `UPPER_SNAKE`, the prefix the family's";
    L503 Error "registry/lint/l503_vendor_name.rs" "vendor or model name in an ID"
        help "name the operation, not the model or vendor behind it";
    L504 Error "registry/lint/l504_class_authority.rs" "class/authority mismatch (only policy authorizes; s1_decision ↔ decide; verification ↔ verify)"
        help "only policy authorizes; s1_decision decides; verification verifies";
    L505 Error "registry/lint/l505_schema_compile.rs" "a schema that does not compile"
        help "fix the schema so that it compiles as a draft 2020-12 object schema";
    L506 Error "registry/lint/l506_s1_forbidden_effect.rs" "an s1_decision primitive with a forbidden effect"
        help "route the decision to a policy gate that holds the privilege";
    L507 Error "registry/lint/l507_fallback.rs" "a fallback that names no primitive, or fallbacks forming a cycle"
        help "point the fallback at an existing primitive, and break the cycle";
    L508 Error "registry/lint/l508_family.rs" "an unknown family, or an empty one"
        help "declare the family, or remove it if nothing belongs to it";
    L509 Error "registry/lint/l509_unauthorized_effect.rs" "an effectful primitive without `requires_authorization`"
        help "set `requires_authorization: true` on a primitive with privileged effects";
    L510 Error "registry/lint/l510_grants.rs" "`grants` not within `outcomes`, or `grants` on a non-authorize primitive"
        help "grants are outcomes of an authorize primitive";
    D601 Error "replay/codes/d601_invalid_header.rs" "trace header invalid or names another graph"
        help "start the trace with a header line {\"trace\":\"1\",\"run\",\"graph\",\"graph_digest\",\"abi\"} naming this graph";
    D602 Warning "replay/codes/d602_graph_digest_differs.rs" "graph digest differs (what-if replay)"
        help "the digest is SHA-256 of the graph in RFC 8785 canonical form";
    D603 Error "replay/codes/d603_divergence.rs" "divergence: recorded node is not the one the graph selects"
        help "the run does not follow this graph here: compare the recorded node with the edge the graph takes";
    D604 Error "replay/codes/d604_primitive_differs.rs" "recorded primitive differs from the node's"
        help "record the node's own primitive, or its declared fallback after an unhandled error";
    D605 Error "replay/codes/d605_input_differs.rs" "recorded input differs from the recomputed input"
        help "the recorded input must equal what the node's bindings compute from the run's input and the latest outputs";
    D606 Error "replay/codes/d606_input_schema.rs" "recorded input violates the input schema"
        help "the recorded input must validate against the primitive's input schema";
    D607 Error "replay/codes/d607_output_schema.rs" "recorded output violates the output schema"
        help "the recorded output must validate against the primitive's output schema";
    D608 Error "replay/codes/d608_evidence_missing.rs" "required evidence missing"
        help "attach evidence of every kind the primitive's contract lists";
    D609 Error "replay/codes/d609_undeclared_failure_mode.rs" "undeclared failure mode"
        help "record only the failure modes the primitive declares";
    D610 Error "replay/codes/d610_undeclared_outcome.rs" "undeclared outcome"
        help "record an outcome from the primitive's declared decision set (and none for a primitive without outcomes)";
    D611 Error "replay/codes/d611_max_visits_exceeded.rs" "`max_visits` exceeded"
        help "the run entered the node more often than its `max_visits` allows";
    D612 Error "replay/codes/d612_budget_exceeded.rs" "budget exceeded"
        help "the run exceeded the graph's `budget` (steps or spend)";
    D613 Error "replay/codes/d613_missing_grant.rs" "authorization-requiring node entered without a recorded grant"
        help "enter an authorization-requiring node only after a granting branch of a policy gate";
    D614 Error "replay/codes/d614_bad_end.rs" "run ended at a non-terminal node, or events after the end"
        help "end the run at a terminal node with one end event, and nothing after it";
    D615 Error "replay/codes/d615_chain_broken.rs" "hash chain broken"
        help "`prev` is the SHA-256 of the previous line's exact bytes: a line was edited, inserted or dropped";
    D616 Error "replay/codes/d616_malformed_line.rs" "malformed line"
        help "each line is one JSON event object, terminated by a newline; the last one is the end event";
    D617 Error "replay/codes/d617_seq_out_of_order.rs" "`seq` out of order"
        help "`seq` starts at 1 and rises by one per event";
    D618 Error "replay/codes/d618_seal.rs" "seal missing (with `--trust`), invalid, or by a key not trusted"
        help "seal the run with `TraceWriter::sealed` or `simulate --sign KEY`, and trust its public key with `--trust KEY.pub`";
    D619 Warning "replay/codes/d619_pack_digest_differs.rs" "replay: a pack's digest differs from the one the trace recorded"
        help "replay with the packs the run was recorded with (`primgraph pack lock` pins them), or record the run again";
    D620 Error "replay/codes/d620_denied_path.rs" "replay: a step's evidence names a path its primitive's context rules deny"
        help "keep the primitive's context within its pack's `context_rules` (`read`, never `deny`)";
    V701 Error "versions/registry_diff/codes/v701_primitive_gone.rs" "a primitive is gone (its ID no longer resolves)"
        help "keep the primitive until the next major, or restore it";
    V702 Error "versions/registry_diff/codes/v702_alias_gone.rs" "an alias is gone, or now names another primitive"
        help "an alias keeps its primitive for ever; keep the old alias";
    V703 Info "versions/registry_diff/codes/v703_primitive_added.rs" "a primitive was added"
        help "a compatible addition: raise the minor";
    V704 Error "versions/registry_diff/codes/v704_class_or_authority_changed.rs" "`class` or `authority` changed"
        help "give the new contract a new ID, or make the change in a major";
    V705 Error "versions/registry_diff/codes/v705_inputs_narrowed.rs" "inputs narrowed: a value OLD's `inputs` admits and NEW's rejects (witness)"
        help "accept the old values again, or make the change in a major";
    V706 Error "versions/registry_diff/codes/v706_outputs_widened.rs" "outputs widened: a value NEW's `outputs` admits and OLD's rejects (witness)"
        help "keep the outputs within OLD's, or make the change in a major";
    V707 Error "versions/registry_diff/codes/v707_output_location_gone.rs" "an output location OLD declares is gone from NEW"
        help "keep declaring the output location";
    V708 Error "versions/registry_diff/codes/v708_outcomes_changed.rs" "`outcomes` changed: one added or removed"
        help "keep the decision set; a new set is a new primitive (or a major)";
    V709 Error "versions/registry_diff/codes/v709_grants_changed.rs" "`grants`: one removed (error) / one added (warning)"
        help "a removed grant breaks graphs (major); an added one needs a reviewer";
    V710 Error "versions/registry_diff/codes/v710_evidence_changed.rs" "`evidence`: a kind added (error) / removed (info)"
        help "require new evidence only in a major";
    V711 Error "versions/registry_diff/codes/v711_failure_modes_changed.rs" "`failure_modes`: one removed (error) / one added (info)"
        help "keep declaring the old failure mode";
    V712 Error "versions/registry_diff/codes/v712_fallback_changed.rs" "`fallback` added, removed or changed"
        help "keep the fallback, or change it in a major";
    V713 Error "versions/registry_diff/codes/v713_effects_changed.rs" "`effects`: one added (error) / one removed (warning)"
        help "an added effect needs a major; a removed one needs a reviewer";
    V714 Error "versions/registry_diff/codes/v714_requirement_flags_changed.rs" "`requires_authorization` or `requires_verifier`: set (error) / cleared (warning)"
        help "setting a flag needs a major; clearing one needs a reviewer";
    V715 Error "versions/registry_diff/codes/v715_terminal_changed.rs" "`terminal`: cleared (error) / set (info)"
        help "keep the primitive terminal, or clear it in a major";
    V716 Error "versions/registry_diff/codes/v716_annotations_changed.rs" "annotations: `x-trust`/`x-sink` added or `x-authority` changed (error); `x-trust`/`x-sink` removed (warning)"
        help "added marks need a major; removed ones need a reviewer";
    V717 Info "versions/registry_diff/codes/v717_metadata_changed.rs" "metadata changed: `summary`, `family`, `evaluation`"
        help "metadata: raise the patch";
    V718 Error "versions/registry_diff/codes/v718_abi_bump_too_small.rs" "NEW's `abi` does not rise as the differences require"
        help "raise NEW's `abi` by at least the required bump";
    V719 Error "versions/registry_diff/codes/v719_graphs_break.rs" "with `--graphs`: a graph with no errors under OLD has errors under NEW"
        help "fix the graph in the same change, or keep the old contract";
    V720 Info "versions/registry_diff/codes/v720_compatible_change.rs" "a compatible contract change: inputs widened, or outputs narrowed"
        help "a compatible change: raise the minor";
    P801 Error "pack/codes/p801_malformed_pack.rs" "`pack.json`, a fragment or a schema file is malformed (shape, unknown field, bad name or version)"
        help "see SPEC §9.1 for the members of `pack.json`";
    P802 Error "pack/codes/p802_outside_roots.rs" "a primitive outside the pack's `roots`, a root that is a registry family prefix, or a root two packs claim"
        help "give the pack a root of its own and its primitives IDs under it";
    P803 Error "pack/codes/p803_id_collision.rs" "an ID or alias that collides with the registry or another loaded pack"
        help "rename the ID or alias (prefix the alias with the pack's root)";
    P804 Error "pack/codes/p804_unsatisfied_range.rs" "a range no pack on the pack path satisfies (`kernel_abi`, `requires`, a graph's `packs`), naming who asked"
        help "put a satisfying version on the pack path (`--pack DIR`, `packs` in primgraph.toml) or widen the range";
    P805 Error "pack/codes/p805_require_cycle.rs" "packs that require each other in a cycle"
        help "merge the packs, or move what both need into a third";
    P806 Error "pack/codes/p806_lock_mismatch.rs" "a pack whose digest differs from `primgraph.lock`, or a locked pack missing (or no lock with `--locked`)"
        help "review the change, then run `primgraph pack lock`";
    P807 Error "pack/codes/p807_signature.rs" "a `pack.sig` that does not verify, or none by a trusted key under `--trust-pack`"
        help "sign the pack again with `primgraph pack sign DIR --key KEY`";
    P808 Error "pack/codes/p808_dangling_reference.rs" "a reference in a pack to nothing: decision set, error class, schema file, command, fragment file"
        help "declare what is referred to, or fix the name";
    P809 Error "pack/codes/p809_command_effects.rs" "a command's effects outside its primitive's, or `environment` contradicting an effect"
        help "declare the effect on the primitive, or drop it from the command";
    P811 Error "pack/codes/p811_undeclared_pack.rs" "a graph uses a primitive or fragment of a pack it does not declare (help: the `packs` entry to add)"
        help "declare the pack in the graph's `packs`";
    P821 Error "pack/codes/p821_unknown_fragment.rs" "an unknown fragment (did you mean)"
        help "name a fragment of a pack the graph declares: `PACK/NAME`";
    P822 Error "pack/codes/p822_with_fails_params.rs" "`with` fails the fragment's `params` schema"
        help "pass the parameters the fragment's `params` declares, with values its schema admits";
    P823 Error "pack/codes/p823_input_port_binding.rs" "an input port unbound, bound twice, or unknown"
        help "bind every input port the fragment declares, once, and no other";
    P824 Error "pack/codes/p824_port_schema_mismatch.rs" "a port binding's source schema is not within the port's (witness)"
        help "bind the port from a value its schema admits, or narrow the source";
    P825 Warning "pack/codes/p825_port_compat_undecided.rs" "a port binding's compatibility is undecided"
        help "simplify the source or port schema so the checker can decide, or check the binding by hand";
    P826 Error "pack/codes/p826_exit_wiring.rs" "an exit unwired, unknown, or targeted inside the fragment but not declared"
        help "wire every exit the fragment declares in the use's `exits`, and only those";
    P827 Error "pack/codes/p827_output_port_missing.rs" "an output port naming a missing node or an undeclared pointer"
        help "name a node of the fragment and a pointer its primitive's output schema declares";
    P828 Error "pack/codes/p828_fragment_cycle_or_depth.rs" "fragment uses in a cycle, or nested deeper than 8"
        help "break the cycle, or flatten the nesting to at most 8 levels";
    P840 Error "pack_rules/codes/p840_invalid_rule.rs" "an invalid rule (kind, selector field, bound)"
        help "write the rule as SPEC §9.4 shows: the kind's members, known selector fields, a positive bound";
    P841 Warning "pack_rules/codes/p841_selector_matches_nothing.rs" "a rule selector that matches no primitive"
        help "name a primitive, family, class, authority, effect or pack of the composition";
    P850 Error "pack_tools/codes/p850_fixture_mismatch.rs" "`pack test`: a fixture run's verdict or first divergence differs from its expectation"
        help "update expect.json when the new outcome is intended, or fix the change that altered the run";
    P860 Error "versions/pack_diff/codes/p860_fragment_breaking_change.rs" "`pack diff`: a breaking fragment interface change"
        help "keep the fragment's interface (ports, params, exits), or release the change in a new major";
    P861 Info "versions/pack_diff/codes/p861_fragment_compatible_change.rs" "`pack diff`: a compatible fragment change, or a fragment added"
        help "a compatible change: raise the minor";
    P862 Warning "versions/pack_diff/codes/p862_rule_stricter.rs" "`pack diff`: a rule added or made stricter"
        help "graphs that passed may now fail: run `pack diff --graphs` over them, and raise at least the minor";
    P870 Error "plugin/codes/p870_not_a_component.rs" "a plugin that is not a component of the world"
        help "build a component of the world `primgraph:primitive/primitive@1.0.0` (`wit/primitive.wit`): import only its interfaces at major 1, export `invoke`";
    P871 Error "plugin/codes/p871_import_not_allowed.rs" "a plugin importing an interface its contract's effects do not allow"
        help "declare the effect in the primitive's contract (and embed the new contract), or stop importing the interface";
    P872 Error "plugin/codes/p872_contract_differs.rs" "a plugin whose embedded contract differs from the pack's"
        help "embed the primitive's contract, as `pack.json` declares it, in the plugin's `primgraph:contract` custom section";
    I901 Error "import/codes/i901_source_not_of_format.rs" "a source that is not of its format (file, entry, pointer)"
        help "export the source in the format named on the command line; the rest of it is still imported";
    I902 Warning "import/codes/i902_unmapped_name.rs" "a tool or span name with no mapping"
        help "name the tool in the mapping file's `[tools]` (`tool = \"node_id\"`); the step is kept with `\"node\": null`";
    I903 Warning "import/codes/i903_uncaptured_payload.rs" "a step whose input or output the source did not capture"
        help "turn on content capture in the recording tool; replay skips the checks that need the missing content";
    I904 Warning "import/codes/i904_ambiguous_order.rs" "steps whose order the source leaves ambiguous (equal start times, no parent order)"
        help "the steps are ordered by span ID; record finer start times or nest the calls";
}
