//! The lookup table behind `Registry::lookup`: a minimal-displacement perfect hash ("hash and
//! displace", as in CHD/PTHash) over the bytes of the keys, shared by `build.rs` (which
//! generates the table of the built-in registry into `OUT_DIR`) and by run-time loaded
//! registries (which build the same table at load).
//!
//! A key hashes to one 64-bit value; its high bits pick a bucket, the bucket's displacement
//! mixes into the low bits to pick a slot in a power-of-two table. The builder places the
//! largest buckets first, searching for a displacement that sends every key of the bucket to a
//! free slot. A lookup is one hash of the `&str` bytes, two array reads and one string
//! comparison (which rejects misses); it never allocates. This module depends only on `std`, so
//! `build.rs` includes it by `#[path]`.

/// A slot that holds no key.
pub const EMPTY: u16 = u16::MAX;

const K: u64 = 0x9E37_79B9_7F4A_7C15;

/// Hash the bytes of a key (FxHash-style word mixing with a strong final avalanche).
#[inline]
pub fn hash(bytes: &[u8], seed: u64) -> u64 {
    let mut h = seed ^ (bytes.len() as u64).wrapping_mul(K);
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        h = (h.rotate_left(23) ^ u64::from_le_bytes(word)).wrapping_mul(K);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut word = [0u8; 8];
        word[..rest.len()].copy_from_slice(rest);
        h = (h.rotate_left(23) ^ u64::from_le_bytes(word)).wrapping_mul(K);
    }
    // murmur3 fmix64: every input bit affects every output bit.
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// The bucket of a hash among `buckets` (a power of two).
#[inline]
pub fn bucket(h: u64, buckets: usize) -> usize {
    ((h >> 40) as usize) & (buckets - 1)
}

/// The slot of a hash displaced by `displacement`, in a table of `slots` (a power of two).
#[inline]
pub fn slot(h: u64, displacement: u16, slots: usize) -> usize {
    let d = (displacement as u64).wrapping_mul(K) >> 16;
    ((h ^ d) as usize) & (slots - 1)
}

/// A built table: the seed, one displacement per bucket, and per slot the key index or `EMPTY`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    pub seed: u64,
    pub displacements: Vec<u16>,
    pub slots: Vec<u16>,
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

/// Build the perfect hash of `keys` (distinct); slot values are indices into `keys`.
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
    'seeds: for seed_round in 0u64..64 {
        let seed = seed_round.wrapping_mul(0xA076_1D64_78BD_642F) ^ 0x5851_F42D_4C95_7F2D;
        let hashes: Vec<u64> = keys.iter().map(|k| hash(k.as_bytes(), seed)).collect();
        let mut members: Vec<Vec<usize>> = vec![Vec::new(); n_buckets];
        for (i, &h) in hashes.iter().enumerate() {
            members[bucket(h, n_buckets)].push(i);
        }
        let mut order: Vec<usize> = (0..n_buckets).collect();
        order.sort_by_key(|&b| std::cmp::Reverse(members[b].len()));
        let mut slots = vec![EMPTY; n_slots];
        let mut displacements = vec![0u16; n_buckets];
        let mut taken: Vec<usize> = Vec::new();
        for b in order {
            if members[b].is_empty() {
                break;
            }
            let mut placed = false;
            for d in 0..u16::MAX {
                taken.clear();
                let fits = members[b].iter().all(|&i| {
                    let s = slot(hashes[i], d, n_slots);
                    let free = slots[s] == EMPTY && !taken.contains(&s);
                    taken.push(s);
                    free
                });
                if fits {
                    for (&i, &s) in members[b].iter().zip(taken.iter()) {
                        slots[s] = i as u16;
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
            slots,
        });
    }
    Err(BuildError::NoAssignment)
}

/// The candidate key index of `key` in a table (the caller compares the key itself).
#[inline]
pub fn probe(key: &[u8], seed: u64, displacements: &[u16], slots: &[u16]) -> Option<usize> {
    if displacements.is_empty() || slots.is_empty() {
        return None;
    }
    let h = hash(key, seed);
    let d = *displacements.get(bucket(h, displacements.len()))?;
    let i = *slots.get(slot(h, d, slots.len()))?;
    (i != EMPTY).then_some(i as usize)
}
