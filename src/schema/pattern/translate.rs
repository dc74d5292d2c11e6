//! ECMA-262 patterns translated to the syntax of the `regex` family with the same language:
//! every construct whose meaning differs between the two, or that is not regular, is refused
//! with the reason, so what the automata decide is what the validators match.

/// Patterns longer than this (in characters) are not compiled.
const MAX_PATTERN_CHARS: usize = 4096;
/// A counted repetition larger than this is refused.
const MAX_REPETITION: u32 = 1000;

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
