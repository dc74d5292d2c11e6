//! "Did you mean …?": the nearest names to a misspelt one by edit distance, shared by the loader
//! (unknown fields, G003) and the rules (unknown IDs and targets, R101, S201, S202, S208, T301,
//! T303), so a suggestion reads the same wherever a name is wrong.

/// Levenshtein distance over chars (two rows).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        current[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != *cb);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
}

/// The `k` candidates nearest to `word` by edit distance (ties by name), within a distance that
/// still reads as a typo (at most half the word's length, at least 2).
pub fn nearest<'c>(word: &str, candidates: impl Iterator<Item = &'c str>, k: usize) -> Vec<String> {
    let limit = (word.chars().count() / 2).max(2);
    let mut scored: Vec<(usize, &str)> = candidates
        .map(|c| (edit_distance(word, c), c))
        .filter(|(d, _)| *d <= limit)
        .collect();
    scored.sort_unstable();
    scored.dedup_by(|a, b| a.1 == b.1);
    scored
        .into_iter()
        .take(k)
        .map(|(_, c)| c.to_string())
        .collect()
}

/// "did you mean `a`, `b`?" or `None`.
pub fn did_you_mean(suggestions: &[String]) -> Option<String> {
    if suggestions.is_empty() {
        return None;
    }
    Some(format!(
        "did you mean {}?",
        suggestions
            .iter()
            .map(|s| format!("`{s}`"))
            .collect::<Vec<_>>()
            .join(", ")
    ))
}
