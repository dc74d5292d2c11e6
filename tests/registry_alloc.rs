//! A lookup allocates nothing: a counting global allocator around lookups by ID, by alias and
//! misses, on the built-in registry (`Registry::lookup`, `Isa::from_key`) and on one loaded at
//! run time. Its own test binary, so no other test allocates concurrently.

use primgraph::registry::{Isa, Registry};
use std::alloc::{GlobalAlloc, Layout, System};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::SeqCst);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::SeqCst);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations_during(f: impl FnOnce() -> usize) -> (usize, usize) {
    let before = ALLOCATIONS.load(Ordering::SeqCst);
    let found = std::hint::black_box(f());
    (ALLOCATIONS.load(Ordering::SeqCst) - before, found)
}

#[test]
fn lookups_allocate_nothing() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/registry/valid.json");
    let loaded = Registry::from_path(&path).expect("fixture loads");
    let builtin = Registry::builtin();
    for registry in [&loaded, builtin] {
        let keys: Vec<String> = registry
            .primitives()
            .iter()
            .flat_map(|p| [p.id.clone(), p.alias.clone()])
            .collect();
        let misses: Vec<String> = keys.iter().map(|k| format!("{k}x")).collect();
        let (allocs, found) = allocations_during(|| {
            keys.iter().filter(|k| registry.lookup(k).is_some()).count()
                + misses
                    .iter()
                    .filter(|k| registry.lookup(k).is_some())
                    .count()
                + keys.iter().filter(|k| Isa::from_key(k).is_some()).count()
        });
        assert_eq!(allocs, 0, "lookups allocated");
        assert!(found >= keys.len(), "the lookups ran ({found})");
    }
}
