//! Fast f32 exp / log / sin / cos on the CPU: branch-free polynomials that the compiler
//! vectorises, run through an AVX2 + FMA-enabled loop ([`avx2`]) when the CPU has it (as the
//! caller's [`CpuArch`] says) and a plain loop otherwise. Both paths compute the same operations in the same order,
//! so they give the same bits. [`apply`] splits an array into chunks and sends a share of
//! them down the fast path: the λ partition of the GPU kernels, for the CPU.
//!
//! Formulas: exp by 2^n · p(r) with r = x − n·ln2 (two-part ln2) and a degree-6 Taylor
//! polynomial on |r| ≤ ln2/2, 2^n applied as two factors so that results near the top of
//! the range stay finite and those below 2^-126 round gradually to subnormals and 0; log by
//! exponent extraction (subnormal inputs scaled by 2^23 first) and the atanh series
//! ln m = 2(s + s³/3 + … + s⁹/9), s = (m−1)/(m+1), m ∈ [√½, √2); sin / cos by Cody–Waite
//! reduction modulo π/2 (three-part π/2, exact for |x| ≤ [`FAST_LIMIT`]) and degree-9 /
//! degree-8 Taylor polynomials on |r| ≤ π/4, the quadrant picking the polynomial and sign;
//! beyond [`FAST_LIMIT`] an exact Payne–Hanek reduction (module `reduce`), one element at a
//! time after the vector loop. Every function takes every f32: exp and log give the IEEE
//! answers at their edges (exp: 0 at −∞, ∞ above ln(f32::MAX); log: −∞ at 0, NaN below),
//! sin / cos NaN at ±∞. Errors over the whole f32 domain: `docs/design/approx.md`.

use crate::catalog::{Domain, Precision, Range};
use crate::numeric::{ErrorStats, Values};
use rayon::prelude::*;
use serde::Serialize;
use sigpu_runtime::host::{CpuArch, Isa};

#[cfg(target_arch = "x86_64")]
mod avx2;
mod reduce;

/// The largest |x| the fast sin / cos reduction serves (the three-part π/2 multiplies
/// exactly up to here); larger arguments take the exact reduction.
pub const FAST_LIMIT: f32 = 8192.0;

/// The functions with a CPU fast version.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CpuFunction {
    /// e^x.
    Exp,
    /// Natural logarithm.
    Log,
    /// Sine of radians.
    Sin,
    /// Cosine of radians.
    Cos,
}

impl CpuFunction {
    /// Every function with a fast version, in a fixed order.
    pub const ALL: [CpuFunction; 4] = [
        CpuFunction::Exp,
        CpuFunction::Log,
        CpuFunction::Sin,
        CpuFunction::Cos,
    ];

    /// The accurate version: Rust's `f32` method (the platform libm).
    pub fn accurate(self, x: f32) -> f32 {
        match self {
            CpuFunction::Exp => x.exp(),
            CpuFunction::Log => x.ln(),
            CpuFunction::Sin => x.sin(),
            CpuFunction::Cos => x.cos(),
        }
    }

    /// The fast version, one value.
    #[inline(always)]
    pub fn fast(self, x: f32) -> f32 {
        match self {
            CpuFunction::Exp => exp_fast(x),
            CpuFunction::Log => log_fast(x),
            CpuFunction::Sin => sin_cos(x, 0),
            CpuFunction::Cos => sin_cos(x, 1),
        }
    }

    /// The f64 reference, as the catalog's error statistics take it.
    fn reference(self) -> fn(f64, f64) -> f64 {
        match self {
            CpuFunction::Exp => |x, _| x.exp(),
            CpuFunction::Log => |x, _| x.ln(),
            CpuFunction::Sin => |x, _| x.sin(),
            CpuFunction::Cos => |x, _| x.cos(),
        }
    }

    /// A typical range of arguments, and a wide one that the error figures also cover (every
    /// f32 is in the fast versions' domain; the whole-domain figures are in the design note).
    pub fn domains(self) -> (Domain, Domain) {
        let one = |x| Domain { x, y: None };
        match self {
            CpuFunction::Exp => (
                one(Range::Uniform {
                    lo: -10.0,
                    hi: 10.0,
                }),
                one(Range::Uniform {
                    lo: -87.0,
                    hi: 88.72,
                }),
            ),
            CpuFunction::Log => (
                one(Range::LogUniform {
                    lo_exp: -60.0,
                    hi_exp: 60.0,
                    signed: false,
                }),
                one(Range::LogUniform {
                    lo_exp: -149.0,
                    hi_exp: 127.9,
                    signed: false,
                }),
            ),
            CpuFunction::Sin | CpuFunction::Cos => (
                one(Range::Uniform {
                    lo: -std::f64::consts::PI,
                    hi: std::f64::consts::PI,
                }),
                // Phase accumulators: far beyond the fast reduction's 8192.
                one(Range::LogUniform {
                    lo_exp: -10.0,
                    hi_exp: 64.0,
                    signed: true,
                }),
            ),
        }
    }
}

impl std::str::FromStr for CpuFunction {
    type Err = crate::ApproxError;

    /// `exp`, `log`, `sin` or `cos`.
    fn from_str(s: &str) -> Result<CpuFunction, crate::ApproxError> {
        (CpuFunction::ALL.into_iter())
            .find(|f| format!("{f:?}").eq_ignore_ascii_case(s))
            .ok_or_else(|| crate::ApproxError::UnknownFunction {
                key: s.to_owned(),
                known: "exp, log, sin, cos (the CPU fast functions)".to_owned(),
            })
    }
}

/// Rounds to the nearest integer (ties to even) for |v| < 2^22, as a float, without a branch.
#[inline(always)]
fn round_magic(v: f32) -> f32 {
    const MAGIC: f32 = 12_582_912.0; // 1.5 · 2^23
    (v + MAGIC) - MAGIC
}

#[inline(always)]
pub(crate) fn exp_fast(x: f32) -> f32 {
    // Past these ends the answer is 0 (below half the least subnormal) or ∞: the clamped
    // value still gives it, through the scaling below.
    let x = x.clamp(-104.0, 89.0);
    let n = round_magic(x * std::f32::consts::LOG2_E);
    // ln 2 split so n · LN2_HI is exact for |n| < 2^9.
    let r = (x - n * 0.693_359_4) - n * -2.121_944_4e-4;
    let p = 1.0
        + r * (1.0
            + r * (0.5
                + r * (1.0 / 6.0 + r * (1.0 / 24.0 + r * (1.0 / 120.0 + r * (1.0 / 720.0))))));
    // 2^n as 2^h · 2^(n−h), both normal for n in [−150, 128]: exact where the result is
    // normal (the same bits as one factor), rounded once where it is subnormal, ∞ above.
    let n = n as i32;
    let h = n >> 1;
    let pow2 = |e: i32| f32::from_bits(((e + 127) as u32) << 23);
    p * pow2(h) * pow2(n - h)
}

#[inline(always)]
pub(crate) fn log_fast(x: f32) -> f32 {
    // Subnormals scaled into the normal range (exactly) and their exponent corrected.
    let subnormal = x < f32::MIN_POSITIVE;
    let scaled = if subnormal { x * 8_388_608.0 } else { x };
    let bits = scaled.to_bits();
    let mut e = ((bits >> 23) & 0xff) as i32 - 127 - if subnormal { 23 } else { 0 };
    let mut m = f32::from_bits((bits & 0x007f_ffff) | 0x3f80_0000);
    let big = m > std::f32::consts::SQRT_2;
    m = if big { m * 0.5 } else { m };
    e += big as i32;
    let s = (m - 1.0) / (m + 1.0);
    let s2 = s * s;
    let series =
        2.0 * s * (1.0 + s2 * (1.0 / 3.0 + s2 * (1.0 / 5.0 + s2 * (1.0 / 7.0 + s2 * (1.0 / 9.0)))));
    let r = e as f32 * std::f32::consts::LN_2 + series;
    // Outside the domain: the IEEE answers (NaN below 0, −∞ at 0, ∞ at ∞).
    if x > 0.0 && x < f32::INFINITY {
        r
    } else if x == 0.0 {
        f32::NEG_INFINITY
    } else if x == f32::INFINITY {
        x
    } else {
        f32::NAN
    }
}

/// sin (`shift` 0) or cos (`shift` 1) of any f32: the fast polynomial within
/// [`FAST_LIMIT`], the exact reduction beyond (and NaN for ±∞, NaN).
#[inline(always)]
fn sin_cos(x: f32, shift: i32) -> f32 {
    if x.abs() <= FAST_LIMIT {
        sin_cos_fast(x, shift)
    } else {
        reduce::sin_cos_any(x, shift)
    }
}

/// The elements of `x` beyond the fast reduction's range, recomputed exactly in `out` (a pass
/// after the vector loop, so the loop itself stays branch-free).
fn fix_large(x: &[f32], out: &mut [f32], shift: i32) {
    for (o, &v) in out.iter_mut().zip(x) {
        // NaN and ±∞ too: they are not within the limit.
        if v.abs() > FAST_LIMIT || v.is_nan() {
            *o = reduce::sin_cos_any(v, shift);
        }
    }
}

/// sin (`shift` 0) or cos (`shift` 1) for |x| ≤ [`FAST_LIMIT`]: cos x = sin(x + π/2) is a
/// quadrant shift.
#[inline(always)]
pub(crate) fn sin_cos_fast(x: f32, shift: i32) -> f32 {
    let n = round_magic(x * std::f32::consts::FRAC_2_PI);
    let r = ((x - n * 1.570_312_5) - n * 4.837_513e-4) - n * 7.549_79e-8;
    let r2 = r * r;
    let s = r
        * (1.0
            + r2 * (-1.0 / 6.0
                + r2 * (1.0 / 120.0 + r2 * (-1.0 / 5040.0 + r2 * (1.0 / 362_880.0)))));
    let c = 1.0 + r2 * (-0.5 + r2 * (1.0 / 24.0 + r2 * (-1.0 / 720.0 + r2 * (1.0 / 40320.0))));
    let q = (n as i32).wrapping_add(shift) & 3;
    let v = if q & 1 == 0 { s } else { c };
    if q & 2 == 0 {
        v
    } else {
        -v
    }
}

/// Which loop runs the fast path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SimdPath {
    /// The AVX2 + FMA loop, 8 lanes; bit-identical to the scalar loop.
    Avx2,
    /// The portable loop.
    Scalar,
}

impl SimdPath {
    /// The instruction sets this module has loops for.
    const OFFERED: [Isa; 2] = [Isa::Scalar, Isa::Avx2Fma];

    /// The widest loop `arch` runs (never more than the CPU has): AVX2 + FMA, else the plain
    /// loop.
    pub fn best(arch: &CpuArch) -> SimdPath {
        match Isa::best_of(arch, &Self::OFFERED) {
            Isa::Avx2Fma => SimdPath::Avx2,
            _ => SimdPath::Scalar,
        }
    }

    /// The instruction set the loop is written for.
    pub fn isa(self) -> Isa {
        match self {
            SimdPath::Avx2 => Isa::Avx2Fma,
            SimdPath::Scalar => Isa::Scalar,
        }
    }
}

fn fast_scalar(f: CpuFunction, x: &[f32], out: &mut [f32]) {
    // The branch-free kernels, as the vector loop runs them; sin / cos fixed up after.
    for (o, &v) in out.iter_mut().zip(x) {
        *o = match f {
            CpuFunction::Exp => exp_fast(v),
            CpuFunction::Log => log_fast(v),
            CpuFunction::Sin => sin_cos_fast(v, 0),
            CpuFunction::Cos => sin_cos_fast(v, 1),
        };
    }
}

/// The fast version over a slice, on `path`.
///
/// # Panics
/// If `x` and `out` differ in length (a shorter `out` would silently drop results).
pub fn fast_slice(f: CpuFunction, path: SimdPath, x: &[f32], out: &mut [f32]) {
    assert_eq!(
        x.len(),
        out.len(),
        "fast_slice: input and output lengths differ"
    );
    match path {
        #[cfg(target_arch = "x86_64")]
        SimdPath::Avx2 if path.isa().runs_on(&CpuArch::host()) => {
            // SAFETY: this CPU has AVX2 and FMA (checked just above, whatever `path` says).
            unsafe { avx2::fast(f, x, out) }
        }
        _ => fast_scalar(f, x, out),
    }
    match f {
        CpuFunction::Sin => fix_large(x, out, 0),
        CpuFunction::Cos => fix_large(x, out, 1),
        CpuFunction::Exp | CpuFunction::Log => {}
    }
}

/// Elements per chunk of [`apply`].
pub const CHUNK: usize = 1 << 14;

/// Is chunk `c` on the fast path when a `share` of the chunks is? Spreads the fast chunks
/// evenly (chunk c is fast when ⌊(c+1)·share⌋ > ⌊c·share⌋).
pub fn chunk_is_fast(c: usize, share: f64) -> bool {
    ((c + 1) as f64 * share).floor() > (c as f64 * share).floor()
}

/// `out = f(x)` on all threads, a `share` in [0, 1] of the chunks on the fast path (through
/// `path`) and the rest accurate.
///
/// # Panics
/// If `x` and `out` differ in length.
pub fn apply(f: CpuFunction, path: SimdPath, x: &[f32], out: &mut [f32], share: f64) {
    assert_eq!(x.len(), out.len(), "apply: input and output lengths differ");
    let share = share.clamp(0.0, 1.0);
    // The caller's cancellation token, polled per chunk; a cancelled caller discards `out`.
    let cancel = sigpu_runtime::cancel::Cancel::current();
    out.par_chunks_mut(CHUNK)
        .zip(x.par_chunks(CHUNK))
        .enumerate()
        .for_each(|(c, (o, xs))| {
            if cancel.is_cancelled() {
                return;
            }
            if chunk_is_fast(c, share) {
                fast_slice(f, path, xs, o);
            } else {
                for (o, &v) in o.iter_mut().zip(xs) {
                    *o = f.accurate(v);
                }
            }
        });
}

/// Error of the fast version through `path` (or the accurate one, `path` `None`) over `n`
/// inputs from `domain`.
pub fn errors(
    f: CpuFunction,
    path: Option<SimdPath>,
    domain: &Domain,
    n: usize,
    seed: u64,
) -> ErrorStats {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let x: Vec<f32> = (0..n)
        .map(|_| domain.x.sample(rng.random(), rng.random()) as f32)
        .collect();
    let mut out = vec![0f32; n];
    let share = if path.is_some() { 1.0 } else { 0.0 };
    apply(f, path.unwrap_or(SimdPath::Scalar), &x, &mut out, share);
    // The catalog's f32 entry with this function's reference: error_stats reads only the
    // reference and the precision.
    let func = crate::catalog::Function {
        reference: f.reference(),
        precision: Precision::F32,
        ..*crate::catalog::find("exp_f32").expect("catalog entry")
    };
    crate::numeric::error_stats(&func, &Values::F32(x), None, &Values::F32(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn functions_parse_by_name() {
        for f in CpuFunction::ALL {
            let name = format!("{f:?}").to_lowercase();
            assert_eq!(name.parse::<CpuFunction>().unwrap(), f);
        }
        let err = "tan".parse::<CpuFunction>().unwrap_err().to_string();
        assert!(
            err.contains("\"tan\"") && err.contains("exp, log, sin, cos"),
            "{err}"
        );
    }

    #[test]
    fn fast_versions_are_accurate_to_a_few_ulp_in_their_domain() {
        for f in CpuFunction::ALL {
            let (dom, _) = f.domains();
            let s = errors(f, Some(SimdPath::Scalar), &dom, 20_000, 3);
            assert_eq!(s.class_mismatches, 0, "{f:?}");
            assert!(s.mean_rel < 1e-6, "{f:?}: {s:?}");
            assert!(s.max_abs < 4e-6 || f == CpuFunction::Exp, "{f:?}: {s:?}");
        }
    }

    #[test]
    fn simd_and_scalar_paths_agree_bit_for_bit() {
        let x: Vec<f32> = (0..10_000).map(|i| (i as f32 - 5000.0) * 0.0173).collect();
        for f in CpuFunction::ALL {
            let (mut a, mut b) = (vec![0f32; x.len()], vec![0f32; x.len()]);
            fast_slice(f, SimdPath::Scalar, &x, &mut a);
            fast_slice(f, SimdPath::best(&CpuArch::host()), &x, &mut b);
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&a), bits(&b), "{f:?}");
        }
    }

    #[test]
    fn split_shares_chunks_evenly_and_ends_match_the_versions() {
        let fast = (0..100).filter(|&c| chunk_is_fast(c, 0.25)).count();
        assert_eq!(fast, 25);
        assert!(!(0..100).any(|c| chunk_is_fast(c, 0.0)));
        assert!((0..100).all(|c| chunk_is_fast(c, 1.0)));
        let x: Vec<f32> = (0..3 * CHUNK).map(|i| i as f32 * 1e-4).collect();
        let mut out = vec![0f32; x.len()];
        let path = SimdPath::best(&CpuArch::host());
        apply(CpuFunction::Exp, path, &x, &mut out, 0.0);
        assert!(out.iter().zip(&x).all(|(o, v)| *o == v.exp()));
        apply(CpuFunction::Exp, path, &x, &mut out, 1.0);
        assert!(out.iter().zip(&x).all(|(o, v)| *o == exp_fast(*v)));
    }

    #[test]
    fn log_outside_the_domain_gives_ieee_answers() {
        assert!(log_fast(-1.0).is_nan());
        assert!(log_fast(-1e-45).is_nan());
        assert_eq!(log_fast(0.0), f32::NEG_INFINITY);
        assert_eq!(log_fast(f32::INFINITY), f32::INFINITY);
        assert!(log_fast(f32::NAN).is_nan());
    }

    /// Distance in ulps between two f32 of the same sign (0 when both are NaN).
    fn ulps(a: f32, b: f32) -> u32 {
        if a.is_nan() && b.is_nan() {
            return 0;
        }
        let key = |v: f32| {
            let b = v.to_bits() as i64;
            if b & (1 << 31) != 0 {
                (1i64 << 31) - b
            } else {
                b
            }
        };
        (key(a) - key(b)).unsigned_abs().min(u32::MAX as u64) as u32
    }

    #[test]
    fn edges_of_the_former_domains_are_correct() {
        let f = CpuFunction::fast;
        // Phase-accumulator arguments: far beyond the fast reduction's range.
        for x in [3e8f32, 1e6, -1e6, 8193.0, 1e20, f32::MAX, -f32::MAX] {
            for g in [CpuFunction::Sin, CpuFunction::Cos] {
                let want = g.reference()(x as f64, 0.0) as f32;
                assert!(
                    ulps(f(g, x), want) <= 1,
                    "{g:?}({x}) = {} vs {want}",
                    f(g, x)
                );
            }
        }
        assert!((f(CpuFunction::Sin, 1e6) - -0.349_993).abs() < 1e-5);
        for x in [f32::INFINITY, f32::NEG_INFINITY, f32::NAN] {
            assert!(f(CpuFunction::Sin, x).is_nan() && f(CpuFunction::Cos, x).is_nan());
        }
        // exp: the top of the range stays finite, underflow is gradual, −∞ gives 0.
        let mut x = 88.3763f32;
        while x <= 88.7228 {
            let want = (x as f64).exp() as f32;
            assert!(
                want.is_finite() && ulps(exp_fast(x), want) <= 3,
                "exp({x}) = {} vs {want}",
                exp_fast(x)
            );
            x = f32::from_bits(x.to_bits() + 1);
        }
        assert_eq!(exp_fast(88.8), f32::INFINITY);
        assert_eq!(exp_fast(f32::INFINITY), f32::INFINITY);
        assert_eq!(exp_fast(f32::NEG_INFINITY), 0.0);
        assert_eq!(exp_fast(-1000.0), 0.0);
        assert!(exp_fast(f32::NAN).is_nan());
        assert!(ulps(exp_fast(-100.0), (-100f64).exp() as f32) <= 1);
        // log of subnormals: scaled, not read as 2^-127.
        for x in [1e-45f32, 1e-40, 1e-39, f32::MIN_POSITIVE / 2.0] {
            let want = (x as f64).ln() as f32;
            assert!(
                ulps(log_fast(x), want) <= 2,
                "log({x}) = {} vs {want}",
                log_fast(x)
            );
        }
    }

    /// The worst error of `f` over every `stride`-th f32 bit pattern, against the f64 function
    /// rounded to f32: (ulps where the answer is at least `floor` in magnitude, absolute error
    /// below it).
    fn sweep(f: CpuFunction, stride: u32) -> (u32, f64) {
        // sin / cos: absolute error near their zeros, where the relative one is not the
        // contract; exp / log: ulps everywhere (subnormal results count their own ulps).
        let floor = match f {
            CpuFunction::Sin | CpuFunction::Cos => 1e-3,
            _ => 0.0,
        };
        let (mut worst_ulps, mut worst_abs) = (0u32, 0f64);
        let count = u32::MAX as u64 / stride as u64 + 1;
        let mut xs = Vec::with_capacity(1 << 20);
        let mut out = vec![0f32; 1 << 20];
        for start in (0..count).step_by(1 << 20) {
            xs.clear();
            let end = (start + (1 << 20)).min(count);
            xs.extend((start..end).map(|i| f32::from_bits((i * stride as u64) as u32)));
            let out = &mut out[..xs.len()];
            fast_slice(f, SimdPath::best(&CpuArch::host()), &xs, out);
            for (&x, &got) in xs.iter().zip(out.iter()) {
                let exact = f.reference()(x as f64, 0.0);
                let want = exact as f32;
                if want.is_nan() != got.is_nan() {
                    panic!("{f:?}({x:e}) = {got}, want {want}");
                }
                if exact.abs() >= floor || !exact.is_finite() {
                    worst_ulps = worst_ulps.max(ulps(got, want));
                } else {
                    worst_abs = worst_abs.max((got as f64 - exact).abs());
                }
            }
        }
        (worst_ulps, worst_abs)
    }

    #[test]
    fn every_function_keeps_its_contract_over_the_whole_f32_domain() {
        // A stride through every bit pattern (both signs, subnormals, ±∞, NaN); the
        // documented figures come from stride 1 (`SIGPU_APPROX_STRIDE=1`, release).
        let stride = std::env::var("SIGPU_APPROX_STRIDE")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(4099);
        for (f, max_ulps, max_abs) in [
            (CpuFunction::Exp, 3, 0.0),
            (CpuFunction::Log, 3, 0.0),
            (CpuFunction::Sin, 8, 4e-7),
            (CpuFunction::Cos, 8, 4e-7),
        ] {
            let (u, a) = sweep(f, stride);
            eprintln!("{f:?}: at most {u} ulps, {a:e} absolute below 1e-3 (stride {stride})");
            assert!(u <= max_ulps && a <= max_abs, "{f:?}: {u} ulps, {a:e}");
        }
    }
}
