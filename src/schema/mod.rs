//! Schema compatibility (SPEC §3.2): does every value the source schema admit satisfy the target?
//! The answer is `Yes`, `No` with a witness value, or `Unknown`, each with a [`Reason`] naming the
//! keyword and the JSON pointer on each side. Draft 2020-12 semantics throughout.
//!
//! # What comes from `jsonschema` and what is added here
//!
//! `jsonschema` is pinned to `=0.61.2`. That release ships a public, experimental `canonical`
//! module (no feature flag; it is compiled with `default-features = false`): `canonicalize`
//! reduces a schema to a normal form (annotations dropped, `allOf` folded, local `$ref`/`$defs`
//! kept as shared definitions, recursive definitions supported, contradictions collapsed to
//! `false`), `CanonicalSchema::covers` decides containment as `Yes`/`No`/`Unknown`,
//! `subtract` builds the difference `source \ target` as a schema, and `satisfiability` asks
//! whether a schema admits anything. It is documented as sound in the directions used here: only
//! its `Yes` of `covers` and its `No` of `satisfiability` are read as proofs. Schemas it cannot
//! model come back as `Raw` and are answered `Unknown` here, with its `RawReason` and pointer.
//!
//! Taken from it: the containment decision (`covers`), emptiness of the source
//! (`satisfiability`), and the difference schema (`subtract`) as a guide to a witness.
//!
//! Added here, because the library does not provide them:
//! - **Witness values.** `subtract` yields a schema, not a value; [`instance`] writes down
//!   candidate values of that difference (and, failing that, of the source), and a candidate is
//!   reported only after a `jsonschema` validator accepts it under the source and rejects it under
//!   the target. A `No` from `covers` with no confirmed witness is reported as `Unknown`; an
//!   `Unknown` from `covers` for which a confirmed witness is found is reported as `No` (the
//!   witness proves it).
//! - **Reasons with pointers.** The target-side keyword and pointer come from the validator's
//!   error for the witness (its keyword location); the source-side pointer is the source
//!   subschema constraining the same instance location ([`walk::schema_pointer_for_instance`]).
//! - **Annotations and typos.** The canonicalizer, like a validator, ignores keywords it does not
//!   know, and so does this checker: Draft 2020-12 makes an unknown keyword an annotation
//!   (`minimumForOptimizer`, `documentation_url`, `x-*`). What the closed vocabulary was for is
//!   kept: a keyword within a small edit distance of a real keyword, or equal to one but for
//!   case or punctuation (`maxLen`, `multipleOF`, `maxItems:`), silently validates nothing, so it
//!   makes the verdict `Unknown` with "did you mean …?" ([`walk::suspected_typo`]) — unless the
//!   pair is decided `No` with the keyword ignored as the validators ignore it: the confirmed
//!   witness is what happens at run time whatever was meant, and its reason carries the typo as
//!   a note. A `Yes` is never given beside a typo (it would hide it);
//!   [`ignored_annotations`] names the other unknown keywords (the CLI prints them as a note).
//! - **Input checks** with locations: a document that is not a 2020-12 schema (meta-schema
//!   validation) or has a `$ref` that names nothing locally is a [`SchemaError`], not a verdict.
//! - **A co-inductive structural prover** ([`structural`]), run *before* the canonical algebra:
//!   it walks both schemas keyword by keyword (types, bounds, lengths, equal patterns, objects,
//!   arrays, `enum`/`const` sources whose every value the target admits, unions — a target
//!   union by splitting the source into cases on a discriminating keyword —, intersections
//!   and local `$ref`s), assumes a pair of subschemas contained when it meets it again after
//!   stepping into a child value (sound because JSON values are finite), and answers only
//!   "proven" or "not proven". It decides nearly every edge of the registry in microseconds,
//!   where canonicalizing costs more than compiling a validator; and it also decides what
//!   `covers` cannot (two *different* documents whose `$defs` recurse, a tree of integers ⊆ a
//!   tree of numbers; both recursing through `#`, where 0.61.2 errors with `DocumentRoots`).
//! - **A structural witness search** before canonicalizing: where a small evaluator
//!   ([`structural::admits`]) models both schemas, the source's candidate values (and their
//!   one-member mutations) that it finds admitted by the source and rejected by the target are
//!   confirmed with validators like any witness. Only what neither finds reaches `canonicalize`,
//!   `covers` and `subtract`.
//! - **Patterns with lengths, and member names.** The pattern automata ([`pattern`]) decide a
//!   string's `pattern` together with `minLength`/`maxLength` on both sides in one product
//!   search (the structural prover's proof and the witness search share it), and the names of
//!   `patternProperties`: the prover skips a target pattern whose every name the source's
//!   properties and patterns take, and [`pattern::member_names`] finds the member names on which
//!   two root objects differ, for a witness object built from the source's candidates.
//! - **Fast paths** that need no validator: a `false` source, a `true` target, and identical
//!   schemas (modulo annotations) are `Yes` at once.
//! - **Caching.** A [`Checker`] keeps, per schema (found by a structural hash and equality, never
//!   by serializing it), the checks on the document, its canonical form (computed on first need;
//!   eagerly only for schemas with `pattern` or `$ref`, whose errors only canonicalization
//!   reports, so unusable input is refused whichever path decides; a schema of more than
//!   `EAGER_CANONICAL_SUBSCHEMAS` (512) subschemas has its patterns canonicalized one by one
//!   instead, which refuses the same input without the whole union's automata) and compiled validators
//!   (only on the path that confirms a witness). The registry holds one checker for every graph
//!   validated against it.
//!
//! This file holds the checker pipeline ([`Checker`]); the answers it gives ([`CompatVerdict`],
//! [`Decision`], [`Reason`], [`SchemaError`]) are defined in `result`, its per-schema cache in
//! `cache`.

pub mod annotations;
pub mod budget;
pub mod instance;
pub mod pattern;
pub mod select;
pub mod structural;
pub mod walk;

pub use result::{CompatVerdict, Decision, Reason, SchemaError, Side};
pub use walk::ignored_annotations;

mod cache;
mod result;

use budget::Budget;
use cache::{Compiled, ContentCache, Prepared, content_hash};

use std::borrow::{Borrow, Cow};
use std::cell::OnceCell;
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock};

use jsonschema::canonical::{CanonicalSchema, CanonicalView, Containment, Satisfiability};
use jsonschema::{CanonicalizationError, Draft, Validator};
use pattern::Inclusion;
use serde_json::Value;

/// Decide source ⊆ target. A schema the checker cannot use is `Unknown` here; use
/// [`check_with_reasons`] or a [`Checker`] to tell that apart.
pub fn check(source: &Value, target: &Value) -> CompatVerdict {
    match check_with_reasons(source, target) {
        Ok(decision) => decision.verdict(),
        Err(error) => CompatVerdict::Unknown {
            reason: error.to_string(),
        },
    }
}

/// Decide source ⊆ target with a structured reason; unusable schemas are errors.
pub fn check_with_reasons(source: &Value, target: &Value) -> Result<Decision, SchemaError> {
    Checker::new().check(source, target)
}

/// A compatibility checker that caches per-schema work (the checks on the document, canonical
/// forms, compiled validators) across checks. Safe to share between threads.
#[derive(Default)]
pub struct Checker {
    prepared: Mutex<ContentCache<Prepared>>,
    validators: Mutex<ContentCache<Compiled>>,
}

/// Whether a schema uses a keyword whose errors only canonicalization reports (an invalid
/// regular expression, a reference it cannot resolve): such a schema is canonicalized while it
/// is prepared, so that it is refused as input whichever path a check then takes.
fn needs_eager_canonical(subschemas: &[(String, &Value)]) -> bool {
    subschemas.iter().any(|(_, subschema)| {
        subschema.as_object().is_some_and(|object| {
            ["pattern", "patternProperties", "$ref", "$dynamicRef", "$id"]
                .iter()
                .any(|keyword| object.contains_key(*keyword))
        })
    })
}

/// Past this many subschemas, a schema whose only such keywords are `pattern`,
/// `patternProperties` and local `$ref`s (which [`walk::findings`] has checked) is not
/// canonicalized whole while it is prepared: canonicalizing a union of thousands of patterned
/// branches takes seconds, and the structural prover often decides without it. Each of its
/// patterns is canonicalized on its own instead, which reports an invalid one just the same.
const EAGER_CANONICAL_SUBSCHEMAS: usize = 512;

/// The first invalid regular expression of `subschemas` (a `pattern`, or a key of
/// `patternProperties`), found by canonicalizing each distinct one on its own.
fn invalid_pattern(subschemas: &[(String, &Value)]) -> Option<CanonicalizationError> {
    let mut seen = std::collections::HashSet::new();
    for (_, subschema) in subschemas {
        let Some(object) = subschema.as_object() else {
            continue;
        };
        let patterns = walk::regular_expressions(object);
        for pattern in patterns {
            if seen.insert(pattern)
                && let Err(error @ CanonicalizationError::InvalidPattern { .. }) =
                    canonicalize(&serde_json::json!({ "pattern": pattern }))
            {
                return Some(error);
            }
        }
    }
    None
}

fn canonicalize(schema: &Value) -> Result<CanonicalSchema, CanonicalizationError> {
    jsonschema::canonical::options()
        .with_draft(Draft::Draft202012)
        .should_validate_formats(false)
        .offline()
        .canonicalize(schema)
}

fn compile(schema: &Value) -> Result<Validator, String> {
    jsonschema::options()
        .with_draft(Draft::Draft202012)
        .should_validate_formats(false)
        .build(schema)
        .map_err(|error| error.to_string())
}

fn reason(keyword: &str, source: Option<&str>, target: Option<&str>, message: String) -> Reason {
    Reason {
        keyword: keyword.to_string(),
        source_pointer: source.map(String::from),
        target_pointer: target.map(String::from),
        message,
    }
}

/// How many candidates the structural evaluator separates before they go to the validators:
/// the evaluator models both schemas, so the first is nearly always confirmed, and stopping
/// there spares building the mutations of every later candidate (megabytes on large arrays).
const STRUCTURAL_WITNESSES: usize = 8;

/// How many of the source's candidates are tried before the rest are built.
const FIRST_CANDIDATES: usize = 2;

/// Keywords the canonical algebra often cannot decide; named in an `Unknown`'s reason.
const HARD_KEYWORDS: &[&str] = &[
    "pattern",
    "patternProperties",
    "propertyNames",
    "not",
    "oneOf",
    "anyOf",
    "uniqueItems",
    "contains",
    "if",
    "dependentSchemas",
    "dependentRequired",
    "unevaluatedProperties",
    "unevaluatedItems",
    "$dynamicRef",
    "multipleOf",
    "$ref",
];

/// The first pattern of either schema that the automata refuse, with the side, the pointer of
/// the schema holding it and the reason.
fn pattern_obstacle(source: &Value, target: &Value) -> Option<(Side, String, String)> {
    for (side, schema) in [(Side::Target, target), (Side::Source, source)] {
        for (pointer, subschema) in walk::subschemas(schema) {
            let Some(object) = subschema.as_object() else {
                continue;
            };
            let patterns = walk::regular_expressions(object);
            for text in patterns {
                if let Err(reason) = pattern::compiled(text).as_ref() {
                    return Some((side, pointer, reason.clone()));
                }
            }
        }
    }
    None
}

/// The candidate values of one check, each list built once, when a step of the witness search
/// first reads it, and charged to the check's budget then. The steps read the same lists (the
/// source's own candidates serve four of them); building them again for each step spent most
/// of the budget on long arrays, hundreds of kilobytes a candidate.
struct CandidatePools<'a> {
    source: &'a Prepared,
    target: &'a Prepared,
    budget: &'a Budget,
    source_own: OnceCell<Vec<Value>>,
    source_cases: OnceCell<Vec<Value>>,
    target_own: OnceCell<Vec<Value>>,
}

impl<'a> CandidatePools<'a> {
    fn new(source: &'a Prepared, target: &'a Prepared, budget: &'a Budget) -> Self {
        CandidatePools {
            source,
            target,
            budget,
            source_own: OnceCell::new(),
            source_cases: OnceCell::new(),
            target_own: OnceCell::new(),
        }
    }

    /// The source's own candidate values.
    fn source_own(&self) -> &[Value] {
        self.source_own.get_or_init(|| {
            let document = &self.source.document;
            instance::candidates_within(document, document, self.budget)
        })
    }

    /// Candidate values of the source: its own, then those of each case it splits into against
    /// a target union ([`structural::union_split_cases`]), where the value of a case no branch
    /// contains is found.
    fn source(&self) -> impl Iterator<Item = &Value> {
        let own = self.source_own();
        let cases = self.source_cases.get_or_init(|| {
            let mut cases: Vec<Value> = Vec::new();
            let document = &self.source.document;
            for case in structural::union_split_cases(document, &self.target.document) {
                for candidate in instance::candidates_within(&case, document, self.budget) {
                    if !own.contains(&candidate) && !cases.contains(&candidate) {
                        cases.push(candidate);
                    }
                }
            }
            cases
        });
        own.iter().chain(cases)
    }

    /// The target's own candidate values.
    fn target_own(&self) -> &[Value] {
        self.target_own.get_or_init(|| {
            let document = &self.target.document;
            instance::candidates_within(document, document, self.budget)
        })
    }
}

fn first_hard_keyword(schema: &Value) -> Option<(String, String)> {
    for keyword in HARD_KEYWORDS {
        for (pointer, subschema) in walk::subschemas(schema) {
            if subschema.get(*keyword).is_some() {
                return Some((keyword.to_string(), pointer));
            }
        }
    }
    None
}

impl fmt::Debug for Checker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Checker").finish_non_exhaustive()
    }
}

impl Checker {
    pub fn new() -> Self {
        Self::default()
    }

    fn prepare(&self, schema: &Value, side: Side) -> Result<Arc<Prepared>, SchemaError> {
        let hash = content_hash(schema);
        if let Ok(cache) = self.prepared.lock()
            && let Some(found) = cache.get(hash, schema)
        {
            return Ok(found);
        }
        if !matches!(schema, Value::Bool(_) | Value::Object(_)) {
            return Err(SchemaError::NotASchema {
                side,
                pointer: String::new(),
                message: "a schema is an object or a boolean".into(),
            });
        }
        // Before anything that recurses (the meta-schema validator, the canonicalizer, the
        // compiled validators): a schema nested or chained too deeply is refused here.
        if let Some(pointer) = walk::too_deep(schema) {
            return Err(SchemaError::TooDeep {
                side,
                pointer,
                limit: walk::MAX_DEPTH,
            });
        }
        if let Err(error) = jsonschema::draft202012::meta::validate(schema) {
            return Err(SchemaError::NotASchema {
                side,
                pointer: error.instance_path().to_string(),
                message: error.to_string(),
            });
        }
        let mut unknown_keyword = None;
        for finding in walk::findings(schema) {
            match finding {
                walk::Finding::UnresolvableRef { reference, pointer } => {
                    return Err(SchemaError::UnresolvableRef {
                        side,
                        pointer,
                        reference,
                    });
                }
                walk::Finding::UnknownKeyword {
                    keyword,
                    pointer,
                    suggestion,
                } => {
                    unknown_keyword.get_or_insert((keyword, pointer, suggestion));
                }
            }
        }
        let canonical = OnceLock::new();
        let subschemas = walk::subschemas(schema);
        let deferred = subschemas.len() > EAGER_CANONICAL_SUBSCHEMAS
            && !subschemas.iter().any(|(_, subschema)| {
                subschema
                    .as_object()
                    .is_some_and(|o| o.contains_key("$dynamicRef") || o.contains_key("$id"))
            });
        let eager = if !needs_eager_canonical(&subschemas) {
            None
        } else if deferred {
            invalid_pattern(&subschemas).map(Err)
        } else {
            Some(canonicalize(schema))
        };
        if let Some(result) = eager {
            let result = match result {
                Ok(canonical) => Ok(canonical),
                Err(CanonicalizationError::ReferenceResolution(error)) => {
                    return Err(SchemaError::UnresolvableRef {
                        side,
                        pointer: String::new(),
                        reference: error.to_string(),
                    });
                }
                Err(CanonicalizationError::InvalidPattern { pattern }) => {
                    let pointer = subschemas
                        .iter()
                        .find(|(_, s)| s.get("pattern").and_then(Value::as_str) == Some(&pattern))
                        .map(|(p, _)| format!("{p}/pattern"))
                        .unwrap_or_default();
                    return Err(SchemaError::NotASchema {
                        side,
                        pointer,
                        message: format!("invalid regular expression {pattern:?}"),
                    });
                }
                Err(other) => Err(other.to_string()),
            };
            let _ = canonical.set(result);
        }
        let prepared = Arc::new(Prepared {
            document: schema.clone(),
            unknown_keyword,
            stripped: OnceLock::new(),
            canonical,
        });
        if let Ok(mut cache) = self.prepared.lock() {
            cache.insert(hash, &prepared);
        }
        Ok(prepared)
    }

    fn validator(&self, schema: &Value) -> Result<Arc<Compiled>, String> {
        let hash = content_hash(schema);
        if let Ok(cache) = self.validators.lock()
            && let Some(found) = cache.get(hash, schema)
        {
            return Ok(found);
        }
        let compiled = Arc::new(Compiled {
            document: schema.clone(),
            validator: compile(schema)?,
        });
        if let Ok(mut cache) = self.validators.lock() {
            cache.insert(hash, &compiled);
        }
        Ok(compiled)
    }

    /// Decide source ⊆ target.
    pub fn check(&self, source: &Value, target: &Value) -> Result<Decision, SchemaError> {
        Ok(self.check_with_work(source, target)?.0)
    }

    /// [`Checker::check`], and the units of work its witness search spent ([`budget`]; 0 where
    /// a fast path or the structural prover decided): at most [`budget::WORK_LIMIT`], the
    /// same on every run and machine.
    pub fn check_with_work(
        &self,
        source: &Value,
        target: &Value,
    ) -> Result<(Decision, u64), SchemaError> {
        let source = self.prepare(source, Side::Source)?;
        let target = self.prepare(target, Side::Target)?;
        let budget = Budget::default();
        let decision = self.decide(&source, &target, &budget);
        Ok((decision, budget::WORK_LIMIT - budget.left()))
    }

    /// Decide source ⊆ target and return the plain verdict (unusable schemas are `Unknown`).
    pub fn verdict(&self, source: &Value, target: &Value) -> CompatVerdict {
        match self.check(source, target) {
            Ok(decision) => decision.verdict(),
            Err(error) => CompatVerdict::Unknown {
                reason: error.to_string(),
            },
        }
    }

    /// Decide, reading a suspected typo (`maxItems:`, `multipleOF`) as the validators do — an
    /// annotation that constrains nothing. A `no` is kept, since its witness is what the
    /// validators do whatever the author meant, and its reason notes the typo; a `yes` or an
    /// `unknown` becomes `unknown` with "did you mean …?", so that the typo is never hidden
    /// behind a yes.
    fn decide(&self, source: &Prepared, target: &Prepared, budget: &Budget) -> Decision {
        let typo = [("source", source), ("target", target)]
            .into_iter()
            .find_map(|(side, prepared)| Some((side, prepared.unknown_keyword.as_ref()?)));
        let decision = self.decide_as_validators_do(source, target, budget);
        let Some((side, (keyword, pointer, suggestion))) = typo else {
            return decision;
        };
        let typo_message = format!(
            "the {side} schema uses `{keyword}`, which is not a Draft 2020-12 keyword and would \
             be ignored by a validator; did you mean `{suggestion}`?"
        );
        match decision {
            Decision::No {
                witness,
                mut reason,
            } => {
                reason.message = format!(
                    "{}; note: {typo_message} (it was ignored, as a validator ignores it)",
                    reason.message
                );
                Decision::No { witness, reason }
            }
            Decision::Yes { .. } | Decision::Unknown { .. } => {
                let (s, t) = if side == "source" {
                    (Some(pointer.as_str()), None)
                } else {
                    (None, Some(pointer.as_str()))
                };
                Decision::Unknown {
                    reason: reason(keyword, s, t, typo_message),
                }
            }
        }
    }

    fn decide_as_validators_do(
        &self,
        source: &Prepared,
        target: &Prepared,
        budget: &Budget,
    ) -> Decision {
        if source.document == Value::Bool(false) {
            return Decision::Yes {
                reason: reason("", Some(""), None, "the source admits no value".into()),
            };
        }
        if structural::is_trivially_true(&target.document) {
            return Decision::Yes {
                reason: reason("", None, Some(""), "the target admits every value".into()),
            };
        }
        // The structural prover first: it decides most real edges (typed properties, objects,
        // arrays, enums) in microseconds, where canonicalization costs more than compiling a
        // validator. It only ever proves; what it cannot prove goes on below.
        if structural::proves_contained(&source.document, &target.document) {
            return Decision::Yes {
                reason: reason(
                    "",
                    Some(""),
                    Some(""),
                    "every value the source admits is admitted by the target (structural proof)"
                        .into(),
                ),
            };
        }
        if source.stripped() == target.stripped() {
            return Decision::Yes {
                reason: reason("", Some(""), Some(""), "the schemas are identical".into()),
            };
        }
        // Everything from here on searches for a witness or asks the canonical algebra, and is
        // bounded by one work budget per check (see `budget`).
        self.search_within(source, target, budget)
    }

    /// The witness search and the canonical algebra, within `budget`: what
    /// [`Checker::decide_as_validators_do`] leaves once nothing cheaper decided.
    fn search_within(&self, source: &Prepared, target: &Prepared, budget: &Budget) -> Decision {
        let pools = CandidatePools::new(source, target, budget);
        // A source whose every value is larger than any candidate built is not searched (the
        // canonical algebra may still prove it contained).
        let beyond_reach = instance::out_of_reach(&source.document, &source.document);
        let searching = beyond_reach.is_none();
        if searching && let Some(decision) = self.find_witness_structurally(&pools) {
            return decision;
        }
        if let Some(decision) = self.find_finite_witness(source, target, budget) {
            return decision;
        }
        if searching && let Some(decision) = self.find_pattern_witness(&pools) {
            return decision;
        }
        if searching && let Some(decision) = self.find_member_name_witness(&pools) {
            return decision;
        }
        let too_large = budget::canonical_too_large(&source.document, &target.document);
        let canonical = match (
            &too_large,
            source.canonical_if(too_large.is_none()),
            target.canonical_if(too_large.is_none()),
        ) {
            (None, Some(Ok(s)), Some(Ok(t))) => Some((s, t)),
            _ => None,
        };
        let undecided = match (canonical, &too_large) {
            (Some((s, t)), _) => match self.decide_canonical(s, t) {
                Ok(decision) => return decision,
                Err(reason) => reason,
            },
            (None, Some(why)) => {
                budget.exhaust("the canonical algebra");
                reason("", None, None, why.clone())
            }
            (None, None) => {
                let message = [source.canonical(), target.canonical()]
                    .into_iter()
                    .filter_map(|c| c.as_ref().err().cloned())
                    .collect::<Vec<_>>()
                    .join("; ");
                reason(
                    "",
                    None,
                    None,
                    format!("the schemas could not be canonicalized: {message}"),
                )
            }
        };
        let mut undecided = undecided;
        let covers_said_no = undecided.keyword == "covers";
        let found = searching
            .then(|| {
                let difference = canonical.and_then(|(s, t)| s.subtract(t).ok());
                self.find_witness(&pools, difference.as_ref())
            })
            .flatten();
        match found {
            Some(decision) => decision,
            None => {
                if covers_said_no {
                    undecided.keyword = String::new();
                }
                if undecided.keyword.is_empty()
                    && let Some((keyword, pointer)) = first_hard_keyword(&target.document)
                        .map(|(k, p)| (k, (None, Some(p))))
                        .or_else(|| {
                            first_hard_keyword(&source.document).map(|(k, p)| (k, (Some(p), None)))
                        })
                {
                    undecided.keyword = keyword;
                    undecided.source_pointer = pointer.0;
                    undecided.target_pointer = pointer.1;
                }
                if let Some((side, pointer, why)) =
                    pattern_obstacle(&source.document, &target.document)
                {
                    undecided.keyword = "pattern".into();
                    undecided.message = format!("{}: {why}", undecided.message);
                    (undecided.source_pointer, undecided.target_pointer) = match side {
                        Side::Source => (Some(pointer), None),
                        Side::Target => (None, Some(pointer)),
                    };
                }
                if let Some(what) = budget.exhausted() {
                    undecided.message = format!("budget exhausted ({what}); {}", undecided.message);
                }
                if let Some(why) = &beyond_reach {
                    undecided.message =
                        format!("no witness searched: {why}; {}", undecided.message);
                }
                Decision::Unknown { reason: undecided }
            }
        }
    }

    /// A witness among a finite source's own values (`const`/`enum` at the root): the first
    /// value the structural evaluator finds rejected by the target (a hashed lookup against a
    /// target `enum`), confirmed by validators. Linear in the two value lists.
    fn find_finite_witness(
        &self,
        source: &Prepared,
        target: &Prepared,
        budget: &Budget,
    ) -> Option<Decision> {
        let values = structural::finite_root_values(&source.document)?;
        match structural::first_rejected(values, &target.document) {
            Some((value, Some(false))) => {
                self.confirm_witness(source, target, vec![value.clone()], budget)
            }
            _ => None,
        }
    }

    /// A witness where both schemas constrain the same string with different patterns: the
    /// shortest string of the source's language outside the target's (see [`pattern`]), put
    /// in place inside the source's candidate values, confirmed by validators.
    fn find_pattern_witness(&self, pools: &CandidatePools<'_>) -> Option<Decision> {
        let CandidatePools {
            source,
            target,
            budget,
            ..
        } = *pools;
        let places = pattern::string_places(&source.document, &target.document);
        if places.is_empty() {
            return None;
        }
        let bases = pools.source_own();
        let mut candidates = Vec::new();
        for place in places {
            let text = match pattern::inclusion_within(
                place.source_pattern.as_deref(),
                pattern::Lengths::new(place.min_length, place.max_length),
                place.target_pattern.as_deref(),
                place.target_lengths,
            ) {
                Inclusion::Witness(text) => text,
                Inclusion::Exhausted(_) => {
                    budget.exhaust("comparing patterns");
                    continue;
                }
                _ => continue,
            };
            let text = Value::String(text);
            if place.path.is_empty() && !place.names {
                candidates.push(text);
                continue;
            }
            for base in bases {
                candidates.extend(pattern::place_witness(base, &place, &text));
            }
        }
        if candidates.is_empty() {
            return None;
        }
        self.confirm_witness(source, target, candidates, budget)
    }

    /// A witness where the two root objects govern some member name differently through
    /// `patternProperties`: a name found by the automata ([`pattern::member_names`]) that the
    /// source leaves to one of its subschemas and the target to another, with a value of the
    /// source's subschema, added to the source's own candidate objects; confirmed by validators.
    fn find_member_name_witness(&self, pools: &CandidatePools<'_>) -> Option<Decision> {
        let CandidatePools {
            source,
            target,
            budget,
            ..
        } = *pools;
        let names = pattern::member_names(&source.document, &target.document);
        if names.is_empty() {
            return None;
        }
        let bases: Vec<&Value> = pools
            .source_own()
            .iter()
            .filter(|value| value.is_object())
            .take(4)
            .collect();
        let mut candidates = Vec::new();
        for (name, source_schema) in names {
            let values = instance::candidates_within(&source_schema, &source.document, budget);
            for &base in &bases {
                for value in values.iter().take(12) {
                    let mut candidate = base.clone();
                    if let Value::Object(members) = &mut candidate {
                        members.insert(name.clone(), value.clone());
                    }
                    candidates.push(candidate);
                }
            }
        }
        self.confirm_witness(source, target, candidates, budget)
    }

    /// The canonical algebra's answer where it proves one; otherwise the reason it did not.
    /// A `No` here only marks the reason (`keyword == "covers"`): it becomes a verdict once a
    /// witness is confirmed.
    fn decide_canonical(
        &self,
        source: &CanonicalSchema,
        target: &CanonicalSchema,
    ) -> Result<Decision, Reason> {
        if source.satisfiability() == Satisfiability::No {
            return Ok(Decision::Yes {
                reason: reason(
                    "",
                    Some(""),
                    None,
                    "the source is contradictory and admits no value".into(),
                ),
            });
        }
        for (side, schema) in [("source", source), ("target", target)] {
            if let CanonicalView::Raw(raw) = schema.view() {
                let pointer = raw.pointer.unwrap_or_default();
                let (s, t) = if side == "source" {
                    (Some(pointer), None)
                } else {
                    (None, Some(pointer))
                };
                return Err(Reason {
                    keyword: raw.reason.as_str().to_string(),
                    source_pointer: s,
                    target_pointer: t,
                    message: format!(
                        "the {side} schema uses a construct the canonical algebra does not model ({})",
                        raw.reason.as_str()
                    ),
                });
            }
        }
        match target.covers(source) {
            Ok(Containment::Yes) => Ok(Decision::Yes {
                reason: reason(
                    "",
                    Some(""),
                    Some(""),
                    "every value the source admits is admitted by the target".into(),
                ),
            }),
            Ok(Containment::No) => Err(reason(
                "covers",
                None,
                None,
                "the canonical algebra finds the target narrower, but no witness value was confirmed"
                    .into(),
            )),
            Ok(Containment::Unknown) => Err(reason(
                "",
                None,
                None,
                "containment could not be decided".into(),
            )),
            Err(error) => Err(reason(
                "",
                None,
                None,
                format!("containment could not be decided: {error}"),
            )),
        }
    }

    /// The candidate values of a witness search, in order: from the difference schema when there
    /// is one, from each schema, and small mutations of those. Lazy: the target's candidates and
    /// the mutations are built only when the candidates before them confirmed nothing, and the
    /// pools' values are lent, not cloned.
    fn witness_candidates<'p>(
        pools: &'p CandidatePools<'_>,
        difference: Option<&CanonicalSchema>,
    ) -> impl Iterator<Item = Cow<'p, Value>> {
        let from_difference = match difference {
            Some(difference) => {
                let schema = difference.to_json_schema();
                instance::candidates_within(&schema, &schema, pools.budget)
            }
            None => Vec::new(),
        };
        let from_target =
            std::iter::once(pools).flat_map(|pools| pools.target_own().iter().map(Cow::Borrowed));
        let mutated = std::iter::once(pools).flat_map(|pools| {
            pools
                .target_own()
                .iter()
                .chain(pools.source())
                .flat_map(|value| instance::mutations_within(value, 3, pools.budget))
                .map(Cow::Owned)
        });
        from_difference
            .into_iter()
            .map(Cow::Owned)
            .chain(pools.source().map(Cow::Borrowed))
            .chain(from_target)
            .chain(mutated)
    }

    /// A witness found without canonicalizing: candidates that the structural evaluator
    /// ([`structural::admits`]) decides are admitted by the source and rejected by the target,
    /// then confirmed by `jsonschema` validators like any other witness. Most incompatible real
    /// edges (a missing bound, a type that does not fit) are found here, at the cost of
    /// compiling the two validators that confirm the witness.
    fn find_witness_structurally(&self, pools: &CandidatePools<'_>) -> Option<Decision> {
        let CandidatePools {
            source,
            target,
            budget,
            ..
        } = *pools;
        let separates = |candidate: &Value| {
            budget.charge_value(candidate, "evaluating candidate values")
                && structural::admits(&source.document, candidate) == Some(true)
                && structural::admits(&target.document, candidate) == Some(false)
        };
        // Only where the evaluator models both schemas, and only the source's own candidates:
        // this is the cheap first try; the full search (difference schema, mutations) follows
        // when it finds nothing.
        if !structural::is_evaluable(&source.document)
            || !structural::is_evaluable(&target.document)
        {
            return None;
        }
        // The source's first candidates alone first: where one of them is a witness (lale's
        // datasets against an operator's input: any value will do), the rest, megabytes on
        // long arrays, are never built.
        let first = instance::first_candidates_within(
            &source.document,
            &source.document,
            FIRST_CANDIDATES,
            budget,
        );
        if let Some(witness) = first.into_iter().find(|c| separates(c))
            && let Some(decision) = self.confirm_witness(source, target, [witness], budget)
        {
            return Some(decision);
        }
        let mut found: Vec<Value> = pools
            .source()
            .filter(|c| separates(c))
            .take(STRUCTURAL_WITNESSES)
            .cloned()
            .collect();
        if found.is_empty() {
            // One member or item changed at a time finds what a whole-value candidate misses
            // (a nested bound, one member of the wrong type). The mutations of one candidate
            // are built only once those of the one before have separated nothing.
            found = pools
                .source()
                .flat_map(|value| instance::mutations_within(value, 2, budget))
                .filter(separates)
                .take(STRUCTURAL_WITNESSES)
                .collect();
        }
        if found.is_empty() {
            return None;
        }
        self.confirm_witness(source, target, found, budget)
    }

    /// A value the source admits and the target rejects, confirmed by `jsonschema` validators.
    fn find_witness(
        &self,
        pools: &CandidatePools<'_>,
        difference: Option<&CanonicalSchema>,
    ) -> Option<Decision> {
        self.confirm_witness(
            pools.source,
            pools.target,
            Self::witness_candidates(pools, difference),
            pools.budget,
        )
    }

    /// The first candidate that `jsonschema` validators confirm: admitted by the source,
    /// rejected by the target; the reason names the target keyword that rejects it. Only that
    /// one is cloned out of a lent candidate.
    fn confirm_witness(
        &self,
        source: &Prepared,
        target: &Prepared,
        candidates: impl IntoIterator<Item = impl Borrow<Value>>,
        budget: &Budget,
    ) -> Option<Decision> {
        if budget.is_exhausted() {
            return None;
        }
        let source_compiled = self.validator(&source.document).ok()?;
        let target_compiled = self.validator(&target.document).ok()?;
        let (source_validator, target_validator) =
            (&source_compiled.validator, &target_compiled.validator);
        for candidate in candidates {
            let candidate: &Value = candidate.borrow();
            if !budget.charge_value(candidate, "validating candidate values") {
                return None;
            }
            if !source_validator.is_valid(candidate) {
                continue;
            }
            let Some(error) = target_validator.iter_errors(candidate).next() else {
                continue;
            };
            let location = error.schema_path().to_string();
            let (target_pointer, keyword) = match location.rsplit_once('/') {
                Some((parent, keyword)) if !keyword.is_empty() => {
                    (parent.to_string(), keyword.to_string())
                }
                _ => (location.clone(), String::new()),
            };
            let keyword = if keyword.parse::<usize>().is_ok() {
                String::new()
            } else {
                keyword.replace("~1", "/").replace("~0", "~")
            };
            let instance_path = error.instance_path().to_string();
            let source_pointer =
                walk::schema_pointer_for_instance(&source.document, &instance_path);
            let at = if instance_path.is_empty() {
                "the value".to_string()
            } else {
                format!("the value at \"{instance_path}\"")
            };
            let message = format!("{at} is admitted by the source but not the target: {error}");
            return Some(Decision::No {
                witness: candidate.clone(),
                reason: Reason {
                    keyword,
                    source_pointer,
                    target_pointer: Some(target_pointer),
                    message,
                },
            });
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// lale's `dataset_op/44` of IBM's suite: 16,512 rows of eight numbers against an operator
    /// that takes strings, the costliest witness of the suite: a `no` the validators confirm,
    /// within 4 MiB of counted work (29.6 MiB while each step of the search built the source's
    /// candidates anew and a long array was built once per time its length was named; 26.8 MiB
    /// before its rows' varieties went into one array and its first candidates were tried
    /// alone; 3.15 MiB now).
    #[test]
    fn a_large_array_witness_is_confirmed_within_a_bounded_budget() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/schema-compat/ibm-jsonsubschema.json");
        let pairs: Vec<Value> =
            serde_json::from_str(&std::fs::read_to_string(path).expect("the IBM fixture"))
                .expect("a JSON array");
        let pair = pairs
            .iter()
            .find(|pair| {
                pair["name"] == json!("test_ai_subschema/TestAIExamples.test_dataset_op/44")
            })
            .expect("the pair is in the suite");
        let checker = Checker::new();
        let source = checker
            .prepare(&pair["source"], Side::Source)
            .expect("usable");
        let target = checker
            .prepare(&pair["target"], Side::Target)
            .expect("usable");
        let budget = Budget::default();
        let decision = checker.search_within(&source, &target, &budget);
        let spent = budget::WORK_LIMIT - budget.left();
        let Decision::No { witness, .. } = decision else {
            panic!("not decided: {decision:?}");
        };
        let validator = |schema: &Value| {
            jsonschema::options()
                .with_draft(Draft::Draft202012)
                .build(schema)
                .expect("the fixture compiles")
        };
        assert!(validator(&pair["source"]).is_valid(&witness));
        assert!(!validator(&pair["target"]).is_valid(&witness));
        assert!(spent <= 4 << 20, "{spent} units");
    }
}
