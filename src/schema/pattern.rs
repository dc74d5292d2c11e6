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

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, OnceLock};

use regex_automata::dfa::{Automaton, StartKind, dense};
use regex_automata::nfa::thompson;
use regex_automata::util::primitives::StateID;
use regex_automata::util::syntax;
use regex_automata::{Input, MatchKind};

/// Patterns longer than this (in characters) are not compiled.
const MAX_PATTERN_CHARS: usize = 4096;
/// A counted repetition larger than this is refused.
const MAX_REPETITION: u32 = 1000;
/// Bytes the NFA, the determinization and the DFA may take.
const NFA_SIZE_LIMIT: usize = 1 << 20;
const DFA_SIZE_LIMIT: usize = 2 << 20;
/// States the product search may visit, and transitions it may follow (a count, not a time,
/// so the answer is the same on every machine).
const MAX_PRODUCT_STATES: usize = 200_000;
const MAX_PRODUCT_STEPS: usize = 400_000;
/// The largest `minLength`/`maxLength` the search counts up to.
const MAX_COUNTED_LENGTH: u64 = 256;

/// ECMA-262 white space and line terminators (`\s`), as a class body in Rust syntax.
const ECMA_SPACE: &str = r"\t\n\x0B\x0C\r\x20\xA0\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}";
const DOT: &str = r"[^\n\r\x{2028}\x{2029}]";

/// Translate an ECMA-262 pattern to `regex-syntax` syntax with the same language, or say why not.
pub fn translate(pattern: &str) -> Result<String, String> {
    let chars: Vec<char> = pattern.chars().collect();
    if chars.len() > MAX_PATTERN_CHARS {
        return Err(format!(
            "the pattern is longer than {MAX_PATTERN_CHARS} characters"
        ));
    }
    let mut translator = Translator {
        chars,
        position: 0,
        out: String::with_capacity(pattern.len() * 2),
        depth: 0,
    };
    translator.disjunction()?;
    if translator.position < translator.chars.len() {
        return Err("an unbalanced `)`".into());
    }
    Ok(translator.out)
}

struct Translator {
    chars: Vec<char>,
    position: usize,
    out: String,
    depth: usize,
}

/// One class item: a character, a range, or a nested class (from `\d`, `\s`, …).
enum ClassItem {
    Char(char),
    Nested(String),
}

fn push_char(out: &mut String, c: char) {
    if c.is_ascii_alphanumeric() {
        out.push(c);
    } else {
        out.push_str(&format!("\\x{{{:X}}}", c as u32));
    }
}

impl Translator {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.position).copied()
    }

    fn peek_at(&self, offset: usize) -> Option<char> {
        self.chars.get(self.position + offset).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.position += 1;
        Some(c)
    }

    fn disjunction(&mut self) -> Result<(), String> {
        // Whether the last thing written can take a quantifier.
        let mut quantifiable = false;
        while let Some(c) = self.peek() {
            match c {
                ')' => {
                    if self.depth == 0 {
                        return Err("an unbalanced `)`".into());
                    }
                    return Ok(());
                }
                '|' => {
                    self.bump();
                    self.out.push('|');
                    quantifiable = false;
                }
                '^' | '$' => {
                    self.bump();
                    self.out.push(c);
                    quantifiable = false;
                }
                '*' | '+' | '?' | '{' => {
                    if !quantifiable {
                        return Err(if c == '{' {
                            "a `{` that is not a quantifier (a literal in ECMA-262's Annex B)"
                                .into()
                        } else {
                            format!("a `{c}` with nothing to repeat")
                        });
                    }
                    self.quantifier()?;
                    quantifiable = false;
                }
                '(' => {
                    self.group()?;
                    quantifiable = true;
                }
                '[' => {
                    self.bump();
                    let class = self.class()?;
                    self.out.push_str(&class);
                    quantifiable = true;
                }
                '.' => {
                    self.bump();
                    self.out.push_str(DOT);
                    quantifiable = true;
                }
                '\\' => {
                    self.bump();
                    self.escape()?;
                    quantifiable = true;
                }
                ']' | '}' => {
                    return Err(format!(
                        "a lone `{c}` (a literal in ECMA-262's Annex B, an error elsewhere)"
                    ));
                }
                other => {
                    self.bump();
                    push_char(&mut self.out, other);
                    quantifiable = true;
                }
            }
        }
        if self.depth > 0 {
            return Err("an unclosed `(`".into());
        }
        Ok(())
    }

    fn number(&mut self) -> Option<u32> {
        let start = self.position;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.position += 1;
        }
        if start == self.position {
            return None;
        }
        let digits: String = self.chars[start..self.position].iter().collect();
        Some(digits.parse().unwrap_or(u32::MAX))
    }

    fn quantifier(&mut self) -> Result<(), String> {
        let c = self.bump().unwrap_or('*');
        match c {
            '*' | '+' | '?' => self.out.push(c),
            _ => {
                let Some(low) = self.number() else {
                    return Err(
                        "a `{` that is not a quantifier (a literal in ECMA-262's Annex B)".into(),
                    );
                };
                let high = if self.peek() == Some(',') {
                    self.bump();
                    if self.peek() == Some('}') {
                        None
                    } else {
                        Some(self.number().ok_or("a malformed `{n,m}` quantifier")?)
                    }
                } else {
                    Some(low)
                };
                if self.bump() != Some('}') {
                    return Err("a malformed `{n,m}` quantifier".into());
                }
                if low > MAX_REPETITION || high.is_some_and(|h| h > MAX_REPETITION) {
                    return Err(format!(
                        "a counted repetition above {MAX_REPETITION}, too large to compile"
                    ));
                }
                if high.is_some_and(|h| h < low) {
                    return Err("a quantifier `{n,m}` with m < n".into());
                }
                match high {
                    Some(h) if h == low => self.out.push_str(&format!("{{{low}}}")),
                    Some(h) => self.out.push_str(&format!("{{{low},{h}}}")),
                    None => self.out.push_str(&format!("{{{low},}}")),
                }
            }
        }
        // A lazy quantifier matches the same strings (only which match is reported differs).
        if self.peek() == Some('?') {
            self.bump();
        }
        if matches!(self.peek(), Some('*' | '+' | '?' | '{')) {
            return Err("a quantifier that follows a quantifier".into());
        }
        Ok(())
    }

    fn group(&mut self) -> Result<(), String> {
        self.bump();
        if self.peek() == Some('?') {
            match (self.peek_at(1), self.peek_at(2)) {
                (Some(':'), _) => self.position += 2,
                (Some('=' | '!'), _) => return Err("a look-ahead, which is not regular".into()),
                (Some('<'), Some('=' | '!')) => {
                    return Err("a look-behind, which is not regular".into());
                }
                (Some('<'), _) => {
                    self.position += 2;
                    while let Some(c) = self.bump() {
                        if c == '>' {
                            break;
                        }
                        if !(c.is_alphanumeric() || c == '_' || c == '$') {
                            return Err("a malformed group name".into());
                        }
                    }
                }
                _ => return Err("a `(?` group that ECMA-262 does not define".into()),
            }
        }
        self.out.push_str("(?:");
        self.depth += 1;
        self.disjunction()?;
        self.depth -= 1;
        if self.bump() != Some(')') {
            return Err("an unclosed `(`".into());
        }
        self.out.push(')');
        Ok(())
    }

    /// A character escape shared by classes and the rest (`\t`, `\x41`, `\u0041`, `\cJ`, `\0`,
    /// an escaped syntax character), or `None` when `c` is not one.
    fn character_escape(&mut self, c: char) -> Result<Option<char>, String> {
        Ok(Some(match c {
            't' => '\t',
            'n' => '\n',
            'v' => '\u{B}',
            'f' => '\u{C}',
            'r' => '\r',
            '0' => {
                if self.peek().is_some_and(|d| d.is_ascii_digit()) {
                    return Err("an octal escape (Annex B)".into());
                }
                '\0'
            }
            'c' => match self.bump() {
                Some(letter) if letter.is_ascii_alphabetic() => char::from((letter as u8) % 32),
                _ => return Err("a malformed `\\c` escape".into()),
            },
            'x' => self.hex(2).ok_or("a malformed `\\x` escape")?,
            'u' => {
                if self.peek() == Some('{') {
                    return Err("a `\\u{…}` escape (only in ECMA-262's `u` mode)".into());
                }
                self.hex(4)
                    .ok_or("a `\\u` escape that is malformed or a lone surrogate (UTF-16 only)")?
            }
            '1'..='9' => return Err("a back-reference, which is not regular".into()),
            'k' => return Err("a named back-reference, which is not regular".into()),
            'b' | 'B' => {
                return Err("a word boundary (`\\b`, `\\B`), not decided by automata here".into());
            }
            'p' | 'P' => {
                return Err("a `\\p{…}` property escape (only in ECMA-262's `u` mode)".into());
            }
            other if other.is_ascii_punctuation() => other,
            'd' | 'D' | 'w' | 'W' | 's' | 'S' => return Ok(None),
            other => {
                return Err(format!(
                    "the escape `\\{other}`, whose meaning differs between ECMA-262 and Rust"
                ));
            }
        }))
    }

    fn hex(&mut self, digits: usize) -> Option<char> {
        let text: String = self
            .chars
            .get(self.position..self.position + digits)?
            .iter()
            .collect();
        let code = u32::from_str_radix(&text, 16).ok()?;
        if !text.chars().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        self.position += digits;
        char::from_u32(code)
    }

    fn class_escape(c: char) -> Option<String> {
        Some(match c {
            'd' => "[0-9]".into(),
            'D' => "[^0-9]".into(),
            'w' => "[0-9A-Za-z_]".into(),
            'W' => "[^0-9A-Za-z_]".into(),
            's' => format!("[{ECMA_SPACE}]"),
            'S' => format!("[^{ECMA_SPACE}]"),
            _ => return None,
        })
    }

    fn escape(&mut self) -> Result<(), String> {
        let c = self.bump().ok_or("a `\\` at the end of the pattern")?;
        if let Some(class) = Self::class_escape(c) {
            self.out.push_str(&class);
            return Ok(());
        }
        match self.character_escape(c)? {
            Some(literal) => push_char(&mut self.out, literal),
            None => return Err(format!("the escape `\\{c}`")),
        }
        Ok(())
    }

    fn class_atom(&mut self) -> Result<ClassItem, String> {
        let c = self.bump().ok_or("an unclosed `[`")?;
        if c != '\\' {
            return Ok(ClassItem::Char(c));
        }
        let c = self.bump().ok_or("an unclosed `[`")?;
        if let Some(class) = Self::class_escape(c) {
            return Ok(ClassItem::Nested(class));
        }
        if c == 'b' {
            return Ok(ClassItem::Char('\u{8}'));
        }
        if c == '-' {
            return Ok(ClassItem::Char('-'));
        }
        match self.character_escape(c)? {
            Some(literal) => Ok(ClassItem::Char(literal)),
            None => Err(format!("the escape `\\{c}` in a class")),
        }
    }

    /// A class after its `[`, as a Rust class.
    fn class(&mut self) -> Result<String, String> {
        let negated = self.peek() == Some('^');
        if negated {
            self.bump();
        }
        if self.peek() == Some(']') {
            self.bump();
            return if negated {
                Ok(r"[\x{0}-\x{10FFFF}]".into())
            } else {
                Err("an empty class `[]`, which matches nothing".into())
            };
        }
        let mut body = String::new();
        loop {
            match self.peek() {
                None => return Err("an unclosed `[`".into()),
                Some(']') => {
                    self.bump();
                    break;
                }
                _ => {}
            }
            let first = self.class_atom()?;
            let is_range = self.peek() == Some('-') && self.peek_at(1).is_some_and(|c| c != ']');
            if !is_range {
                match first {
                    ClassItem::Char(c) => push_char(&mut body, c),
                    ClassItem::Nested(class) => body.push_str(&class),
                }
                continue;
            }
            self.bump();
            let last = self.class_atom()?;
            match (first, last) {
                (ClassItem::Char(low), ClassItem::Char(high)) => {
                    if low > high {
                        return Err("a class range out of order".into());
                    }
                    push_char(&mut body, low);
                    body.push('-');
                    push_char(&mut body, high);
                }
                _ => {
                    return Err(
                        "a class range with a class escape as an end (Annex B literal)".into(),
                    );
                }
            }
        }
        Ok(format!("[{}{body}]", if negated { "^" } else { "" }))
    }
}

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

/// One step of an instance path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    Member(String),
    Item,
}

/// A place where both schemas constrain the same string with different patterns: the string at
/// `path` in an instance, or (`names`) the member names of the object there.
#[derive(Debug, Clone)]
pub struct StringPlace {
    pub path: Vec<Step>,
    pub names: bool,
    pub source_pattern: Option<String>,
    /// The target's pattern (`None`: the target bounds only the length).
    pub target_pattern: Option<String>,
    pub min_length: u64,
    pub max_length: Option<u64>,
    /// The target's `minLength`/`maxLength` at the place.
    pub target_lengths: Lengths,
}

/// How many places, and how deep, [`string_places`] looks.
const MAX_PLACES: usize = 64;
const MAX_PLACE_DEPTH: usize = 8;
/// How many (source, target) pairs one search for places looks at.
const MAX_PLACE_VISITS: usize = 1024;

fn admits_strings(object: &serde_json::Map<String, serde_json::Value>) -> bool {
    match object.get("type") {
        None => true,
        Some(serde_json::Value::String(ty)) => ty == "string",
        Some(serde_json::Value::Array(types)) => types.iter().any(|t| t == "string"),
        Some(_) => false,
    }
}

fn follow<'a>(
    root: &'a serde_json::Value,
    mut schema: &'a serde_json::Value,
) -> &'a serde_json::Value {
    for _ in 0..16 {
        match schema.get("$ref").and_then(serde_json::Value::as_str) {
            Some(reference) => match super::walk::resolve_local(root, reference) {
                Some(next) => schema = next,
                None => break,
            },
            None => break,
        }
    }
    schema
}

/// The places, along `properties` and `items` (through local `$ref`s), where the target has a
/// `pattern` (or `propertyNames` with one) that the source does not share. Bounded.
pub fn string_places(source: &serde_json::Value, target: &serde_json::Value) -> Vec<StringPlace> {
    use serde_json::Value;
    static TRUE: Value = Value::Bool(true);
    let mut places = Vec::new();
    let mut stack: Vec<(&Value, &Value, Vec<Step>)> = vec![(source, target, Vec::new())];
    // Bounds the walk itself too: union branches and `$ref`s can lead back to the same pair
    // without adding a place or a step.
    let mut visits = 0;
    while let Some((s, t, path)) = stack.pop() {
        visits += 1;
        if places.len() >= MAX_PLACES || visits > MAX_PLACE_VISITS {
            break;
        }
        let (s, t) = (follow(source, s), follow(target, t));
        let (Some(so), Some(to)) = (s.as_object(), t.as_object()) else {
            continue;
        };
        let pattern_of = |o: &serde_json::Map<String, Value>| {
            o.get("pattern").and_then(Value::as_str).map(String::from)
        };
        let length = |o: &serde_json::Map<String, Value>, k: &str| o.get(k).and_then(Value::as_u64);
        let target_lengths = Lengths::new(
            length(to, "minLength").unwrap_or(0),
            length(to, "maxLength"),
        );
        // A target pattern the source does not share, or a target length bound beside a source
        // pattern (whose strings' lengths the pattern alone decides).
        let differs = match (pattern_of(so), pattern_of(to)) {
            (source, Some(target)) => source.as_deref() != Some(target.as_str()),
            (Some(_), None) => target_lengths != Lengths::default(),
            (None, None) => false,
        };
        if differs && admits_strings(so) {
            places.push(StringPlace {
                path: path.clone(),
                names: false,
                source_pattern: pattern_of(so),
                target_pattern: pattern_of(to),
                min_length: length(so, "minLength").unwrap_or(0),
                max_length: length(so, "maxLength"),
                target_lengths,
            });
        }
        if let Some(target_names) = to.get("propertyNames").and_then(Value::as_object)
            && let Some(target_pattern) = pattern_of(target_names)
        {
            let source_names = so.get("propertyNames").and_then(Value::as_object);
            places.push(StringPlace {
                path: path.clone(),
                names: true,
                source_pattern: source_names.and_then(pattern_of),
                target_pattern: Some(target_pattern),
                min_length: source_names
                    .and_then(|n| length(n, "minLength"))
                    .unwrap_or(0),
                max_length: source_names.and_then(|n| length(n, "maxLength")),
                target_lengths: Lengths::new(
                    length(target_names, "minLength").unwrap_or(0),
                    length(target_names, "maxLength"),
                ),
            });
        }
        // Union branches on either side, at the same place: a string outside one target
        // branch is only a candidate (the validators confirm that every branch rejects it), and
        // a source branch's pattern narrows where its strings are sought.
        for keyword in ["anyOf", "oneOf"] {
            if let Some(branches) = to.get(keyword).and_then(Value::as_array) {
                stack.extend(branches.iter().map(|branch| (s, branch, path.clone())));
            }
            if let Some(branches) = so.get(keyword).and_then(Value::as_array) {
                stack.extend(branches.iter().map(|branch| (branch, t, path.clone())));
            }
        }
        if path.len() >= MAX_PLACE_DEPTH {
            continue;
        }
        if let Some(properties) = to.get("properties").and_then(Value::as_object) {
            for (name, target_member) in properties {
                let source_member = so
                    .get("properties")
                    .and_then(|p| p.get(name))
                    .or_else(|| so.get("additionalProperties"))
                    .unwrap_or(&TRUE);
                let mut next = path.clone();
                next.push(Step::Member(name.clone()));
                stack.push((source_member, target_member, next));
            }
        }
        if let Some(target_items) = to.get("items") {
            let source_items = so.get("items").unwrap_or(&TRUE);
            let mut next = path.clone();
            next.push(Step::Item);
            stack.push((source_items, target_items, next));
        }
    }
    places
}

/// How many member names [`member_names`] returns.
const MAX_MEMBER_NAMES: usize = 16;

/// Member names on which two root objects with `patternProperties` may differ, each with the
/// source's subschema for it: for each target pattern, a name it matches that falls to the
/// source's `additionalProperties` (no source property or pattern takes it) and a name it
/// shares with each source pattern; for a target `additionalProperties`, a name of each source
/// pattern, and one of the source's rest, that no target property or pattern takes. The names
/// come from the automata (shortest strings of a product), so each is one the patterns really
/// govern; a name a pattern does not decide is skipped. Bounded by `MAX_MEMBER_NAMES`.
pub fn member_names(
    source: &serde_json::Value,
    target: &serde_json::Value,
) -> Vec<(String, serde_json::Value)> {
    use serde_json::{Map, Value};
    let (Some(so), Some(to)) = (source.as_object(), target.as_object()) else {
        return Vec::new();
    };
    let empty = Map::new();
    let map = |o: &'_ Map<String, Value>, k: &str| -> Option<Map<String, Value>> {
        match o.get(k) {
            None => Some(empty.clone()),
            Some(Value::Object(m)) => Some(m.clone()),
            Some(_) => None,
        }
    };
    let (Some(sprops), Some(spatterns), Some(tprops), Some(tpatterns)) = (
        map(so, "properties"),
        map(so, "patternProperties"),
        map(to, "properties"),
        map(to, "patternProperties"),
    ) else {
        return Vec::new();
    };
    let target_additional = to.get("additionalProperties");
    if tpatterns.is_empty() && target_additional.is_none() {
        return Vec::new();
    }
    let source_rest = so
        .get("additionalProperties")
        .cloned()
        .unwrap_or(Value::Bool(true));
    // The union of the names a side's properties and patterns take (`None`: no name).
    let takers = |props: &Map<String, Value>, patterns: &Map<String, Value>| {
        let mut all: Vec<String> = patterns.keys().cloned().collect();
        for name in props.keys() {
            all.push(literal_pattern(name)?);
        }
        Some((!all.is_empty()).then(|| union_pattern(all.iter().map(String::as_str))))
    };
    let (Some(source_takers), Some(target_takers)) =
        (takers(&sprops, &spatterns), takers(&tprops, &tpatterns))
    else {
        return Vec::new();
    };
    let outside = |pattern: Option<&str>, taken: Option<&str>| -> Option<String> {
        match taken {
            None => example(pattern?, 0, None),
            Some(taken) => match inclusion(pattern, Some(taken), 0, None) {
                Inclusion::Witness(name) => Some(name),
                _ => None,
            },
        }
    };
    let both_props = sprops
        .keys()
        .chain(tprops.keys())
        .cloned()
        .collect::<Vec<_>>();
    let mut names: Vec<(String, Value)> = Vec::new();
    let mut add = |name: Option<String>, schema: &Value| {
        if let Some(name) = name
            && !both_props.contains(&name)
            && names.len() < MAX_MEMBER_NAMES
            && !names.iter().any(|(n, _)| n == &name)
        {
            names.push((name, schema.clone()));
        }
    };
    for target_pattern in tpatterns.keys() {
        if source_rest != Value::Bool(false) {
            add(
                outside(Some(target_pattern), source_takers.as_deref()),
                &source_rest,
            );
        }
        for (source_pattern, source_schema) in &spatterns {
            if let Inclusion::Witness(name) =
                common_string(Some(source_pattern), Some(target_pattern))
            {
                add(Some(name), source_schema);
            }
        }
    }
    if target_additional.is_some() {
        for (source_pattern, source_schema) in &spatterns {
            add(
                outside(Some(source_pattern), target_takers.as_deref()),
                source_schema,
            );
        }
        if source_rest != Value::Bool(false) {
            let everything_taken = match (&source_takers, &target_takers) {
                (Some(s), Some(t)) => Some(union_pattern([s.as_str(), t.as_str()])),
                (Some(one), None) | (None, Some(one)) => Some(one.clone()),
                (None, None) => None,
            };
            let name = match everything_taken {
                None => Some("extra".to_string()),
                Some(taken) => outside(None, Some(&taken)),
            };
            add(name, &source_rest);
        }
    }
    names
}

/// `base` with `text` put at the place (creating the members and items on the way), as a few
/// candidates (for member names, one per member value tried).
pub fn place_witness(
    base: &serde_json::Value,
    place: &StringPlace,
    text: &serde_json::Value,
) -> Vec<serde_json::Value> {
    use serde_json::{Value, json};
    fn put(value: &mut Value, path: &[Step], leaf: &dyn Fn(&mut Value)) {
        let Some((step, rest)) = path.split_first() else {
            leaf(value);
            return;
        };
        match step {
            Step::Member(name) => {
                if !value.is_object() {
                    *value = json!({});
                }
                if let Value::Object(members) = value {
                    let member = members.entry(name.clone()).or_insert(Value::Null);
                    put(member, rest, leaf);
                }
            }
            Step::Item => {
                if !value.is_array() {
                    *value = json!([]);
                }
                if let Value::Array(items) = value {
                    if items.is_empty() {
                        items.push(Value::Null);
                    }
                    if let Some(first) = items.first_mut() {
                        put(first, rest, leaf);
                    }
                }
            }
        }
    }
    let mut out = Vec::new();
    if place.names {
        let Some(name) = text.as_str() else {
            return out;
        };
        for member in [
            Value::Null,
            json!(""),
            json!(0),
            json!({}),
            json!([]),
            json!(false),
        ] {
            let mut candidate = base.clone();
            put(&mut candidate, &place.path, &|at: &mut Value| {
                if !at.is_object() {
                    *at = json!({});
                }
                if let Value::Object(members) = at {
                    members.insert(name.to_string(), member.clone());
                }
            });
            out.push(candidate);
        }
    } else {
        let mut candidate = base.clone();
        put(&mut candidate, &place.path, &|at: &mut Value| {
            *at = text.clone()
        });
        out.push(candidate);
    }
    out
}

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
