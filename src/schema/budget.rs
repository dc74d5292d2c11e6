//! The work budget of one check: what the witness search may spend (bytes of candidate values
//! built, mutated, evaluated and validated) before the checker gives up with `unknown` and the
//! reason "budget exhausted". It is counted in units of work, not time, so a pair gets the same
//! answer on every machine and every run. The limits are meant to keep every check within about
//! 200 ms in a release build (issue 28 item 15) on the slowest pairs known (IBM's jsonsubschema
//! suite, `tests/fixtures/schema-compat/ibm-jsonsubschema.json`, and `slow-tail.json`); the bench
//! `schema_compat`'s `slow_tail` group measures the slowest against a cheap pair, and
//! `tests/it/schema_ibm.rs` prints each slow pair's time and units and asserts the units.
//!
//! A unit is a byte of a candidate value as compact JSON, each time it is handled, so time per
//! unit varies with the shape of the values (a long array of short rows costs the most memory
//! per byte). Measured in release on the 2-core development machine at load 2.4: a search that
//! spends the whole budget (`schema_ibm`'s
//! `a_search_that_cannot_finish_ends_at_the_work_budget`, 6,291,456 units) takes 62–67 ms in a
//! fresh process and 27 ms warm; the costliest witness, lale's `dataset_op/44` (3.15 MiB),
//! 80 ms, of which much is the `jsonschema` validator building the confirmed witness's error (an
//! `anyOf` error holds every row's error of every branch), which the budget does not count.
//! With other builds running (load 7–8) the same take up to 175 ms and 170–290 ms.
//!
//! The other bounded steps keep their own fixed limits, each deterministic too: the pattern
//! product search counts visited states and transitions ([`super::pattern`]), the structural
//! prover counts comparisons ([`super::structural`]), and the canonical algebra (a black box
//! that cannot be interrupted) is not entered for schemas whose size makes it slow
//! ([`canonical_too_large`]).

use std::cell::Cell;

use serde_json::Value;

/// Bytes of candidate values one check may touch: each candidate costs its size as compact JSON
/// every time it is built, mutated, evaluated or validated. 6 MiB keeps the largest witness the
/// generator builds (1 MiB, see [`super::instance::MAX_WITNESS_BYTES`]) available several
/// times, and the search over everyday schemas (a few kilobytes) is never near it; the costliest
/// witness of IBM's suite (lale's `dataset_op/44`, arrays of 16,512 rows) is found after 3.15
/// MiB, about half (a unit test in `schema` holds it under 4 MiB, and `tests/it/schema_ibm.rs`
/// every decided pair within seven eighths of the budget). It was 32 MiB while that witness
/// took 26.8 MiB; a search that spent it all took over 500 ms.
pub const WORK_LIMIT: u64 = 6 << 20;

/// Past this many subschemas in the two documents together, or this many patterns in a union,
/// the canonical algebra is not asked: canonicalizing a union of patterned branches builds an
/// automaton per branch and intersects them, which took seconds on IBM's slow pairs.
pub const CANONICAL_SUBSCHEMAS: usize = 400;
pub const CANONICAL_PATTERNS: usize = 24;

/// What is left of one check's work, and what exhausted it first.
#[derive(Debug)]
pub struct Budget {
    left: Cell<u64>,
    exhausted: Cell<Option<&'static str>>,
}

impl Default for Budget {
    fn default() -> Self {
        Budget::new(WORK_LIMIT)
    }
}

impl Budget {
    pub fn new(limit: u64) -> Self {
        Budget {
            left: Cell::new(limit),
            exhausted: Cell::new(None),
        }
    }

    /// Spend `units` on `what`; false (and nothing spent) when they are not left, which marks the
    /// budget exhausted by `what`.
    pub fn charge(&self, units: u64, what: &'static str) -> bool {
        let left = self.left.get();
        if units > left || self.exhausted.get().is_some() {
            if self.exhausted.get().is_none() {
                self.exhausted.set(Some(what));
            }
            self.left.set(0);
            return false;
        }
        self.left.set(left - units);
        true
    }

    /// Spend the size of `value` on `what`.
    pub fn charge_value(&self, value: &Value, what: &'static str) -> bool {
        self.charge(json_size(value) as u64, what)
    }

    /// Mark the budget exhausted by a bounded step that stopped at its own limit.
    pub fn exhaust(&self, what: &'static str) {
        if self.exhausted.get().is_none() {
            self.exhausted.set(Some(what));
        }
    }

    /// What exhausted the budget, if anything did.
    pub fn exhausted(&self) -> Option<&'static str> {
        self.exhausted.get()
    }

    pub fn is_exhausted(&self) -> bool {
        self.exhausted.get().is_some()
    }

    /// The units not spent yet (0 once exhausted).
    pub fn left(&self) -> u64 {
        self.left.get()
    }
}

/// The size of `value` as compact JSON, counted without serializing it (strings and names
/// without their escapes).
pub fn json_size(value: &Value) -> usize {
    match value {
        Value::Null => 4,
        Value::Bool(b) => 4 + usize::from(!b),
        Value::Number(n) => number_size(n),
        Value::String(s) => s.len() + 2,
        Value::Array(items) => {
            2 + items.len().saturating_sub(1) + items.iter().map(json_size).sum::<usize>()
        }
        Value::Object(members) => {
            2 + members.len().saturating_sub(1)
                + members
                    .iter()
                    .map(|(k, v)| k.len() + 3 + json_size(v))
                    .sum::<usize>()
        }
    }
}

fn number_size(n: &serde_json::Number) -> usize {
    if let Some(i) = n.as_u64() {
        digits(i)
    } else if let Some(i) = n.as_i64() {
        1 + digits(i.unsigned_abs())
    } else {
        n.to_string().len()
    }
}

fn digits(mut n: u64) -> usize {
    let mut count = 1;
    while n >= 10 {
        n /= 10;
        count += 1;
    }
    count
}

/// Whether the canonical algebra should not be asked about `source` ⊆ `target`: how many
/// subschemas the two have, and how many patterns sit under one union, past the bounds above.
pub fn canonical_too_large(source: &Value, target: &Value) -> Option<String> {
    let subschemas = super::walk::subschemas(source).len() + super::walk::subschemas(target).len();
    if subschemas > CANONICAL_SUBSCHEMAS {
        return Some(format!(
            "the two schemas have {subschemas} subschemas, more than the canonical algebra is \
             given ({CANONICAL_SUBSCHEMAS})"
        ));
    }
    for schema in [source, target] {
        let patterns = patterned_union_branches(schema);
        if patterns > CANONICAL_PATTERNS {
            return Some(format!(
                "a union has {patterns} patterned branches, more than the canonical algebra is \
                 given ({CANONICAL_PATTERNS})"
            ));
        }
    }
    None
}

/// The most `pattern`s found under the branches of one `anyOf`/`oneOf` of `schema`.
fn patterned_union_branches(schema: &Value) -> usize {
    let mut most = 0;
    for (_, subschema) in super::walk::subschemas(schema) {
        let Some(object) = subschema.as_object() else {
            continue;
        };
        for keyword in ["anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = object.get(keyword) {
                let count = branches.iter().map(count_patterns).sum();
                most = most.max(count);
            }
        }
    }
    most
}

fn count_patterns(value: &Value) -> usize {
    match value {
        Value::Object(object) => {
            usize::from(object.get("pattern").is_some_and(Value::is_string))
                + object
                    .get("patternProperties")
                    .and_then(Value::as_object)
                    .map_or(0, |p| p.len())
                + object
                    .iter()
                    .filter(|(key, _)| *key != "enum" && *key != "const")
                    .map(|(_, member)| count_patterns(member))
                    .sum::<usize>()
        }
        Value::Array(items) => items.iter().map(count_patterns).sum(),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_charge_past_the_limit_exhausts_the_budget_and_names_the_step() {
        let budget = Budget::new(10);
        assert!(budget.charge(6, "building"));
        assert!(!budget.charge(6, "validating"));
        assert_eq!(budget.exhausted(), Some("validating"));
        // Once exhausted, nothing more is spent, and the first cause is kept.
        assert!(!budget.charge(1, "mutating"));
        assert_eq!(budget.exhausted(), Some("validating"));
    }

    #[test]
    fn sizes_are_those_of_compact_json() {
        for value in [
            json!(null),
            json!(false),
            json!(-120),
            json!(18446744073709551615u64),
            json!(0.25),
            json!("abc"),
            json!([1, [2, {"a": true}]]),
            json!({"x": [], "yy": {"z": null}}),
        ] {
            assert_eq!(
                json_size(&value),
                serde_json::to_string(&value).unwrap().len(),
                "{value}"
            );
        }
    }

    #[test]
    fn wide_patterned_unions_are_kept_from_the_canonical_algebra() {
        let branches: Vec<Value> = (0..30)
            .map(|i| json!({"type": "string", "pattern": format!("^a{{{i}}}$")}))
            .collect();
        let wide = json!({"anyOf": branches});
        let narrow = json!({"anyOf": [{"pattern": "^a"}, {"pattern": "^b"}]});
        assert!(canonical_too_large(&wide, &json!({"type": "string"})).is_some());
        assert!(canonical_too_large(&narrow, &json!({"type": "string"})).is_none());
    }
}
