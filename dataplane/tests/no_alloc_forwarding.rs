//! Forwarding allocates nothing per packet once its pools are sized: a
//! rate-limited egress queue and delayed links on both sides, in virtual
//! time, counted by a global allocator.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use _dataplane::switch::{ApiKey, Options, Switch};

const FIXTURE: &[u8] = include_bytes!("../../tests/dataplane/fixtures/l3_forward.json");

/// Counts the allocations of the thread that turned counting on: the test
/// harness's own threads stay out of the count.
struct Counting;

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

fn note_allocation() {
    if COUNTING.with(Cell::get) {
        ALLOCATIONS.with(|n| n.set(n.get() + 1));
    }
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note_allocation();
        System.alloc(layout)
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note_allocation();
        System.alloc_zeroed(layout)
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note_allocation();
        System.realloc(ptr, layout, new_size)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn allocations_during(f: impl FnOnce()) -> u64 {
    ALLOCATIONS.with(|n| n.set(0));
    COUNTING.with(|c| c.set(true));
    f();
    COUNTING.with(|c| c.set(false));
    ALLOCATIONS.with(Cell::get)
}

const IN_PORT: u32 = 1;
/// No port is attached here: the in-memory port hands each packet to its
/// caller as a new Vec, which is the test collector's cost, not the path's.
const OUT_PORT: u32 = 2;

fn packet() -> Vec<u8> {
    let mut p = vec![0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0x08, 0x00];
    p.extend_from_slice(&[0x45, 0, 0, 24, 0, 1, 0, 0, 64, 17, 0, 0]);
    p.extend_from_slice(&[10, 0, 1, 1, 10, 0, 2, 2]);
    p.extend_from_slice(b"data");
    p
}

/// A switch in virtual time whose packets from `IN_PORT` wait on its
/// delayed link, then queue for `OUT_PORT`'s 100 Mb/s line and its link.
fn switch() -> Switch {
    let sw = Switch::with_options(Options {
        virtual_time: true,
        ..Options::default()
    });
    sw.load_pipeline(FIXTURE).unwrap();
    sw.table_add(
        "MyIngress.ipv4_lpm",
        &[ApiKey::Lpm(vec![10, 0, 2, 0], 24)],
        "MyIngress.ipv4_forward",
        &[vec![2; 6], vec![1; 6], vec![OUT_PORT as u8]],
        0,
    )
    .unwrap();
    sw.set_link(IN_PORT, Some(20), None).unwrap();
    sw.set_link(OUT_PORT, Some(30), Some(100_000_000)).unwrap();
    sw
}

/// Bursts of four: they queue behind each other on the line, and some are
/// still on the links when the next burst arrives.
fn forward(sw: &Switch, data: &[u8], packets: usize) {
    for _ in 0..packets / 4 {
        for _ in 0..4 {
            sw.inject(IN_PORT, data).unwrap();
        }
        sw.advance_time(40).unwrap();
    }
}

#[test]
fn forwarding_through_a_rate_limited_queue_and_delayed_links_does_not_allocate() {
    let sw = switch();
    let data = packet();
    forward(&sw, &data, 200);
    let after_1000 = allocations_during(|| forward(&sw, &data, 1000));
    let after_2000 = allocations_during(|| forward(&sw, &data, 2000));
    assert_eq!(
        (after_1000, after_2000),
        (0, 0),
        "allocations while forwarding 1,000 and 2,000 packets"
    );
    assert_eq!(sw.port_stats(IN_PORT)[0], ("rx_packets".to_owned(), 3200));
    let out = sw.port_stats(OUT_PORT);
    assert_eq!(out[1], ("tx_packets".to_owned(), 3200));
    assert_eq!(out[2], ("tm_drops".to_owned(), 0));
}
