//! Packets waiting to leave on one socket, sent together by one `sendmmsg`
//! call. They are copied into slots of a buffer allocated once, so sending
//! allocates nothing per packet.

use std::io;
use std::os::fd::RawFd;

/// Packets per `sendmmsg`.
pub const TX_BATCH: usize = 32;
/// How long a send waits for the socket's buffer before the packet is
/// dropped. Sent packets hold the buffer until the receiving side of the
/// link frees them, which the kernel may defer to ksoftirqd on this core.
const TX_WAIT_MS: libc::c_int = 10;

pub struct TxBatch {
    buf: Vec<u8>,
    lens: [usize; TX_BATCH],
    slot_bytes: usize,
    count: usize,
}

impl TxBatch {
    /// A batch whose packets may be up to `slot_bytes` long.
    pub fn new(slot_bytes: usize) -> TxBatch {
        TxBatch {
            buf: vec![0; slot_bytes * TX_BATCH],
            lens: [0; TX_BATCH],
            slot_bytes,
            count: 0,
        }
    }

    pub fn slot_bytes(&self) -> usize {
        self.slot_bytes
    }

    pub fn is_full(&self) -> bool {
        self.count == TX_BATCH
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Copies a packet into the next slot. The caller sends a full batch
    /// first and checks the length against `slot_bytes`.
    pub fn push(&mut self, data: &[u8]) {
        debug_assert!(!self.is_full() && data.len() <= self.slot_bytes);
        let at = self.count * self.slot_bytes;
        self.buf[at..at + data.len()].copy_from_slice(data);
        self.lens[self.count] = data.len();
        self.count += 1;
    }

    /// Sends every packet of the batch on `fd` (bound to its interface) and
    /// empties it. When the socket's buffer is full, it waits for room (up
    /// to TX_WAIT_MS); a packet the kernel still refuses is dropped and the
    /// rest go. Returns how many were dropped and the first error.
    pub fn send(&mut self, fd: RawFd) -> (usize, Option<io::Error>) {
        // SAFETY: all-zero iovec and mmsghdr are valid (null pointers, zero
        // lengths); they are filled below.
        let mut iov: [libc::iovec; TX_BATCH] = unsafe { std::mem::zeroed() };
        let mut msgs: [libc::mmsghdr; TX_BATCH] = unsafe { std::mem::zeroed() };
        for i in 0..self.count {
            iov[i].iov_base = self.buf[i * self.slot_bytes..].as_mut_ptr().cast();
            iov[i].iov_len = self.lens[i];
            msgs[i].msg_hdr.msg_iov = &mut iov[i];
            msgs[i].msg_hdr.msg_iovlen = 1;
        }
        let mut first_err = None;
        let mut dropped = 0;
        let mut waited = false;
        let mut done = 0;
        while done < self.count {
            // SAFETY: msgs[done..count] point into self.buf, alive and
            // unchanged during the call.
            let n = unsafe {
                libc::sendmmsg(
                    fd,
                    msgs[done..].as_mut_ptr(),
                    (self.count - done) as libc::c_uint,
                    libc::MSG_DONTWAIT,
                )
            };
            if n > 0 {
                done += n as usize;
                waited = false;
                continue;
            }
            let e = io::Error::last_os_error();
            let full = matches!(e.raw_os_error(), Some(libc::EAGAIN | libc::ENOBUFS));
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            if full && !waited {
                waited = true;
                wait_writable(fd);
                continue;
            }
            // The packet at `done` failed: drop it and go on with the rest.
            first_err.get_or_insert(e);
            dropped += 1;
            done += 1;
        }
        self.count = 0;
        (dropped, first_err)
    }
}

fn wait_writable(fd: RawFd) {
    let mut p = libc::pollfd {
        fd,
        events: libc::POLLOUT,
        revents: 0,
    };
    // SAFETY: one valid pollfd.
    unsafe {
        libc::poll(&mut p, 1, TX_WAIT_MS);
    }
}
