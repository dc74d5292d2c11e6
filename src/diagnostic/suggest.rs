//! "Did you mean …?": the nearest names to a misspelt one by edit distance, shared by the loader
//! (unknown fields, G003) and the rules (unknown IDs and targets, R101, S201, S202, S208, T301,
//! T303), so a suggestion reads the same wherever a name is wrong.
//!
//! A suggestion only matters within a small distance (half the word), so `nearest` never computes
//! a full distance: a candidate whose length alone puts it out of reach is skipped, and the others
//! are scored by a banded Levenshtein that stops at the first row past the limit. An unknown
//! primitive against the 382 IDs and aliases of the registry then costs about what a valid one
//! does (`cargo bench --bench validate -- r101`).

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

/// The Levenshtein distance of `a` and `b` when it is at most `limit`, else `None` — without
/// computing more of the table than the band of width `2 × limit + 1` around its diagonal, and
/// stopping at the first row whose every cell is past `limit`.
pub fn edit_distance_within(a: &str, b: &str, limit: usize) -> Option<usize> {
    let mut rows = Rows::default();
    if a.is_ascii() && b.is_ascii() {
        rows.banded(a.as_bytes(), b.as_bytes(), limit)
    } else {
        let a: Vec<char> = a.chars().collect();
        let b: Vec<char> = b.chars().collect();
        rows.banded(&a, &b, limit)
    }
}

/// The two rows of the banded table, reused from one candidate to the next.
#[derive(Default)]
struct Rows {
    previous: Vec<usize>,
    current: Vec<usize>,
}

impl Rows {
    fn banded<T: PartialEq>(&mut self, a: &[T], b: &[T], limit: usize) -> Option<usize> {
        let (n, m) = (a.len(), b.len());
        if n.abs_diff(m) > limit {
            return None;
        }
        // Every value past `limit` is stored as `limit + 1`: only "too far" matters then.
        let far = limit + 1;
        self.previous.clear();
        self.previous.extend((0..=m).map(|j| j.min(far)));
        self.current.clear();
        self.current.resize(m + 1, far);
        for i in 1..=n {
            let low = i.saturating_sub(limit).max(1);
            let high = (i + limit).min(m);
            let current = &mut self.current;
            let previous = &self.previous;
            current[0] = i.min(far);
            // The cells just outside the band are read by the next row: mark them too far (the
            // buffer still holds the row before last there).
            current[low - 1] = if low == 1 { current[0] } else { far };
            let mut row_min = current[low - 1];
            for j in low..=high {
                let substitution = previous[j - 1] + usize::from(a[i - 1] != b[j - 1]);
                let cell = substitution
                    .min(previous[j] + 1)
                    .min(current[j - 1] + 1)
                    .min(far);
                current[j] = cell;
                row_min = row_min.min(cell);
            }
            if high < m {
                current[high + 1] = far;
            }
            if row_min > limit {
                return None;
            }
            std::mem::swap(&mut self.previous, &mut self.current);
        }
        let distance = self.previous[m];
        (distance <= limit).then_some(distance)
    }
}

/// The `k` candidates nearest to `word` by edit distance (ties by name), within a distance that
/// still reads as a typo (at most half the word's length, at least 2).
pub fn nearest<'c>(word: &str, candidates: impl Iterator<Item = &'c str>, k: usize) -> Vec<String> {
    let word_chars: Vec<char> = word.chars().collect();
    let word_len = word_chars.len();
    let limit = (word_len / 2).max(2);
    let mut rows = Rows::default();
    let mut candidate_chars: Vec<char> = Vec::new();
    let mut scored: Vec<(usize, &str)> = candidates
        .filter_map(|c| {
            // Prune by length before reading a character: a string of `c.len()` bytes holds
            // between a quarter of that and that many chars.
            if c.len() + limit < word_len || c.len() > 4 * (word_len + limit) {
                return None;
            }
            let distance = if word.is_ascii() && c.is_ascii() {
                rows.banded(word.as_bytes(), c.as_bytes(), limit)
            } else {
                candidate_chars.clear();
                candidate_chars.extend(c.chars());
                rows.banded(&word_chars, &candidate_chars, limit)
            };
            distance.map(|d| (d, c))
        })
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The banded distance agrees with the full table wherever it answers, and answers
        /// exactly when the full distance is within the limit.
        #[test]
        fn banded_distance_is_the_full_distance_within_the_limit(
            a in "[abc.é_]{0,12}", b in "[abc.é_]{0,12}", limit in 0usize..8,
        ) {
            let full = edit_distance(&a, &b);
            let banded = edit_distance_within(&a, &b, limit);
            prop_assert_eq!(banded, (full <= limit).then_some(full));
        }

        /// `nearest` keeps what the unbounded search would keep.
        #[test]
        fn nearest_equals_the_unbounded_search(
            word in "[abé.]{0,10}", candidates in proptest::collection::vec("[abé.]{0,14}", 0..12),
        ) {
            let limit = (word.chars().count() / 2).max(2);
            let mut expected: Vec<(usize, &str)> = candidates
                .iter()
                .map(|c| (edit_distance(&word, c), c.as_str()))
                .filter(|(d, _)| *d <= limit)
                .collect();
            expected.sort_unstable();
            expected.dedup_by(|a, b| a.1 == b.1);
            let expected: Vec<String> = expected.into_iter().take(3).map(|(_, c)| c.to_string()).collect();
            prop_assert_eq!(nearest(&word, candidates.iter().map(String::as_str), 3), expected);
        }
    }
}
