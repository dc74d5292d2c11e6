//! The crate's one pseudo-random generator, SplitMix64, used by the graph generator
//! (`graph::generate`), the schema value generator and the simulator (`replay`). It lives at the
//! bottom of the layer order so any layer may draw from it, and it is written here rather than
//! taken from a crate because a seed must mean the same graphs and traces in every release:
//! the algorithm and every method's use of the stream are frozen.

/// SplitMix64: tiny, fast and stable forever.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// A generator for stream `a`/`b` of `seed`, independent of the others.
    pub fn derive(seed: u64, a: u64, b: u64) -> Rng {
        let mut r = Rng(seed ^ a.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        r.next_u64();
        r.0 ^= b.wrapping_mul(0xbf58_476d_1ce4_e5b9);
        r.next_u64();
        r
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`0` when `n` is 0, drawing nothing).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next_u64() % n }
    }

    /// An index into a collection of `len` items: [`Rng::below`] in `usize`.
    pub fn index(&mut self, len: usize) -> usize {
        self.below(len as u64) as usize
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// True with probability `p`, from [`Rng::unit`].
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// True `percent` times in a hundred, from one draw taken modulo 100. Not the same stream
    /// use as `chance(percent / 100.0)`: the graph generator's seeds are pinned to this one.
    pub fn percent(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }

    /// One of `items` (`None`, drawing nothing, when there are none).
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        items.get(self.index(items.len()))
    }
}

#[cfg(test)]
mod tests {
    use super::Rng;

    /// The first outputs of SplitMix64 from seed 0, as published with the algorithm: a change
    /// to the stream would silently change every seeded graph and trace.
    #[test]
    fn the_stream_is_splitmix64() {
        let mut rng = Rng::new(0);
        assert_eq!(rng.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(rng.next_u64(), 0x6e78_9e6a_a1b9_65f4);
        assert_eq!(rng.next_u64(), 0x06c4_5d18_8009_454f);
    }

    #[test]
    fn empty_picks_draw_nothing() {
        let (mut a, mut b) = (Rng::new(7), Rng::new(7));
        assert_eq!(a.pick::<u8>(&[]), None);
        assert_eq!(a.below(0), 0);
        assert_eq!(a.next_u64(), b.next_u64());
    }
}
