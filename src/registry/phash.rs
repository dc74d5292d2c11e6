//! The lookup table behind `Registry::lookup` and `Isa::from_key`: a two-choice (cuckoo)
//! perfect hash whose slots carry the key itself in packed form, shared by `build.rs` (which
//! generates the table of the built-in registry into `OUT_DIR`) and by run-time loaded
//! registries (which build the same table at load).
//!
//! # Why it looks like this
//!
//! A lookup is on a runtime's hot path and keys arrive in no particular order, so what costs is
//! not arithmetic but the chain of loads a lookup waits on, instructions per lookup and
//! branches the CPU mispredicts. A key of 8 to 32 bytes (all but a handful of the registry's)
//! is read as four overlapping little-endian words — at 0, `min(8, len-8)`, `len-16` (or 0)
//! and `len-8` — which together cover every byte: no loop, no branch on the length, no bounds
//! check (the reads are chunk splits the compiler proves in bounds, without `unsafe`). The four
//! words and the length are hashed by one folded 64×64→128-bit multiply (wyhash's `mum`) of
//! two lanes — the first and last words with the length, the middle two — whose every output
//! bit depends on every input bit, so both candidate slots can come from it, one from each
//! half. The middle words are in the hash because a composition of packs has many keys that
//! share their first and last 8 bytes (a pack's IDs share its prefix); one hash for every
//! table, the built-in one included, leaves the probe no flag to test. The slot is one 40-byte
//! record holding the same four words, the key's length, its index and its value, so confirming
//! a hit is four word compares and a length compare on one record, and the value comes from the
//! same record: no second load of a heap string, no `memcmp` call. Keys shorter than 8 bytes
//! (zero-padded into one word, still exact) and longer than 32 (whose middle bytes the words do
//! not cover, so they are mixed into the hash — up to 64 bytes by four more overlapping words,
//! the *middle words*, and one more multiply, no loop) take a separate, cold path, so the
//! common path is straight-line code. A key of 33 to 64 bytes is confirmed by its middle words
//! against the ones kept beside the slots by key index, compared in registers like the packed
//! words (no `bcmp` call, and no words stored and reloaded wider, whose store forwarding
//! stalls); only a key longer than 64 bytes is passed to the caller's `confirm`.
//! [`TableRef::probe_exact`] is that common path alone, returning [`OtherLength`] for the
//! rest: `Registry::lookup_index` calls its own out-of-line function for those, so the hot loop
//! neither builds a `confirm` closure nor spills the table's fields to pass one. `Isa::from_key` keeps [`TableRef::probe`]: its
//! table is constants and its closure holds only the key, so the split saves it nothing.
//!
//! Every key sits in one of its two candidate slots in a power-of-two table at most half full.
//! A probe reads both candidates at once — their addresses depend on the hash alone — and
//! compares the first, then the second: one random read on the chain key → hash → slot, where
//! a displacement table (CHD, "hash and displace", which this table was until issue 23's
//! measurements) puts a second read before it. The builder inserts each key into a free
//! candidate, else moves the key in its first candidate to that key's other one, and so on
//! (cuckoo insertion), changing the seed when a chain of moves runs long; a free first
//! candidate is taken first, so most keys sit where a probe looks first and its branch is
//! predictable. A lookup is four word loads, one multiply, two slot reads and the compares; it
//! never allocates. A vacant slot has a length no key on the exact path has, so a miss needs no
//! separate emptiness test. This module depends only on `std`, so `build.rs` includes it by
//! `#[path]`.
//!
//! # What was measured and not kept
//!
//! In the bench itself (`packs/lookup_composed`, the previous and the changed bench binaries
//! run alternately, `--warm-up-time 1 --measurement-time 4`, twice each):
//! - one hash for every table, the built-in one's included, so `Registry::lookup` has one path
//!   and no test of a built-in flag: 15.8–16.6 µs against 17.6–18.6 µs. Kept. The built-in
//!   registry's own lookups pay for it (`registry_lookup/by_id` 1.33 µs against 1.22 µs: its
//!   table had the ends hash and constant masks).
//! - a table of `4n` slots (93 % of keys where a probe looks first, against 85 %): 18.0–18.7 µs
//!   against 16.6–16.7 µs; a table of `2.5n` slots (not a power of two, candidates by
//!   multiply-shift): 19.0–19.3 µs against 15.8–16.0 µs; slots aligned to 64 bytes (one cache
//!   line each): 19.6–19.8 µs against 16.7–16.9 µs. The table's size and the mispredicted
//!   second candidates pull against each other, and `2n` rounded up to a power of two is where
//!   they meet. Of the keys of up to 32 bytes, 85.1 % sit in their first candidate; no
//!   placement can do better than 86.8 % (that many keys have a first candidate of their own).
//! - the choice between the candidates made branch-free (both compared, a `cmov` between
//!   them): 30.3–30.9 µs against 16.6–16.7 µs. Every lookup then reads both candidates' cache
//!   lines; with the branch, a hit in the first never touches the second's. (LLVM turns
//!   `select_unpredictable` between the slots' values, or masks of them, back into branches;
//!   only a select between two loaded words stayed a `cmov`.)
//! - a hint bitmap (16 bits a key, 8 KB here) saying which candidate a key sits in, so the
//!   probe compares that one first: 25.2–25.8 µs with the order chosen arithmetically, 20.1–
//!   20.7 µs with a branch on the hint, against 15.7–16.4 µs: the slots' reads then wait on the
//!   bitmap's, which costs more than the mispredicted second candidates it saves.
//! - keys of 33–64 bytes on the straight path, their middle words compared from a side array:
//!   16.7–17.1 µs against 16.1–16.9 µs, no gain for a second array and a second hash mode;
//!   with a call to confirm them instead, 18.4–18.6 µs (the call's spills reach every key).
//!
//! - the keys of 33 to 64 bytes confirmed by their middle words, kept by key index, with the
//!   cold path inlined into its out-of-line caller and compared by scalar XORs (before, the
//!   caller's `confirm` compared the key's text by a `bcmp` call, and the slot's words were
//!   compared as an array: four 8-byte stores reloaded as 16-byte vectors, a store-forwarding
//!   stall): 15.2–15.3 µs against 15.6 µs (three runs each, alternating); in the driver, a long
//!   key's hit 8.6 ns against 11.0 ns, a miss 5.2 ns against 7.8 ns. Kept.
//! - the hash's second lane without its constant for keys of 8 bytes or more (their words fill
//!   it; a shorter key's three zero words are why it was there, so `length_term` keeps it for
//!   them): two instructions fewer on the common path, 14.7–15.1 µs against 15.1–15.7 µs
//!   (three runs each, alternating). Kept.
//! - the middle words kept by slot instead (read at once with the slot, not after it) and mixed
//!   into the hash by a multiply independent of the first: 15.4–16.1 µs, no gain.
//! - a second table for the keys off the exact path, so that the exact one's slots are 32
//!   bytes (aligned, never across two cache lines; the length in the first word's high bits,
//!   which ASCII leaves zero, a non-ASCII first word sent to the cold table, the value in an
//!   array of its own): 17.1–17.9 µs against 16.0–16.8 µs. The length's spreading, the ASCII
//!   test and the value's array cost more instructions and registers than the smaller table
//!   saves (with the fourth word dropped instead, a measurement of the layout alone: 14.9–15.2
//!   µs against 15.6–15.9 µs).
//! - a 16-bit tag of each slot's key in an array of its own (8 KB here), read before the
//!   slots, so that a miss reads no slot and a hit reads one, chosen by a `cmov`: 20.7–20.9 µs
//!   against 16.8–17.0 µs. A hit's slot read then waits on the tag's.
//! - keys of 33 to 64 bytes on the straight path, hashed by their packed words alone and
//!   confirmed by their middle words, kept in a vacant slot near their own (whose position the
//!   slot's `key` holds), with the keys that share packed words with two others in an
//!   overflow: in a driver timing each kind of key alone, a long key's hit 5.7 ns and miss
//!   4.9 ns against 11.5 and 7.3 ns, all keys 3.21 ns against 3.43 ns; in the bench 16.0–16.2
//!   µs against 15.7 µs, and no better over seven heap layouts (a padding allocation of 0 to
//!   65,000 bytes before the keys). The short keys' path lost what the long keys gained. The
//!   same with the middle words in an array of their own, 17.5–18.5 µs.
//!
//! Earlier, with a driver that runs the bench's loop over the same keys (a kernel and 20 packs:
//! 2,382 keys, then a near miss of each):
//! - two candidates instead of a displacement: 18.0–18.1 µs against 20.3–20.6 µs in the bench
//!   (old and new binaries alternating), keys of up to 32 bytes 3.06 ns against 3.5 ns in the
//!   driver. Kept.
//! - more exact words, so that pack IDs of 33–48 bytes (12 % of those keys) leave the cold
//!   path: five words (exact to 40) 3.9 ns per key of up to 32 bytes against 3.06 ns, six
//!   words (to 48) 4.3–4.4 ns, both with two candidates; earlier, with a displacement, a 64-byte
//!   slot of seven words (to 56) took 93 instructions per lookup against 68. Every key pays the
//!   extra loads, hash terms and compares, and they cost more than the long keys' cold path
//!   (7.1–8.1 ns each when all keys are long, 6.7 ns in the bench's mix) saves.
//! - a branch-free compare (the OR of all differences turned into the result by `sete`, no
//!   early exit per word): 3.25 ns against 3.35 ns, within the noise; with two candidates
//!   (`select_unpredictable` between them), slower, 3.9–4.0 ns against 3.1–3.4 ns: the early
//!   exits let the CPU run ahead of the slot's load, and the first candidate is the right one
//!   for most hits.
//! - the compare as two 128-bit equalities: 3.04 ns against 3.2 ns in a reduced probe, and the
//!   array's own `==` 5.9 ns (a `bcmp` call). Not carried over: within the noise of the bench.
//! - the ends hash (first and last words only) on a run-time table: a composition of packs
//!   has keys sharing both ends, so it cannot be built for them.
//! - fixed-size arrays (masks as constants, no bounds or emptiness tests) and no test of the
//!   built-in flag: 68 instructions against 80 with a displacement, 2–4 % faster.
//! - the third word's position written as `m.saturating_sub(8)` (`m = len - 8`): 3
//!   instructions fewer in a standalone build, a bounds check and two selects more in the
//!   crate's. [`exact_words`]'s chunk splits are what this compiler proves in bounds here.
//! - the long keys' confirm made free (`|_| true`, to measure it): 7.1 ns against 7.7 ns per
//!   long key; the cold path's cost is its hash chain (a second multiply after the first) and
//!   its call, not the `memcmp`.

/// A slot (and a key index) that holds no key.
pub const EMPTY: u16 = u16::MAX;

/// Keys up to this many bytes are matched exactly by their packed words alone.
pub const EXACT_MAX: usize = 32;

/// Keys longer than [`EXACT_MAX`] and up to this many bytes are matched exactly by their
/// packed words and their middle words (kept beside the slots, by key index).
pub const MIDDLE_MAX: usize = 2 * EXACT_MAX;

/// The constants of the hash (wyhash's secrets: odd, balanced bits); the seed plays the part
/// of a first one.
const K1: u64 = 0xE703_7ED1_A0B4_28DB;
const K2: u64 = 0x8EBC_6AF0_9C88_C6E3;

/// One slot of the table: the packed words of its key, the key's length, the key's index and
/// the value the key maps to. 40 bytes, so a probe reads one record (at most two adjacent cache
/// lines) and nothing else.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C)]
pub struct Slot {
    pub words: [u64; 4],
    pub len: u32,
    pub key: u16,
    pub value: u16,
}

impl Slot {
    /// A slot that holds no key: its length matches no key a probe can be given on the exact
    /// path, and the cold path checks [`Slot::is_vacant`].
    pub const VACANT: Slot = Slot {
        words: [0; 4],
        len: u32::MAX,
        key: EMPTY,
        value: EMPTY,
    };

    pub fn is_vacant(&self) -> bool {
        self.key == EMPTY
    }
}

/// The four packed words of a key of 8 to [`EXACT_MAX`] bytes, or `None` for other lengths.
/// They are read at 0, `min(8, len-8)`, `len-8-min(8, len-8)` and `len-8`: together they cover
/// every byte, overlapping when the key is shorter than 32. Written with chunk splits whose
/// bounds follow from one another, so the compiler proves every read in bounds and the path has
/// no branch but the length test.
#[inline(always)]
pub fn exact_words(bytes: &[u8]) -> Option<[u64; 4]> {
    if bytes.len() > EXACT_MAX {
        return None;
    }
    let (head, rest) = bytes.split_first_chunk::<8>()?;
    let tail = bytes.last_chunk::<8>().unwrap_or(head);
    let second = rest.len().min(8);
    let second_word = bytes[second..].first_chunk::<8>().unwrap_or(head);
    // The third word ends where the second begins, counted from the end: at `len - second`.
    let third_word = bytes[..bytes.len() - second]
        .last_chunk::<8>()
        .unwrap_or(head);
    Some([
        u64::from_le_bytes(*head),
        u64::from_le_bytes(*second_word),
        u64::from_le_bytes(*third_word),
        u64::from_le_bytes(*tail),
    ])
}

/// The packed words of a key of any length: [`exact_words`] where it applies; a shorter key is
/// zero-padded into the first word (still exact, with the length); a longer key gets the words
/// of its first 16 and last 16 bytes (its middle is mixed into the hash by `hash_middle` and
/// confirmed by the caller).
#[inline]
pub fn words(bytes: &[u8]) -> [u64; 4] {
    if let Some(w) = exact_words(bytes) {
        return w;
    }
    let n = bytes.len();
    if n < 8 {
        let mut word = [0u8; 8];
        word[..n].copy_from_slice(bytes);
        return [u64::from_le_bytes(word), 0, 0, 0];
    }
    let word = |at: usize| word_at(bytes, at);
    [word(0), word(8), word(n - 16), word(n - 8)]
}

/// The little-endian word at `at` (`at + 8 <= bytes.len()`, else 0): a plain load, no copy
/// through a buffer.
#[inline(always)]
fn word_at(bytes: &[u8], at: usize) -> u64 {
    bytes
        .get(at..)
        .and_then(|rest| rest.first_chunk::<8>())
        .map_or(0, |w| u64::from_le_bytes(*w))
}

/// The folded multiply (wyhash's `mum`): the full 128-bit product of two words, its halves
/// XORed. Every bit of the result depends on every bit of both factors, so any bits of the hash
/// can pick both candidate slots.
#[inline(always)]
fn folded_multiply(a: u64, b: u64) -> u64 {
    let product = (a as u128) * (b as u128);
    (product as u64) ^ ((product >> 64) as u64)
}

/// Hash a key's packed words and length, folded into one multiply: the first and last words
/// and the length on one side, the middle two on the other, each lane rotated so that equal
/// words in both places do not cancel. Keys sharing their first and last 8 bytes (the IDs of
/// one pack share their prefix) still hash apart by their middle words.
#[inline(always)]
pub fn hash_words(words: &[u64; 4], len: usize, seed: u64) -> u64 {
    let left = (words[0] ^ seed).wrapping_add(words[1].rotate_left(23));
    let right = (words[3] ^ len as u64).wrapping_add(words[2].rotate_left(41));
    folded_multiply(left, right)
}

/// The middle words of a key of `EXACT_MAX + 1` to [`MIDDLE_MAX`] bytes: at 16, 24, `len-32`
/// and `len-24`, which with the packed words cover every byte; zeros for other lengths.
#[inline]
pub fn middle_words(bytes: &[u8]) -> [u64; 4] {
    let n = bytes.len();
    if n <= EXACT_MAX || n > MIDDLE_MAX {
        return [0; 4];
    }
    let word = |at: usize| word_at(bytes, at);
    [word(16), word(24), word(n - 32), word(n - 24)]
}

/// Mix a long key's middle words into its hash by one more multiply.
#[inline(always)]
fn hash_middle_words(m: &[u64; 4], h: u64) -> u64 {
    let left = h ^ m[0] ^ m[2].rotate_left(17);
    let right = m[1] ^ m[3].rotate_left(29) ^ K2;
    folded_multiply(left, right)
}

/// The length as [`hash_words`] takes it: a key shorter than 8 bytes has three zero words, so a
/// constant stands in for their bits in the hash's second lane.
#[inline(always)]
fn length_term(n: usize) -> usize {
    if n < 8 { n ^ K1 as usize } else { n }
}

/// Mix the bytes of a long key between its first and last words (`8..len-8`) into a hash, so
/// that a long key's hash reads every byte: a key of up to [`MIDDLE_MAX`] bytes (every long ID
/// of a registry in practice) by its middle words and one multiply, without a loop; a longer
/// one word by word.
#[inline]
fn hash_middle(bytes: &[u8], h: u64) -> u64 {
    if bytes.len() <= MIDDLE_MAX {
        return hash_middle_words(&middle_words(bytes), h);
    }
    hash_very_long(bytes, h)
}

#[cold]
#[inline(never)]
fn hash_very_long(bytes: &[u8], mut h: u64) -> u64 {
    for chunk in bytes[8..bytes.len() - 8].chunks(8) {
        let mut word = [0u8; 8];
        word[..chunk.len()].copy_from_slice(chunk);
        h = folded_multiply(h ^ u64::from_le_bytes(word), K2);
    }
    h
}

/// Hash the bytes of a key (any length).
#[inline]
pub fn hash(bytes: &[u8], seed: u64) -> u64 {
    let h = hash_words(&words(bytes), length_term(bytes.len()), seed);
    if bytes.len() > EXACT_MAX {
        hash_middle(bytes, h)
    } else {
        h
    }
}

/// The two candidate slots of a hash in a table of `slots` (a power of two): one from each half,
/// so they are independent. An empty array gives indices past its end (the mask wraps), so a
/// probe of it misses, not panics.
#[inline(always)]
pub fn candidates(h: u64, slots: usize) -> [usize; 2] {
    let mask = slots.wrapping_sub(1);
    [(h as usize) & mask, ((h >> 32) as usize) & mask]
}

/// A built table: the seed and the slots.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    pub seed: u64,
    pub slots: Vec<Slot>,
    /// By key index: the key's [`middle_words`].
    pub middles: Vec<[u64; 4]>,
}

impl Table {
    /// The table as a probe reads it.
    pub fn view(&self) -> TableRef<'_> {
        TableRef {
            seed: self.seed,
            slots: &self.slots,
            middles: &self.middles,
        }
    }
}

/// A table as a probe reads it: built at run time ([`Table::view`]) or generated into
/// constants and statics by `build.rs` (where every field is known to the compiler, so the
/// masks fold away).
#[derive(Debug, Clone, Copy)]
pub struct TableRef<'t> {
    pub seed: u64,
    pub slots: &'t [Slot],
    pub middles: &'t [[u64; 4]],
}

/// Why a table could not be built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BuildError {
    /// More keys than a `u16` index can name.
    TooManyKeys(usize),
    /// Two keys are equal (the perfect hash needs distinct keys).
    DuplicateKey(String),
    /// No seed placed every key in one of its two slots (practically unreachable).
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

/// Table size for `n` keys: a power of two with load factor at most 1/2, under which two
/// choices per key place any key set with high probability at the first seed.
pub fn slot_count(n: usize) -> usize {
    (n.max(1) * 2).next_power_of_two()
}

/// Build the perfect hash of `keys` (distinct): each slot holds its key's index in `keys` and
/// the value `value_of(index)`, which a probe returns.
pub fn build(keys: &[&str], value_of: impl Fn(usize) -> u16) -> Result<Table, BuildError> {
    check_keys(keys)?;
    place(keys, &value_of).ok_or(BuildError::NoAssignment)
}

/// Refuse a key set the table cannot index: too many keys, or a key twice.
fn check_keys(keys: &[&str]) -> Result<(), BuildError> {
    if keys.len() >= EMPTY as usize {
        return Err(BuildError::TooManyKeys(keys.len()));
    }
    // Equal keys hash equally: keys are sorted by hash (integers, not strings) and only keys
    // of one hash are compared. Of several keys given twice, the least is named.
    let mut hashed: Vec<(u64, usize)> = keys
        .iter()
        .enumerate()
        .map(|(i, k)| (hash(k.as_bytes(), DUPLICATE_SEED), i))
        .collect();
    hashed.sort_unstable();
    let mut twice: Option<&str> = None;
    for run in hashed
        .chunk_by(|a, b| a.0 == b.0)
        .filter(|run| run.len() > 1)
    {
        // Sorted, not compared pairwise: many keys crafted to one hash cost a sort.
        let mut same: Vec<&str> = run.iter().map(|&(_, i)| keys[i]).collect();
        same.sort_unstable();
        if let Some(w) = same.windows(2).find(|w| w[0] == w[1])
            && twice.is_none_or(|t| w[0] < t)
        {
            twice = Some(w[0]);
        }
    }
    match twice {
        Some(key) => Err(BuildError::DuplicateKey(key.to_string())),
        None => Ok(()),
    }
}

/// The seed of the hash that finds keys given twice (any seed does).
const DUPLICATE_SEED: u64 = 0x243F_6A88_85A3_08D3;

/// How many keys one insertion may move before the seed is given up.
const MAX_MOVES: usize = 500;

/// Search seeds for a placement of `keys` under one hash: each key in one of its two candidate
/// slots (cuckoo insertion: a key takes its first slot, moving the key there to that key's
/// other slot, and so on).
fn place(keys: &[&str], value_of: &impl Fn(usize) -> u16) -> Option<Table> {
    let n_slots = slot_count(keys.len());
    'seeds: for seed_round in 0u64..256 {
        // Odd and dense in bits, as a multiplier factor should be.
        let seed = (seed_round.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xA076_1D64_78BD_642F) | 1;
        let hashes: Vec<u64> = keys.iter().map(|k| hash(k.as_bytes(), seed)).collect();
        let mut owner = vec![usize::MAX; n_slots];
        for i in 0..keys.len() {
            if !insert(i, &hashes, &mut owner) {
                continue 'seeds;
            }
        }
        let slots = owner
            .iter()
            .map(|&i| match keys.get(i) {
                Some(key) => Slot {
                    words: words(key.as_bytes()),
                    len: key.len() as u32,
                    key: i as u16,
                    value: value_of(i),
                },
                None => Slot::VACANT,
            })
            .collect();
        let middles = keys.iter().map(|k| middle_words(k.as_bytes())).collect();
        return Some(Table {
            seed,
            slots,
            middles,
        });
    }
    None
}

/// Put key `i` in one of its candidate slots, moving keys already placed to their other slot;
/// `false` when that goes on for [`MAX_MOVES`] moves (a cycle, or a table too full).
fn insert(i: usize, hashes: &[u64], owner: &mut [usize]) -> bool {
    let [first, second] = candidates(hashes[i], owner.len());
    // A free first slot, else a free second one, keeps most keys where a probe looks first.
    let mut at = if owner[first] == usize::MAX || owner[second] != usize::MAX {
        first
    } else {
        second
    };
    let mut moving = i;
    for _ in 0..MAX_MOVES {
        if owner[at] == usize::MAX {
            owner[at] = moving;
            return true;
        }
        std::mem::swap(&mut owner[at], &mut moving);
        let [a, b] = candidates(hashes[moving], owner.len());
        at = if at == a { b } else { a };
    }
    false
}

impl TableRef<'_> {
    /// The value of `key` in the table, or `None`. Keys of 8 to [`EXACT_MAX`] bytes (the common
    /// case) take a straight-line path decided by the slot alone; shorter and longer keys take
    /// [`TableRef::probe_other_lengths`], where a key longer than [`MIDDLE_MAX`] whose words
    /// match is passed to `confirm` (with its index in the built keys), which compares the
    /// whole key.
    #[inline(always)]
    pub fn probe(&self, key: &[u8], confirm: impl FnMut(usize) -> bool) -> Option<u16> {
        let Some(w) = exact_words(key) else {
            return self.probe_other_lengths_out_of_line(key, confirm);
        };
        self.probe_words(&w, key.len())
    }

    /// [`TableRef::probe`] for a key of 8 to [`EXACT_MAX`] bytes; `Err` for any other length,
    /// which the caller passes to [`TableRef::probe_other_lengths`] out of line (a caller that
    /// builds its `confirm` there keeps it off the hot path).
    #[inline(always)]
    pub fn probe_exact(&self, key: &[u8]) -> Result<Option<u16>, OtherLength> {
        let w = exact_words(key).ok_or(OtherLength)?;
        Ok(self.probe_words(&w, key.len()))
    }

    /// The exact path once the key's words are read: both candidate slots, each one compare of
    /// its words and length. Both are read before either is compared, so neither waits on the
    /// other; the first is tested first because insertion leaves most keys there.
    #[inline(always)]
    fn probe_words(&self, w: &[u64; 4], n: usize) -> Option<u16> {
        let [a, b] = candidates(hash_words(w, n, self.seed), self.slots.len());
        let (Some(first), Some(second)) = (self.slots.get(a), self.slots.get(b)) else {
            return None;
        };
        let differ = |found: &Slot| {
            let stored = &found.words;
            (w[0] ^ stored[0])
                | (w[1] ^ stored[1])
                | (w[2] ^ stored[2])
                | (w[3] ^ stored[3])
                | (found.len as u64 ^ n as u64)
        };
        if differ(first) == 0 {
            Some(first.value)
        } else if differ(second) == 0 {
            Some(second.value)
        } else {
            None
        }
    }

    #[cold]
    #[inline(never)]
    fn probe_other_lengths_out_of_line(
        &self,
        key: &[u8],
        confirm: impl FnMut(usize) -> bool,
    ) -> Option<u16> {
        self.probe_other_lengths(key, confirm)
    }

    /// [`TableRef::probe`] for keys shorter than 8 or longer than [`EXACT_MAX`] bytes. Inlined:
    /// its caller is the cold function (so the words stay in registers, never stored and
    /// reloaded wider, which would stall on store forwarding).
    #[inline(always)]
    pub fn probe_other_lengths(
        &self,
        key: &[u8],
        mut confirm: impl FnMut(usize) -> bool,
    ) -> Option<u16> {
        let w = words(key);
        let n = key.len();
        let mut h = hash_words(&w, length_term(n), self.seed);
        let middle = middle_words(key);
        if n > MIDDLE_MAX {
            h = hash_very_long(key, h);
        } else if n > EXACT_MAX {
            h = hash_middle_words(&middle, h);
        }
        // Two long keys may share their packed words and length (they differ in the middle),
        // so each candidate whose words match is confirmed, not only the first.
        candidates(h, self.slots.len())
            .into_iter()
            .filter_map(|at| self.slots.get(at))
            .find(|found| {
                !found.is_vacant()
                    && differ(&found.words, &w) | (found.len as u64 ^ n as u64) == 0
                    && (n <= EXACT_MAX
                        || if n <= MIDDLE_MAX {
                            self.middles
                                .get(found.key as usize)
                                .is_some_and(|m| differ(m, &middle) == 0)
                        } else {
                            confirm(found.key as usize)
                        })
            })
            .map(|found| found.value)
    }
}

/// Zero exactly when the words are equal: scalar XORs and ORs, so that words held in
/// registers are not stored to compare them as vectors.
#[inline(always)]
fn differ(a: &[u64; 4], b: &[u64; 4]) -> u64 {
    (a[0] ^ b[0]) | (a[1] ^ b[1]) | (a[2] ^ b[2]) | (a[3] ^ b[3])
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OtherLength;
