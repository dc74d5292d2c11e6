//! JSON pointers (RFC 6901): escaping and unescaping reference tokens, splitting and joining
//! pointers. Diagnostics name locations by pointer; spans are looked up by them.

use std::borrow::Cow;

/// Escape one reference token: `~` → `~0`, `/` → `~1`.
pub fn escape_token(token: &str) -> Cow<'_, str> {
    if token.contains(['~', '/']) {
        Cow::Owned(token.replace('~', "~0").replace('/', "~1"))
    } else {
        Cow::Borrowed(token)
    }
}

/// Unescape one reference token; `None` when it holds a `~` not followed by `0` or `1`.
pub fn unescape_token(token: &str) -> Option<Cow<'_, str>> {
    if !token.contains('~') {
        return Some(Cow::Borrowed(token));
    }
    let mut out = String::with_capacity(token.len());
    let mut chars = token.chars();
    while let Some(c) = chars.next() {
        if c == '~' {
            match chars.next() {
                Some('0') => out.push('~'),
                Some('1') => out.push('/'),
                _ => return None,
            }
        } else {
            out.push(c);
        }
    }
    Some(Cow::Owned(out))
}

/// The unescaped tokens of `pointer` (`""` is the root: no tokens); `None` when it is not a
/// valid pointer (non-empty without a leading `/`, or a bad `~` escape).
pub fn split(pointer: &str) -> Option<Vec<String>> {
    tokens(pointer)?.map(|t| t.map(Cow::into_owned)).collect()
}

/// The raw (escaped) tokens of `pointer`, each unescaped lazily.
pub(crate) fn tokens(pointer: &str) -> Option<impl Iterator<Item = Option<Cow<'_, str>>> + '_> {
    let rest = if pointer.is_empty() {
        None
    } else {
        Some(pointer.strip_prefix('/')?)
    };
    Some(
        rest.into_iter()
            .flat_map(|r| r.split('/'))
            .map(unescape_token),
    )
}

/// `pointer` extended by one (unescaped) token.
pub fn push(pointer: &str, token: &str) -> String {
    let token = escape_token(token);
    let mut out = String::with_capacity(pointer.len() + 1 + token.len());
    out.push_str(pointer);
    out.push('/');
    out.push_str(&token);
    out
}

/// The pointer made of the (unescaped) `tokens`.
pub fn join<I, S>(tokens: I) -> String
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    let mut out = String::new();
    for token in tokens {
        out.push('/');
        out.push_str(&escape_token(token.as_ref()));
    }
    out
}

/// The parent of `pointer` (`None` for the root).
pub fn parent(pointer: &str) -> Option<&str> {
    pointer.rfind('/').map(|i| &pointer[..i])
}

/// An array index token per RFC 6901: `0` or digits without a leading zero.
pub(crate) fn array_index(token: &str) -> Option<usize> {
    let bytes = token.as_bytes();
    match bytes {
        [] => None,
        [b'0'] => Some(0),
        [b'0', ..] => None,
        _ if bytes.iter().all(u8::is_ascii_digit) => token.parse().ok(),
        _ => None,
    }
}
