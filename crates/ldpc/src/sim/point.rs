//! One SNR point's counts and rates, and when a point stops.

use serde::{Deserialize, Serialize};

/// One SNR point's counts and rates.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct PointResult {
    pub es_n0_db: f64,
    pub eb_n0_db: f64,
    pub frames: u64,
    pub frame_errors: u64,
    pub bit_errors: u64,
    pub info_bits: u64,
    pub ber: f64,
    pub fer: f64,
    /// 95% Wilson intervals (bits counted as independent trials for the BER).
    pub ber_ci: [f64; 2],
    pub fer_ci: [f64; 2],
    pub mean_iterations: f64,
    pub seconds: f64,
}

impl PointResult {
    pub(super) fn new(es_n0_db: f64, eb_n0_db: f64) -> PointResult {
        PointResult {
            es_n0_db,
            eb_n0_db,
            frames: 0,
            frame_errors: 0,
            bit_errors: 0,
            info_bits: 0,
            ber: 0.0,
            fer: 0.0,
            ber_ci: [0.0, 1.0],
            fer_ci: [0.0, 1.0],
            mean_iterations: 0.0,
            seconds: 0.0,
        }
    }

    pub(super) fn update_rates(&mut self) {
        self.ber = self.bit_errors as f64 / self.info_bits.max(1) as f64;
        self.fer = self.frame_errors as f64 / self.frames.max(1) as f64;
        self.ber_ci = wilson(self.bit_errors, self.info_bits);
        self.fer_ci = wilson(self.frame_errors, self.frames);
    }
}

/// 95% Wilson score interval for `k` successes in `n` trials.
pub fn wilson(k: u64, n: u64) -> [f64; 2] {
    if n == 0 {
        return [0.0, 1.0];
    }
    let (k, n, z) = (k as f64, n as f64, 1.959_963_984_540_054);
    let p = k / n;
    let denom = 1.0 + z * z / n;
    let center = (p + z * z / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / denom;
    [(center - half).max(0.0), (center + half).min(1.0)]
}

/// When a point stops: after `min_errors` frame errors or `max_frames` frames.
#[derive(Clone, Copy, Debug)]
pub struct StopRule {
    pub min_errors: u64,
    pub max_frames: u64,
    /// Frames per decoder call.
    pub batch: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_interval() {
        let [lo, hi] = wilson(10, 1000);
        assert!(
            lo < 0.01 && hi > 0.01 && lo > 0.004 && hi < 0.02,
            "{lo} {hi}"
        );
        let [lo, hi] = wilson(0, 1000);
        assert!(lo < 1e-12 && hi > 0.003 && hi < 0.005, "{lo} {hi}");
    }
}
