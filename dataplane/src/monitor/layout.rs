//! The layout of one monitor record: a fixed number of little-endian u64
//! fields, named so a reader can find them. Three header fields, then seven
//! per queue, one per register cell and two per counter cell.

/// `period`, `time_us`, `realtime_ns`.
pub const HEADER_FIELDS: usize = 3;
pub const QUEUE_FIELDS: [&str; 7] = [
    "qdepth_pkts",
    "qdepth_bytes",
    "arrivals",
    "departures",
    "tm_drops",
    "departed_sojourn_max_us",
    "departed_sojourn_sum_us",
];
pub const COUNTER_FIELDS: [&str; 2] = ["packets", "bytes"];

/// How many queues, register cells and counter cells a record holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    pub queues: usize,
    pub registers: usize,
    pub counters: usize,
}

impl Layout {
    /// Fields (u64s) in one record.
    pub fn fields(&self) -> usize {
        HEADER_FIELDS
            + QUEUE_FIELDS.len() * self.queues
            + self.registers
            + COUNTER_FIELDS.len() * self.counters
    }

    /// Index of queue `i`'s first field (`qdepth_pkts`).
    pub fn queue(&self, i: usize) -> usize {
        HEADER_FIELDS + QUEUE_FIELDS.len() * i
    }

    /// Index of register cell `j`.
    pub fn register(&self, j: usize) -> usize {
        self.queue(self.queues) + j
    }

    /// Index of counter cell `k`'s first field (`packets`).
    pub fn counter(&self, k: usize) -> usize {
        self.register(self.registers) + COUNTER_FIELDS.len() * k
    }

    /// The field names, in record order.
    pub fn field_names(&self) -> Vec<String> {
        let mut names: Vec<String> = ["period", "time_us", "realtime_ns"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        for i in 0..self.queues {
            names.extend(QUEUE_FIELDS.iter().map(|f| format!("q{i}.{f}")));
        }
        names.extend((0..self.registers).map(|j| format!("r{j}")));
        for k in 0..self.counters {
            names.extend(COUNTER_FIELDS.iter().map(|f| format!("c{k}.{f}")));
        }
        names
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_offsets_agree() {
        let l = Layout {
            queues: 2,
            registers: 2,
            counters: 1,
        };
        let names = l.field_names();
        assert_eq!(names.len(), l.fields());
        assert_eq!(l.fields(), 3 + 14 + 2 + 2);
        assert_eq!(
            &names[..4],
            ["period", "time_us", "realtime_ns", "q0.qdepth_pkts"]
        );
        assert_eq!(names[l.queue(1)], "q1.qdepth_pkts");
        assert_eq!(names[l.queue(1) + 6], "q1.departed_sojourn_sum_us");
        assert_eq!(names[l.register(0)], "r0");
        assert_eq!(names[l.register(1)], "r1");
        assert_eq!(names[l.counter(0)], "c0.packets");
        assert_eq!(names[l.counter(0) + 1], "c0.bytes");
    }

    #[test]
    fn a_record_of_no_queues_has_its_header() {
        let l = Layout {
            queues: 0,
            registers: 0,
            counters: 0,
        };
        assert_eq!(l.field_names(), ["period", "time_us", "realtime_ns"]);
    }
}
