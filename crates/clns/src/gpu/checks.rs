//! The CLNS self-checks for `sigpu check`: every kernel against its CPU twin on fresh random
//! inputs (specials, cancellations, the near region), as the lab's registry gathers them.

use super::{random_pairs, GpuClns};
use crate::certify::Inputs;
use crate::error::{ClnsError, Result};
use crate::format::{Clns, ClnsFormat};
use crate::radian::ClnsF32;
use crate::sb::{Geometry, Method, Sb, SbF64, SFU_BOUND_ULPS};
use sigpu_runtime::cuda::{
    self, check_result, compare_by, Check, CheckReport, DeviceBuffer, Gpu, Tolerance,
};

/// The registry's entries from `(name, check(args…), about)`: each runs
/// `check_result(check(gpu, seed, args…))`.
macro_rules! checks {
    ($(($name:literal, $check:ident($($arg:expr),*), $about:literal)),* $(,)?) => {
        vec![$(Check {
            name: $name,
            about: $about,
            run: |gpu, seed| check_result($check(gpu, seed $(, $arg)*)),
        }),*]
    };
}

/// Codes of two CLNS results apart: max of |Δlog| and |Δangle| in angle ulps; ∞ on a class
/// mismatch.
fn distance(format: ClnsFormat, x: Clns, y: Clns) -> f64 {
    use crate::Class::*;
    match (format.class(x), format.class(y)) {
        (Finite { log: a, angle: p }, Finite { log: b, angle: q }) => {
            let da = (p.wrapping_sub(q) as i32).unsigned_abs() >> format.angle_shift();
            ((a - b).abs() as f64).max(da as f64)
        }
        (c, d) if c == d => 0.0,
        _ => f64::INFINITY,
    }
}

/// GPU S_b vs its CPU twin on the certificate's inputs (strided): tables within 1 code (the
/// filter's final rounding and the f32 near region are not bit-exact), f64 exactly, f32
/// libdevice within 1 code of the f64 reference.
fn check_sb(gpu: &Gpu, seed: u64, method: Method) -> Result<CheckReport> {
    let format = ClnsFormat::CLNS16;
    let g = GpuClns::new(gpu, format, Geometry::default_for(format))?;
    let inputs = Inputs::standard(format, 37, 200_000, seed);
    let got = g.sb(method, &inputs)?;
    let twin: Box<dyn Sb> = match g.twin(method)? {
        Some(t) => t,
        None => Box::new(SbF64(format)),
    };
    let tol = if method == Method::F64 { 0.0 } else { 1.0 };
    let results: Vec<(Clns, Clns)> = (0..inputs.len())
        .map(|i| {
            let (re, im) = got[i];
            let (wr, wi) = twin.sb(inputs.z()[i], inputs.theta()[i]);
            (
                Clns {
                    log: re as i32,
                    angle: im,
                },
                Clns {
                    log: wr as i32,
                    angle: wi,
                },
            )
        })
        .collect();
    Ok(report(format, &results, tol))
}

/// GPU element-wise add (and mul) of random pairs vs `ClnsFormat::add` (`mul`) with the twin.
fn check_op(gpu: &Gpu, seed: u64, method: Option<Method>) -> Result<CheckReport> {
    let format = ClnsFormat::CLNS16;
    let g = GpuClns::new(gpu, format, Geometry::default_for(format))?;
    let n = (1 << 20) + (seed % 1000) as usize;
    let (a, b) = random_pairs(format, n, seed);
    let pairs = |v: &[Clns]| v.iter().map(|x| x.to_pair()).collect::<Vec<_>>();
    let (da, db) = (gpu.upload(&pairs(&a))?, gpu.upload(&pairs(&b))?);
    let mut out = gpu.alloc_poisoned::<[u32; 2]>(n)?;
    let (want, tol): (Vec<Clns>, f64) = match method {
        None => {
            g.mul(&da, &db, &mut out)?;
            ((0..n).map(|i| format.mul(a[i], b[i])).collect(), 0.0)
        }
        Some(m) => {
            g.add(m, &da, &db, &mut out)?;
            let twin: Box<dyn Sb> =
                match g.twin(if m == Method::Blend { Method::Tex } else { m })? {
                    Some(t) => t,
                    None => Box::new(SbF64(format)),
                };
            // Blend warps read either table: the FMA and texture twins differ by ≤ 1 code more.
            let tol = match m {
                Method::F64 => 0.0,
                Method::Blend => 2.0,
                _ => 1.0,
            };
            ((0..n).map(|i| format.add(&twin, a[i], b[i])).collect(), tol)
        }
    };
    let got: Vec<Clns> = gpu
        .download(&out)?
        .into_iter()
        .map(Clns::from_pair)
        .collect();
    let results: Vec<(Clns, Clns)> = got.into_iter().zip(want).collect();
    Ok(report(format, &results, tol))
}

/// GPU finite-fast-path multiply of finite pairs (products in range) vs `ClnsFormat::mul`:
/// exact, which also checks that the fast path equals the full multiply under its contract.
fn check_mul_finite(gpu: &Gpu, seed: u64) -> Result<CheckReport> {
    let format = ClnsFormat::CLNS16;
    let g = GpuClns::new(gpu, format, Geometry::default_for(format))?;
    let n = (1 << 20) + (seed % 1000) as usize;
    let (a, b) = random_pairs(format, 4 * n, seed);
    let finite = |x: &Clns| matches!(format.class(*x), crate::Class::Finite { .. });
    let pairs: Vec<(Clns, Clns)> = a
        .into_iter()
        .zip(b)
        .filter(|(x, y)| finite(x) && finite(y))
        .take(n)
        .collect();
    let up = |pick: fn(&(Clns, Clns)) -> Clns| -> cuda::Result<DeviceBuffer<[u32; 2]>> {
        gpu.upload(&pairs.iter().map(|p| pick(p).to_pair()).collect::<Vec<_>>())
    };
    let (da, db) = (up(|p| p.0)?, up(|p| p.1)?);
    let mut out = gpu.alloc_poisoned::<[u32; 2]>(pairs.len())?;
    g.mul_finite(&da, &db, &mut out)?;
    let results: Vec<(Clns, Clns)> = gpu
        .download(&out)?
        .into_iter()
        .map(Clns::from_pair)
        .zip(pairs.iter().map(|&(x, y)| format.mul(x, y)))
        .collect();
    Ok(report(format, &results, 0.0))
}

/// The f32-radian variant on the GPU vs its CPU twin: mul bit for bit (None), add and
/// subtract by `method` (S_b rounded to f32; the twin of `accurate` is f64) within a relative
/// distance: 3e-6 for FP64 (the two libms may round S_b to neighbouring f32: one ulp of a log
/// near −23 next to Z = −1 is 1.9e-6, 1.3e-6 relative), 3e-5 for the f32 and table methods
/// (few-ulp f32 libdevice differences there, the filter's last rounding; 25× below the
/// table's own 8e-4), on random pairs with specials, cancellations and near-region pairs.
fn check_f32(gpu: &Gpu, seed: u64, method: Option<Method>) -> Result<CheckReport> {
    let format = ClnsFormat::CLNS16;
    let g = GpuClns::new(gpu, format, Geometry::default_for(format))?;
    let n = (1 << 20) + (seed % 1000) as usize;
    let (a, b) = random_pairs(format, n, seed);
    let conv = |v: &[Clns]| -> Vec<ClnsF32> {
        v.iter()
            .map(|&x| ClnsF32::from_complex(format.to_complex(x)))
            .collect()
    };
    let (a, b) = (conv(&a), conv(&b));
    let pairs = |v: &[ClnsF32]| v.iter().map(|x| x.to_pair()).collect::<Vec<_>>();
    let (da, db) = (gpu.upload(&pairs(&a))?, gpu.upload(&pairs(&b))?);
    let mut out = gpu.alloc_poisoned::<[f32; 2]>(n)?;
    let mut results: Vec<(ClnsF32, ClnsF32)> = Vec::with_capacity(2 * n);
    let mut run = |want: Vec<ClnsF32>, out: &DeviceBuffer<[f32; 2]>| -> Result<()> {
        let got = gpu.download(out)?.into_iter().map(ClnsF32::from_pair);
        results.extend(got.zip(want));
        Ok(())
    };
    let tol = match method {
        None => {
            g.mul_f32(&da, &db, &mut out)?;
            run((0..n).map(|i| a[i] * b[i]).collect(), &out)?;
            0.0
        }
        Some(m) => {
            // Methods without a bit-exact twin (f32 libdevice, the SFUs) against the f64 one.
            let twin = crate::radian::evaluator(
                if matches!(m, Method::Accurate | Method::Sfu) {
                    Method::F64
                } else {
                    m
                },
                format,
                g.geometry,
            )?
            .ok_or_else(|| ClnsError::NoKernel {
                what: format!("CLNS-f32 add by {m}"),
                why: "no CPU twin",
            })?;
            for negate in [false, true] {
                g.add_f32(m, &da, &db, &mut out, negate)?;
                let want = (0..n)
                    .map(|i| {
                        if negate {
                            a[i].sub(&twin, b[i])
                        } else {
                            a[i].add(&twin, b[i])
                        }
                    })
                    .collect();
                run(want, &out)?;
            }
            if m == Method::F64 {
                3e-6
            } else {
                3e-5
            }
        }
    };
    let distance = |&got: &ClnsF32, &want: &ClnsF32| {
        // Bit for bit where a tolerance of 0 is asked (NaN payloads aside).
        if tol == 0.0 && got.is_finite() && got != want {
            f64::INFINITY
        } else {
            crate::radian::distance(got, want)
        }
    };
    Ok(compare_by(
        results,
        tol,
        distance,
        Tolerance { abs: 0.0, rel: tol },
    ))
}

fn report(format: ClnsFormat, results: &[(Clns, Clns)], tol: f64) -> CheckReport {
    let apart = |&got: &Clns, &want: &Clns| distance(format, got, want);
    compare_by(
        results.iter().copied(),
        tol,
        apart,
        Tolerance { abs: tol, rel: 0.0 },
    )
}

/// The SFU S_b over every clns16 input (2.1·10^9 (z, θ), reduced on the device): the largest
/// error of each part must stay within [`SFU_BOUND_ULPS`], and the f32-radian variant's S_b
/// within 3e-5 (log2 units and radians) at the same points.
fn check_sfu_lattice(gpu: &Gpu, _seed: u64) -> Result<CheckReport> {
    let format = ClnsFormat::CLNS16;
    let g = GpuClns::new(gpu, format, Geometry::default_for(format))?;
    let c = g.certify_sfu_lattice()?;
    let parts = [
        (c.re.error, SFU_BOUND_ULPS),
        (c.im.error, SFU_BOUND_ULPS),
        (c.radian_re.error, 3e-5),
        (c.radian_im.error, 3e-5),
    ];
    // NaN (a broken evaluation) fails as surely as a large error.
    let mismatches = parts.iter().filter(|(e, b)| e.is_nan() || e > b).count();
    Ok(CheckReport {
        elements: c.points as usize,
        mismatches,
        max_error: c.re.error.max(c.im.error),
        tolerance: Tolerance {
            abs: SFU_BOUND_ULPS,
            rel: 0.0,
        },
        note: format!(
            "Re {:.4} ulp at (z {}, θ {}), Im {:.4} ulp at (z {}, θ {}); {} / {} codes off the \
             correct rounding; f32-radian S_b: Re {:.2e}, Im {:.2e} rad",
            c.re.error,
            c.re.z,
            c.re.theta_code,
            c.im.error,
            c.im.z,
            c.im.theta_code,
            c.off_correct_rounding[0],
            c.off_correct_rounding[1],
            c.radian_re.error,
            c.radian_im.error
        ),
    })
}

/// GPU FFT (N = 1024, batch 64, texture S_b) vs the CPU twin: per-add differences of ≤ 1 code
/// propagate, so the outputs are compared as an SNR between the two (must exceed 60 dB, with
/// the twin itself at ~69 dB against f64), and the f64-method FFT must match codes exactly
/// in at least 99.9% of outputs.
fn check_fft(gpu: &Gpu, seed: u64) -> Result<CheckReport> {
    use crate::fft::{clns_fft, random_input, snr_db};
    let format = ClnsFormat::CLNS16;
    let g = GpuClns::new(gpu, format, Geometry::default_for(format))?;
    let n = 1024;
    let x = random_input(n, 64, seed);
    let input: Vec<Clns> = x.iter().map(|&c| format.from_complex(c)).collect();
    let mut worst = f64::INFINITY;
    let mut note = String::new();
    let mut mismatches = 0;
    for method in [Method::Tex, Method::F64] {
        let mut d = gpu.upload(&input.iter().map(|c| c.to_pair()).collect::<Vec<_>>())?;
        g.fft(method, &mut d, n)?;
        let got: Vec<Clns> = gpu.download(&d)?.into_iter().map(Clns::from_pair).collect();
        let mut want = input.clone();
        let twin = g.twin(method)?.expect("tex and f64 have CPU twins");
        clns_fft(format, &twin, &mut want, n)?;
        let c = |v: &[Clns]| v.iter().map(|&v| format.to_complex(v)).collect::<Vec<_>>();
        let snr = snr_db(&c(&got), &c(&want));
        let same = got.iter().zip(&want).filter(|(a, b)| a == b).count() as f64 / got.len() as f64;
        note += &format!(
            "{method}: GPU vs twin {snr:.1} dB, {:.3}% identical; ",
            100.0 * same
        );
        let ok = if method == Method::F64 {
            same >= 0.999
        } else {
            snr >= 60.0
        };
        if !ok {
            mismatches += 1;
        }
        worst = worst.min(snr);
    }
    Ok(CheckReport {
        elements: 2 * 64 * n,
        mismatches,
        // As a relative RMS difference: 60 dB is 1e-3.
        max_error: 10f64.powf(-worst / 20.0),
        tolerance: Tolerance {
            abs: 1e-3,
            rel: 0.0,
        },
        note,
    })
}

/// The CLNS self-checks for `sigpu check`, in the order the registry lists them.
pub fn checks() -> Vec<Check> {
    let mut checks = code_format_checks();
    checks.extend(f32_variant_and_blend_checks());
    checks
}

/// S_b, element-wise ops, the FFT and the finite fast path in clns16.
fn code_format_checks() -> Vec<Check> {
    checks! {
        ("clns/sb_f64", check_sb(Method::F64), "S_b in FP64 vs the CPU f64 twin, certificate inputs (codes exact)"),
        ("clns/sb_accurate", check_sb(Method::Accurate), "S_b in f32 libdevice vs the f64 reference (≤ 1 code)"),
        ("clns/sb_tex", check_sb(Method::Tex), "S_b by the bilinear float2 texture vs the H100 filter model (≤ 1 code)"),
        ("clns/sb_fma", check_sb(Method::Fma), "S_b by FMA lerps of the same table vs its f32 twin (≤ 1 code: near region)"),
        ("clns/mul", check_op(None), "element-wise CLNS multiply of random pairs (specials) vs ClnsFormat::mul, exact"),
        ("clns/add_f64", check_op(Some(Method::F64)), "element-wise CLNS add (specials, cancellations, near region) vs ClnsFormat::add"),
        ("clns/add_tex", check_op(Some(Method::Tex)), "element-wise CLNS add, texture S_b, vs ClnsFormat::add with the filter model"),
        ("clns/add_fma", check_op(Some(Method::Fma)), "element-wise CLNS add, FMA-table S_b, vs ClnsFormat::add with its twin"),
        ("clns/fft_1024", check_fft(), "batched CLNS FFT (tex and f64 S_b) vs the CPU twin: SNR between them, exact codes"),
        ("clns/mul_finite", check_mul_finite(), "CLNS multiply, finite fast path (no class/range tests), finite pairs: exact"),
    }
}

/// The f32-radian variant's checks, then the blend add (registered last).
fn f32_variant_and_blend_checks() -> Vec<Check> {
    checks! {
        ("clns/f32_mul", check_f32(None), "f32-radian CLNS (Vouzis & Arnold's) multiply vs ClnsF32::mul, bit for bit"),
        ("clns/f32_add_f64", check_f32(Some(Method::F64)), "f32-radian CLNS add and sub, FP64 S_b, vs the f64 twin (rel. 3e-6)"),
        ("clns/f32_add_accurate", check_f32(Some(Method::Accurate)), "f32-radian CLNS add and sub, f32 libdevice S_b, vs the f64 twin (rel. 3e-5)"),
        ("clns/f32_add_tex", check_f32(Some(Method::Tex)), "f32-radian CLNS add and sub, texture S_b, vs the filter model (rel. 3e-5)"),
        ("clns/f32_add_fma", check_f32(Some(Method::Fma)), "f32-radian CLNS add and sub, FMA-table S_b, vs its twin (rel. 3e-5)"),
        ("clns/add_blend", check_op(Some(Method::Blend)), "element-wise CLNS add, warps split tex/fma, vs the texture twin (≤ 2 codes)"),
        ("clns/sb_sfu", check_sb(Method::Sfu), "S_b through the SFUs (MUFU + FMA polynomials) vs the f64 reference (≤ 1 code)"),
        ("clns/add_sfu", check_op(Some(Method::Sfu)), "element-wise CLNS add through the SFUs vs ClnsFormat::add with f64 S_b (≤ 1 code)"),
        ("clns/f32_add_sfu", check_f32(Some(Method::Sfu)), "f32-radian CLNS add and sub through the SFUs vs the f64 twin (rel. 3e-5)"),
        ("clns/certify_sfu", check_sfu_lattice(), "SFU S_b at all 2.1e9 clns16 (z, θ) vs f64: ≤ 0.6 ulp per part (f32-radian ≤ 3e-5)"),
    }
}
