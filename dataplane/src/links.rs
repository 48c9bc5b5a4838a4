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
pub struct InFlight {
    pub lands_ns: u64,
    /// Keeps packets that land at the same time in order.
    seq: u64,
    pub dir: Direction,
    pub port: u32,
    pub data: Vec<u8>,
}

#[derive(Default)]
pub struct Links {
    delay_ns: HashMap<u32, u64>,
    wire: BinaryHeap<Reverse<InFlight>>,
    seq: u64,
    /// Packets on the wire out of each port, not yet landed.
    out_in_flight: HashMap<u32, usize>,
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

    /// Puts a packet on the wire once it is sent at `sent_ns` (the end of
    /// its transmission); it lands `delay` later, at the time returned.
    pub fn send(&mut self, dir: Direction, port: u32, data: Vec<u8>, sent_ns: u64) -> u64 {
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

    /// The next packet that has landed by `now_ns`.
    pub fn pop_landed(&mut self, now_ns: u64) -> Option<InFlight> {
        if self.next_landing_ns()? > now_ns {
            return None;
        }
        let Reverse(p) = self.wire.pop()?;
        if p.dir == Direction::Out {
            if let Some(n) = self.out_in_flight.get_mut(&p.port) {
                *n -= 1;
                if *n == 0 {
                    self.out_in_flight.remove(&p.port);
                }
            }
        }
        Some(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packets_land_after_the_delay_in_order() {
        let mut l = Links::default();
        l.set_delay(1, 1000);
        l.send(Direction::Out, 1, vec![1], 0);
        l.send(Direction::Out, 1, vec![2], 0);
        l.send(Direction::In, 2, vec![3], 10);
        assert_eq!(l.pop_landed(9), None);
        assert_eq!(l.pop_landed(10).map(|p| p.data), Some(vec![3]));
        assert_eq!(l.pop_landed(999), None);
        assert_eq!(l.next_landing_ns(), Some(1000));
        assert_eq!(l.pop_landed(1000).map(|p| p.data), Some(vec![1]));
        assert_eq!(l.pop_landed(1000).map(|p| p.data), Some(vec![2]));
    }

    #[test]
    fn a_port_holds_out_until_its_last_packet_lands() {
        let mut l = Links::default();
        l.send(Direction::Out, 1, vec![1], 10);
        l.send(Direction::Out, 1, vec![2], 20);
        l.send(Direction::In, 2, vec![3], 5);
        assert!(l.holds_out(1) && !l.holds_out(2));
        l.pop_landed(10);
        l.pop_landed(10);
        assert!(l.holds_out(1));
        l.pop_landed(20);
        assert!(!l.holds_out(1));
    }
}
