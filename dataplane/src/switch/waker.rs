//! Wakes the switch's event loop from other threads (a packet-out, a
//! control-plane change, the monitor starting, stop): an eventfd among the
//! file descriptors it sleeps on. A wake-up written before the loop
//! sleeps is kept by the counter, so none is lost to a race.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

pub struct Waker {
    fd: OwnedFd,
}

impl Waker {
    pub fn new() -> io::Result<Self> {
        // SAFETY: eventfd takes no pointers; a valid result is a new fd we own.
        let fd = unsafe { libc::eventfd(0, libc::EFD_NONBLOCK | libc::EFD_CLOEXEC) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: fd was just created and is owned by nothing else.
        Ok(Waker {
            fd: unsafe { OwnedFd::from_raw_fd(fd) },
        })
    }

    pub fn wake(&self) {
        let one: u64 = 1;
        // SAFETY: writes 8 bytes from a valid u64. It fails only when the
        // counter is near overflow, when the loop is awake anyway.
        unsafe { libc::write(self.fd.as_raw_fd(), (&one as *const u64).cast(), 8) };
    }

    /// Clears the wake-ups written so far (the loop is awake).
    pub fn drain(&self) {
        let mut count: u64 = 0;
        // SAFETY: reads at most 8 bytes into a valid u64; nonblocking.
        unsafe { libc::read(self.fd.as_raw_fd(), (&mut count as *mut u64).cast(), 8) };
    }

    pub fn raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn readable(w: &Waker) -> bool {
        let mut fd = libc::pollfd {
            fd: w.raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd; zero timeout.
        unsafe { libc::poll(&mut fd, 1, 0) == 1 }
    }

    #[test]
    fn a_wake_up_is_kept_until_drained() {
        let w = Waker::new().unwrap();
        assert!(!readable(&w));
        w.wake();
        w.wake();
        assert!(readable(&w));
        w.drain();
        assert!(!readable(&w));
    }
}
