//! The lookup table behind `Registry::lookup` and `Isa::from_key`: a minimal-displacement
//! perfect hash ("hash and displace", as in CHD/PTHash) whose slots carry the key itself in
//! packed form, shared by `build.rs` (which generates the table of the built-in registry into
//! `OUT_DIR`) and by run-time loaded registries (which build the same table at load).
//!
//! # Why it looks like this
//!
//! A lookup is on a runtime's hot path and keys arrive in no particular order, so what costs is
//! not arithmetic but instructions per lookup, branches the CPU mispredicts and memory it
//! chases. A key of 8 to 32 bytes (all but a handful of the registry's) is read as four
//! overlapping little-endian words — at 0, `min(8, len-8)`, `len-16` (or 0) and `len-8` —
//! which together cover every byte: no loop, no branch on the length. The words and the length
//! are hashed with two independent multiplies; the slot stores the same four words (one
//! 32-byte-aligned record) and, in a parallel array, the key's length and index, so confirming a
//! hit is four compares on one cache line and a length compare: no second load of a heap
//! string, no `memcmp` call. Keys shorter than 8 bytes (zero-padded into one word, still exact)
//! and longer than 32 (whose middle bytes the words do not cover, so they are mixed into the
//! hash and the caller confirms the whole key) take a separate, cold path, so the common path is
//! straight-line code.
//!
//! A key's hash picks a bucket from its high bits; the bucket's displacement is XORed into the
//! low bits to pick a slot in a power-of-two table. The builder places the largest buckets
//! first, trying every displacement until each key of the bucket lands on a free slot, and
//! changes the seed when a bucket does not fit. A lookup is four word loads, one hash, two table
//! reads and the compare; it never allocates. A vacant slot has a length no key has, so a miss
//! needs no separate emptiness test. This module depends only on `std`, so `build.rs` includes it
//! by `#[path]`.

/// A slot (and a key index) that holds no key.
pub const EMPTY: u16 = u16::MAX;

/// Keys up to this many bytes are matched exactly by their packed words alone.
pub const EXACT_MAX: usize = 32;

const K0: u64 = 0x9E37_79B9_7F4A_7C15;
const K1: u64 = 0xC2B2_AE3D_27D4_EB4F;
const K2: u64 = 0x1656_67B1_9E37_79F9;

/// The packed words of the key in one slot; 32-byte aligned so a slot's words sit in one cache
/// line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C, align(32))]
pub struct Words(pub [u64; 4]);

/// The rest of a slot: its key's length and index (a vacant slot has a length no key has).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Meta {
    pub len: u32,
    pub key: u16,
}

impl Meta {
    /// A slot that holds no key: its length matches no `&str` a probe can be given.
    pub const VACANT: Meta = Meta {
        len: u32::MAX,
        key: EMPTY,
    };

    pub fn is_vacant(&self) -> bool {
        self.key == EMPTY
    }
}

#[inline(always)]
fn word_at(bytes: &[u8], at: usize) -> u64 {
    match bytes.get(at..at + 8) {
        Some(w) => {
            let mut word = [0u8; 8];
            word.copy_from_slice(w);
            u64::from_le_bytes(word)
        }
        None => 0,
    }
}

/// The four packed words of a key. For 8 ≤ len ≤ 32 they cover every byte of the key (they
/// overlap when it is shorter than 32); below 8 the key is zero-padded into the first word.
#[inline(always)]
pub fn words(bytes: &[u8]) -> [u64; 4] {
    let n = bytes.len();
    if n >= 8 {
        // `second + third == n - 8`, which lets the compiler see every read in bounds.
        let second = (n - 8).min(8);
        let third = (n - 8) - second;
        [
            word_at(bytes, 0),
            word_at(bytes, second),
            word_at(bytes, third),
            word_at(bytes, n - 8),
        ]
    } else {
        let mut word = [0u8; 8];
        word[..n].copy_from_slice(bytes);
        [u64::from_le_bytes(word), 0, 0, 0]
    }
}

/// Hash a key given its packed words: two independent multiplies whose product halves mix
/// every word with the seed. The words cover keys up to [`EXACT_MAX`] bytes; a longer key also
/// mixes in the bytes between them (a rare, separately predicted branch), so that keys
/// differing only there still hash apart.
#[inline(always)]
pub fn hash_words(bytes: &[u8], words: &[u64; 4], seed: u64) -> u64 {
    let (mut left, right) = halves(words, bytes.len(), seed);
    if bytes.len() > EXACT_MAX {
        left = hash_middle(bytes, left);
    }
    combine(left, right)
}

/// The two halves of the hash input: each word with the seed, the length in the second.
#[inline(always)]
fn halves(words: &[u64; 4], len: usize, seed: u64) -> (u64, u64) {
    let left = (words[0] ^ seed).wrapping_add(words[1].rotate_left(23));
    let right =
        (words[2] ^ seed.rotate_left(29) ^ len as u64).wrapping_add(words[3].rotate_left(41));
    (left, right)
}

/// Multiply both halves and fold the high half into the low: a product's low bits depend only
/// on its factor's low bits, and the slot is picked from the low bits.
#[inline(always)]
fn combine(left: u64, right: u64) -> u64 {
    let h = left.wrapping_mul(K0) ^ right.wrapping_mul(K1).rotate_left(32);
    h ^ (h >> 32)
}

#[cold]
fn hash_middle(bytes: &[u8], mut h: u64) -> u64 {
    for chunk in bytes[16..bytes.len() - 16].chunks(8) {
        let mut word = [0u8; 8];
        word[..chunk.len()].copy_from_slice(chunk);
        h = (h.rotate_left(23) ^ u64::from_le_bytes(word)).wrapping_mul(K2);
    }
    h
}

/// Hash the bytes of a key.
#[inline]
pub fn hash(bytes: &[u8], seed: u64) -> u64 {
    hash_words(bytes, &words(bytes), seed)
}

/// The bucket of a hash among `buckets` (a power of two): its top bits.
#[inline(always)]
pub fn bucket(h: u64, buckets: usize) -> usize {
    ((h >> 40) as usize) & (buckets - 1)
}

/// The slot of a hash displaced by `displacement` (XORed in, so a bucket's keys keep their
/// relative places and the search tries every placement of the bucket), in a table of `slots`
/// (a power of two).
#[inline(always)]
pub fn slot(h: u64, displacement: u16, slots: usize) -> usize {
    ((h as usize) ^ displacement as usize) & (slots - 1)
}

/// A built table: the seed, one displacement per bucket, and per slot the key's packed words
/// and its length and index (two parallel arrays, both indexed by slot).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    pub seed: u64,
    pub displacements: Vec<u16>,
    pub words: Vec<Words>,
    pub meta: Vec<Meta>,
}

/// Why a table could not be built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BuildError {
    /// More keys than a `u16` index can name.
    TooManyKeys(usize),
    /// Two keys are equal (the perfect hash needs distinct keys).
    DuplicateKey(String),
    /// No seed/displacement assignment was found (practically unreachable).
    NoAssignment,
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BuildError::TooManyKeys(n) => write!(f, "{n} keys: more than a u16 index can name"),
            BuildError::DuplicateKey(k) => write!(f, "the key `{k}` appears twice"),
            BuildError::NoAssignment => f.write_str("no perfect-hash assignment found"),
        }
    }
}

/// Table size for `n` keys: a power of two with load factor at most ~0.75.
pub fn slot_count(n: usize) -> usize {
    (n.max(1) * 4).div_ceil(3).next_power_of_two()
}

/// Bucket count for `n` keys: a power of two with about 3 keys per bucket.
pub fn bucket_count(n: usize) -> usize {
    n.div_ceil(3).max(1).next_power_of_two()
}

/// Build the perfect hash of `keys` (distinct); slot `key`s are indices into `keys`.
pub fn build(keys: &[&str]) -> Result<Table, BuildError> {
    if keys.len() >= EMPTY as usize {
        return Err(BuildError::TooManyKeys(keys.len()));
    }
    let mut sorted: Vec<&str> = keys.to_vec();
    sorted.sort_unstable();
    if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
        return Err(BuildError::DuplicateKey(w[0].to_string()));
    }
    let n_slots = slot_count(keys.len());
    let n_buckets = bucket_count(keys.len());
    'seeds: for seed_round in 0u64..256 {
        let seed = seed_round.wrapping_mul(0xA076_1D64_78BD_642F) ^ 0x5851_F42D_4C95_7F2D;
        let hashes: Vec<u64> = keys.iter().map(|k| hash(k.as_bytes(), seed)).collect();
        let mut members: Vec<Vec<usize>> = vec![Vec::new(); n_buckets];
        for (i, &h) in hashes.iter().enumerate() {
            members[bucket(h, n_buckets)].push(i);
        }
        let mut order: Vec<usize> = (0..n_buckets).collect();
        order.sort_by_key(|&b| std::cmp::Reverse(members[b].len()));
        let mut slot_words = vec![Words([0; 4]); n_slots];
        let mut meta = vec![Meta::VACANT; n_slots];
        let mut displacements = vec![0u16; n_buckets];
        let mut taken: Vec<usize> = Vec::new();
        for b in order {
            if members[b].is_empty() {
                break;
            }
            let mut placed = false;
            for d in 0..n_slots.min(u16::MAX as usize) as u16 {
                taken.clear();
                let fits = members[b].iter().all(|&i| {
                    let s = slot(hashes[i], d, n_slots);
                    let free = meta[s].is_vacant() && !taken.contains(&s);
                    taken.push(s);
                    free
                });
                if fits {
                    for (&i, &s) in members[b].iter().zip(taken.iter()) {
                        slot_words[s] = Words(words(keys[i].as_bytes()));
                        meta[s] = Meta {
                            len: keys[i].len() as u32,
                            key: i as u16,
                        };
                    }
                    displacements[b] = d;
                    placed = true;
                    break;
                }
            }
            if !placed {
                continue 'seeds;
            }
        }
        return Ok(Table {
            seed,
            displacements,
            words: slot_words,
            meta,
        });
    }
    Err(BuildError::NoAssignment)
}

/// The index of `key` in a table, or `None`. Keys of 8 to [`EXACT_MAX`] bytes (the common
/// case) take a straight-line path decided by the slot alone; shorter and longer keys take
/// [`probe_other_lengths`], where a longer key whose packed words match is passed to `confirm`
/// (with its index), which compares the whole key.
#[inline(always)]
pub fn probe(
    key: &[u8],
    seed: u64,
    displacements: &[u16],
    slot_words: &[Words],
    meta: &[Meta],
    confirm: impl FnOnce(usize) -> bool,
) -> Option<usize> {
    let n = key.len();
    if !(8..=EXACT_MAX).contains(&n) || displacements.is_empty() || slot_words.is_empty() {
        return probe_other_lengths(key, seed, displacements, slot_words, meta, confirm);
    }
    let second = (n - 8).min(8);
    let third = (n - 8) - second;
    let w = [
        word_at(key, 0),
        word_at(key, second),
        word_at(&key[third..], 0),
        word_at(key, n - 8),
    ];
    let (left, right) = halves(&w, n, seed);
    let (Words(stored), m) = slot_of(combine(left, right), displacements, slot_words, meta)?;
    let differ = (w[0] ^ stored[0]) | (w[1] ^ stored[1]) | (w[2] ^ stored[2]) | (w[3] ^ stored[3]);
    (differ == 0 && m.len as usize == n).then_some(m.key as usize)
}

/// The slot a hash lands on: its bucket's displacement, then the displaced slot.
#[inline(always)]
fn slot_of<'t>(
    h: u64,
    displacements: &[u16],
    slot_words: &'t [Words],
    meta: &'t [Meta],
) -> Option<(&'t Words, &'t Meta)> {
    let d = *displacements.get(bucket(h, displacements.len()))?;
    let s = slot(h, d, slot_words.len());
    Some((slot_words.get(s)?, meta.get(s)?))
}

/// [`probe`] for keys shorter than 8 or longer than [`EXACT_MAX`] bytes, and empty tables.
#[cold]
#[inline(never)]
pub fn probe_other_lengths(
    key: &[u8],
    seed: u64,
    displacements: &[u16],
    slot_words: &[Words],
    meta: &[Meta],
    confirm: impl FnOnce(usize) -> bool,
) -> Option<usize> {
    if displacements.is_empty() || slot_words.is_empty() {
        return None;
    }
    let w = words(key);
    let h = hash_words(key, &w, seed);
    let (Words(stored), m) = slot_of(h, displacements, slot_words, meta)?;
    if w != *stored || m.len as usize != key.len() {
        return None;
    }
    let index = m.key as usize;
    if key.len() > EXACT_MAX && !confirm(index) {
        return None;
    }
    Some(index)
}
