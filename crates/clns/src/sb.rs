//! S_b(Z) = log(1 + Z) in log-polar form (seed eq. 8–9), for Z = 2^z·e^(iθ) with z ≤ 0 and
//! θ ∈ [0, π] (X + Y with |X| ≤ |Y| gives z ≤ 0; S_b(z, −θ) is the conjugate of S_b(z, θ)):
//!
//!   Re S_b = log2|1 + Z|,   Im S_b = arg(1 + Z) (here in turns, as the angle is stored).
//!
//! The paper's forms 0.5·log2(1 + 2r·cos θ + r²) and atan2(r·sin θ, 1 + r·cos θ) (r = 2^z)
//! cancel near Z = −1 (z → 0, θ → π), where |1 + Z| → 0. With d = 1 − r (from expm1, exact
//! in relative terms) and s = 2·sin(φ/2), φ = π − θ (from the exact integer φ):
//!
//!   |1 + Z|² = d² + r·s²,   1 + r·cos θ = d + r·s²/2,   r·sin θ = r·sin φ,
//!
//! sums of non-negative terms with no cancellation anywhere, so the f64 and f32 evaluations are
//! accurate to a few units of their own precision over the whole domain, singular corner
//! included. Table methods route that corner (the *near region*) to this form.

use crate::format::{ClnsFormat, HALF_TURN};
use serde::{Deserialize, Serialize};
use sigpu_fnapprox::{FitError, Grid2, PiecewisePoly};
use std::f64::consts::{LN_2, PI, TAU};

/// 2^32 as f64: angle units per turn.
const TURN: f64 = 4_294_967_296.0;

/// S_b at z (log2|Z| ≤ 0) and φ = π − θ given in turns (φ ∈ [0, 1/2]): (Re in log2 units,
/// Im in turns), in f64, cancellation-free.
pub fn sb_polar(z: f64, phi_turns: f64) -> (f64, f64) {
    let r = z.exp2();
    let d = -(z * LN_2).exp_m1();
    let s = 2.0 * (PI * phi_turns).sin();
    let sin_theta = (TAU * phi_turns).sin();
    let re = 0.5 * (d * d + r * s * s).log2();
    let im = (r * sin_theta).atan2(d + 0.5 * r * s * s) / TAU;
    (re, im)
}

/// S_b for integer inputs: z a log code of `format`, θ ∈ [0, 2^31] in angle units.
pub fn sb_exact(format: ClnsFormat, z: i64, theta: u32) -> (f64, f64) {
    let phi = (HALF_TURN - theta.min(HALF_TURN)) as f64 / TURN;
    sb_polar(z as f64 * format.log.ulp(), phi)
}

/// An evaluator of S_b on codes of one format: for z ≤ 0 (a log code) and θ ∈ [0, 2^31]
/// (angle units), the rounded (Re code, Im angle).
pub trait Sb: Sync {
    /// The format whose codes it takes and returns.
    fn format(&self) -> ClnsFormat;
    /// S_b(Z) at z (a log code, ≤ 0) and θ ∈ [0, 2^31] (angle units): (Re as a log code, Im as
    /// an angle) in the format's precision.
    fn sb(&self, z: i64, theta: u32) -> (i64, u32);
}

/// Below this z (a code), S_b rounds to (0, 0) in both parts, with one code of margin:
/// |Re S_b| ≤ −log2(1 − r) ≈ r/ln 2 < 2^-(F+1) and |Im S_b| ≤ asin(r)/2π < 2^-(P+1) turns.
pub fn essential_zero_code(format: ClnsFormat) -> i64 {
    let f = format.frac_bits() as f64;
    let p = format.angle_bits as f64;
    let r_max = (LN_2 * (-(f + 1.0)).exp2()).min(TAU * (-(p + 1.0)).exp2());
    let z = r_max.log2() - 0.01; // asin and log curvature: stay a hair inside
    ((z / format.log.ulp()).floor() as i64 - 1).max(format.log.min_code() - format.log.max_code())
}

/// Rounds an S_b value (Re in log2 units, Im in turns) to codes.
fn round_result(format: ClnsFormat, re: f64, im_turns: f64) -> (i64, u32) {
    (format.round_log(re), format.round_angle(im_turns))
}

/// S_b in f64, rounded to nearest: the CPU reference and default.
#[derive(Clone, Copy, Debug)]
pub struct SbF64(pub ClnsFormat);

impl Sb for SbF64 {
    fn format(&self) -> ClnsFormat {
        self.0
    }
    fn sb(&self, z: i64, theta: u32) -> (i64, u32) {
        if z < essential_zero_code(self.0) {
            return (0, 0);
        }
        let (re, im) = sb_exact(self.0, z, theta);
        // |Z| = 1: arg(1 + Z) = θ/2 exactly, often a tie: round the exact value.
        let im = if z == 0 {
            theta as f64 / (2.0 * TURN)
        } else {
            im
        };
        round_result(self.0, re, im)
    }
}

/// How a table is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Reader {
    /// The texture unit's bilinear filter (float2 texels).
    Texture,
    /// Four loads and three FMA lerps per channel, full-precision weights.
    Fma,
}

/// Table size and the near region that bypasses it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Geometry {
    /// Points along the magnitude axis (the paper's P_CL), spanning r = |Z| = 2^z ∈ [0, 1]:
    /// uniform in r rather than z, so the cells are finest next to |Z| = 1, where S_b bends
    /// most, and S_b is nearly linear in r where |Z| is small.
    pub p_cl: usize,
    /// Points along θ (the paper's P_θ), spanning [0, π].
    pub p_theta: usize,
    /// Below this z (a code: the format's essential zero) S_b is (0, 0) without a read.
    pub z_min: i64,
    /// Near region: z > near_z (code) and φ = π − θ < near_phi (angle units).
    pub near_z: i64,
    /// φ = π − θ bound of the near region, angle units.
    pub near_phi: u32,
}

impl Geometry {
    /// A P_CL × P_θ table over [essential zero, 0] × [0, π]; the near region is z > −1,
    /// φ < π/8, where |1 + Z| ≥ 0.39 outside it bounds the curvature the table must follow.
    pub fn new(format: ClnsFormat, p_cl: usize, p_theta: usize) -> Geometry {
        Geometry {
            p_cl,
            p_theta,
            z_min: essential_zero_code(format),
            near_z: -(1i64 << format.frac_bits()),
            near_phi: 1 << 28,
        }
    }

    /// The default for `format`: 128 × 128 texels (128 KB of float2).
    pub fn default_for(format: ClnsFormat) -> Geometry {
        Geometry::new(format, 128, 128)
    }

    /// A table of the sizes given (`--p-cl`, `--p-theta`; the default's where not), refused
    /// outside 2..=4096 points per axis.
    pub fn sized(
        format: ClnsFormat,
        p_cl: Option<usize>,
        p_theta: Option<usize>,
    ) -> Result<Geometry, TableSizeError> {
        let d = Geometry::default_for(format);
        let (a, b) = (p_cl.unwrap_or(d.p_cl), p_theta.unwrap_or(d.p_theta));
        if !(2..=4096).contains(&a) || !(2..=4096).contains(&b) {
            return Err(TableSizeError {
                p_cl: a,
                p_theta: b,
            });
        }
        Ok(Geometry::new(format, a, b))
    }

    /// θ beyond π is outside S_b's domain: the difference wraps as the kernel's unsigned one
    /// does (such θ is never near), rather than overflowing.
    pub fn in_near_region(&self, z: i64, theta: u32) -> bool {
        z > self.near_z && HALF_TURN.wrapping_sub(theta) < self.near_phi
    }

    /// f32 scale from r to a cell position along the magnitude axis.
    pub fn r_scale(&self) -> f32 {
        (self.p_cl - 1) as f32
    }

    /// f32 scale from θ (angle units) to a cell position along θ.
    pub fn theta_scale(&self) -> f32 {
        ((self.p_theta - 1) as f64 / HALF_TURN as f64) as f32
    }

    /// f32 scale from θ in radians (the f32-radian variant) to a cell position along θ.
    pub fn theta_scale_radians(&self) -> f32 {
        ((self.p_theta - 1) as f64 / PI) as f32
    }

    /// The near region in the f32-radian variant's units: z > near_z (log2 units) and
    /// φ = π − θ < near_phi (radians), the same corner as the codes' (exact in f32 for every
    /// format: near_z is −1, near_phi π/8 rounded to f32).
    pub fn near_radians(&self, format: ClnsFormat) -> (f32, f32) {
        (
            (self.near_z as f64 * format.log.ulp()) as f32,
            (self.near_phi as f64 / TURN * TAU) as f32,
        )
    }
}

/// S_b from a 2-D table (θ along x, r = 2^z along y), read as the GPU kernel reads it.
#[derive(Clone, Debug)]
pub struct SbTable {
    /// The format whose codes it takes.
    pub format: ClnsFormat,
    /// The table's size and near region.
    pub geometry: Geometry,
    /// How the table is read: the texture's filter or FMA lerps.
    pub reader: Reader,
    /// The sampled table: (Re, Im) of S_b at every (θ, r) point.
    pub grid: Grid2,
    /// 2^f on [0, 1) as a degree-5 f32 polynomial: r = 2^z from the code by FMAs, so the CPU
    /// twin forms the same texture coordinate as the kernel, bit for bit.
    pub pow2: PiecewisePoly,
}

/// The degree-5 fit of 2^f on [0, 1) that forms r = 2^z (relative error ~1e-7, far below the
/// 1/256-of-a-cell resolution of the filter weights).
pub fn pow2_poly() -> Result<PiecewisePoly, FitError> {
    PiecewisePoly::fit(f64::exp2, 0.0, 1.0, 1, 5)
}

/// r = 2^z for a code z of F fractional bits, as the kernel computes it: z·2^-F and its
/// floor split exactly in f32, the fraction through the polynomial, then an exact scaling.
pub fn pow2_code(pow2: &PiecewisePoly, z: i64, frac_bits: u32) -> f32 {
    pow2_f32(pow2, z as f32 * (-(frac_bits as f32)).exp2())
}

/// r = 2^z for an f32 z ≥ −126, as the kernels' `pow2_f32` computes it: the floor split is
/// exact in f32, the fraction goes through the polynomial, 2^i comes from the exponent bits
/// (exact for i ≥ −126). Tables are read only for z ≥ −126: `SbTable::new` keeps the code
/// formats' z_min above it (the essential zero is about −(max(F, P) + 1), above −34 for every
/// format; a format's own range, −2^(I−1), would not guarantee it), and the f32-radian
/// variant reads S_b as 0 below [`crate::radian::Z_MIN`] = −126.
pub fn pow2_f32(pow2: &PiecewisePoly, zf: f32) -> f32 {
    let i = zf.floor();
    pow2.eval_horner_f32(0, zf - i) * f32::from_bits(((127 + i as i32) as u32) << 23)
}

impl SbTable {
    /// Samples the table for `format` and `geometry`. Fails when the geometry has fewer than 2
    /// points along an axis, or a z_min that is not negative or lies below z = −126.
    pub fn new(
        format: ClnsFormat,
        geometry: Geometry,
        reader: Reader,
    ) -> Result<SbTable, FitError> {
        if geometry.z_min >= 0
            || geometry.z_min < -(126i64 << format.frac_bits())
            || geometry.p_cl < 2
            || geometry.p_theta < 2
        {
            return Err(FitError::Invalid(format!(
                "S_b table geometry {geometry:?}"
            )));
        }
        let grid = Grid2::sample(
            |theta, r| {
                if r == 0.0 {
                    return [0.0, 0.0];
                }
                let (re, im) = sb_polar(r.log2(), 0.5 - theta);
                [re, im]
            },
            (0.0, 0.5),
            (0.0, 1.0),
            geometry.p_theta,
            geometry.p_cl,
        )?;
        Ok(SbTable {
            format,
            geometry,
            reader,
            grid,
            pow2: pow2_poly()?,
        })
    }

    /// The table's raw reading at (z, θ) before rounding: (Re, Im in turns), exactly as the
    /// kernel forms it (coordinates in f32, then the texture filter or the FMA lerps).
    pub fn read(&self, z: i64, theta: u32) -> [f32; 2] {
        let r = pow2_code(&self.pow2, z, self.format.frac_bits());
        self.read_at(r, theta as f32, self.geometry.theta_scale())
    }

    /// The table's reading at r = |Z| and θ in any unit, `theta_scale` taking θ to a cell
    /// position (the kernels' `TexRead::read` / `FmaRead::read`): shared by the code formats
    /// (θ in angle units) and the f32-radian variant (θ in radians).
    pub(crate) fn read_at(&self, r: f32, theta: f32, theta_scale: f32) -> [f32; 2] {
        let g = &self.geometry;
        match self.reader {
            Reader::Texture => self
                .grid
                .eval_texture(theta.mul_add(theta_scale, 0.5), r.mul_add(g.r_scale(), 0.5)),
            Reader::Fma => self.grid.eval_fma(theta * theta_scale, r * g.r_scale()),
        }
    }
}

/// f32 result → codes, as the kernel's `__float2int_rn` does (ties to even); a slightly
/// negative angle wraps, as it should.
pub(crate) fn round_f32(format: ClnsFormat, v: [f32; 2]) -> (i64, u32) {
    let re = (v[0] * (format.frac_bits() as f32).exp2()).round_ties_even() as i32;
    let im = (v[1] * (format.angle_bits as f32).exp2()).round_ties_even() as i32;
    (re as i64, (im as u32) << format.angle_shift())
}

impl Sb for SbTable {
    fn format(&self) -> ClnsFormat {
        self.format
    }
    /// The table outside the near region; the analytic form (here in f64) inside it.
    fn sb(&self, z: i64, theta: u32) -> (i64, u32) {
        if z < self.geometry.z_min {
            return (0, 0);
        }
        if self.geometry.in_near_region(z, theta) {
            return SbF64(self.format).sb(z, theta);
        }
        round_f32(self.format, self.read(z, theta))
    }
}

/// The S_b methods by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Method {
    /// f64, cancellation-free: the CPU reference; FP64 units on the GPU.
    F64,
    /// The same formula in f32 libdevice (`expm1f`, `sinpif`, `log2f`, `atan2f`). GPU only.
    Accurate,
    /// 2-D texture, bilinear filter (the paper's method), near region analytic.
    Tex,
    /// The same table interpolated by FMAs from global memory, near region analytic.
    Fma,
    /// Warps split between Tex and Fma (λ of every 8 on the texture units). GPU only.
    Blend,
    /// The cancellation-free form through the SFUs (MUFU ex2, cos, lg2, sqrt, rcp) and short
    /// FMA polynomials (−expm1 near z = 0, 2·sin(φ/2), atan): no table. GPU only, code formats
    /// of ≤ 16 log fraction bits and ≤ 20 angle bits (and the f32-radian variant); its
    /// contract is a bound, not a twin: ≤ [`SFU_BOUND_ULPS`] in each part, certified over
    /// every clns16 input by `clns_certify_sfu`.
    Sfu,
}

/// The SFU method's error bound for clns16 (either part, ulps of the rounded result): 0.5 from
/// the rounding plus the evaluation error the MUFU and polynomial bounds allow (≤ 0.1 ulp,
/// docs/design/clns.md), which the lattice certificate confirms on the device.
pub const SFU_BOUND_ULPS: f64 = 0.6;

impl Method {
    /// Every method, in the order listed.
    pub const ALL: [Method; 6] = [
        Method::F64,
        Method::Accurate,
        Method::Tex,
        Method::Fma,
        Method::Blend,
        Method::Sfu,
    ];

    /// The CPU's default: f64, certified correctly rounded (≤ 0.5 ulp) for clns16 and clns32.
    pub fn cpu_default() -> Method {
        Method::F64
    }

    /// The GPU's default: f32 libdevice for clns16 (certified ≤ 0.502 ulp on the H100 and the
    /// fastest CLNS add there, BENCHMARKS.md), FP64 for anything else.
    pub fn gpu_default(format: ClnsFormat) -> Method {
        if format == ClnsFormat::CLNS16 {
            Method::Accurate
        } else {
            Method::F64
        }
    }

    /// Whether this method has kernels for `format`: every method but the SFUs' serves every
    /// code format; the SFU kernels take ≤ 16 log fraction bits, ≤ 5 integer bits and ≤ 20
    /// angle bits (their 1.5·2^23 magic conversions are exact below 2^22, and the MUFU errors,
    /// ~2^-22, leave no margin beyond).
    pub fn serves(self, format: ClnsFormat) -> bool {
        self != Method::Sfu
            || (format.frac_bits() <= 16 && format.log.int_bits <= 5 && format.angle_bits <= 20)
    }

    /// Whether the method has a CPU evaluator ([`Method::cpu`]): f64, tex and fma.
    pub fn runs_on_cpu(self) -> bool {
        matches!(self, Method::F64 | Method::Tex | Method::Fma)
    }

    /// The table reader of a table method (tex, fma); `None` for the others.
    pub fn reader(self) -> Option<Reader> {
        match self {
            Method::Tex => Some(Reader::Texture),
            Method::Fma => Some(Reader::Fma),
            _ => None,
        }
    }

    /// A CPU evaluator (for table methods, the bit-exact twin of the kernel's table read).
    pub fn cpu(
        self,
        format: ClnsFormat,
        geometry: Geometry,
    ) -> Result<Option<Box<dyn Sb>>, FitError> {
        Ok(match self {
            Method::F64 => Some(Box::new(SbF64(format))),
            Method::Tex | Method::Fma => Some(Box::new(SbTable::new(
                format,
                geometry,
                self.reader().expect("table method"),
            )?)),
            Method::Accurate | Method::Blend | Method::Sfu => None,
        })
    }
}

impl std::fmt::Display for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Method::F64 => "f64",
            Method::Accurate => "accurate",
            Method::Tex => "tex",
            Method::Fma => "fma",
            Method::Blend => "blend",
            Method::Sfu => "sfu",
        })
    }
}

/// Table sizes outside 2..=4096 points per axis ([`Geometry::sized`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("--p-cl {p_cl} / --p-theta {p_theta}: table sizes are 2..=4096 points per axis")]
pub struct TableSizeError {
    /// The size asked for along |Z|.
    pub p_cl: usize,
    /// The size asked for along θ.
    pub p_theta: usize,
}

/// An S_b method name that is not one of `f64`, `accurate`, `tex`, `fma`, `blend`, `sfu`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown S_b method {0:?}: expected one of f64, accurate, tex, fma, blend, sfu")]
pub struct MethodError(String);

impl std::str::FromStr for Method {
    type Err = MethodError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        sigpu_lns::by_name(s, Method::ALL).ok_or_else(|| MethodError(s.to_owned()))
    }
}

impl Sb for Box<dyn Sb> {
    fn format(&self) -> ClnsFormat {
        (**self).format()
    }
    fn sb(&self, z: i64, theta: u32) -> (i64, u32) {
        (**self).sb(z, theta)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_sizes_default_per_axis_and_are_refused_outside_2_to_4096() {
        let f = ClnsFormat::CLNS16;
        let d = Geometry::default_for(f);
        assert_eq!(Geometry::sized(f, None, None), Ok(d));
        let g = Geometry::sized(f, Some(64), None).unwrap();
        assert_eq!((g.p_cl, g.p_theta), (64, d.p_theta));
        let e = Geometry::sized(f, Some(1), Some(4097)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "--p-cl 1 / --p-theta 4097: table sizes are 2..=4096 points per axis"
        );
    }
    use crate::format::presets_and;
    use num_complex::Complex;

    #[test]
    fn polar_form_matches_complex_log() {
        for &(z, th) in &[
            (0.0, 0.0),
            (-0.5, 0.1),
            (-3.0, 0.49),
            (-1e-6, 0.4999),
            (-10.0, 0.25),
        ] {
            let zc = Complex::from_polar(f64::exp2(z), th * TAU);
            let want = (Complex::new(1.0, 0.0) + zc).ln();
            let (re, im) = sb_polar(z, 0.5 - th);
            assert!((re - want.re / LN_2).abs() < 1e-12, "{z} {th}");
            assert!((im - want.im / TAU).abs() < 1e-12, "{z} {th}");
        }
    }

    #[test]
    fn near_the_singularity_stays_accurate() {
        // Z = −(1 − 2^-30)·e^(−iπ·2^-30): |1 + Z| = 2^-30·√(1 + π²) to first order; the
        // seed's form 1 + 2r·cos θ + r² cancels all of it in f64.
        let z = (-(2f64.powi(-30))).ln_1p() / LN_2;
        let (re, _) = sb_polar(z, 2f64.powi(-31));
        let want = -30.0 + 0.5 * (1.0 + PI * PI).log2();
        assert!((re - want).abs() < 1e-6, "{re} vs {want}");
        let f = ClnsFormat::CLNS16;
        let (re_code, _) = SbF64(f).sb(-1, HALF_TURN - (1 << 16));
        assert!(re_code < -9 * 2048, "{re_code}");
    }

    #[test]
    fn essential_zero_rounds_both_parts_to_zero() {
        for f in presets_and(10) {
            let z0 = essential_zero_code(f);
            for theta in [
                0,
                1 << 29,
                (HALF_TURN / 2 + 12345) >> f.angle_shift() << f.angle_shift(),
                HALF_TURN,
            ] {
                let (re, im) = sb_exact(f, z0 - 1, theta);
                assert_eq!(f.round_log(re), 0, "{f}");
                assert_eq!(f.round_angle(im), 0, "{f}");
            }
        }
    }

    #[test]
    fn pow2_of_codes_is_accurate() {
        let p = pow2_poly().unwrap();
        for z in [-25 * 2048, -2049, -2048, -1, 0] {
            let want = (z as f64 / 2048.0).exp2();
            assert!(
                (pow2_code(&p, z, 11) as f64 / want - 1.0).abs() < 3e-7,
                "{z}"
            );
        }
    }

    #[test]
    fn angles_beyond_pi_are_never_near_and_do_not_overflow() {
        let g = Geometry::default_for(ClnsFormat::CLNS16);
        assert!(g.in_near_region(-1, HALF_TURN));
        assert!(!g.in_near_region(-1, HALF_TURN + 1));
        assert!(!g.in_near_region(-1, u32::MAX));
    }

    #[test]
    fn table_geometries_beyond_the_f32_exponent_range_are_refused() {
        let f = ClnsFormat::CLNS16;
        let mut g = Geometry::default_for(f);
        assert!(g.z_min > -(34 << f.frac_bits()), "{g:?}");
        g.z_min = -(200 << f.frac_bits());
        assert!(SbTable::new(f, g, Reader::Fma).is_err());
        g.z_min = 0;
        assert!(SbTable::new(f, g, Reader::Fma).is_err());
    }

    #[test]
    fn the_sfu_method_serves_narrow_formats_only() {
        assert!(Method::Sfu.serves(ClnsFormat::CLNS16));
        assert!(Method::Sfu.serves(ClnsFormat::with_bits(20).unwrap()));
        // i5f16 + 21 angle bits: the angle no longer fits the method's 20 bits.
        assert!(!Method::Sfu.serves(ClnsFormat::with_bits(21).unwrap()));
        assert!(!Method::Sfu.serves(ClnsFormat::CLNS32));
        assert!(Method::Tex.serves(ClnsFormat::CLNS32));
    }

    #[test]
    fn names_round_trip() {
        for m in Method::ALL {
            assert_eq!(m.to_string().parse(), Ok(m));
        }
        assert!("texture".parse::<Method>().is_err());
    }
}
