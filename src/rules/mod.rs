//! Validation rules (SPEC §3, §5): one file per diagnostic code, whose row in
//! [`crate::codes`] holds the code, severity, title and help, and one list ([`CHECKS`]) of the
//! checks that run on a loaded document. Every rule is a pure function of a [`Context`] (the loaded
//! document, the registry and the shared control-flow [`Model`]); rules never do IO.
//!
//! G001–G003 are produced by the validation driver while parsing and loading (their files build
//! the diagnostics); every other rule runs on a loaded document. The documentation of a code is
//! the `//!` header of its file, so `primgraph explain CODE` prints exactly that text.
//!
//! Choices where SPEC is silent (each also stated in the rule's own doc):
//! - An absent `capabilities` is an empty tool boundary: R104 flags every node.
//! - G004: the rules resolve a duplicated ID to its first node; the later ones get no S203.
//! - Control-flow rules use every edge kind (`next`, `branches`, `on_error`); A407 too, the
//!   `on_error` edges leaving the `requires_verifier` node itself included (SPEC §3.4).
//! - A pointer into an object schema that neither declares the property nor closes it
//!   (`additionalProperties` absent) selects "anything, optionally"; T304 fires only where the
//!   schema rules the value out. Array elements are optional unless below `minItems`.
//! - T308 requires strict dominance: a node binding its own output fires (nothing to read on the
//!   first visit).
//! - A405 is data flow over bindings regardless of control flow (a sound over-approximation).
//! - S209's bound (see its file) counts node entries; it is skipped while S205 fires.
//! - A "no" from the schema checker is re-validated here; a witness that does not check out is
//!   reported as T306 (unknown), never as T305.

use crate::diagnostic::Diagnostic;
use crate::graph::{Binding, GraphDoc, Model, Source};
use crate::registry::{Primitive, Registry};
use crate::schema::annotations::Annotations;
use crate::schema::select::{Missing, Selected, select};
use serde_json::Value;
use std::cell::OnceCell;
use std::collections::HashMap;
use std::sync::LazyLock;

pub mod a401_non_policy_authorize;
pub mod a402_grant_bypass;
pub mod a403_authority_data;
pub mod a404_s1_privileged_branch;
pub mod a405_untrusted_to_sink;
pub mod a406_workspace_crossing;
pub mod a407_verifier_bypass;
pub mod g001_invalid_json;
pub mod g002_duplicate_key;
pub mod g003_document_shape;
pub mod g004_duplicate_node_id;
pub mod g005_abi_mismatch;
pub mod r101_unknown_primitive;
pub mod r102_alias_reference;
pub mod r103_capability_matches_nothing;
pub mod r104_outside_capabilities;
pub mod s201_unknown_entry;
pub mod s202_unknown_target;
pub mod s203_unreachable_node;
pub mod s204_missing_successor;
pub mod s205_unbounded_cycle;
pub mod s206_branch_coverage;
pub mod s207_next_branches_mismatch;
pub mod s208_undeclared_failure_mode;
pub mod s209_step_budget;
pub mod t301_undeclared_input;
pub mod t302_required_input_unbound;
pub mod t303_unknown_source;
pub mod t304_pointer_not_in_schema;
pub mod t305_incompatible_binding;
pub mod t306_undecided_compatibility;
pub mod t307_constant_violates_schema;
pub mod t308_source_not_dominating;
pub mod t309_optional_source_required_input;

/// A rule's check: appends its findings.
pub type Check = fn(&Context<'_>, &mut Vec<Diagnostic>);

/// Every check that runs on a loaded document, in code order. (G001–G003 are reported by the
/// driver while parsing and loading; codes, severities and docs are rows of [`crate::codes`].)
pub const CHECKS: &[Check] = &[
    a401_non_policy_authorize::check,
    a402_grant_bypass::check,
    a403_authority_data::check,
    a404_s1_privileged_branch::check,
    a405_untrusted_to_sink::check,
    a406_workspace_crossing::check,
    a407_verifier_bypass::check,
    g004_duplicate_node_id::check,
    g005_abi_mismatch::check,
    r101_unknown_primitive::check,
    r102_alias_reference::check,
    r103_capability_matches_nothing::check,
    r104_outside_capabilities::check,
    s201_unknown_entry::check,
    s202_unknown_target::check,
    s203_unreachable_node::check,
    s204_missing_successor::check,
    s205_unbounded_cycle::check,
    s206_branch_coverage::check,
    s207_next_branches_mismatch::check,
    s208_undeclared_failure_mode::check,
    s209_step_budget::check,
    t301_undeclared_input::check,
    t302_required_input_unbound::check,
    t303_unknown_source::check,
    t304_pointer_not_in_schema::check,
    t305_incompatible_binding::check,
    t306_undecided_compatibility::check,
    t307_constant_violates_schema::check,
    t308_source_not_dominating::check,
    t309_optional_source_required_input::check,
];

/// What a rule sees: the loaded document, the registry and the shared model.
pub struct Context<'a> {
    pub doc: &'a GraphDoc,
    pub registry: &'a Registry,
    pub model: Model<'a>,
    /// The graph's `input` schema, or "any object" when it declares none.
    pub input_schema: &'a Value,
    compat: OnceCell<Vec<t305_incompatible_binding::CompatFinding>>,
    table: OnceCell<BindingTable<'a>>,
}

/// The schema of `$input` when the graph declares none.
static ANY_OBJECT: LazyLock<Value> = LazyLock::new(|| serde_json::json!({"type": "object"}));

/// Where a binding's value comes from, resolved once against the node IDs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// `{"const": …}`.
    Const,
    /// `{"from": "$input"}`.
    Input,
    /// `{"from": ID}` naming the node with that index (its first occurrence).
    Node(usize),
    /// `{"from": ID}` naming no node (T303).
    Unknown,
}

/// One input binding of a node, resolved once for every rule: its origin, its `at`, the
/// consumer's input schema and what `at` selects in the source's schema. The pointer to the
/// binding is only built for a diagnostic ([`BindingInfo::pointer`]).
pub struct BindingInfo<'a> {
    pub node: usize,
    pub property: &'a str,
    pub binding: &'a Binding,
    /// `from` as written (`""` for a constant).
    pub from: &'a str,
    /// `at` as written, `""` when absent or for a constant.
    pub at: &'a str,
    pub origin: Origin,
    /// The schema of input `property` of the consumer's primitive, when declared (looked up
    /// through `$ref`s and `allOf`: an `inputs` factored into `$defs` declares the same).
    pub target: Option<&'a Value>,
    /// The safety annotations of `target`, resolved through `$ref`s, `allOf` and alternatives
    /// in the consumer's `inputs` document (default when undeclared).
    pub target_annotations: Annotations,
    /// Index into the shared selections, when the source's schema is known.
    selection: Option<u32>,
}

impl BindingInfo<'_> {
    /// `/nodes/{node}/inputs/{property}`.
    pub fn pointer(&self) -> String {
        format!(
            "/nodes/{}/inputs/{}",
            self.node,
            crate::json::pointer::escape_token(self.property)
        )
    }
}

/// The resolved bindings and the distinct (source schema, `at`) walks they share: a graph uses
/// few primitives, so thousands of bindings walk only a few hundred distinct pointers.
struct BindingTable<'a> {
    bindings: Vec<BindingInfo<'a>>,
    selections: Vec<Result<Selected<'a>, Missing>>,
}

impl<'a> BindingTable<'a> {
    fn build(cx: &Context<'a>) -> BindingTable<'a> {
        let doc: &'a GraphDoc = cx.doc;
        let mut bindings = Vec::new();
        let mut selections = Vec::new();
        let mut memo: HashMap<(*const Value, &'a str), u32, rustc_hash::FxBuildHasher> =
            HashMap::default();
        for (i, node) in doc.nodes.iter().enumerate() {
            let prim = cx.model.prim(i);
            for (property, binding) in &node.inputs {
                let (from, at, origin) = match binding {
                    Binding::Const { .. } => ("", "", Origin::Const),
                    Binding::From { from, at } => {
                        let origin = match from {
                            Source::Input => Origin::Input,
                            Source::Node(id) => match cx.model.ids.get(id.as_str()) {
                                Some(&s) => Origin::Node(s),
                                None => Origin::Unknown,
                            },
                        };
                        (from.as_str(), at.as_deref().unwrap_or(""), origin)
                    }
                };
                let schema: Option<&'a Value> = match origin {
                    Origin::Input => Some(cx.input_schema),
                    Origin::Node(s) => cx.model.prim(s).map(|p| &*p.outputs),
                    Origin::Const | Origin::Unknown => None,
                };
                let selection = schema.map(|schema| {
                    *memo.entry((schema as *const Value, at)).or_insert_with(|| {
                        selections.push(select(schema, at));
                        (selections.len() - 1) as u32
                    })
                });
                let target = prim.and_then(|p| {
                    crate::schema::annotations::property(&p.inputs, &p.inputs, property)
                });
                let target_annotations = match (prim, target) {
                    (Some(p), Some(t)) => Annotations::at(&p.inputs, t),
                    _ => Annotations::default(),
                };
                bindings.push(BindingInfo {
                    node: i,
                    property: property.as_str(),
                    binding,
                    from,
                    at,
                    origin,
                    target,
                    target_annotations,
                    selection,
                });
            }
        }
        BindingTable {
            bindings,
            selections,
        }
    }
}

impl<'a> Context<'a> {
    pub fn new(doc: &'a GraphDoc, registry: &'a Registry) -> Context<'a> {
        Context {
            doc,
            registry,
            model: Model::build(doc, registry),
            input_schema: doc.input.as_ref().unwrap_or(&ANY_OBJECT),
            compat: OnceCell::new(),
            table: OnceCell::new(),
        }
    }

    /// Every binding of every node, resolved, in document order (nodes, then properties sorted). Built on
    /// first use and shared by every rule.
    pub fn binding_infos(&self) -> &[BindingInfo<'a>] {
        &self.table().bindings
    }

    /// What the `at` of binding `b` selects in its source's schema, when its source exists and
    /// its primitive is known.
    pub fn selection(&self, b: &BindingInfo<'a>) -> Option<&Result<Selected<'a>, Missing>> {
        self.table().selections.get(b.selection? as usize)
    }

    fn table(&self) -> &BindingTable<'a> {
        self.table.get_or_init(|| BindingTable::build(self))
    }

    /// The primitive of node `node`, if known.
    pub fn prim(&self, node: usize) -> Option<&'a Primitive> {
        self.model.prim(node)
    }

    /// The schema-compatibility verdicts other than yes of the `from` bindings whose both ends
    /// resolve (shared by T305 and T306, computed once).
    pub fn compat(&self) -> &[t305_incompatible_binding::CompatFinding] {
        self.compat
            .get_or_init(|| t305_incompatible_binding::compute(self))
    }
}

/// Run every rule on a loaded document. The result is unsorted; the driver sorts.
pub fn run_all(doc: &GraphDoc, registry: &Registry) -> Vec<Diagnostic> {
    run_all_then(doc, registry, |_, _| {})
}

/// [`run_all`], then `more` on the same model (a pack's rules, SPEC §9.4), so the control-flow
/// model of a large graph is built once.
pub fn run_all_then(
    doc: &GraphDoc,
    registry: &Registry,
    more: impl FnOnce(&Model<'_>, &mut Vec<Diagnostic>),
) -> Vec<Diagnostic> {
    let cx = Context::new(doc, registry);
    let mut out = Vec::new();
    for check in CHECKS {
        check(&cx, &mut out);
    }
    more(&cx.model, &mut out);
    out
}

pub use crate::diagnostic::suggest::{edit_distance, nearest};
