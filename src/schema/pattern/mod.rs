//! Regular `pattern`s as automata: the ECMA-262 patterns of JSON Schema translated to the
//! syntax of the `regex` family (refusing every construct whose meaning differs or that is not
//! regular), compiled to dense DFAs with `regex-automata`, and compared by a product
//! construction: `L(source) ⊆ L(target)` is decided by a breadth-first search of the product for
//! a string the source matches and the target does not; the first one found is the shortest, and
//! it is the witness. The search counts code points, so length bounds on either side are part of
//! the question ([`inclusion_within`]: a string the source's pattern and lengths admit that the
//! target's pattern *or* lengths reject); the same product finds a string two patterns share
//! ([`common_string`]), and unions of patterns and anchored literals ([`union_pattern`],
//! [`literal_pattern`]) stand for "every name a set of properties and patterns takes", which is
//! how `patternProperties` are compared ([`member_names`]). All work is bounded (pattern length,
//! automaton size, product states and transitions, all counts, so the answer does not depend on
//! the machine) and past a bound the answer is [`Inclusion::Undecided`] or
//! [`Inclusion::Exhausted`] with the reason, never a hang.
//!
//! Semantics, as the validator applies them: a `pattern` *searches* (it matches a string when it
//! matches anywhere in it, unless `^`/`$` anchor it); `^` and `$` are the ends of the string (no
//! multi-line mode); `.` is any character but `\n`, `\r`, U+2028 and U+2029; `\d`, `\w`, `\b` are
//! ASCII; `\s` is ECMA-262 white space and line terminators. Strings are sequences of Unicode
//! code points, as the Rust validators read them (ECMA-262's `u` mode): the product runs over
//! UTF-8 bytes beside a UTF-8 decoder, so every witness is a valid string, and `minLength` /
//! `maxLength` count code points.
//!
//! Refused (undecided, with a reason): look-ahead and look-behind, back-references (numbered and
//! named), word boundaries, `\p{…}`, `\u{…}`, lone surrogates, octal escapes, identity escapes
//! of letters, a `{` that is not a quantifier and a lone `]` or `}` (Annex B literals), empty
//! classes, and a range with a class escape as an end.
//!
//! The work is cut along its seams: `translate` turns an ECMA-262 pattern into `regex-syntax`
//! syntax, `automata` compiles it and runs the product search (inclusion, common strings,
//! examples), and `places` finds where two schemas constrain the same string or member name and
//! puts a string found there into an instance.

mod automata;
mod places;
mod translate;

pub use automata::{
    Compiled, Inclusion, Language, Lengths, build, common_string, compiled, example, inclusion,
    inclusion_within, literal_pattern, matches, search, search_within, union_pattern,
};
pub use places::{Step, StringPlace, member_names, place_witness, string_places};
pub use translate::translate;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn translation_keeps_ecma_meanings() {
        assert_eq!(translate(r"^\d+$").unwrap(), "^[0-9]+$");
        assert!(translate(r"(?=a)").is_err());
        assert!(translate(r"(?<!a)b").is_err());
        assert!(translate(r"(a)\1").is_err());
        assert!(translate(r"\bword").is_err());
        assert!(translate(r"a{").is_err());
        assert!(translate(r"[\d-z]").is_err());
        assert!(translate(r"\q").is_err());
        assert!(translate(r"\uD83D").is_err());
        assert!(translate(r"a**").is_err());
        assert!(translate(r"(?<name>a)b*?").is_ok());
    }

    #[test]
    fn matching_follows_search_semantics() {
        assert_eq!(matches("b", "abc"), Some(true));
        assert_eq!(matches("^b", "abc"), Some(false));
        assert_eq!(matches("c$", "abc"), Some(true));
        assert_eq!(matches("^.$", "\n"), Some(false));
        assert_eq!(matches(r"^\s$", "\u{FEFF}"), Some(true));
        assert_eq!(matches(r"^\s$", "\u{85}"), Some(false));
        assert_eq!(matches(r"^\w$", "é"), Some(false));
        assert_eq!(matches(r"^[^]$", "\n"), Some(true));
    }

    #[test]
    fn inclusion_and_shortest_witness() {
        assert_eq!(
            inclusion(Some("^[a-z]+$"), Some("^[a-z0-9]+$"), 0, None),
            Inclusion::Included
        );
        assert_eq!(
            inclusion(Some("^[a-z0-9]+$"), Some("^[a-z]+$"), 0, None),
            Inclusion::Witness("0".into())
        );
        assert_eq!(
            inclusion(Some("b"), Some("abc"), 0, None),
            Inclusion::Witness("b".into())
        );
        assert_eq!(
            inclusion(Some("^a"), Some("^a+$"), 0, None),
            Inclusion::Witness("ab".into())
        );
        assert_eq!(
            inclusion(None, Some("^a"), 2, Some(3)),
            Inclusion::Witness("ba".into())
        );
        assert_eq!(example("^x-[0-9]{2}$", 0, None).as_deref(), Some("x-00"));
    }

    #[test]
    fn target_length_bounds_reject_in_the_same_search() {
        let (none, at_most_5) = (Lengths::default(), Lengths::new(0, Some(5)));
        assert_eq!(
            inclusion_within(Some("^(ab){0,3}$"), none, Some("^(ab)*$"), at_most_5),
            Inclusion::Witness("ababab".into())
        );
        assert_eq!(
            inclusion_within(Some("^(ab){0,2}$"), none, None, Lengths::new(0, Some(4))),
            Inclusion::Included
        );
        assert_eq!(
            inclusion_within(Some(".{2,}"), none, None, Lengths::new(2, None)),
            Inclusion::Included
        );
        assert_eq!(
            inclusion_within(Some("a|bcd"), none, None, Lengths::new(2, None)),
            Inclusion::Witness("a".into())
        );
        assert_eq!(
            inclusion_within(Some("^(ab)*$"), at_most_5, Some("^(ab){0,3}$"), none),
            Inclusion::Included
        );
    }

    #[test]
    fn common_strings_literals_and_unions() {
        assert_eq!(
            common_string(Some("b.*b"), Some("^ba+b$")),
            Inclusion::Witness("bab".into())
        );
        assert_eq!(common_string(Some("^a"), Some("^b")), Inclusion::Included);
        let literal = literal_pattern("e-mail.x").unwrap();
        assert_eq!(matches(&literal, "e-mail.x"), Some(true));
        assert_eq!(matches(&literal, "e-mailxx"), Some(false));
        let union = union_pattern([literal.as_str(), "^b"]);
        assert_eq!(matches(&union, "bee"), Some(true));
        assert_eq!(matches(&union, "e-mail.x"), Some(true));
        assert_eq!(matches(&union, "abee"), Some(false));
    }

    #[test]
    fn member_names_come_from_the_automata() {
        use serde_json::json;
        let source =
            json!({"properties": {"bb": {}}, "patternProperties": {"^ba+b$": {"type": "integer"}}});
        let target = json!({"patternProperties": {"b.*b": {"type": "boolean"}}});
        let names = member_names(&source, &target);
        // `bb` is a source property, `bab` the source pattern's: the shortest name left to the
        // rest (the target's pattern searches, so it need not start with `b`) is `abb`.
        assert!(
            names.contains(&("abb".to_string(), json!(true))),
            "{names:?}"
        );
        assert!(
            names.contains(&("bab".to_string(), json!({"type": "integer"}))),
            "{names:?}"
        );
    }
}
