//! Piecewise tables for s_b and d_b on a format's code grid, and the CPU twins of the GPU
//! methods that read them (FMA Horner, order-1 and order-2 textures).
//!
//! Geometry. z ≤ 0 is a code; below the essential zero Z0 both functions round to 0. The *far*
//! range, from Z0 (rounded down to a whole segment) to 0, is cut into k segments of 2^shift
//! codes: with u = z + k·2^shift, segment w = u >> shift and local variable
//! s = (u mod 2^shift) · 2^-shift, exact in f32. s_b uses it everywhere; d_b only for z ≤ −1.
//!
//! d_b is singular at 0, so for −1 < z < 0 it is evaluated in the analytic form
//! d_b(z) = log2|z| + h(z), h(z) = log2((1 − 2^z)/|z|), smooth on [−1, 0] (h(0) = log2 ln 2).
//! With |z| = k·2^-F and k = 2^e·m (m ∈ [1, 2)), log2|z| = (e − F) + log2 m: the integer part is
//! added to the code exactly and only log2 m + h(z) ∈ [−0.53, 0.48) goes through f32, so the
//! near range is as accurate as the far one at any F.

use crate::arith::{db_f64, sb_f64, AddSub};
use crate::error::LnsError;
use crate::format::Format;
use sigpu_fnapprox::{tables as tex, FitError, PiecewisePoly};

/// How a method reads its tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reader {
    /// f32 Horner with FMA over the polynomial coefficients (degree 1..=5).
    Horner(usize),
    /// A 1-D linear-filtered texture per function, sampled at segment boundaries.
    Texture1,
    /// The order-2 bilinear trick: a 2k × 2 texture per function, float2 texels packing s_b
    /// and d_b so one fetch serves both.
    Texture2,
}

/// Which function of a table set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Func {
    /// s_b over the far range, Z0 ..= 0.
    Sb,
    /// d_b for z ≤ −1.
    DbFar,
    /// h(z) for −1 < z < 0.
    H,
    /// log2 m for m ∈ [1, 2).
    Log2M,
}

/// The tables of one method for one format.
#[derive(Clone, Debug)]
pub struct Tables {
    /// The format whose code grid the tables cover.
    pub format: Format,
    /// How the method reads them.
    pub reader: Reader,
    /// Their segment layout.
    pub geometry: Geometry,
    fits: [PiecewisePoly; 4],
    /// Texels for the texture readers, per function (order 1: f32; order 2: flattened 2k × 2).
    texels: [Vec<f32>; 4],
}

fn h_f64(z: f64) -> f64 {
    if z == 0.0 {
        return std::f64::consts::LN_2.log2();
    }
    db_f64(z) - (-z).log2()
}

/// The polynomial degree `reader` needs, once the segment sizes are known to be in range.
fn checked_degree(
    format: Format,
    reader: Reader,
    (shift, near_shift, log2m_bits): (u32, u32, u32),
) -> Result<usize, FitError> {
    if shift > 24 || near_shift > format.frac_bits.min(24) || log2m_bits > 16 {
        return Err(FitError::Invalid(format!(
            "segment sizes out of range (shift {shift} ≤ 24, near_shift {near_shift} ≤ min(F, 24), log2m_bits {log2m_bits} ≤ 16)"
        )));
    }
    match reader {
        Reader::Horner(d) if (1..=5).contains(&d) => Ok(d),
        Reader::Horner(d) => Err(FitError::Invalid(format!("Horner degree {d}: use 1 to 5"))),
        Reader::Texture1 => Ok(1),
        Reader::Texture2 => Ok(2),
    }
}

impl Tables {
    /// Builds the tables: far segments of 2^`shift` codes, near segments of 2^`near_shift`
    /// codes, and 2^`log2m_bits` segments for log2 m.
    pub fn build(
        format: Format,
        reader: Reader,
        shift: u32,
        near_shift: u32,
        log2m_bits: u32,
    ) -> Result<Tables, LnsError> {
        let f = format.frac_bits;
        let degree = checked_degree(format, reader, (shift, near_shift, log2m_bits))?;
        let ulp = format.ulp();
        // Far segments end at 0, so z = −1 (a multiple of 2^shift codes) is a segment boundary
        // and no d_b segment straddles the switch to the near form.
        let far_segments = ((-format.essential_zero_code()) as usize).div_ceil(1 << shift);
        let far_lo = -((far_segments << shift) as f64) * ulp;
        let far_hi = 0.0;
        let near_segments = 1usize << (f - near_shift);
        let log2m_segments = 1usize << log2m_bits;
        // d_b's far table is read only for z ≤ −1, but its segments run on to 0: there d_b is
        // continued smoothly (clamped well before the pole) so fits and the order-1 texel
        // curvature at z = −1 see the true function around −1.
        let db_far = move |z: f64| db_f64(z.min(-1.0 / 64.0));
        let fit = |g: &(dyn Fn(f64) -> f64 + Sync), lo: f64, hi: f64, n: usize| {
            PiecewisePoly::fit(g, lo, hi, n, degree)
        };
        let fits = [
            fit(&|z| sb_f64(z), far_lo, far_hi, far_segments)?,
            fit(&db_far, far_lo, far_hi, far_segments)?,
            fit(&h_f64, -1.0, 0.0, near_segments)?,
            fit(&|m: f64| m.log2(), 1.0, 2.0, log2m_segments)?,
        ];
        let texels = match reader {
            Reader::Horner(_) => Default::default(),
            Reader::Texture1 => {
                let funcs: [(&dyn Fn(f64) -> f64, &PiecewisePoly); 4] = [
                    (&|z| sb_f64(z), &fits[0]),
                    (&db_far, &fits[1]),
                    (&h_f64, &fits[2]),
                    (&|m: f64| m.log2(), &fits[3]),
                ];
                let mut out: [Vec<f32>; 4] = Default::default();
                for (slot, (g, p)) in out.iter_mut().zip(funcs) {
                    *slot = tex::order1_texels(g, p.lo, p.hi, p.segments + 1)?;
                }
                out
            }
            Reader::Texture2 => {
                let mut out: [Vec<f32>; 4] = Default::default();
                for (slot, p) in out.iter_mut().zip(&fits) {
                    *slot = tex::order2_texels(p)?;
                }
                out
            }
        };
        let geometry = Geometry {
            format,
            shift,
            far_segments,
            near_shift,
            log2m_bits,
        };
        Ok(Tables {
            format,
            reader,
            geometry,
            fits,
            texels,
        })
    }

    /// The fit behind a function (its coefficients are the Horner table).
    pub fn fit(&self, func: Func) -> &PiecewisePoly {
        &self.fits[func as usize]
    }

    /// Texels of a function for the texture readers (empty for Horner).
    pub fn texels(&self, func: Func) -> &[f32] {
        &self.texels[func as usize]
    }

    /// Bytes the GPU reads tables from (coefficients or texels).
    pub fn bytes(&self) -> usize {
        match self.reader {
            Reader::Horner(_) => self.fits.iter().map(|p| p.coeffs.len() * 4).sum(),
            _ => self.texels.iter().map(|t| t.len() * 4).sum(),
        }
    }

    /// Reads function `func` at segment `w`, local variable `s`, as the GPU does.
    pub fn read(&self, func: Func, w: usize, s: f32) -> f32 {
        let p = self.fit(func);
        match self.reader {
            Reader::Horner(_) => p.eval_horner_f32(w, s),
            Reader::Texture1 => {
                let x = p.lo + (w as f64 + s as f64) * p.h();
                tex::order1_eval(self.texels(func), p.lo, p.hi, x)
            }
            Reader::Texture2 => tex::order2_eval(self.texels(func), p.segments, w, s),
        }
    }
}

/// Rounds a value in log units to a code: v · 2^F is exact in f32, then to nearest, ties even.
fn to_code(v: f32, f: u32) -> i64 {
    (v * (f as f32).exp2()).round_ties_even() as i64
}

impl AddSub for Tables {
    fn format(&self) -> Format {
        self.format
    }

    fn sb(&self, z: i64) -> i64 {
        match self.geometry.sb_site(z) {
            Site::Far(at) => to_code(self.read(Func::Sb, at.w, at.f32()), self.format.frac_bits),
            _ => 0,
        }
    }

    fn db(&self, z: i64) -> i64 {
        let f = self.format.frac_bits;
        match self.geometry.db_site(z) {
            Site::Zero => 0,
            Site::Far(at) => to_code(self.read(Func::DbFar, at.w, at.f32()), f),
            Site::Near { int_part, log2m, h } => {
                let fractional =
                    self.read(Func::Log2M, log2m.w, log2m.f32()) + self.read(Func::H, h.w, h.f32());
                int_part + to_code(fractional, f)
            }
        }
    }
}

/// A segment and the local variable within it, as the exact fraction offset / 2^bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Local {
    /// The segment, from 0 at the lowest.
    pub w: usize,
    /// Numerator of the local variable s = offset · 2^-bits ∈ [0, 1].
    pub offset: u64,
    /// Exponent of its denominator.
    pub bits: u32,
}

impl Local {
    /// s in f32, as the kernels compute it (exact while `offset` < 2^24).
    pub fn f32(self) -> f32 {
        self.offset as f32 * (-(self.bits as f32)).exp2()
    }

    /// s in f64, exactly.
    pub fn f64(self) -> f64 {
        self.offset as f64 * crate::format::pow2(-(self.bits as i32))
    }
}

/// Which table an input is read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Site {
    /// Below the essential zero: the function rounds to 0.
    Zero,
    /// The shared far table (s_b at every z ≥ Z0, d_b at z ≤ −1).
    Far(Local),
    /// d_b near 0: log2|z| + h(z) = int_part (in codes, exact) + log2 m + h(z).
    Near {
        /// ⌊log2|z|⌋ in codes, (e − F) · 2^F with |z| = 2^e · m in codes: added exactly.
        int_part: i64,
        /// Where log2 m (m ∈ [1, 2)) is read.
        log2m: Local,
        /// Where h(z) is read.
        h: Local,
    },
}

/// The segment layout shared by every method (see the module notes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    /// The format whose code grid the segments cut.
    pub format: Format,
    /// Codes per far segment: 2^shift.
    pub shift: u32,
    /// Segments from Z0 (rounded down to a whole segment) to 0; s_b and far d_b share them.
    pub far_segments: usize,
    /// Segments over (−1, 0] for h: 2^F codes in segments of 2^near_shift.
    pub near_shift: u32,
    /// Segments of log2 m over [1, 2): 2^log2m_bits.
    pub log2m_bits: u32,
}

impl Geometry {
    fn far(&self, z: i64) -> Local {
        let u = (z + ((self.far_segments as i64) << self.shift)) as u64;
        let w = (u >> self.shift) as usize;
        if w == self.far_segments {
            // z = 0, the right end of the last segment: s = 1.
            return Local {
                w: w - 1,
                offset: 1,
                bits: 0,
            };
        }
        Local {
            w,
            offset: u & ((1 << self.shift) - 1),
            bits: self.shift,
        }
    }

    /// Where s_b is read for input code `z` ≤ 0: nowhere below the essential zero, else the far
    /// table.
    pub fn sb_site(&self, z: i64) -> Site {
        if z < self.format.essential_zero_code() {
            Site::Zero
        } else {
            Site::Far(self.far(z))
        }
    }

    /// Where d_b is read for input code `z` < 0: nowhere below the essential zero, the far table
    /// for z ≤ −1 (−2^F in codes), else the near form log2|z| + h(z).
    pub fn db_site(&self, z: i64) -> Site {
        let f = self.format.frac_bits;
        if z < self.format.essential_zero_code() {
            return Site::Zero;
        }
        if z <= -(1i64 << f) {
            return Site::Far(self.far(z));
        }
        let k = (-z) as u64; // 1 ≤ k < 2^F
        let e = 63 - k.leading_zeros(); // 2^e ≤ k < 2^(e+1)
        let frac = k - (1 << e); // m − 1 = frac / 2^e
        let log2m = if e >= self.log2m_bits {
            let low = e - self.log2m_bits;
            Local {
                w: (frac >> low) as usize,
                offset: frac & ((1 << low) - 1),
                bits: low,
            }
        } else {
            Local {
                w: (frac << (self.log2m_bits - e)) as usize,
                offset: 0,
                bits: 0,
            }
        };
        let u = (z + (1i64 << f)) as u64; // z + 1 in codes, [1, 2^F)
        let h = Local {
            w: (u >> self.near_shift) as usize,
            offset: u & ((1 << self.near_shift) - 1),
            bits: self.near_shift,
        };
        Site::Near {
            int_part: (e as i64 - f as i64) << f,
            log2m,
            h,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arith::Accurate;

    /// Largest |method − reference| in codes over every z of the format (lns16 is small).
    fn worst(t: &Tables) -> (i64, i64) {
        let exact = Accurate(t.format);
        let z0 = t.format.essential_zero_code();
        let sb = (z0 - 2..=0)
            .map(|z| (t.sb(z) - exact.sb(z)).abs())
            .max()
            .unwrap();
        let db = (z0 - 2..0)
            .map(|z| (t.db(z) - exact.db(z)).abs())
            .max()
            .unwrap();
        (sb, db)
    }

    #[test]
    fn lns16_horner_is_within_one_code_everywhere() {
        let t = Tables::build(Format::LNS16, Reader::Horner(2), 6, 6, 6).unwrap();
        let (sb, db) = worst(&t);
        assert!(sb <= 1 && db <= 1, "{sb} {db}");
    }

    #[test]
    fn lns16_textures_on_the_exact_weight_grid_are_within_one_code() {
        // s has at most 8 fractional bits, so the filter's axis weights are exact. Order 1
        // needs short segments (h = 2^-6) to be faithful: its chord error grows like h².
        for (reader, shift) in [(Reader::Texture1, 4), (Reader::Texture2, 8)] {
            let t = Tables::build(Format::LNS16, reader, shift, shift, 8).unwrap();
            let (sb, db) = worst(&t);
            assert!(sb <= 1 && db <= 1, "{reader:?}: {sb} {db}");
        }
    }

    #[test]
    fn db_near_zero_keeps_its_integer_part_exact_at_f23() {
        let t = Tables::build(Format::LNS32, Reader::Horner(3), 17, 14, 10).unwrap();
        let exact = Accurate(Format::LNS32);
        for z in [-1, -2, -3, -1000, -(1 << 22) - 7, -(1 << 23) + 1] {
            assert!(
                (t.db(z) - exact.db(z)).abs() <= 1,
                "z = {z}: {} vs {}",
                t.db(z),
                exact.db(z)
            );
        }
    }

    #[test]
    fn rejects_bad_geometry() {
        assert!(Tables::build(Format::LNS16, Reader::Horner(6), 6, 6, 6).is_err());
        assert!(Tables::build(Format::LNS16, Reader::Horner(2), 6, 11, 6).is_err());
    }
}
