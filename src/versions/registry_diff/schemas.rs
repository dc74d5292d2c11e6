//! The schema half of a contract (SPEC §6.1 with the §3.2 checker): NEW's `inputs` must admit
//! every value OLD's admit (else V705, with a witness OLD admits and NEW rejects), and NEW's
//! `outputs` must admit no value OLD's reject (else V706, with a witness NEW admits and OLD
//! rejects). Every witness is confirmed here once more against both registries' compiled
//! schemas. An undecided check is a V705/V706 *warning* with `unknown` and the checker's reason,
//! never a silent pass; a proven-compatible change that widens inputs or narrows outputs is a
//! V720 info (with a witness of the widening where the reverse check finds one); a change only
//! of descriptions, or a rewrite proven equivalent, is V717 metadata. The `x-*` annotations are
//! [`super::locations`]' business.

use super::{
    BREAKING, COMPATIBLE, Draft, Finding, METADATA, REVIEW, SchemaVerdict, Sink, field_pointer,
};
use crate::codes;
use crate::diagnostic::Witness;
use crate::json::Parsed;
use crate::registry::{PrimIdx, Primitive, Registry};
use crate::schema::structural::json_equal;
use crate::schema::{Decision, Reason};
use serde_json::Value;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Half {
    Inputs,
    Outputs,
}

impl Half {
    fn field(self) -> &'static str {
        match self {
            Half::Inputs => "inputs",
            Half::Outputs => "outputs",
        }
    }

    fn schema(self, p: &Primitive) -> &Value {
        match self {
            Half::Inputs => &p.inputs,
            Half::Outputs => &p.outputs,
        }
    }

    fn admits(self, registry: &Registry, idx: PrimIdx, value: &Value) -> Option<bool> {
        let validator = match self {
            Half::Inputs => registry.input_validator(idx),
            Half::Outputs => registry.output_validator(idx),
        }?;
        Some(validator.is_valid(value))
    }
}

/// `schema` without descriptions and without the three safety annotations: what is left is
/// what a change of only descriptions leaves equal.
fn without_x_annotations(schema: &Value) -> Value {
    match schema {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| !matches!(k.as_str(), "x-trust" | "x-sink" | "x-authority"))
                .map(|(k, v)| (k.clone(), without_x_annotations(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_x_annotations).collect()),
        other => other.clone(),
    }
}

pub(super) fn compare(
    sink: &mut Sink,
    old_reg: &Registry,
    new_reg: &Registry,
    old: &Primitive,
    new: &Primitive,
    new_parsed: &Parsed,
) {
    for half in [Half::Inputs, Half::Outputs] {
        let (a, b) = (half.schema(old), half.schema(new));
        if json_equal(a, b) {
            continue;
        }
        let stripped = (
            crate::schema::walk::strip_annotations(a),
            crate::schema::walk::strip_annotations(b),
        );
        if json_equal(&stripped.0, &stripped.1) {
            if !json_equal(&without_x_annotations(a), &without_x_annotations(b)) {
                sink.push(Draft::in_new(
                    &codes::V717,
                    METADATA,
                    &new.id,
                    field_pointer(new, half.field()),
                    format!(
                        "`{}`: annotations of `{}` changed (descriptions, titles, formats)",
                        new.id,
                        half.field()
                    ),
                    "metadata: it needs a higher patch",
                ));
            }
            continue;
        }
        Pair {
            sink: &mut *sink,
            old_reg,
            new_reg,
            old,
            new,
            half,
            new_parsed,
        }
        .decide();
    }
}

struct Pair<'a> {
    sink: &'a mut Sink,
    old_reg: &'a Registry,
    new_reg: &'a Registry,
    old: &'a Primitive,
    new: &'a Primitive,
    half: Half,
    new_parsed: &'a Parsed,
}

/// A checker answer reduced to what the diff reads, with a witness confirmed by both sides.
enum Answer {
    Yes,
    No(Value, Reason),
    Unknown(String, Option<Reason>),
}

impl Pair<'_> {
    /// The schema pointer in NEW a reason points at (the deepest one that exists), else the
    /// schema's root.
    fn pointer_in_new(&self, reason: Option<&Reason>, new_is_source: bool) -> String {
        let root = field_pointer(self.new, self.half.field());
        let inner = reason.and_then(|r| {
            if new_is_source {
                r.source_pointer.as_deref()
            } else {
                r.target_pointer.as_deref()
            }
        });
        match inner {
            Some(inner) if !inner.is_empty() => {
                let full = format!("{root}{inner}");
                // Keyword locations may end in the keyword (`/properties/a/type`); point at the
                // subschema so the caret lands on the property, not past it.
                let mut at = full.as_str();
                while !self.new_parsed.contains(at) {
                    match crate::json::pointer::parent(at) {
                        Some(parent) if parent.len() >= root.len() => at = parent,
                        _ => return root,
                    }
                }
                at.to_string()
            }
            _ => root,
        }
    }

    /// Decide `source ⊆ target`; `source_is_old` says which registry admits the witness.
    fn check(&self, source_is_old: bool) -> Answer {
        let (source, target) = if source_is_old {
            (self.half.schema(self.old), self.half.schema(self.new))
        } else {
            (self.half.schema(self.new), self.half.schema(self.old))
        };
        let checker = self.new_reg.schema_checker();
        match checker.check(source, target) {
            Ok(Decision::Yes { .. }) => Answer::Yes,
            Ok(Decision::Unknown { reason }) => Answer::Unknown(reason.to_string(), Some(reason)),
            Err(error) => Answer::Unknown(error.to_string(), None),
            Ok(Decision::No { witness, reason }) => {
                let (src_reg, src_idx, tgt_reg, tgt_idx) = if source_is_old {
                    (self.old_reg, self.old.index, self.new_reg, self.new.index)
                } else {
                    (self.new_reg, self.new.index, self.old_reg, self.old.index)
                };
                let confirmed = self.half.admits(src_reg, src_idx, &witness) == Some(true)
                    && self.half.admits(tgt_reg, tgt_idx, &witness) == Some(false);
                if confirmed {
                    Answer::No(witness, reason)
                } else {
                    Answer::Unknown(
                        format!(
                            "the checker's witness {witness} was not confirmed by both registries' compiled schemas"
                        ),
                        Some(reason),
                    )
                }
            }
        }
    }

    fn push(&mut self, draft: Draft, verdict: &'static str, reason: String) -> &mut Finding {
        let finding = self.sink.push(draft);
        finding.verdict = Some(SchemaVerdict { verdict, reason });
        finding
    }

    fn decide(mut self) {
        let id = self.new.id.clone();
        let field = self.half.field();
        // The direction that must hold: inputs OLD ⊆ NEW, outputs NEW ⊆ OLD.
        let must_hold_old_is_source = self.half == Half::Inputs;
        let (code, what, who_admits, who_rejects) = match self.half {
            Half::Inputs => (&codes::V705, "inputs narrowed", "OLD", "NEW"),
            Half::Outputs => (&codes::V706, "outputs widened", "NEW", "OLD"),
        };
        let help_no = match self.half {
            Half::Inputs => {
                "graphs and recorded runs that pass this value under OLD fail under NEW (T305/T307, D606); accept it again, or make the change in a new major"
            }
            Half::Outputs => {
                "consumers bound to this output were checked against OLD's schema and may now receive this value (T305, D607); narrow it again, or make the change in a new major"
            }
        };
        match self.check(must_hold_old_is_source) {
            Answer::No(witness, reason) => {
                let pointer = self.pointer_in_new(Some(&reason), !must_hold_old_is_source);
                let draft = Draft::in_new(
                    code,
                    BREAKING,
                    &id,
                    pointer,
                    format!(
                        "`{id}`: {what}: {who_admits}'s `{field}` admits {witness}, {who_rejects}'s rejects it"
                    ),
                    help_no,
                );
                self.push(draft, "no", reason.to_string())
                    .diagnostic
                    .witness = Some(Witness::Value(witness));
            }
            Answer::Unknown(text, reason) => {
                let pointer = self.pointer_in_new(reason.as_ref(), !must_hold_old_is_source);
                let direction = match self.half {
                    Half::Inputs => "NEW's `inputs` admit every value OLD's admit",
                    Half::Outputs => "NEW's `outputs` admit only values OLD's admit",
                };
                let draft = Draft::in_new(
                    code,
                    REVIEW,
                    &id,
                    pointer,
                    format!(
                        "`{id}`: `{field}` changed and the checker could not decide whether {direction} (unknown: {text})"
                    ),
                    "review the change by hand, or simplify the schema so the checker decides it (`primgraph schema check OLD.json NEW.json`)",
                );
                self.push(draft, "unknown", text);
            }
            Answer::Yes => self.compatible(),
        }
    }

    /// The required direction holds: is the change a widening (inputs) or a narrowing
    /// (outputs), or an equivalent rewrite?
    fn compatible(mut self) {
        let id = self.new.id.clone();
        let field = self.half.field();
        // Reverse: inputs NEW ⊆ OLD fails when NEW accepts more; outputs OLD ⊆ NEW fails when
        // NEW produces less.
        let reverse_old_is_source = self.half == Half::Outputs;
        let root = field_pointer(self.new, field);
        let (what, proven) = match self.half {
            Half::Inputs => (
                "inputs widened",
                "NEW's `inputs` admit every value OLD's admit",
            ),
            Half::Outputs => (
                "outputs narrowed",
                "NEW's `outputs` admit only values OLD's admit",
            ),
        };
        match self.check(reverse_old_is_source) {
            Answer::No(witness, reason) => {
                let (admits, rejects) = match self.half {
                    Half::Inputs => ("NEW", "OLD"),
                    Half::Outputs => ("OLD", "NEW"),
                };
                let pointer = self.pointer_in_new(Some(&reason), self.half == Half::Inputs);
                let draft = Draft::in_new(
                    &codes::V720,
                    COMPATIBLE,
                    &id,
                    pointer,
                    format!(
                        "`{id}`: {what} (compatible): {admits}'s `{field}` admits {witness}, {rejects}'s rejects it"
                    ),
                    format!("proven compatible ({proven}): it needs a higher minor"),
                );
                self.push(draft, "yes", format!("proven: {proven}"))
                    .diagnostic
                    .witness = Some(Witness::Value(witness));
            }
            Answer::Unknown(text, _) => {
                let draft = Draft::in_new(
                    &codes::V720,
                    COMPATIBLE,
                    &id,
                    root,
                    format!(
                        "`{id}`: `{field}` changed compatibly ({proven}); whether it is a strict change is undecided ({text})"
                    ),
                    "proven compatible: it needs a higher minor",
                );
                self.push(draft, "yes", format!("proven: {proven}"));
            }
            Answer::Yes => {
                let draft = Draft::in_new(
                    &codes::V717,
                    METADATA,
                    &id,
                    root,
                    format!(
                        "`{id}`: `{field}` was rewritten; the checker proves it admits exactly the same values"
                    ),
                    "an equivalent rewrite is metadata: it needs a higher patch",
                );
                self.push(draft, "yes", "proven equivalent in both directions".into());
            }
        }
    }
}
