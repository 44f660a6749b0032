//! The CPU's fast add/sub: s_b and d_b from piecewise quadratics with f64 coefficients,
//! evaluated in f64. Unlike the f32 GPU tables, f64 leaves the approximation error as the only
//! error before the final rounding, so the method is faithful at lns32 (certified over every
//! input by `sigpu lns certify --method f64table`).

use crate::arith::{db_f64, sb_f64, AddSub};
use crate::error::LnsError;
use crate::format::Format;
use crate::tables::{Geometry, Site};
use sigpu_fnapprox::PiecewisePoly64;
use sigpu_runtime::host::CpuArch;

#[cfg(target_arch = "x86_64")]
mod avx512;

/// Tables of s_b, far d_b, h and log2 m (see `tables.rs` for the geometry) in f64.
#[derive(Clone, Debug)]
pub struct F64Tables {
    /// The segment layout of the four tables (2^7 far segments per unit of z, log2 m in 2^10
    /// segments). Changing it leaves the tables as they were: the AVX-512 path then panics
    /// rather than read outside them.
    pub geometry: Geometry,
    sb: PiecewisePoly64,
    db: PiecewisePoly64,
    h: PiecewisePoly64,
    log2m: PiecewisePoly64,
    /// s_b and far d_b coefficients interleaved per segment, for one gather index (x86-64).
    #[cfg(target_arch = "x86_64")]
    far: Vec<f64>,
    /// The CPU the vector path is chosen for.
    arch: CpuArch,
}

/// Far segments per unit of z: 2^7 keeps the quadratic's error near 1e-8 ulp at F = 23 while
/// the four tables (~80 KB at F = 23) stay in L2.
const SEGMENTS_PER_UNIT_BITS: u32 = 7;

fn h_f64(z: f64) -> f64 {
    if z == 0.0 {
        std::f64::consts::LN_2.log2()
    } else {
        db_f64(z) - (-z).log2()
    }
}

impl F64Tables {
    /// The tables for `format`, adding with the vector path this CPU has.
    pub fn new(format: Format) -> Result<F64Tables, LnsError> {
        F64Tables::with_arch(format, CpuArch::host())
    }

    /// The tables for `format`, adding with the vector path `arch` has
    /// ([`CpuArch::scalar`]: none).
    pub fn with_arch(format: Format, arch: CpuArch) -> Result<F64Tables, LnsError> {
        // Never more than the CPU has, whatever the caller describes.
        let arch = arch.within_host();
        let f = format.frac_bits;
        let shift = f.saturating_sub(SEGMENTS_PER_UNIT_BITS);
        let far_segments = ((-format.essential_zero_code()) as usize).div_ceil(1 << shift);
        let far_lo = -((far_segments << shift) as f64) * format.ulp();
        let geometry = Geometry {
            format,
            shift,
            far_segments,
            near_shift: shift,
            log2m_bits: 10,
        };
        let fit =
            |g: &(dyn Fn(f64) -> f64 + Sync), lo, hi, n| PiecewisePoly64::fit(g, lo, hi, n, 2);
        let mut t = F64Tables {
            geometry,
            sb: fit(&sb_f64, far_lo, 0.0, far_segments)?,
            // Read only for z ≤ −1; continued smoothly beyond, clear of the pole at 0.
            db: fit(
                &|z: f64| db_f64(z.min(-1.0 / 64.0)),
                far_lo,
                0.0,
                far_segments,
            )?,
            h: fit(&h_f64, -1.0, 0.0, 1 << (f - shift))?,
            log2m: fit(&|m: f64| m.log2(), 1.0, 2.0, 1 << 10)?,
            #[cfg(target_arch = "x86_64")]
            far: Vec::new(),
            arch,
        };
        #[cfg(target_arch = "x86_64")]
        {
            t.far = avx512::interleave(&t);
        }
        Ok(t)
    }
}

fn to_code(v: f64, f: u32) -> i64 {
    (v * crate::format::pow2(f as i32)).round_ties_even() as i64
}

impl AddSub for F64Tables {
    fn format(&self) -> Format {
        self.geometry.format
    }

    fn sb(&self, z: i64) -> i64 {
        match self.geometry.sb_site(z) {
            Site::Far(at) => to_code(
                self.sb.eval_segment(at.w, at.f64()),
                self.geometry.format.frac_bits,
            ),
            _ => 0,
        }
    }

    fn db(&self, z: i64) -> i64 {
        let f = self.geometry.format.frac_bits;
        match self.geometry.db_site(z) {
            Site::Zero => 0,
            Site::Far(at) => to_code(self.db.eval_segment(at.w, at.f64()), f),
            Site::Near { int_part, log2m, h } => {
                int_part
                    + to_code(
                        self.log2m.eval_segment(log2m.w, log2m.f64())
                            + self.h.eval_segment(h.w, h.f64()),
                        f,
                    )
            }
        }
    }

    fn add_words(&self, a: &[u32], b: &[u32], out: &mut [u32]) {
        #[cfg(target_arch = "x86_64")]
        if self.geometry.format.log_bits() <= 31 && avx512::available(&self.arch) {
            // SAFETY: the CPU has AVX-512 F + VL and FMA (checked just above).
            unsafe { avx512::add_words(self, &self.far, a, b, out) };
            return;
        }
        let f = self.geometry.format;
        for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
            *o = f.add(self, x, y);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::certify::{certify, Which};

    /// The vectorised `add_words` (where the CPU has it) gives the scalar `Format::add`'s word
    /// for every pair: random magnitudes near and far apart, both signs, specials, equal
    /// magnitudes, and sums at the edges of the range.
    #[test]
    fn add_words_matches_the_scalar_add() {
        for format in [Format::LNS32, Format::LNS16, Format::new(7, 16).unwrap()] {
            let t = F64Tables::new(format).unwrap();
            let n = 20_003;
            let (a, b) = crate::poly::tests::pairs(format, n, 7);
            let mut out = vec![0; n];
            t.add_words(&a, &b, &mut out);
            for i in 0..n {
                assert_eq!(
                    out[i],
                    format.add(&t, a[i], b[i]),
                    "{format} {:#x} + {:#x}",
                    a[i],
                    b[i]
                );
            }
        }
    }

    /// The geometry is a public field: a changed one must not steer the AVX-512 gathers
    /// outside the tables (it panics instead).
    #[test]
    fn a_geometry_that_does_not_match_the_tables_is_refused() {
        #[cfg(target_arch = "x86_64")]
        if avx512::available(&CpuArch::host()) {
            let changes: [fn(&mut Geometry); 3] = [
                |g| g.log2m_bits = 16,
                |g| g.far_segments += 1,
                |g| g.near_shift = 0,
            ];
            for change in changes {
                let mut t = F64Tables::new(Format::LNS32).unwrap();
                change(&mut t.geometry);
                let r = std::panic::catch_unwind(move || {
                    let mut out = vec![0; 16];
                    t.add_words(&[0x3f80_0000; 16], &[0x3f00_0000; 16], &mut out);
                });
                assert!(r.is_err());
            }
            return;
        }
        println!("SKIP: no AVX-512 on this CPU");
    }

    #[test]
    fn faithful_and_mostly_correctly_rounded_on_lns16() {
        let t = F64Tables::new(Format::LNS16).unwrap();
        for func in [Which::Sb, Which::Db] {
            let c = certify(&t, func, "f64table", &|_| {});
            assert!(c.faithful && c.share_correctly_rounded > 0.9999, "{c:?}");
        }
    }
}
