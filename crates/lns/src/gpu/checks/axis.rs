//! The axis kernels (axis.cu) against their CPU twins in `crate::axis`: bit for bit.

use super::axis_cases::{matmul_case, merge, word};
use crate::axis::{log_softmax_rows, logsumexp_rows, MatShape, Reduce};
use crate::error::LnsError;
use crate::format::Format;
use crate::gpu::axis::GpuAxis;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sigpu_runtime::cuda::{
    compare_exact, CheckReport, CheckResult, DeviceSlice, DeviceSliceMut, Gpu,
};
use sigpu_runtime::GpuTarget;

/// GPU self-checks of the row reductions, the matrix product and logsumexp / log_softmax.
pub(super) fn checks() -> Vec<sigpu_runtime::cuda::Check> {
    use sigpu_runtime::cuda::Check;
    checks! {
        ("lns/axis_lns16", ABOUT, run, Format::LNS16),
        ("lns/axis_lns32", ABOUT, run, Format::LNS32),
        ("lns/axis_i6f13", ABOUT, run, Format::new(6, 13).expect("a valid format")),
    }
}

const ABOUT: &str = "sum, prod, max, min along rows (u32 and u16 words), batched matmul, \
     logsumexp and log_softmax (f32, f64) of random rows with specials and cancellations vs \
     the CPU twins, bit for bit";

fn run(gpu: &Gpu, seed: u64, format: Format) -> CheckResult {
    sigpu_runtime::cuda::check_result(check(gpu, seed, format))
}

fn check(gpu: &Gpu, seed: u64, f: Format) -> Result<CheckReport, LnsError> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let axis = GpuAxis::new(gpu, f)?;
    let target = GpuTarget::new(gpu.clone());
    let mut report = compare_exact::<u32>(&[], &[]);
    // Words per case; compute-sanitizer's runs take a tenth (every length kind stays).
    let budget = if sigpu_runtime::cuda::sanitize_sizes() {
        20_000
    } else {
        200_000
    };
    for case in 0..12 {
        let len = [1, 2, 3, 31, 32, 33, 100, 257, 1000, 4096, 10_000, 70_000][case];
        let rows = (budget / len).clamp(1, 300);
        let specials = case % 3 == 1;
        let mut xs: Vec<u32> = (0..rows * len)
            .map(|_| word(&mut rng, f, specials))
            .collect();
        if case % 3 == 2 {
            // Each row's second half cancels its first, reversed: exact zeros.
            for row in xs.chunks_mut(len) {
                let h = len / 2;
                for i in 0..h {
                    row[len - 1 - i] = f.neg(row[i]);
                }
            }
        }
        let dx = gpu.upload(&xs)?;
        for op in [Reduce::Sum, Reduce::Prod, Reduce::Max, Reduce::Min] {
            let want = f.reduce_rows(op, &xs, len)?;
            let mut out = gpu.alloc_poisoned::<u32>(rows)?;
            axis.reduce(
                &target,
                op,
                &DeviceSlice::of(&dx),
                len,
                &mut DeviceSliceMut::of(&mut out),
            )?;
            merge(
                &mut report,
                compare_exact(&gpu.download(&out)?, &want),
                format!("{op:?} len {len}"),
            );
            if f.word_bits() <= 16 {
                let x16: Vec<u16> = xs.iter().map(|&w| w as u16).collect();
                let d16 = gpu.upload(&x16)?;
                let mut o16 = gpu.alloc_poisoned::<u16>(rows)?;
                axis.reduce(
                    &target,
                    op,
                    &DeviceSlice::of(&d16),
                    len,
                    &mut DeviceSliceMut::of(&mut o16),
                )?;
                let got: Vec<u32> = gpu.download(&o16)?.into_iter().map(u32::from).collect();
                merge(
                    &mut report,
                    compare_exact(&got, &want),
                    format!("u16 {op:?} len {len}"),
                );
            }
        }
        // Natural logs: the words' values' logs, with −∞ for zeros.
        let logs: Vec<f64> = xs
            .iter()
            .map(|&w| {
                let v = f.to_f64(w).abs();
                if case % 3 == 1 && rng.random_range(0..40) == 0 {
                    f64::NEG_INFINITY
                } else {
                    v.ln()
                }
            })
            .collect();
        for softmax in [false, true] {
            let want = if softmax {
                log_softmax_rows(f, &logs, len)?
            } else {
                logsumexp_rows(f, &logs, len)?
            };
            let d = gpu.upload(&logs)?;
            let mut out = gpu.alloc_poisoned::<f64>(want.len())?;
            axis.log_rows(
                &target,
                &DeviceSlice::of(&d),
                len,
                softmax,
                &mut DeviceSliceMut::of(&mut out),
            )?;
            let bits = |v: Vec<f64>| v.into_iter().map(f64::to_bits).collect::<Vec<_>>();
            merge(
                &mut report,
                compare_exact(&bits(gpu.download(&out)?), &bits(want.clone())),
                format!("log f64 softmax={softmax} len {len}"),
            );
            let l32: Vec<f32> = logs.iter().map(|&v| v as f32).collect();
            let want32: Vec<u32> = {
                let l: Vec<f64> = l32.iter().map(|&v| v as f64).collect();
                let w = if softmax {
                    log_softmax_rows(f, &l, len)?
                } else {
                    logsumexp_rows(f, &l, len)?
                };
                w.into_iter().map(|v| (v as f32).to_bits()).collect()
            };
            let d = gpu.upload(&l32)?;
            let mut out = gpu.alloc_poisoned::<f32>(want32.len())?;
            axis.log_rows(
                &target,
                &DeviceSlice::of(&d),
                len,
                softmax,
                &mut DeviceSliceMut::of(&mut out),
            )?;
            let got: Vec<u32> = gpu.download(&out)?.into_iter().map(f32::to_bits).collect();
            merge(
                &mut report,
                compare_exact(&got, &want32),
                format!("log f32 softmax={softmax} len {len}"),
            );
        }
    }
    convert(gpu, &axis, &target, &mut rng, &mut report)?;
    for _ in 0..4 {
        let shape = MatShape {
            batch: rng.random_range(1..4),
            m: rng.random_range(1..40),
            k: rng.random_range(1..300),
            n: rng.random_range(1..70),
        };
        let a: Vec<u32> = (0..shape.batch * shape.m * shape.k)
            .map(|_| word(&mut rng, f, false))
            .collect();
        let b: Vec<u32> = (0..shape.batch * shape.k * shape.n)
            .map(|_| word(&mut rng, f, true))
            .collect();
        matmul_case(gpu, &axis, &target, shape, &a, &b, &mut report)?;
    }
    Ok(report)
}

/// Conversions from and to floats (f32 and f64, u32 and u16 words) vs `words_of` / `values_of`.
fn convert(
    gpu: &Gpu,
    axis: &GpuAxis,
    target: &GpuTarget,
    rng: &mut ChaCha8Rng,
    report: &mut CheckReport,
) -> Result<(), LnsError> {
    let f = axis.format;
    let n = if sigpu_runtime::cuda::sanitize_sizes() {
        30_000
    } else {
        300_000
    };
    let mut xs: Vec<f64> = (0..n)
        .map(|_| {
            let x = rng.random_range(-40.0..40.0f64).exp2();
            if rng.random_bool(0.5) {
                x
            } else {
                -x
            }
        })
        .collect();
    xs.extend([
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        5e-324,
        1e-310,
        1e300,
        1.0,
    ]);
    let want = f.words_of(&xs);
    let dx = gpu.upload(&xs)?;
    let mut out = gpu.alloc_poisoned::<u32>(xs.len())?;
    axis.from_floats(
        target,
        &DeviceSlice::of(&dx),
        &mut DeviceSliceMut::of(&mut out),
    )?;
    merge(
        report,
        compare_exact(&gpu.download(&out)?, &want),
        "from f64".into(),
    );
    let x32: Vec<f32> = xs.iter().map(|&v| v as f32).collect();
    let want32 = f.words_of(&x32.iter().map(|&v| v as f64).collect::<Vec<_>>());
    let d32 = gpu.upload(&x32)?;
    axis.from_floats(
        target,
        &DeviceSlice::of(&d32),
        &mut DeviceSliceMut::of(&mut out),
    )?;
    merge(
        report,
        compare_exact(&gpu.download(&out)?, &want32),
        "from f32".into(),
    );
    let bits = |v: Vec<f64>| v.into_iter().map(f64::to_bits).collect::<Vec<_>>();
    let back = f.values_of(&want);
    let dw = gpu.upload(&want)?;
    let mut o64 = gpu.alloc_poisoned::<f64>(want.len())?;
    axis.to_floats(
        target,
        &DeviceSlice::of(&dw),
        &mut DeviceSliceMut::of(&mut o64),
    )?;
    merge(
        report,
        compare_exact(&bits(gpu.download(&o64)?), &bits(back.clone())),
        "to f64".into(),
    );
    let mut o32 = gpu.alloc_poisoned::<f32>(want.len())?;
    axis.to_floats(
        target,
        &DeviceSlice::of(&dw),
        &mut DeviceSliceMut::of(&mut o32),
    )?;
    let got: Vec<u32> = gpu.download(&o32)?.into_iter().map(f32::to_bits).collect();
    let want_b: Vec<u32> = back.iter().map(|&v| (v as f32).to_bits()).collect();
    merge(report, compare_exact(&got, &want_b), "to f32".into());
    if f.word_bits() <= 16 {
        let mut o16 = gpu.alloc_poisoned::<u16>(xs.len())?;
        axis.from_floats(
            target,
            &DeviceSlice::of(&dx),
            &mut DeviceSliceMut::of(&mut o16),
        )?;
        let got: Vec<u32> = gpu.download(&o16)?.into_iter().map(u32::from).collect();
        merge(report, compare_exact(&got, &want), "from f64 to u16".into());
    }
    Ok(())
}
