//! Two-rate three-color meters (RFC 2698, color-blind), as BMv2's v1model
//! meters: a committed bucket (CIR, CBS) and a peak bucket (PIR, PBS), both
//! full when configured. Rates use P4Runtime's units: packets or bytes per
//! second by the meter's type; bursts in packets or bytes.

/// Colors as BMv2 writes them into the program's field.
pub const GREEN: u128 = 0;
pub const YELLOW: u128 = 1;
pub const RED: u128 = 2;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MeterConfig {
    pub cir: u64,
    pub cburst: u64,
    pub pir: u64,
    pub pburst: u64,
}

impl MeterConfig {
    /// P4Runtime asks that the peak rate and burst be at least the
    /// committed ones; otherwise YELLOW could never be seen.
    pub fn check(&self) -> Result<(), String> {
        if self.pir < self.cir {
            return Err(format!("pir {} is below cir {}", self.pir, self.cir));
        }
        Ok(())
    }
}

#[derive(Debug, Default, Clone)]
pub struct Meter {
    config: Option<MeterConfig>,
    /// Tokens in the committed and peak buckets.
    tc: f64,
    tp: f64,
    last_ns: u64,
}

impl Meter {
    pub fn config(&self) -> Option<MeterConfig> {
        self.config
    }

    /// Configures the meter and fills both buckets, as a fresh meter is.
    pub fn set(&mut self, c: MeterConfig, now_ns: u64) {
        self.config = Some(c);
        self.tc = c.cburst as f64;
        self.tp = c.pburst as f64;
        self.last_ns = now_ns;
    }

    /// Back to unconfigured, as a P4Runtime write without a config asks:
    /// every packet GREEN until the next `set`.
    pub fn reset(&mut self) {
        *self = Meter::default();
    }

    /// Colors a packet of `amount` units (1 for packet meters, its length
    /// for byte meters). An unconfigured meter marks everything GREEN, as
    /// BMv2 does.
    pub fn execute(&mut self, amount: u64, now_ns: u64) -> u128 {
        let Some(c) = self.config else {
            return GREEN;
        };
        let dt = now_ns.saturating_sub(self.last_ns) as f64 / 1e9;
        self.last_ns = self.last_ns.max(now_ns);
        self.tc = (self.tc + dt * c.cir as f64).min(c.cburst as f64);
        self.tp = (self.tp + dt * c.pir as f64).min(c.pburst as f64);
        let b = amount as f64;
        if self.tp < b {
            RED
        } else if self.tc < b {
            self.tp -= b;
            YELLOW
        } else {
            self.tp -= b;
            self.tc -= b;
            GREEN
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unconfigured_is_green() {
        let mut m = Meter::default();
        assert_eq!(m.execute(1500, 0), GREEN);
    }

    #[test]
    fn burst_then_yellow_then_red_then_refill() {
        let mut m = Meter::default();
        let c = MeterConfig {
            cir: 10,
            cburst: 2,
            pir: 20,
            pburst: 3,
        };
        m.set(c, 0);
        let colors: Vec<u128> = (0..4).map(|_| m.execute(1, 0)).collect();
        assert_eq!(colors, vec![GREEN, GREEN, YELLOW, RED]);
        // 100 ms later: 1 committed token and 2 peak tokens are back.
        assert_eq!(m.execute(1, 100_000_000), GREEN);
        assert_eq!(m.execute(1, 100_000_000), YELLOW);
        assert_eq!(m.execute(1, 100_000_000), RED);
    }

    #[test]
    fn peak_below_committed_is_rejected() {
        let c = MeterConfig {
            cir: 10,
            cburst: 1,
            pir: 5,
            pburst: 1,
        };
        assert!(c.check().is_err());
    }
}
