//! A raw AF_PACKET socket bound to one interface, promiscuous and
//! non-blocking. The switch polls these from its packet thread.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// `PACKET_IGNORE_OUTGOING` (Linux 4.20+); not in every libc version.
const PACKET_IGNORE_OUTGOING: libc::c_int = 23;

/// Receive buffer per port.
const RCVBUF_BYTES: libc::c_int = 4 << 20;

pub struct AfPacket {
    pub ifname: String,
    fd: OwnedFd,
}

impl AfPacket {
    pub fn open(ifname: &str) -> io::Result<Self> {
        let cname = CString::new(ifname)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "NUL in name"))?;
        // SAFETY: plain libc calls on a NUL-terminated name and on an fd we own.
        unsafe {
            let ifindex = libc::if_nametoindex(cname.as_ptr());
            if ifindex == 0 {
                return Err(io::Error::last_os_error());
            }
            // Protocol 0 receives nothing until bind, so no packet from another
            // interface can slip in between socket() and bind().
            let raw = libc::socket(
                libc::AF_PACKET,
                libc::SOCK_RAW | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC,
                0,
            );
            if raw < 0 {
                return Err(io::Error::last_os_error());
            }
            let fd = OwnedFd::from_raw_fd(raw);
            let mut sll: libc::sockaddr_ll = std::mem::zeroed();
            sll.sll_family = libc::AF_PACKET as u16;
            sll.sll_protocol = (libc::ETH_P_ALL as u16).to_be();
            sll.sll_ifindex = ifindex as i32;
            if libc::bind(
                raw,
                (&sll as *const libc::sockaddr_ll).cast(),
                std::mem::size_of::<libc::sockaddr_ll>() as u32,
            ) < 0
            {
                return Err(io::Error::last_os_error());
            }
            let mut mreq: libc::packet_mreq = std::mem::zeroed();
            mreq.mr_ifindex = ifindex as i32;
            mreq.mr_type = libc::PACKET_MR_PROMISC as u16;
            if libc::setsockopt(
                raw,
                libc::SOL_PACKET,
                libc::PACKET_ADD_MEMBERSHIP,
                (&mreq as *const libc::packet_mreq).cast(),
                std::mem::size_of::<libc::packet_mreq>() as u32,
            ) < 0
            {
                return Err(io::Error::last_os_error());
            }
            // Best effort: a burst larger than the default buffer (~200 KiB)
            // would be lost while the packet thread is busy. FORCE works for
            // root beyond net.core.rmem_max; otherwise the capped size applies.
            let rcvbuf: libc::c_int = RCVBUF_BYTES;
            for opt in [libc::SO_RCVBUFFORCE, libc::SO_RCVBUF] {
                if libc::setsockopt(
                    raw,
                    libc::SOL_SOCKET,
                    opt,
                    (&rcvbuf as *const libc::c_int).cast(),
                    std::mem::size_of::<libc::c_int>() as u32,
                ) == 0
                {
                    break;
                }
            }
            // Best effort: older kernels lack it, and recv() filters by
            // sll_pkttype anyway.
            let one: libc::c_int = 1;
            libc::setsockopt(
                raw,
                libc::SOL_PACKET,
                PACKET_IGNORE_OUTGOING,
                (&one as *const libc::c_int).cast(),
                std::mem::size_of::<libc::c_int>() as u32,
            );
            Ok(AfPacket {
                ifname: ifname.to_owned(),
                fd,
            })
        }
    }

    /// Receives one packet into `buf`; `Ok(None)` when nothing is waiting.
    /// Packets this host sent (our own transmissions) are skipped.
    pub fn recv(&self, buf: &mut [u8]) -> io::Result<Option<usize>> {
        loop {
            // SAFETY: buf and the address are valid for the sizes passed.
            let (n, pkttype) = unsafe {
                let mut sll: libc::sockaddr_ll = std::mem::zeroed();
                let mut alen = std::mem::size_of::<libc::sockaddr_ll>() as libc::socklen_t;
                let n = libc::recvfrom(
                    self.fd.as_raw_fd(),
                    buf.as_mut_ptr().cast(),
                    buf.len(),
                    0,
                    (&mut sll as *mut libc::sockaddr_ll).cast(),
                    &mut alen,
                );
                (n, sll.sll_pkttype)
            };
            if n < 0 {
                let e = io::Error::last_os_error();
                return match e.kind() {
                    io::ErrorKind::WouldBlock => Ok(None),
                    io::ErrorKind::Interrupted => continue,
                    _ => Err(e),
                };
            }
            if pkttype == libc::PACKET_OUTGOING {
                continue;
            }
            return Ok(Some(n as usize));
        }
    }

    pub fn send(&self, data: &[u8]) -> io::Result<()> {
        // SAFETY: data is valid for its length; the socket is bound.
        let n = unsafe { libc::send(self.fd.as_raw_fd(), data.as_ptr().cast(), data.len(), 0) };
        if n < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(())
        }
    }

    pub fn raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}
