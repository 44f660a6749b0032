//! What a tuned launch shape depends on: the architecture, the SM count, the memory bandwidth
//! class and the L2 size of a device.

use crate::cuda::DeviceInfo;
use serde::{Deserialize, Serialize};

/// Width of a bandwidth class: theoretical DRAM rates are rounded to the nearest multiple.
/// Half a TB/s separates the parts that matter (H100 PCIe ~2.0, H100 SXM ~3.35, H200 ~4.8).
pub const BANDWIDTH_CLASS_GB_PER_S: u32 = 500;

/// The device facts a launch shape is chosen by. Two devices with equal keys run the same
/// policies; a measured choice is kept for the device name and key it was measured on.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TuneKey {
    /// The NVRTC architecture, e.g. `sm_90`.
    pub arch: String,
    /// Streaming multiprocessors: grids are sized per SM.
    pub sms: u32,
    /// Theoretical DRAM bandwidth rounded to [`BANDWIDTH_CLASS_GB_PER_S`], GB/s (0 when the
    /// driver does not say): with the SM count and clock it gives the bytes each SM must move
    /// per cycle, which decides how many bytes must be in flight.
    pub dram_class_gb_per_s: u32,
    /// L2 cache, MiB (rounded down; 0 when the driver does not say).
    pub l2_mib: u32,
}

impl TuneKey {
    /// The key of a device as the driver describes it.
    pub fn of(info: &DeviceInfo) -> TuneKey {
        TuneKey {
            arch: info.arch.clone(),
            sms: info.sms,
            dram_class_gb_per_s: bandwidth_class(info.peak_dram_gb_per_s),
            l2_mib: info.l2_bytes >> 20,
        }
    }

    /// A short name for file names and reports: `sm_90-132sm-3500gbs-50mib`.
    pub fn label(&self) -> String {
        format!(
            "{}-{}sm-{}gbs-{}mib",
            self.arch, self.sms, self.dram_class_gb_per_s, self.l2_mib
        )
    }
}

/// `gb_per_s` rounded to the nearest class (0 for a rate the driver did not give).
pub fn bandwidth_class(gb_per_s: f64) -> u32 {
    if !gb_per_s.is_finite() || gb_per_s <= 0.0 {
        return 0;
    }
    let w = f64::from(BANDWIDTH_CLASS_GB_PER_S);
    ((gb_per_s / w).round() * w).min(f64::from(u32::MAX)) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_separate_the_h100_pcie_sxm_and_h200() {
        assert_eq!(bandwidth_class(2039.0), 2000);
        // H100 SXM: 2 × 2619 MHz × 5120 bits.
        assert_eq!(bandwidth_class(3352.3), 3500);
        // H200: 2 × 3201 MHz × 6144 bits.
        assert_eq!(bandwidth_class(4916.7), 5000);
        assert_eq!(bandwidth_class(0.0), 0);
        assert_eq!(bandwidth_class(f64::NAN), 0);
    }
}
