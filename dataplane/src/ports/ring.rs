//! The memory-mapped receive ring of an AF_PACKET socket (PACKET_RX_RING,
//! TPACKET_V2): the kernel writes frames into shared memory, and the switch
//! reads them with no system call per packet.
//!
//! Each frame starts with a `tpacket2_hdr` whose `tp_status` says who owns
//! it: the kernel fills a frame and sets TP_STATUS_USER; we read it and hand
//! it back with TP_STATUS_KERNEL.
//!
//! V2 rather than V3: V3 hands over whole blocks, and at low rates a block
//! waits for its timer (milliseconds), which would add to every RTT. There
//! is no transmit ring: its frames reach a veth as page fragments, which the
//! kernel then copies into a fresh page per packet; `sendmmsg` from a
//! batch (tx_batch.rs) is cheaper.

use std::io;
use std::os::fd::RawFd;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU32, Ordering};

/// Frame sizes are powers of two from this up, so blocks hold whole frames.
const MIN_FRAME_BYTES: usize = 2048;
/// A block holds one or more frames; the kernel wants page multiples.
const MIN_BLOCK_BYTES: usize = 1 << 16;
/// Room before a received frame's data beyond the link header, so an
/// 802.1Q tag the kernel took out can be put back in place.
const RX_OVERHEAD_BYTES: usize = 96;
/// `sockaddr_ll` follows the aligned header in a received frame.
const RX_SLL_OFFSET: usize = 32;
const VLAN_TAG_BYTES: usize = 4;
const MAC_PAIR_BYTES: usize = 12;
const ETH_P_8021Q: u16 = 0x8100;

/// Geometry of one ring.
#[derive(Debug, Clone, Copy)]
pub struct Layout {
    pub frame_bytes: usize,
    pub frame_nr: usize,
    block_bytes: usize,
}

impl Layout {
    /// Frames big enough for an `mtu`-byte payload plus Ethernet and VLAN
    /// headers, about `ring_bytes` in all.
    pub fn for_mtu(mtu: usize, ring_bytes: usize) -> Layout {
        let frame_bytes = (mtu + 18 + RX_OVERHEAD_BYTES)
            .next_power_of_two()
            .max(MIN_FRAME_BYTES);
        let block_bytes = frame_bytes.max(MIN_BLOCK_BYTES);
        let blocks = (ring_bytes / block_bytes).max(1);
        Layout {
            frame_bytes,
            frame_nr: blocks * block_bytes / frame_bytes,
            block_bytes,
        }
    }

    pub fn total_bytes(&self) -> usize {
        self.frame_nr * self.frame_bytes
    }

    fn request(&self) -> libc::tpacket_req {
        libc::tpacket_req {
            tp_block_size: self.block_bytes as u32,
            tp_block_nr: (self.total_bytes() / self.block_bytes) as u32,
            tp_frame_size: self.frame_bytes as u32,
            tp_frame_nr: self.frame_nr as u32,
        }
    }
}

fn setsockopt<T>(fd: RawFd, name: libc::c_int, value: &T) -> io::Result<()> {
    // SAFETY: value points to a live T of the size passed.
    let r = unsafe {
        libc::setsockopt(
            fd,
            libc::SOL_PACKET,
            name,
            (value as *const T).cast(),
            std::mem::size_of::<T>() as libc::socklen_t,
        )
    };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// The mapping of a socket's receive ring.
pub struct Mapping {
    base: NonNull<u8>,
    len: usize,
}

// SAFETY: the mapping is plain shared memory; every access to a frame goes
// through its status word (atomic), and one RxRing (behind a lock) reads it.
unsafe impl Send for Mapping {}
unsafe impl Sync for Mapping {}

impl Mapping {
    /// Sets up the receive ring on `fd` (TPACKET_V2, `rx` geometry) and
    /// maps it.
    pub fn new(fd: RawFd, rx: Layout) -> io::Result<Mapping> {
        let version = libc::tpacket_versions::TPACKET_V2 as libc::c_int;
        setsockopt(fd, libc::PACKET_VERSION, &version)?;
        setsockopt(fd, libc::PACKET_RX_RING, &rx.request())?;
        let len = rx.total_bytes();
        // SAFETY: a fresh shared mapping of the socket's rings; checked below.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let base = NonNull::new(p.cast()).ok_or_else(io::Error::last_os_error)?;
        Ok(Mapping { base, len })
    }

    fn frame(&self, offset: usize) -> *mut u8 {
        debug_assert!(offset < self.len);
        // SAFETY: offset is inside the mapping (the rings' geometry).
        unsafe { self.base.as_ptr().add(offset) }
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: unmapping what new() mapped, once.
        unsafe {
            libc::munmap(self.base.as_ptr().cast(), self.len);
        }
    }
}

/// The status word of the frame at `frame`.
fn status<'a>(frame: *mut u8) -> &'a AtomicU32 {
    // SAFETY: tp_status is the first, 4-byte aligned field of every frame,
    // shared with the kernel, so it is only touched atomically.
    unsafe { &*frame.cast::<AtomicU32>() }
}

/// What a received frame held.
pub enum Received<'a> {
    Packet(&'a [u8]),
    /// Our own transmission, seen by the socket: skipped.
    Outgoing,
    /// Longer than a frame (say, a GSO packet when offloads are on): its
    /// tail is lost, so it is dropped.
    Truncated {
        len: usize,
    },
}

/// The reader's place: frames are taken in order from `head`.
pub struct RxRing {
    layout: Layout,
    head: usize,
}

impl RxRing {
    pub fn new(layout: Layout) -> RxRing {
        RxRing { layout, head: 0 }
    }

    /// Whether a frame is waiting, without taking it.
    pub fn ready(&self, map: &Mapping) -> bool {
        let frame = map.frame(self.head * self.layout.frame_bytes);
        status(frame).load(Ordering::Acquire) & libc::TP_STATUS_USER != 0
    }

    /// Hands the next waiting frame to `f` and returns it to the kernel;
    /// false when none is waiting.
    pub fn next(&mut self, map: &Mapping, f: impl FnOnce(Received<'_>)) -> bool {
        let frame = map.frame(self.head * self.layout.frame_bytes);
        let st = status(frame).load(Ordering::Acquire);
        if st & libc::TP_STATUS_USER == 0 {
            return false;
        }
        // SAFETY: the frame is ours until its status goes back to the
        // kernel; the header and data lie inside it (kernel's layout).
        unsafe {
            let hdr = &*frame.cast::<libc::tpacket2_hdr>();
            let sll = &*frame.add(RX_SLL_OFFSET).cast::<libc::sockaddr_ll>();
            let len = hdr.tp_snaplen as usize;
            let mut start = usize::from(hdr.tp_mac);
            let mut data_len = len;
            let what = if sll.sll_pkttype == libc::PACKET_OUTGOING {
                Received::Outgoing
            } else if hdr.tp_len != hdr.tp_snaplen || st & libc::TP_STATUS_COPY != 0 {
                Received::Truncated {
                    len: hdr.tp_len as usize,
                }
            } else {
                // The kernel takes an 802.1Q tag out of the data into the
                // header; the program must see the packet as sent.
                if st & libc::TP_STATUS_VLAN_VALID != 0
                    && start >= RX_SLL_OFFSET + std::mem::size_of::<libc::sockaddr_ll>() + 4
                    && len >= MAC_PAIR_BYTES
                {
                    let tpid = if st & libc::TP_STATUS_VLAN_TPID_VALID != 0 {
                        hdr.tp_vlan_tpid
                    } else {
                        ETH_P_8021Q
                    };
                    let tci = hdr.tp_vlan_tci;
                    let p = frame.add(start);
                    std::ptr::copy(p, p.sub(VLAN_TAG_BYTES), MAC_PAIR_BYTES);
                    let tag = p.add(MAC_PAIR_BYTES - VLAN_TAG_BYTES);
                    std::ptr::copy_nonoverlapping(tpid.to_be_bytes().as_ptr(), tag, 2);
                    std::ptr::copy_nonoverlapping(tci.to_be_bytes().as_ptr(), tag.add(2), 2);
                    start -= VLAN_TAG_BYTES;
                    data_len += VLAN_TAG_BYTES;
                }
                Received::Packet(std::slice::from_raw_parts(frame.add(start), data_len))
            };
            f(what);
        }
        status(frame).store(libc::TP_STATUS_KERNEL, Ordering::Release);
        self.head = (self.head + 1) % self.layout.frame_nr;
        true
    }
}
