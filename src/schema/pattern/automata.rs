//! Compiled patterns and the product search over them: a pattern's dense DFA (cached), and the
//! breadth-first search of the product of two DFAs, a UTF-8 decoder and a code-point count for
//! a shortest string one side matches and the other rejects (inclusion) or admits (a common
//! string). Every bound is a count, so the answer is the same on every machine.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, OnceLock};

use regex_automata::dfa::{Automaton, StartKind, dense};
use regex_automata::nfa::thompson;
use regex_automata::util::primitives::StateID;
use regex_automata::util::syntax;
use regex_automata::{Input, MatchKind};

use super::translate::translate;

/// Bytes the NFA, the determinization and the DFA may take.
const NFA_SIZE_LIMIT: usize = 1 << 20;
const DFA_SIZE_LIMIT: usize = 2 << 20;
/// States the product search may visit, and transitions it may follow (a count, not a time,
/// so the answer is the same on every machine).
const MAX_PRODUCT_STATES: usize = 200_000;
const MAX_PRODUCT_STEPS: usize = 400_000;
/// The largest `minLength`/`maxLength` the search counts up to.
const MAX_COUNTED_LENGTH: u64 = 256;

/// A pattern compiled for search: an unanchored dense DFA that reports every match.
pub struct Compiled {
    dfa: dense::DFA<Vec<u32>>,
    start: StateID,
}

impl Compiled {
    /// Whether the pattern matches somewhere in `text`. Linear in the text, no allocation.
    pub fn is_match(&self, text: &str) -> bool {
        let mut state = self.start;
        for &byte in text.as_bytes() {
            state = self.dfa.next_state(state, byte);
            if self.dfa.is_match_state(state) {
                return true;
            }
            if self.dfa.is_dead_state(state) {
                return false;
            }
        }
        self.dfa.is_match_state(self.dfa.next_eoi_state(state))
    }
}

/// Compile `pattern` without the cache (what [`compiled`] does on a miss; for benchmarks).
pub fn build(pattern: &str) -> Result<Compiled, String> {
    let rust = translate(pattern)?;
    let dfa = dense::Builder::new()
        .syntax(syntax::Config::new().unicode(true).utf8(true))
        .thompson(thompson::Config::new().nfa_size_limit(Some(NFA_SIZE_LIMIT)))
        .configure(
            dense::Config::new()
                .match_kind(MatchKind::All)
                .start_kind(StartKind::Unanchored)
                .minimize(false)
                .dfa_size_limit(Some(DFA_SIZE_LIMIT))
                .determinize_size_limit(Some(DFA_SIZE_LIMIT)),
        )
        .build(&rust)
        .map_err(|error| {
            if error.to_string().contains("limit") {
                "its automaton exceeds the size bound".to_string()
            } else {
                format!("it does not compile as a regular expression: {error}")
            }
        })?;
    let start = dfa
        .start_state_forward(&Input::new(""))
        .map_err(|error| format!("its automaton has no start state: {error}"))?;
    Ok(Compiled { dfa, start })
}

/// How many compiled patterns (and pair answers) are kept.
const CACHE_LIMIT: usize = 1024;

type CompiledCache = rustc_hash::FxHashMap<String, Arc<Result<Compiled, String>>>;

/// The compiled form of `pattern` (cached), or why it cannot be decided by automata.
pub fn compiled(pattern: &str) -> Arc<Result<Compiled, String>> {
    static CACHE: OnceLock<Mutex<CompiledCache>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Ok(cache) = cache.lock()
        && let Some(found) = cache.get(pattern)
    {
        return Arc::clone(found);
    }
    let built =
        Arc::new(build(pattern).map_err(|reason| {
            format!("the pattern {pattern:?} is not decided by automata: {reason}")
        }));
    if let Ok(mut cache) = cache.lock()
        && cache.len() < CACHE_LIMIT
    {
        cache.insert(pattern.to_string(), Arc::clone(&built));
    }
    built
}

/// Whether `pattern` matches `text`, when the pattern can be compiled here.
pub fn matches(pattern: &str, text: &str) -> Option<bool> {
    match compiled(pattern).as_ref() {
        Ok(compiled) => Some(compiled.is_match(text)),
        Err(_) => None,
    }
}

/// The answer to `L(source) ⊆ L(target)` over strings within the length bounds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Inclusion {
    Included,
    /// A shortest string the source admits and the target does not.
    Witness(String),
    Undecided(String),
    /// The search stopped at its bound on states or transitions.
    Exhausted(String),
}

/// One side of a product: a compiled pattern, or every string (no pattern), or none.
#[derive(Clone, Copy)]
pub enum Language<'a> {
    Pattern(&'a Compiled),
    Everything,
    Nothing,
}

impl Language<'_> {
    fn start(&self) -> StateID {
        match self {
            Language::Pattern(compiled) => compiled.start,
            _ => StateID::ZERO,
        }
    }

    fn class(&self, byte: u8) -> u8 {
        match self {
            Language::Pattern(compiled) => compiled.dfa.byte_classes().get(byte),
            _ => 0,
        }
    }

    fn step(&self, state: StateID, byte: u8) -> StateID {
        match self {
            Language::Pattern(compiled) => compiled.dfa.next_state(state, byte),
            _ => state,
        }
    }

    /// Whether `state` (after a byte) reports a match: sticky, since a search that matched a
    /// prefix matches the whole string.
    fn matched(&self, state: StateID) -> bool {
        match self {
            Language::Pattern(compiled) => compiled.dfa.is_match_state(state),
            Language::Everything => true,
            Language::Nothing => false,
        }
    }

    fn dead(&self, state: StateID) -> bool {
        match self {
            Language::Pattern(compiled) => {
                compiled.dfa.is_dead_state(state) || compiled.dfa.is_quit_state(state)
            }
            Language::Everything => false,
            Language::Nothing => true,
        }
    }

    fn matches_at_end(&self, state: StateID) -> bool {
        match self {
            Language::Pattern(compiled) => compiled
                .dfa
                .is_match_state(compiled.dfa.next_eoi_state(state)),
            Language::Everything => true,
            Language::Nothing => false,
        }
    }
}

/// The UTF-8 decoder beside the product: 0 between characters, else what the rest of the
/// current character must be.
fn utf8_step(state: u8, byte: u8) -> Option<u8> {
    let continuation = (0x80..=0xBF).contains(&byte);
    match state {
        0 => match byte {
            0x00..=0x7F => Some(0),
            0xC2..=0xDF => Some(1),
            0xE0 => Some(4),
            0xE1..=0xEC | 0xEE..=0xEF => Some(2),
            0xED => Some(5),
            0xF0 => Some(6),
            0xF1..=0xF3 => Some(3),
            0xF4 => Some(7),
            _ => None,
        },
        1 => continuation.then_some(0),
        2 => continuation.then_some(1),
        3 => continuation.then_some(2),
        4 => (0xA0..=0xBF).contains(&byte).then_some(1),
        5 => (0x80..=0x9F).contains(&byte).then_some(1),
        6 => (0x90..=0xBF).contains(&byte).then_some(2),
        7 => (0x80..=0x8F).contains(&byte).then_some(2),
        _ => None,
    }
}

/// The byte ranges on which the decoder behaves alike.
fn utf8_class(byte: u8) -> u8 {
    match byte {
        0x00..=0x7F => 0,
        0x80..=0x8F => 1,
        0x90..=0x9F => 2,
        0xA0..=0xBF => 3,
        0xC2..=0xDF => 5,
        0xE0 => 6,
        0xE1..=0xEC | 0xEE..=0xEF => 7,
        0xED => 8,
        0xF0 => 9,
        0xF1..=0xF3 => 10,
        0xF4 => 11,
        _ => 4,
    }
}

/// Bytes in the order a witness prefers them: letters, digits, then printable ASCII, then the
/// rest, so that witnesses read well.
fn preferred_bytes() -> impl Iterator<Item = u8> {
    (b'a'..=b'z')
        .chain(b'0'..=b'9')
        .chain(b'A'..=b'Z')
        .chain((0x20..=0x7E).filter(|b: &u8| !b.is_ascii_alphanumeric()))
        .chain((0x00..0x20).chain(0x7F..=0xFF))
}

/// Length bounds on a string, in code points: `min..=max` (`None`: unbounded above).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Lengths {
    pub min: u64,
    pub max: Option<u64>,
}

impl Lengths {
    pub fn new(min: u64, max: Option<u64>) -> Self {
        Lengths { min, max }
    }

    fn admits(&self, count: u64) -> bool {
        count >= self.min && self.max.is_none_or(|m| count <= m)
    }

    fn largest_bound(&self) -> u64 {
        self.min.max(self.max.unwrap_or(0))
    }
}

/// Search the product of `source` and `target` (with the UTF-8 decoder and a code-point count
/// for the length bounds) for a shortest string the source matches and the target does not.
pub fn search(
    source: Language<'_>,
    target: Language<'_>,
    min_length: u64,
    max_length: Option<u64>,
) -> Inclusion {
    search_within(
        source,
        Lengths::new(min_length, max_length),
        target,
        Lengths::default(),
    )
}

/// [`search`] with length bounds on both sides: a shortest string the source matches within
/// `source_lengths` that the target rejects — because its pattern does not match, or because
/// the string's length is outside `target_lengths` (a target `minLength`/`maxLength`).
pub fn search_within(
    source: Language<'_>,
    source_lengths: Lengths,
    target: Language<'_>,
    target_lengths: Lengths,
) -> Inclusion {
    product(
        source,
        source_lengths,
        target,
        target_lengths,
        Goal::TargetRejects,
    )
}

/// What a string the product search looks for does with the target.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Goal {
    /// The target rejects it (inclusion; a witness of its failure).
    TargetRejects,
    /// The target admits it too (a common string; none found: the languages are disjoint).
    TargetAdmits,
}

fn product(
    source: Language<'_>,
    source_lengths: Lengths,
    target: Language<'_>,
    target_lengths: Lengths,
    goal: Goal,
) -> Inclusion {
    let (min_length, max_length) = (source_lengths.min, source_lengths.max);
    if source_lengths.largest_bound() > MAX_COUNTED_LENGTH
        || target_lengths.largest_bound() > MAX_COUNTED_LENGTH
    {
        // Counting past the bound could only make a witness longer; inclusion without the
        // source's bounds (and with no target bounds to fail) still proves inclusion with them.
        if target_lengths == Lengths::default()
            && goal == Goal::TargetRejects
            && let Inclusion::Included = search(source, target, 0, None)
        {
            return Inclusion::Included;
        }
        return Inclusion::Undecided(format!(
            "a length bound above {MAX_COUNTED_LENGTH} beside a pattern"
        ));
    }
    if max_length.is_some_and(|m| m < min_length) {
        return Inclusion::Included;
    }
    // One representative byte per joint class of the two DFAs and the decoder.
    let mut seen = rustc_hash::FxHashSet::default();
    let representatives: Vec<u8> = preferred_bytes()
        .filter(|&byte| seen.insert((source.class(byte), target.class(byte), utf8_class(byte))))
        .collect();
    // Every count at or past `cap` compares alike with every bound of either side.
    let cap = [
        min_length,
        max_length.map_or(0, |m| m + 1),
        target_lengths.min,
        target_lengths.max.map_or(0, |m| m + 1),
    ]
    .into_iter()
    .max()
    .unwrap_or(0);
    #[derive(Clone, Copy, PartialEq, Eq, Hash)]
    struct Key {
        source: StateID,
        /// The target's state; `StateID::ZERO` once it has matched (`target_matched`).
        target: StateID,
        source_matched: bool,
        target_matched: bool,
        utf8: u8,
        count: u16,
    }
    let start = Key {
        source: source.start(),
        target: target.start(),
        source_matched: false,
        target_matched: false,
        utf8: 0,
        count: 0,
    };
    // Visited states with their parent (index) and the byte that led there.
    let mut nodes: Vec<(Key, u32, u8)> = vec![(start, u32::MAX, 0)];
    let mut visited = rustc_hash::FxHashSet::default();
    visited.insert(start);
    let mut queue = VecDeque::from([0u32]);
    let mut steps = 0usize;
    while let Some(index) = queue.pop_front() {
        let (key, _, _) = nodes[index as usize];
        let count = u64::from(key.count);
        let target_rejects = || {
            let admitted = target_lengths.admits(count)
                && (key.target_matched || target.matches_at_end(key.target));
            admitted == (goal == Goal::TargetAdmits)
        };
        if key.utf8 == 0
            && count >= min_length
            && (key.source_matched || source.matches_at_end(key.source))
            && target_rejects()
        {
            let mut bytes = Vec::new();
            let mut at = index;
            while at != 0 {
                let (_, parent, byte) = nodes[at as usize];
                bytes.push(byte);
                at = parent;
            }
            bytes.reverse();
            return match String::from_utf8(bytes) {
                Ok(witness) => Inclusion::Witness(witness),
                Err(_) => Inclusion::Undecided("the search built an invalid string".into()),
            };
        }
        if nodes.len() > MAX_PRODUCT_STATES || steps > MAX_PRODUCT_STEPS {
            return Inclusion::Exhausted(format!(
                "budget exhausted: comparing the patterns exceeds the search bound \
                 ({MAX_PRODUCT_STATES} states or {MAX_PRODUCT_STEPS} transitions)"
            ));
        }
        steps += representatives.len();
        for &byte in &representatives {
            let Some(utf8) = utf8_step(key.utf8, byte) else {
                continue;
            };
            let count = u64::from(key.count) + u64::from(utf8 == 0);
            if max_length.is_some_and(|m| count > m) {
                continue;
            }
            let next_source = source.step(key.source, byte);
            let source_matched = key.source_matched || source.matched(next_source);
            if !source_matched && source.dead(next_source) {
                continue;
            }
            let (next_target, target_matched) = if key.target_matched {
                (StateID::ZERO, true)
            } else {
                let next = target.step(key.target, byte);
                if target.matched(next) {
                    (StateID::ZERO, true)
                } else {
                    (next, false)
                }
            };
            match goal {
                // A target that has matched a prefix matches every extension: what is left
                // to find is a length the target refuses, and past its `minLength` with no
                // `maxLength` there is none.
                Goal::TargetRejects => {
                    if target_matched && target_lengths.max.is_none() && count >= target_lengths.min
                    {
                        continue;
                    }
                }
                // A target that can no longer match admits no extension.
                Goal::TargetAdmits => {
                    if !target_matched && target.dead(next_target) {
                        continue;
                    }
                }
            }
            let next = Key {
                source: next_source,
                target: next_target,
                source_matched,
                target_matched,
                utf8,
                count: count.min(cap) as u16,
            };
            if visited.insert(next) {
                nodes.push((next, index, byte));
                queue.push_back((nodes.len() - 1) as u32);
            }
        }
    }
    Inclusion::Included
}

/// Decide `L(source) ⊆ L(target)` for strings of `min_length..=max_length` code points, where
/// `None` stands for a side without a pattern (every string). Cached per question.
pub fn inclusion(
    source: Option<&str>,
    target: Option<&str>,
    min_length: u64,
    max_length: Option<u64>,
) -> Inclusion {
    inclusion_within(
        source,
        Lengths::new(min_length, max_length),
        target,
        Lengths::default(),
    )
}

/// Decide whether every string of the source pattern within `source_lengths` is a string of
/// the target pattern within `target_lengths` (`None`: no pattern, every string). A witness is
/// a shortest string the source admits that the target's pattern or length bounds reject.
/// Cached per question.
pub fn inclusion_within(
    source: Option<&str>,
    source_lengths: Lengths,
    target: Option<&str>,
    target_lengths: Lengths,
) -> Inclusion {
    type Question = (Option<String>, Lengths, Option<String>, Lengths);
    static CACHE: OnceLock<Mutex<rustc_hash::FxHashMap<Question, Inclusion>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let question = (
        source.map(String::from),
        source_lengths,
        target.map(String::from),
        target_lengths,
    );
    if let Ok(cache) = cache.lock()
        && let Some(found) = cache.get(&question)
    {
        return found.clone();
    }
    let source_compiled = source.map(compiled);
    let target_compiled = target.map(compiled);
    fn language(compiled: &Option<Arc<Result<Compiled, String>>>) -> Result<Language<'_>, String> {
        match compiled.as_deref() {
            None => Ok(Language::Everything),
            Some(Ok(compiled)) => Ok(Language::Pattern(compiled)),
            Some(Err(reason)) => Err(reason.clone()),
        }
    }
    let answer = match (language(&source_compiled), language(&target_compiled)) {
        (Ok(s), Ok(t)) => search_within(s, source_lengths, t, target_lengths),
        (Err(reason), _) | (_, Err(reason)) => Inclusion::Undecided(reason),
    };
    if let Ok(mut cache) = cache.lock()
        && cache.len() < CACHE_LIMIT
    {
        cache.insert(question, answer.clone());
    }
    answer
}

/// The union of `patterns` as one pattern: a string matches it when it matches one of them
/// (each searches on its own, so each keeps its anchors inside its group).
pub fn union_pattern<'a>(patterns: impl IntoIterator<Item = &'a str>) -> String {
    patterns
        .into_iter()
        .map(|p| format!("(?:{p})"))
        .collect::<Vec<_>>()
        .join("|")
}

/// A shortest string both patterns match (`None` for a side: every string): `Witness` with it,
/// `Included` when there is none (the languages are disjoint), or why it was not decided.
pub fn common_string(first: Option<&str>, second: Option<&str>) -> Inclusion {
    let first_compiled = first.map(compiled);
    let second_compiled = second.map(compiled);
    let language = |compiled: &Option<Arc<Result<Compiled, String>>>| -> Result<(), String> {
        match compiled.as_deref() {
            Some(Err(reason)) => Err(reason.clone()),
            _ => Ok(()),
        }
    };
    if let Err(reason) = language(&first_compiled).and(language(&second_compiled)) {
        return Inclusion::Undecided(reason);
    }
    fn side(compiled: &Option<Arc<Result<Compiled, String>>>) -> Language<'_> {
        match compiled.as_deref() {
            Some(Ok(compiled)) => Language::Pattern(compiled),
            _ => Language::Everything,
        }
    }
    product(
        side(&first_compiled),
        Lengths::default(),
        side(&second_compiled),
        Lengths::default(),
        Goal::TargetAdmits,
    )
}

/// A pattern that matches exactly `text` (anchored, every character but ASCII letters and
/// digits escaped as `\uXXXX`), or `None` for a character outside the Basic Multilingual
/// Plane (which one `\u` escape cannot write).
pub fn literal_pattern(text: &str) -> Option<String> {
    let mut out = String::from("^");
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if (c as u32) <= 0xFFFF {
            out.push_str(&format!("\\u{:04X}", c as u32));
        } else {
            return None;
        }
    }
    out.push('$');
    Some(out)
}

/// A shortest string `pattern` matches within the length bounds, if the search finds one.
pub fn example(pattern: &str, min_length: u64, max_length: Option<u64>) -> Option<String> {
    let compiled = compiled(pattern);
    let Ok(compiled) = compiled.as_ref() else {
        return None;
    };
    match search(
        Language::Pattern(compiled),
        Language::Nothing,
        min_length,
        max_length,
    ) {
        Inclusion::Witness(text) => Some(text),
        _ => None,
    }
}
