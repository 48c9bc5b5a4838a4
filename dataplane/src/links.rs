//! Link emulation: a pure propagation delay on each direction of a port,
//! outside the P4-visible queue. Arrivals wait `delay` before ingress;
//! departures wait for the end of their transmission (at the queue's rate)
//! and `delay` more before they reach the port. The
//! line rate is not modelled here: the port's queues drain at it instead
//! (switch/queues.rs), so no buffer builds where the program cannot see it. What
//! is in flight is only what a real wire of that delay would hold.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Direction {
    /// Towards the switch: ingress runs when it lands.
    In,
    /// Away from the switch: transmitted when it lands.
    Out,
}

#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
struct InFlight {
    lands_ns: u64,
    /// Keeps packets that land at the same time in order.
    seq: u64,
    dir: Direction,
    port: u32,
    data: Vec<u8>,
}

/// A packet off the wire; its bytes are in the buffer `pop_landed` filled.
#[derive(Debug, PartialEq, Eq)]
pub struct Landed {
    pub lands_ns: u64,
    pub dir: Direction,
    pub port: u32,
}

#[derive(Default)]
pub struct Links {
    delay_ns: HashMap<u32, u64>,
    wire: BinaryHeap<Reverse<InFlight>>,
    seq: u64,
    /// Packets on the wire out of each port, not yet landed.
    out_in_flight: HashMap<u32, usize>,
    /// Buffers of landed packets, reused so a steady flow does not
    /// allocate.
    pool: Vec<Vec<u8>>,
}

impl Links {
    pub fn set_delay(&mut self, port: u32, delay_ns: u64) {
        if delay_ns == 0 {
            self.delay_ns.remove(&port);
        } else {
            self.delay_ns.insert(port, delay_ns);
        }
    }

    pub fn delay_ns(&self, port: u32) -> u64 {
        self.delay_ns.get(&port).copied().unwrap_or(0)
    }

    pub fn any_delay(&self) -> bool {
        !self.delay_ns.is_empty()
    }

    /// Puts a copy of a packet on the wire once it is sent at `sent_ns`
    /// (the end of its transmission); it lands `delay` later, at the time
    /// returned.
    pub fn send(&mut self, dir: Direction, port: u32, bytes: &[u8], sent_ns: u64) -> u64 {
        let mut data = self.pool.pop().unwrap_or_default();
        data.clear();
        data.extend_from_slice(bytes);
        self.seq += 1;
        if dir == Direction::Out {
            *self.out_in_flight.entry(port).or_default() += 1;
        }
        let lands_ns = sent_ns.saturating_add(self.delay_ns(port));
        self.wire.push(Reverse(InFlight {
            lands_ns,
            seq: self.seq,
            dir,
            port,
            data,
        }));
        lands_ns
    }

    /// Whether packets sent out of `port` are still on the wire: a later one
    /// must follow them, never overtake them.
    pub fn holds_out(&self, port: u32) -> bool {
        self.out_in_flight.contains_key(&port)
    }

    pub fn next_landing_ns(&self) -> Option<u64> {
        self.wire.peek().map(|Reverse(p)| p.lands_ns)
    }

    /// The next packet that has landed by `now_ns`, its bytes swapped into
    /// `data`: the buffer `data` held is kept for a later packet.
    pub fn pop_landed(&mut self, now_ns: u64, data: &mut Vec<u8>) -> Option<Landed> {
        if self.next_landing_ns()? > now_ns {
            return None;
        }
        let Reverse(mut p) = self.wire.pop()?;
        std::mem::swap(&mut p.data, data);
        self.pool.push(p.data);
        if p.dir == Direction::Out {
            if let Some(n) = self.out_in_flight.get_mut(&p.port) {
                *n -= 1;
                if *n == 0 {
                    self.out_in_flight.remove(&p.port);
                }
            }
        }
        Some(Landed {
            lands_ns: p.lands_ns,
            dir: p.dir,
            port: p.port,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bytes of the next packet landed by `now_ns`.
    fn landed_bytes(l: &mut Links, now_ns: u64) -> Option<Vec<u8>> {
        let mut data = Vec::new();
        l.pop_landed(now_ns, &mut data).map(|_| data)
    }

    #[test]
    fn packets_land_after_the_delay_in_order() {
        let mut l = Links::default();
        l.set_delay(1, 1000);
        l.send(Direction::Out, 1, &[1], 0);
        l.send(Direction::Out, 1, &[2], 0);
        l.send(Direction::In, 2, &[3], 10);
        assert_eq!(landed_bytes(&mut l, 9), None);
        assert_eq!(landed_bytes(&mut l, 10), Some(vec![3]));
        assert_eq!(landed_bytes(&mut l, 999), None);
        assert_eq!(l.next_landing_ns(), Some(1000));
        assert_eq!(landed_bytes(&mut l, 1000), Some(vec![1]));
        assert_eq!(landed_bytes(&mut l, 1000), Some(vec![2]));
    }

    #[test]
    fn landed_buffers_carry_the_next_packets() {
        let mut l = Links::default();
        let mut data = Vec::with_capacity(64);
        let buffer = data.as_ptr();
        l.send(Direction::In, 1, &[1], 0);
        l.pop_landed(0, &mut data);
        l.send(Direction::In, 1, &[2, 3], 0);
        l.pop_landed(0, &mut data);
        assert_eq!(data.as_ptr(), buffer);
        assert_eq!(data, vec![2, 3]);
    }

    #[test]
    fn a_port_holds_out_until_its_last_packet_lands() {
        let mut l = Links::default();
        l.send(Direction::Out, 1, &[1], 10);
        l.send(Direction::Out, 1, &[2], 20);
        l.send(Direction::In, 2, &[3], 5);
        assert!(l.holds_out(1) && !l.holds_out(2));
        landed_bytes(&mut l, 10);
        landed_bytes(&mut l, 10);
        assert!(l.holds_out(1));
        landed_bytes(&mut l, 20);
        assert!(!l.holds_out(1));
    }
}
