//! The worker pool behind every `--jobs N` (validate, replay): `0` means one thread per core,
//! and a request over [`MAX_JOBS`] is clamped to it, because each rayon thread costs a stack and
//! a guard page and `--jobs 100000` would abort the process (or spin thousands of idle threads)
//! for no gain on any machine this runs on. The CLI says on stderr when it clamps.

/// The most worker threads any command starts.
pub const MAX_JOBS: usize = 256;

/// The thread count a request resolves to: `0` → the machine's cores, at most [`MAX_JOBS`].
pub fn effective_jobs(requested: usize) -> usize {
    let jobs = if requested == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        requested
    };
    jobs.clamp(1, MAX_JOBS)
}

/// A rayon pool of [`effective_jobs`]`(requested)` threads.
pub fn pool(requested: usize) -> Result<rayon::ThreadPool, rayon::ThreadPoolBuildError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(effective_jobs(requested))
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_resolve_within_one_and_the_maximum() {
        assert_eq!(effective_jobs(3), 3);
        assert_eq!(effective_jobs(100_000), MAX_JOBS);
        assert!((1..=MAX_JOBS).contains(&effective_jobs(0)));
    }
}
