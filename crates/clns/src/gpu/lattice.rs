//! The SFU method's certificate over a whole lattice: every z code from the largest magnitude
//! difference of two finite logs up to 0 and every angle code in [0, π], S_b by the kernel's
//! MUFU path against the f64 cancellation-free form, reduced on the device (`clns_certify_sfu`:
//! clns16 is 2.1·10^9 inputs, too many to bring back). The add reduces to S_b of exactly these
//! (z, θ) by exact integer steps (swap, mirror, the rounding's symmetry), so this certifies the
//! add. The same points also bound the f32-radian variant's S_b (absolute errors).

use super::{kernels, GpuClns};
use crate::error::{ClnsError, Result};
use crate::sb::Method;
use serde::Serialize;
use sigpu_runtime::cuda::LaunchConfig;

/// A point of the lattice and the error there.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Worst {
    pub error: f64,
    /// z (log code, ≤ 0) and θ (angle code, P-bit units).
    pub z: i64,
    pub theta_code: u32,
}

/// The lattice certificate of the SFU S_b for one format.
#[derive(Clone, Debug, Serialize)]
pub struct SfuLatticeCertificate {
    /// The format's name.
    pub format: String,
    /// The GPU's name and architecture.
    pub device: String,
    /// (z, θ) points evaluated: every pair of the reduced domain.
    pub points: u64,
    /// Largest error of the rounded Re and Im codes vs the exact S_b (ulps of each part).
    pub re: Worst,
    /// Largest error of the rounded Im code, ulps of 2^-P turns.
    pub im: Worst,
    /// Results that differ from the correctly rounded code (Re, Im).
    pub off_correct_rounding: [u64; 2],
    /// The f32-radian variant's S_b at the same points with z ≥ −126 (z and φ rounded to f32):
    /// largest absolute error of Re (log2 units) and Im (radians).
    pub radian_re: Worst,
    /// Largest absolute error of the f32-radian Im part, radians.
    pub radian_im: Worst,
}

impl GpuClns {
    /// Certifies the SFU S_b over every (z, θ) of this format's reduced domain on this
    /// object's device.
    pub fn certify_sfu_lattice(&self) -> Result<SfuLatticeCertificate> {
        let gpu = &self.gpu;
        self.check_method(Method::Sfu)?;
        let log = self.format.log;
        let z_lo = log.min_code() - log.max_code();
        let nt = (1u64 << (self.format.angle_bits - 1)) + 1;
        let points = (1 - z_lo) as u64 * nt;
        if points > u32::MAX as u64 {
            return Err(ClnsError::NoKernel {
                what: format!("the SFU lattice certificate of {}", self.format),
                why: "the lattice holds more than 2^32 points (the kernel indexes them by u32)",
            });
        }
        let kernel = gpu.kernel(&kernels(), "clns_certify_sfu")?;
        let mut worst = gpu.upload(&[0u64; 4])?;
        let mut wrong = gpu.upload(&[0u64; 2])?;
        let z_lo32 = z_lo as i32;
        gpu.launch(&kernel)
            .arg(&self.geo)
            .arg(&z_lo32)
            .arg(&points)
            .buf_mut(&mut worst)
            .buf_mut(&mut wrong)
            .run(LaunchConfig {
                grid_dim: (gpu.info().sms * 16, 1, 1),
                block_dim: (256, 1, 1),
                shared_mem_bytes: 0,
            })?;
        let (w, bad) = (gpu.download(&worst)?, gpu.download(&wrong)?);
        let decode = |v: u64| {
            let i = v & 0xffff_ffff;
            Worst {
                error: f32::from_bits((v >> 32) as u32) as f64,
                z: -((i / nt) as i64),
                theta_code: (i % nt) as u32,
            }
        };
        Ok(SfuLatticeCertificate {
            format: self.format.to_string(),
            device: format!("{} ({})", gpu.info().name, gpu.arch()),
            points,
            re: decode(w[0]),
            im: decode(w[1]),
            off_correct_rounding: [bad[0], bad[1]],
            radian_re: decode(w[2]),
            radian_im: decode(w[3]),
        })
    }
}
