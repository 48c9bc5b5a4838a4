//! Taking locks whatever a panicking thread left behind: a panic in one
//! packet thread (a bug, reported on its own) must not stop every other
//! thread and the control plane at the next poisoned lock. The state a lock
//! guards stays usable: each holder leaves it consistent between packets.

use std::sync::{
    Condvar, Mutex, MutexGuard, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard,
};
use std::time::Duration;

pub fn lock<T: ?Sized>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

pub fn read_lock<T: ?Sized>(l: &RwLock<T>) -> RwLockReadGuard<'_, T> {
    l.read().unwrap_or_else(PoisonError::into_inner)
}

pub fn write_lock<T: ?Sized>(l: &RwLock<T>) -> RwLockWriteGuard<'_, T> {
    l.write().unwrap_or_else(PoisonError::into_inner)
}

/// Waits on `c` for at most `timeout`; whether it timed out is left to the
/// caller's own look at the guarded state.
pub fn wait_timeout<'a, T>(
    c: &Condvar,
    g: MutexGuard<'a, T>,
    timeout: Duration,
) -> MutexGuard<'a, T> {
    match c.wait_timeout(g, timeout) {
        Ok((g, _)) => g,
        Err(e) => e.into_inner().0,
    }
}
