//! A raw AF_PACKET socket bound to one interface, promiscuous, with a
//! memory-mapped receive ring (ring.rs) and batched sends (tx_batch.rs). The
//! switch's event loop drains the ring; any thread may send.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use super::ring::{Layout, Mapping, Received, RxRing};
use super::tx_batch::TxBatch;
use crate::sync::lock;

/// `PACKET_IGNORE_OUTGOING` (Linux 4.20+); not in every libc version.
const PACKET_IGNORE_OUTGOING: libc::c_int = 23;
/// Receive ring per port: 8,192 frames. At 175 kpps that is 47 ms of
/// arrivals while the event loop cannot run; on a busy VM such gaps
/// happen, and a 2,048-frame ring lost packets at half the switch's rate.
const RX_RING_BYTES: usize = 16 << 20;
const SNDBUF_BYTES: libc::c_int = 4 << 20;

pub struct AfPacket {
    pub ifname: String,
    rx: Mutex<RxRing>,
    tx: Mutex<TxBatch>,
    /// Received packets dropped because they did not fit a frame.
    rx_truncated: AtomicU64,
    /// Packets the kernel dropped because the ring was full, as counted so
    /// far (reading the kernel's count resets it).
    rx_ring_drops: AtomicU64,
    /// Packets the kernel refused to send.
    tx_dropped: AtomicU64,
    map: Mapping,
    fd: OwnedFd,
}

fn check(r: libc::c_int) -> io::Result<libc::c_int> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

fn set_int(fd: RawFd, level: libc::c_int, name: libc::c_int, value: libc::c_int) -> io::Result<()> {
    // SAFETY: value lives across the call; the size matches.
    check(unsafe {
        libc::setsockopt(
            fd,
            level,
            name,
            (&value as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    })
    .map(drop)
}

/// The interface's MTU, which sizes the ring frames.
fn mtu(fd: RawFd, name: &CString) -> io::Result<usize> {
    // SAFETY: ifreq is plain data; the name is copied with its bound checked.
    unsafe {
        let mut req: libc::ifreq = std::mem::zeroed();
        let bytes = name.as_bytes();
        if bytes.len() >= req.ifr_name.len() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "interface name too long",
            ));
        }
        for (d, &s) in req.ifr_name.iter_mut().zip(bytes) {
            *d = s as libc::c_char;
        }
        check(libc::ioctl(fd, libc::SIOCGIFMTU, &mut req))?;
        Ok(req.ifr_ifru.ifru_mtu.max(0) as usize)
    }
}

impl AfPacket {
    pub fn open(ifname: &str) -> io::Result<Self> {
        let cname = CString::new(ifname)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "NUL in name"))?;
        // SAFETY: plain libc calls on a NUL-terminated name and on an fd we own.
        let (fd, ifindex) = unsafe {
            let ifindex = libc::if_nametoindex(cname.as_ptr());
            if ifindex == 0 {
                return Err(io::Error::last_os_error());
            }
            // Protocol 0 receives nothing until bind, so no packet from another
            // interface can slip in between socket() and bind().
            let raw = check(libc::socket(
                libc::AF_PACKET,
                libc::SOCK_RAW | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC,
                0,
            ))?;
            (OwnedFd::from_raw_fd(raw), ifindex)
        };
        let raw = fd.as_raw_fd();
        let mtu = mtu(raw, &cname)?;
        let rx = Layout::for_mtu(mtu, RX_RING_BYTES);
        let map = Mapping::new(raw, rx)?;
        // SAFETY: sockaddr_ll and packet_mreq are plain data passed by size.
        unsafe {
            let mut sll: libc::sockaddr_ll = std::mem::zeroed();
            sll.sll_family = libc::AF_PACKET as u16;
            sll.sll_protocol = (libc::ETH_P_ALL as u16).to_be();
            sll.sll_ifindex = ifindex as i32;
            check(libc::bind(
                raw,
                (&sll as *const libc::sockaddr_ll).cast(),
                std::mem::size_of::<libc::sockaddr_ll>() as u32,
            ))?;
            let mut mreq: libc::packet_mreq = std::mem::zeroed();
            mreq.mr_ifindex = ifindex as i32;
            mreq.mr_type = libc::PACKET_MR_PROMISC as u16;
            check(libc::setsockopt(
                raw,
                libc::SOL_PACKET,
                libc::PACKET_ADD_MEMBERSHIP,
                (&mreq as *const libc::packet_mreq).cast(),
                std::mem::size_of::<libc::packet_mreq>() as u32,
            ))?;
        }
        // Best effort, both: older kernels lack the first, and the receive
        // path skips outgoing frames anyway; the second only saves the
        // qdisc layer (a veth has none).
        let _ = set_int(raw, libc::SOL_PACKET, PACKET_IGNORE_OUTGOING, 1);
        let _ = set_int(raw, libc::SOL_PACKET, libc::PACKET_QDISC_BYPASS, 1);
        // Best effort, FORCE for root beyond net.core.wmem_max: room for
        // the packets the receiving side of the link has not freed yet.
        for opt in [libc::SO_SNDBUFFORCE, libc::SO_SNDBUF] {
            if set_int(raw, libc::SOL_SOCKET, opt, SNDBUF_BYTES).is_ok() {
                break;
            }
        }
        Ok(AfPacket {
            ifname: ifname.to_owned(),
            rx: Mutex::new(RxRing::new(rx)),
            // A frame of the interface's MTU, with Ethernet and VLAN headers.
            tx: Mutex::new(TxBatch::new(mtu + 18)),
            rx_truncated: AtomicU64::new(0),
            rx_ring_drops: AtomicU64::new(0),
            tx_dropped: AtomicU64::new(0),
            map,
            fd,
        })
    }

    /// Calls `f` on each waiting packet, at most `max` of them; returns how
    /// many frames were taken.
    pub fn recv_batch(&self, max: usize, mut f: impl FnMut(&[u8])) -> usize {
        let mut rx = lock(&self.rx);
        let mut taken = 0;
        while taken < max {
            let more = rx.next(&self.map, |r| match r {
                Received::Packet(data) => f(data),
                Received::Outgoing => {}
                Received::Truncated { len } => {
                    if self.rx_truncated.fetch_add(1, Ordering::Relaxed) == 0 {
                        eprintln!(
                            "p4switch: {}: dropped a {len}-byte frame larger than the MTU; \
                             turn off segmentation offloads (ethtool -K {} tso off gso off gro off)",
                            self.ifname, self.ifname
                        );
                    }
                }
            });
            if !more {
                break;
            }
            taken += 1;
        }
        taken
    }

    /// Whether a received packet is waiting: a look at shared memory, no
    /// system call.
    pub fn has_waiting(&self) -> bool {
        lock(&self.rx).ready(&self.map)
    }

    /// Queues a packet to send; it leaves at the next flush, or at once
    /// when a batch is full.
    pub fn send(&self, data: &[u8]) -> io::Result<()> {
        let mut tx = lock(&self.tx);
        if data.len() > tx.slot_bytes() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "{}-byte frame is larger than the MTU of {} allows ({} bytes)",
                    data.len(),
                    self.ifname,
                    tx.slot_bytes()
                ),
            ));
        }
        tx.push(data);
        if tx.is_full() {
            self.send_batch(&mut tx)?;
        }
        Ok(())
    }

    /// Sends every queued packet.
    pub fn flush(&self) -> io::Result<()> {
        let mut tx = lock(&self.tx);
        if tx.is_empty() {
            return Ok(());
        }
        self.send_batch(&mut tx)
    }

    fn send_batch(&self, tx: &mut TxBatch) -> io::Result<()> {
        let (dropped, err) = tx.send(self.fd.as_raw_fd());
        self.tx_dropped.fetch_add(dropped as u64, Ordering::Relaxed);
        err.map_or(Ok(()), Err)
    }

    /// Packets lost before ingress: the receive ring was full (the packet
    /// thread fell behind), or a frame did not fit a ring slot.
    pub fn rx_dropped(&self) -> u64 {
        let mut stats = libc::tpacket_stats {
            tp_packets: 0,
            tp_drops: 0,
        };
        let mut len = std::mem::size_of::<libc::tpacket_stats>() as libc::socklen_t;
        // SAFETY: stats and len are valid for the size passed.
        let r = unsafe {
            libc::getsockopt(
                self.fd.as_raw_fd(),
                libc::SOL_PACKET,
                libc::PACKET_STATISTICS,
                (&mut stats as *mut libc::tpacket_stats).cast(),
                &mut len,
            )
        };
        let new = if r == 0 { u64::from(stats.tp_drops) } else { 0 };
        self.rx_ring_drops.fetch_add(new, Ordering::Relaxed)
            + new
            + self.rx_truncated.load(Ordering::Relaxed)
    }

    /// Packets that were queued to send but that the kernel refused.
    pub fn tx_dropped(&self) -> u64 {
        self.tx_dropped.load(Ordering::Relaxed)
    }

    pub fn raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}
