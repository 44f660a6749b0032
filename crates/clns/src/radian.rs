//! The paper's representation, for comparison: X = 2^log · e^(i·angle) with log = log2|X| an
//! f32 and the angle an f32 in radians, kept in (−π_f32, π_f32] (π_f32 = 3.14159274, the f32
//! nearest π, stands for π). One value is a 64-bit word (32 bits per component), twice the
//! clns16 word.
//!
//! Unlike the fixed-point [`crate::ClnsFormat`] values, angles here are rounded (π is
//! irrational, so no f32 angle has an exact negation or an exact twiddle factor e^(−2πik/N)):
//! a sum of two angles is rounded to f32 and wrapped mod 2π with a two-part 2π (Cody–Waite:
//! the first subtraction is exact, one rounding more), so mul and div err by up to 3.6e-7 rad
//! (half an ulp of the sum, half an ulp of the wrapped result), neg by up to one ulp. conj is
//! exact. x − x = 0 exactly (subtraction folds the half turn into the angle difference rather
//! than negating first); x + (−x) is a tiny value, the sum of what the rounded −x represents.
//!
//! Specials follow IEEE arithmetic on the log: zero is log = −∞, complex infinity log = +∞
//! (any finite angle), NaN a NaN log or a non-finite angle. Products and quotients are plain
//! f32 adds of the logs, so 0·∞ = NaN, x/0 = ∞, 0/0 = NaN, and overflow or underflow of the log
//! (|log| > 3.4e38, far beyond f64's range of magnitudes) give ∞ or zero, with no tests at all;
//! zero and ∞ keep whatever angle the adds leave them. Sums test for specials first
//! (x + 0 = x, ∞ + ∞ = NaN, as [`crate::ClnsFormat::add`]).
//!
//! Sums go through S_b with the paper's reduction (swap so z = log2|Z| ≤ 0, conjugate so
//! θ = arg Z ∈ [0, π]), evaluated by an [`SbRadian`]: f64 ([`SbRadianF64`], the reference) or
//! the same 2-D table and readers as the code formats ([`SbTable`]), at coordinates formed in
//! f32 exactly as the kernels in `kernels/clns.cu` form them.

use crate::sb::{pow2_f32, sb_polar, SbTable};
use num_complex::Complex;
use rand::{Rng, SeedableRng};
use rayon::prelude::*;
use serde::Serialize;
use std::f64::consts::{LN_2, PI, TAU};

/// π to f32 (above π by 8.7e-8) and the rest, π − PI_HI, for two-part sums.
pub const PI_HI: f32 = std::f32::consts::PI;
/// The rest, π − PI_HI, rounded to f32 (about −8.7e-8).
pub const PI_LO: f32 = (PI - PI_HI as f64) as f32;
const TAU_HI: f32 = 2.0 * PI_HI;
const TAU_LO: f32 = 2.0 * PI_LO;

/// Below this z (log2 units) S_b reads as (0, 0): |S_b| < 2^-125, and 2^z leaves the range
/// where the kernels' `pow2_f32` is exact.
pub const Z_MIN: f32 = -126.0;

/// A complex value in the paper's f32 log-polar form (`float2 {log, angle}` on the GPU).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct ClnsF32 {
    /// log2 |X|: −∞ for zero, +∞ for complex infinity.
    pub log: f32,
    /// arg X in radians, (−π_f32, π_f32].
    pub angle: f32,
}

/// (a ± 2π) back into (−π_f32, π_f32] for a ∈ (−2π_f32, 2π_f32] (a sum or difference of two
/// angles): a − 2π_hi is exact (Sterbenz), then one rounding adding the low part.
pub fn wrap(a: f32) -> f32 {
    if a > PI_HI {
        (a - TAU_HI) - TAU_LO
    } else if a <= -PI_HI {
        (a + TAU_HI) + TAU_LO
    } else {
        a
    }
}

/// angle + π, wrapped: angle ∓ π_hi is exact for |angle| ≥ π/2, then one rounding adding
/// the low part (two roundings for |angle| < π/2). A tiny positive angle rounds to −π_f32,
/// outside (−π_f32, π_f32]: it maps to π_f32, as `angle_from_f64` does.
fn half_turn(angle: f32) -> f32 {
    if angle > 0.0 {
        let r = (angle - PI_HI) - PI_LO;
        if r <= -PI_HI {
            PI_HI
        } else {
            r
        }
    } else {
        (angle + PI_HI) + PI_LO
    }
}

/// An angle in radians (any f64) rounded to f32 in (−π_f32, π_f32].
pub fn angle_from_f64(a: f64) -> f32 {
    let r = (a - TAU * (a / TAU).round()) as f32;
    if r <= -PI_HI {
        PI_HI
    } else {
        r
    }
}

impl ClnsF32 {
    /// Zero: log −∞.
    pub const ZERO: ClnsF32 = ClnsF32 {
        log: f32::NEG_INFINITY,
        angle: 0.0,
    };
    /// One: log 0, angle 0.
    pub const ONE: ClnsF32 = ClnsF32 {
        log: 0.0,
        angle: 0.0,
    };
    /// Complex infinity: log +∞.
    pub const INF: ClnsF32 = ClnsF32 {
        log: f32::INFINITY,
        angle: 0.0,
    };
    /// Not a number: a NaN log.
    pub const NAN: ClnsF32 = ClnsF32 {
        log: f32::NAN,
        angle: 0.0,
    };

    /// A NaN log or a non-finite angle.
    pub fn is_nan(self) -> bool {
        self.log.is_nan() || !self.angle.is_finite()
    }

    /// Log −∞ with a finite angle.
    pub fn is_zero(self) -> bool {
        self.log == f32::NEG_INFINITY && self.angle.is_finite()
    }

    /// Log +∞ with a finite angle.
    pub fn is_inf(self) -> bool {
        self.log == f32::INFINITY && self.angle.is_finite()
    }

    /// Both parts finite: a nonzero, finite value.
    pub fn is_finite(self) -> bool {
        self.log.is_finite() && self.angle.is_finite()
    }

    /// As the GPU buffers hold it: `[log, angle]`.
    pub fn to_pair(self) -> [f32; 2] {
        [self.log, self.angle]
    }

    /// The inverse of [`to_pair`](Self::to_pair).
    pub fn from_pair([log, angle]: [f32; 2]) -> ClnsF32 {
        ClnsF32 { log, angle }
    }

    /// log2|x| and arg x, each rounded to nearest f32 (from their f64 values). NaN parts give
    /// NaN, an infinite part ∞, zero (either sign) zero.
    pub fn from_complex(x: Complex<f64>) -> ClnsF32 {
        if x.re.is_nan() || x.im.is_nan() {
            return ClnsF32::NAN;
        }
        if x.re.is_infinite() || x.im.is_infinite() {
            return ClnsF32::INF;
        }
        if x.re == 0.0 && x.im == 0.0 {
            return ClnsF32::ZERO;
        }
        ClnsF32 {
            log: x.re.hypot(x.im).log2() as f32,
            angle: angle_from_f64(x.im.atan2(x.re)),
        }
    }

    /// As [`from_complex`](Self::from_complex), from f32 parts (widened exactly).
    pub fn from_complex32(x: Complex<f32>) -> ClnsF32 {
        ClnsF32::from_complex(Complex::new(x.re as f64, x.im as f64))
    }

    /// The value in f64 (NaN for NaN, ∞ + 0i for ∞ and for magnitudes beyond f64).
    pub fn to_complex(self) -> Complex<f64> {
        if self.is_nan() {
            return Complex::new(f64::NAN, f64::NAN);
        }
        let m = (self.log as f64).exp2();
        if m.is_infinite() {
            return Complex::new(f64::INFINITY, 0.0);
        }
        Complex::from_polar(m, self.angle as f64)
    }

    /// As [`to_complex`](Self::to_complex), each part rounded to f32.
    pub fn to_complex32(self) -> Complex<f32> {
        let c = self.to_complex();
        Complex::new(c.re as f32, c.im as f32)
    }

    /// x^n: log·n and angle·n mod 2π, each from its exact f64 value, rounded once.
    pub fn powi(self, n: i32) -> ClnsF32 {
        if self.is_nan() {
            return ClnsF32::NAN;
        }
        if n == 0 {
            return ClnsF32::ONE;
        }
        ClnsF32 {
            log: (self.log as f64 * n as f64) as f32,
            angle: angle_from_f64(self.angle as f64 * n as f64),
        }
    }

    /// The conjugate, exact (π_f32 stays π_f32: −π_f32 is outside the angle range).
    pub fn conj(self) -> ClnsF32 {
        ClnsF32 {
            log: self.log,
            angle: if self.angle == PI_HI {
                PI_HI
            } else {
                -self.angle
            },
        }
    }

    /// x + y, S_b from `m`. x + 0 = x exactly.
    pub fn add(self, m: &(impl SbRadian + ?Sized), y: ClnsF32) -> ClnsF32 {
        add_signed(m, self, y, false)
    }

    /// x − y, S_b from `m`. x − x = 0 exactly.
    pub fn sub(self, m: &(impl SbRadian + ?Sized), y: ClnsF32) -> ClnsF32 {
        add_signed(m, self, y, true)
    }
}

/// x · y: two f32 adds and a wrap (the paper's "two additions"). Specials by IEEE on logs.
impl std::ops::Mul for ClnsF32 {
    type Output = ClnsF32;
    fn mul(self, y: ClnsF32) -> ClnsF32 {
        ClnsF32 {
            log: self.log + y.log,
            angle: wrap(self.angle + y.angle),
        }
    }
}

/// x / y: two f32 subtractions and a wrap.
impl std::ops::Div for ClnsF32 {
    type Output = ClnsF32;
    fn div(self, y: ClnsF32) -> ClnsF32 {
        ClnsF32 {
            log: self.log - y.log,
            angle: wrap(self.angle - y.angle),
        }
    }
}

/// −x: half a turn more, rounded (within one ulp).
impl std::ops::Neg for ClnsF32 {
    type Output = ClnsF32;
    fn neg(self) -> ClnsF32 {
        ClnsF32 {
            log: self.log,
            angle: half_turn(self.angle),
        }
    }
}

/// x ± y = B·(1 + Z) with |Z| ≤ 1: B is the larger operand (−y when that is y and we
/// subtract), Z = ±small/big, so z = log2|Z| ≤ 0; S_b(z, −θ) is the conjugate of S_b(z, θ),
/// so θ = |arg Z| ∈ [0, π], given with φ = π − θ, the distance from Z = −1 that the closed
/// forms need accurately. The angle difference of two f32 angles is exact in f64, and θ and φ
/// are rounded from it once: in f32 the difference of nearly opposite angles (a nearly
/// cancelling sum) would round by up to 1.2e-7 rad, an error of 1.2e-7/|1 + Z| in the sum
/// (8e-3 at |1 + Z| = 1.4e-5, measured before this). Twin of `clnsf_add` in
/// `kernels/clns.cu`, operation for operation.
fn add_signed(m: &(impl SbRadian + ?Sized), x: ClnsF32, y: ClnsF32, negate: bool) -> ClnsF32 {
    if x.is_nan() || y.is_nan() {
        return ClnsF32::NAN;
    }
    if !(x.is_finite() && y.is_finite()) {
        return if y.is_zero() {
            x
        } else if x.is_zero() {
            if negate {
                -y
            } else {
                y
            }
        } else if x.is_inf() && y.is_inf() {
            ClnsF32::NAN
        } else {
            ClnsF32::INF
        };
    }
    // Ties in |x| = |y| break on the angle, so x + y and y + x run the same operations.
    let big_is_y = y.log > x.log || (y.log == x.log && y.angle > x.angle);
    let (big, small) = if big_is_y { (y, x) } else { (x, y) };
    let z = small.log - big.log;
    // arg small − arg big, exact, wrapped into (−π, π] with f64's π.
    let d = small.angle as f64 - big.angle as f64;
    let d = if d > PI {
        d - TAU
    } else if d <= -PI {
        d + TAU
    } else {
        d
    };
    let (near, far) = ((PI - d.abs()) as f32, d.abs() as f32);
    // Adding, arg Z = d; subtracting, arg Z = d ± π, so θ and φ trade places.
    let (theta, phi, mirrored) = if negate {
        (near, far, d > 0.0)
    } else {
        (far, near, d < 0.0)
    };
    if z == 0.0 && phi == 0.0 {
        return ClnsF32::ZERO;
    }
    let (re, im) = m.sb(z, theta, phi);
    let angle = wrap(big.angle + if mirrored { -im } else { im });
    ClnsF32 {
        log: big.log + re,
        angle: if negate && big_is_y {
            half_turn(angle)
        } else {
            angle
        },
    }
}

/// An evaluator of S_b for the f32-radian variant: at z = log2|Z| ≤ 0 and θ = arg Z ∈ [0, π]
/// (with φ = π − θ ≥ 0 to full precision), (Re in log2 units, Im in radians) rounded to f32.
pub trait SbRadian: Sync {
    /// S_b at z, θ and φ = π − θ, given apart so that φ keeps full precision near Z = −1.
    fn sb(&self, z: f32, theta: f32, phi: f32) -> (f32, f32);
}

/// S_b in f64 from z and φ (the cancellation-free closed form of [`sb_polar`]), rounded to
/// f32: the reference.
#[derive(Clone, Copy, Debug)]
pub struct SbRadianF64;

impl SbRadian for SbRadianF64 {
    fn sb(&self, z: f32, _theta: f32, phi: f32) -> (f32, f32) {
        let (re, im) = sb_polar(z as f64, phi as f64 / TAU);
        (re as f32, (im * TAU) as f32)
    }
}

/// The code formats' table, read at r = 2^z (f32 polynomial) and θ in radians; the near
/// region (the same corner) in f64 here and in f32 libdevice on the GPU; Im from turns to
/// radians by one f32 multiply, as the kernel does.
impl SbRadian for SbTable {
    fn sb(&self, z: f32, theta: f32, phi: f32) -> (f32, f32) {
        if z < Z_MIN {
            return (0.0, 0.0);
        }
        let (near_z, near_phi) = self.geometry.near_radians(self.format);
        if z > near_z && phi < near_phi {
            return SbRadianF64.sb(z, theta, phi);
        }
        let r = pow2_f32(&self.pow2, z);
        let v = self.read_at(r, theta, self.geometry.theta_scale_radians());
        (v[0], v[1] * TAU_HI)
    }
}

impl SbRadian for Box<dyn SbRadian> {
    fn sb(&self, z: f32, theta: f32, phi: f32) -> (f32, f32) {
        (**self).sb(z, theta, phi)
    }
}

/// The CPU evaluator of a method for the f32 variant (f64, tex, fma; the table the code
/// format `table_format` would use with `geometry`).
pub fn evaluator(
    method: crate::Method,
    table_format: crate::ClnsFormat,
    geometry: crate::Geometry,
) -> Result<Option<Box<dyn SbRadian>>, sigpu_fnapprox::FitError> {
    Ok(match (method, method.reader()) {
        (crate::Method::F64, _) => Some(Box::new(SbRadianF64)),
        (_, Some(reader)) => Some(Box::new(SbTable::new(table_format, geometry, reader)?)),
        _ => None,
    })
}

/// Error of S_b by a method against the exact value, over a grid, the singular corner and
/// random inputs of z ∈ [−32, 0] × θ ∈ [0, π].
#[derive(Clone, Debug, Serialize)]
pub struct SbCertificate {
    /// The S_b method's name.
    pub method: String,
    /// Inputs evaluated.
    pub inputs: usize,
    /// |Re error| in log2 units.
    pub re_max: f64,
    /// Mean |Re error|, log2 units.
    pub re_mean: f64,
    /// |Im error| in radians.
    pub im_max: f64,
    /// Mean |Im error|, radians.
    pub im_mean: f64,
    /// First-order bound on the relative error S_b's rounding adds to one sum:
    /// ln 2 · re_max + im_max.
    pub add_relative_bound: f64,
}

/// (z, θ, φ) inputs: a `grid` × `grid` lattice of z ∈ [−32, 0] × θ ∈ [0, π], 64 × 64 inputs
/// within 2^-16 of Z = −1 (z and φ geometric down to 2^-30), and `random` uniform ones.
pub fn certify_inputs(grid: usize, random: usize, seed: u64) -> Vec<(f32, f32, f32)> {
    let mut v = Vec::new();
    let grid = grid.max(2);
    let pair = |theta: f64| -> (f32, f32) {
        let t = theta as f32;
        (t, ((PI_HI - t) + PI_LO).abs())
    };
    for i in 0..grid {
        let z = -32.0 * i as f64 / (grid - 1) as f64;
        for j in 0..grid {
            let (t, p) = pair(PI * j as f64 / (grid - 1) as f64);
            v.push((z as f32, t, p));
        }
    }
    for i in 0..64 {
        let z = -(2f64.powf(-16.0 - 14.0 * i as f64 / 63.0)) as f32;
        for j in 0..64 {
            let phi = 2f64.powf(-16.0 - 14.0 * j as f64 / 63.0) as f32;
            v.push((z, (PI_HI - phi) + PI_LO, phi));
        }
    }
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    for _ in 0..random {
        let (t, p) = pair(rng.random_range(0.0..PI));
        v.push((rng.random_range(-32.0f32..=0.0), t, p));
    }
    v
}

/// Certifies `m` over `inputs`.
pub fn certify(
    m: &(impl SbRadian + ?Sized),
    method: &str,
    inputs: &[(f32, f32, f32)],
) -> SbCertificate {
    let errors: Vec<(f64, f64)> = inputs
        .par_iter()
        .map(|&(z, theta, phi)| {
            let (re, im) = sb_polar(z as f64, phi as f64 / TAU);
            let (gr, gi) = m.sb(z, theta, phi);
            ((gr as f64 - re).abs(), (gi as f64 - im * TAU).abs())
        })
        .collect();
    let n = errors.len().max(1) as f64;
    let re_max = errors.iter().map(|e| e.0).fold(0.0, f64::max);
    let im_max = errors.iter().map(|e| e.1).fold(0.0, f64::max);
    SbCertificate {
        method: method.to_owned(),
        inputs: errors.len(),
        re_max,
        re_mean: errors.iter().map(|e| e.0).sum::<f64>() / n,
        im_max,
        im_mean: errors.iter().map(|e| e.1).sum::<f64>() / n,
        add_relative_bound: LN_2 * re_max + im_max,
    }
}

/// Relative error of each operation on random values against num_complex in f64 of the same
/// (exactly represented) operands.
#[derive(Clone, Debug, Serialize)]
pub struct OpErrors {
    /// The S_b method's name (add and sub go through it).
    pub method: String,
    /// Pairs of operands measured.
    pub pairs: usize,
    /// Conversion from f64 (|x − from(x)| / |x|): max and mean.
    pub convert: (f64, f64),
    /// x · y: max and mean.
    pub mul: (f64, f64),
    /// x / y: max and mean.
    pub div: (f64, f64),
    /// x + y: max and mean.
    pub add: (f64, f64),
    /// x − y: max and mean.
    pub sub: (f64, f64),
}

/// `n` random pairs, parts uniform in [−8, 8), one pair in 16 nearly cancelling
/// (y ≈ −x·(1 − ε), the near region of S_b).
pub fn random_pairs(n: usize, seed: u64) -> Vec<(Complex<f64>, Complex<f64>)> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    (0..n)
        .map(|i| {
            let x = Complex::new(rng.random_range(-8.0..8.0), rng.random_range(-8.0..8.0));
            let y = if i % 16 == 0 {
                let eps =
                    Complex::new(rng.random_range(-1e-3..1e-3), rng.random_range(-1e-3..1e-3));
                -x * (1.0 + eps)
            } else {
                Complex::new(rng.random_range(-8.0..8.0), rng.random_range(-8.0..8.0))
            };
            (x, y)
        })
        .collect()
}

/// Errors of conversion and of the four operations on `pairs`, with S_b by `m` (named
/// `method` in the result).
pub fn op_errors(
    m: &(impl SbRadian + ?Sized),
    method: &str,
    pairs: &[(Complex<f64>, Complex<f64>)],
) -> OpErrors {
    let rel = |got: ClnsF32, want: Complex<f64>| (got.to_complex() - want).norm() / want.norm();
    let errs: Vec<[f64; 5]> = pairs
        .par_iter()
        .map(|&(a, b)| {
            let (x, y) = (ClnsF32::from_complex(a), ClnsF32::from_complex(b));
            let (xe, ye) = (x.to_complex(), y.to_complex());
            [
                (xe - a).norm() / a.norm(),
                rel(x * y, xe * ye),
                rel(x / y, xe / ye),
                rel(x.add(m, y), xe + ye),
                rel(x.sub(m, y), xe - ye),
            ]
        })
        .collect();
    let stat = |k: usize| {
        let n = errs.len().max(1) as f64;
        (
            errs.iter().map(|e| e[k]).fold(0.0, f64::max),
            errs.iter().map(|e| e[k]).sum::<f64>() / n,
        )
    };
    OpErrors {
        method: method.to_owned(),
        pairs: errs.len(),
        convert: stat(0),
        mul: stat(1),
        div: stat(2),
        add: stat(3),
        sub: stat(4),
    }
}

/// Relative distance of two results, √((ln 2·Δlog)² + Δangle²) (Δangle wrapped), 0 for equal
/// specials, ∞ for different classes: what the GPU checks compare.
pub fn distance(x: ClnsF32, y: ClnsF32) -> f64 {
    let class = |v: ClnsF32| (v.is_nan(), v.is_zero(), v.is_inf());
    if x.is_finite() && y.is_finite() {
        let dl = (x.log as f64 - y.log as f64) * LN_2;
        let da = x.angle as f64 - y.angle as f64;
        let da = da - TAU * (da / TAU).round();
        dl.hypot(da)
    } else if class(x) == class(y) {
        0.0
    } else {
        f64::INFINITY
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ClnsFormat, Geometry, Method};

    /// Negating a value with a tiny positive angle: the half turn rounds to −π_f32, which
    /// must come back as π_f32 (the range is (−π_f32, π_f32]); −π_f32 itself never appears.
    #[test]
    fn negation_of_tiny_positive_angles_stays_in_range() {
        for angle in [1e-30f32, 1e-8, 5e-8, 1.1e-7, f32::MIN_POSITIVE] {
            let x = ClnsF32 { log: 0.5, angle };
            let n = -x;
            assert_eq!(n.angle, PI_HI, "angle {angle:e}");
            assert_eq!(n.log, 0.5);
        }
        for angle in [-1e-8f32, 0.0, 1.0, -3.0, PI_HI] {
            let n = -ClnsF32 { log: 0.0, angle };
            assert!(
                n.angle > -PI_HI && n.angle <= PI_HI,
                "{angle} -> {}",
                n.angle
            );
        }
    }

    fn values(n: usize, seed: u64) -> Vec<ClnsF32> {
        random_pairs(n, seed)
            .into_iter()
            .flat_map(|(a, b)| [ClnsF32::from_complex(a), ClnsF32::from_complex(b)])
            .collect()
    }

    #[test]
    fn angles_stay_in_range_and_wrap_accurately() {
        let v = values(3000, 1);
        for w in v.windows(2) {
            let (x, y) = (w[0], w[1]);
            for r in [x * y, x / y, -x, x.conj(), x.powi(7)] {
                assert!(r.angle > -PI_HI && r.angle <= PI_HI, "{r:?}");
            }
            // The sum's rounding (≤ 2.4e-7 below 2π) and the wrap's (≤ 1.2e-7 below π).
            let exact = x.angle as f64 + y.angle as f64;
            let got = (x * y).angle as f64;
            let d = got - exact;
            assert!((d - TAU * (d / TAU).round()).abs() <= 3.6e-7, "{x:?} {y:?}");
        }
        assert_eq!(wrap(-PI_HI), (-PI_HI + TAU_HI) + TAU_LO);
        assert!(wrap(-PI_HI) < PI_HI);
        assert_eq!(angle_from_f64(-PI), PI_HI);
        assert_eq!(angle_from_f64(3.0 * PI), PI_HI);
    }

    #[test]
    fn identities_and_their_limits() {
        let m = SbRadianF64;
        for w in values(2000, 2).windows(2) {
            let (x, y) = (w[0], w[1]);
            assert_eq!(x.conj().conj(), x);
            assert_eq!(x * y, y * x);
            assert_eq!(x.sub(&m, x), ClnsF32::ZERO, "x − x = 0 exactly");
            assert_eq!(x.add(&m, ClnsF32::ZERO), x);
            assert_eq!(ClnsF32::ZERO.add(&m, x), x);
            assert_eq!(x.add(&m, y), y.add(&m, x), "commutative");
            assert_eq!((x * x.conj()).angle, 0.0, "x·x̄ is real");
            // Round trips hold to the rounding of the wrap, not exactly.
            assert!(distance(x * y / y, x) < 1e-6, "{x:?} {y:?}");
            assert!(distance(-(-x), x) < 5e-7, "{x:?}");
            // x + (−x): −x is rounded, so the sum is what that rounding (and the angle
            // difference's) left: a few roundings of ≤ 1.2e-7 rad, times |x|.
            let c = x.add(&m, -x).to_complex().norm() / x.to_complex().norm();
            assert!(c <= 4.8e-7, "{x:?}: {c:e}");
        }
        let i = ClnsF32::from_complex(Complex::new(0.0, 1.0));
        assert!(distance(i.powi(4), ClnsF32::ONE) < 1e-6);
        assert!(distance(i.powi(2), -ClnsF32::ONE) < 1e-6);
    }

    #[test]
    fn specials_follow_ieee_on_the_log() {
        let m = SbRadianF64;
        let two = ClnsF32::from_complex(Complex::new(2.0, 0.0));
        let nan = ClnsF32::from_complex(Complex::new(f64::NAN, 1.0));
        let inf = ClnsF32::from_complex(Complex::new(1.0, f64::NEG_INFINITY));
        assert!(nan.is_nan() && inf.is_inf() && ClnsF32::ZERO.is_zero());
        assert!(ClnsF32::from_complex(Complex::new(-0.0, 0.0)).is_zero());
        assert!((ClnsF32::ZERO * inf).is_nan());
        assert!((ClnsF32::ZERO * two).is_zero());
        assert!((two / ClnsF32::ZERO).is_inf());
        assert!((ClnsF32::ZERO / ClnsF32::ZERO).is_nan());
        assert!((inf / inf).is_nan());
        assert!((two / inf).is_zero());
        assert!(nan.add(&m, two).is_nan() && two.sub(&m, nan).is_nan());
        assert!(inf.add(&m, inf).is_nan());
        assert!(inf.add(&m, two).is_inf() && two.sub(&m, inf).is_inf());
        assert!(ClnsF32::ZERO.sub(&m, two) == -two);
        assert!(ClnsF32::ZERO.powi(-2).is_inf() && ClnsF32::ZERO.powi(3).is_zero());
        assert!(nan.powi(0).is_nan() && two.powi(0) == ClnsF32::ONE);
        assert!(ClnsF32 {
            log: 0.0,
            angle: f32::INFINITY
        }
        .is_nan());
        let huge = ClnsF32 {
            log: 3e38,
            angle: 1.0,
        };
        assert!((huge * huge).is_inf(), "the log overflows to +∞");
        assert!(ClnsF32 {
            log: 2e3,
            angle: 0.0
        }
        .to_complex()
        .re
        .is_infinite());
        assert!(nan.to_complex().re.is_nan());
    }

    /// The f64 reference and the tables against num_complex in f64: each op within its
    /// expected error (f32 rounding for f64 S_b; the table's certified bound for tex/fma).
    #[test]
    fn ops_match_num_complex() {
        let pairs = random_pairs(4000, 3);
        let e = op_errors(&SbRadianF64, "f64", &pairs);
        // log2|x| ~ 3 rounded to f32 (2.4e-7·ln 2) plus the angle's f32 rounding.
        for (what, (max, mean)) in [("convert", e.convert), ("mul", e.mul), ("div", e.div)] {
            assert!(max < 1e-6 && mean > 1e-9, "{what}: {max:e} {mean:e}");
        }
        // Sums, near-cancelling pairs included (|x + y| down to ~1e-5·|x|): the exact angle
        // difference keeps them at f32 rounding (8e-3 with an f32 difference).
        assert!(e.add.0 < 1e-6 && e.sub.0 < 1e-6, "{e:?}");
        let f = ClnsFormat::CLNS16;
        let g = Geometry::default_for(f);
        let inputs = certify_inputs(64, 2000, 4);
        for method in [Method::Tex, Method::Fma] {
            let m = evaluator(method, f, g).unwrap().unwrap();
            let cert = certify(&m, &method.to_string(), &inputs);
            assert!(
                cert.add_relative_bound < 2e-3 && cert.re_mean > 1e-7,
                "{cert:?}"
            );
            let e = op_errors(&m, &method.to_string(), &pairs);
            assert!(
                e.sub.0 < 1.5 * cert.add_relative_bound + 1e-6,
                "{e:?} {cert:?}"
            );
        }
        let cert = certify(&SbRadianF64, "f64", &inputs);
        assert!(cert.re_max < 1e-6 && cert.im_max < 3e-7, "{cert:?}");
    }
}
