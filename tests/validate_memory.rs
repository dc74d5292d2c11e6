//! Validating a large graph holds about one copy of it: a counting global allocator follows the
//! live heap while `check_file` validates a generated 20,000-node graph, and the peak must stay
//! under 10× the file's size (issue 10, item 22; it was 17× when the value tree and the loaded
//! document were both whole, and the read buffer lived beside the parser's copy of the text).
//! Its own test binary, so no other test allocates concurrently. A bound on bytes, not on time.

use primgraph::registry::Registry;
use primgraph::validate::{Options, check_file};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(by: usize) {
    let live = LIVE.fetch_add(by, Ordering::SeqCst) + by;
    PEAK.fetch_max(live, Ordering::SeqCst);
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::SeqCst);
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size >= layout.size() {
            grew(new_size - layout.size());
        } else {
            LIVE.fetch_sub(layout.size() - new_size, Ordering::SeqCst);
        }
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn validating_a_large_graph_peaks_under_ten_times_its_size() {
    let registry = Registry::builtin();
    let dir = std::env::temp_dir().join(format!("primgraph-memory-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let write = |nodes: usize| {
        let graph = primgraph::graph::generate::generate(nodes, 22, registry).expect("generates");
        let path = dir.join(format!("g{nodes}.graph.json"));
        std::fs::write(
            &path,
            serde_json::to_vec_pretty(&graph).expect("serialises"),
        )
        .expect("writes");
        path
    };
    let (small, large) = (write(50), write(20_000));
    let options = Options::default();
    // The first validation fills the registry's caches (compiled validators): not the graph's.
    let warm = check_file(&small, registry, &options).expect("reads");
    assert!(warm.graph.is_some());
    let size = std::fs::metadata(&large).expect("metadata").len() as usize;

    let before = LIVE.load(Ordering::SeqCst);
    PEAK.store(before, Ordering::SeqCst);
    let report = check_file(&large, registry, &options).expect("reads");
    let peak = PEAK.load(Ordering::SeqCst) - before;
    std::fs::remove_dir_all(&dir).ok();

    assert_eq!(
        report.graph.as_deref(),
        Some("generated-20000-22"),
        "it was validated"
    );
    let ratio = peak as f64 / size as f64;
    eprintln!("peak heap {peak} bytes for a {size}-byte graph: {ratio:.2}×");
    assert!(
        ratio < 10.0,
        "peak heap {peak} bytes while validating a {size}-byte graph: {ratio:.1}× its size"
    );
}
