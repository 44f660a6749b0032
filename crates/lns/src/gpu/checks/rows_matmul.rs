//! The short-row kernels (axis_rows.cu: several rows per warp, 16-byte loads when the rows
//! allow) and the tiled matrix product (axis_matmul.cu) against their CPU twins, bit for bit:
//! every group width, vector and scalar loads (row lengths that are and are not whole
//! vectors, a view one element off 16-byte alignment), and products whose shapes cut the
//! 64 × 64 × 16 tiles everywhere, with zeros, NaN and infinities, in u32 and u16 words.

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

/// GPU self-checks of the short-row sums and logsumexp and of the tiled matmul.
pub(super) fn checks() -> Vec<sigpu_runtime::cuda::Check> {
    use sigpu_runtime::cuda::Check;
    checks! {
        ("lns/rows_matmul_lns16", ABOUT, run, Format::LNS16),
        ("lns/rows_matmul_lns32", ABOUT, run, Format::LNS32),
        ("lns/rows_matmul_i6f13", ABOUT, run, Format::new(6, 13).expect("a valid format")),
    }
}

const ABOUT: &str = "sums, logsumexp and log_softmax of short rows (every group width, 16-byte \
     and single loads, a misaligned view) and tiled batched matmuls cutting the tiles \
     everywhere (u32 and u16 words, specials) vs the CPU twins, bit for bit";

/// Row lengths: every group width of the short-row kernels (1 … 16 lanes), whole vectors of
/// f32 / u32 (4), f64 (2), u16 (8) and not.
const LENGTHS: [usize; 12] = [1, 4, 7, 16, 17, 24, 32, 64, 65, 128, 200, 255];

fn run(gpu: &Gpu, seed: u64, format: Format) -> CheckResult {
    sigpu_runtime::cuda::check_result(check(gpu, seed, format))
}

fn check(gpu: &Gpu, seed: u64, f: Format) -> Result<CheckReport, LnsError> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let axis = GpuAxis::new(gpu, f)?;
    let target = GpuTarget::new(gpu.clone());
    let mut report = compare_exact::<u32>(&[], &[]);
    let rows_total = if sigpu_runtime::cuda::sanitize_sizes() {
        3
    } else {
        301
    };
    for (case, &len) in LENGTHS.iter().enumerate() {
        let specials = case % 2 == 1;
        rows(
            gpu,
            &axis,
            &target,
            &mut rng,
            len,
            rows_total,
            specials,
            &mut report,
        )?;
    }
    for case in 0..6 {
        let shape = if case < 3 {
            [
                MatShape {
                    batch: 1,
                    m: 64,
                    k: 16,
                    n: 64,
                },
                MatShape {
                    batch: 2,
                    m: 65,
                    k: 17,
                    n: 129,
                },
                MatShape {
                    batch: 1,
                    m: 130,
                    k: 33,
                    n: 63,
                },
            ][case]
        } else {
            MatShape {
                batch: rng.random_range(1..3),
                m: rng.random_range(1..150),
                k: rng.random_range(1..200),
                n: rng.random_range(1..150),
            }
        };
        let specials = case % 2 == 1;
        let a: Vec<u32> = (0..shape.batch * shape.m * shape.k)
            .map(|_| word(&mut rng, f, specials))
            .collect();
        let b: Vec<u32> = (0..shape.batch * shape.k * shape.n)
            .map(|_| word(&mut rng, f, specials))
            .collect();
        matmul_case(gpu, &axis, &target, shape, &a, &b, &mut report)?;
    }
    Ok(report)
}

/// Sums (u32, u16 words), logsumexp and log_softmax (f64, f32) of `n` rows of `len`, read
/// from an aligned buffer and from a view one element in (scalar loads).
#[allow(clippy::too_many_arguments)]
fn rows(
    gpu: &Gpu,
    axis: &GpuAxis,
    target: &GpuTarget,
    rng: &mut ChaCha8Rng,
    len: usize,
    n: usize,
    specials: bool,
    report: &mut CheckReport,
) -> Result<(), LnsError> {
    let f = axis.format;
    // One spare element in front: the view from 1 is off 16-byte alignment.
    let xs: Vec<u32> = (0..n * len + 1).map(|_| word(rng, f, specials)).collect();
    let dx = gpu.upload(&xs)?;
    for off in [0, 1] {
        let body = &xs[off..off + n * len];
        let want = f.reduce_rows(Reduce::Sum, body, len)?;
        let view = DeviceSlice::of(&dx)
            .slice(off..off + n * len)
            .expect("in range");
        let mut out = gpu.alloc_poisoned::<u32>(n)?;
        axis.reduce(
            target,
            Reduce::Sum,
            &view,
            len,
            &mut DeviceSliceMut::of(&mut out),
        )?;
        merge(
            report,
            compare_exact(&gpu.download(&out)?, &want),
            format!("sum len {len} off {off}"),
        );
        if f.word_bits() <= 16 {
            let x16: Vec<u16> = xs.iter().map(|&w| w as u16).collect();
            let d16 = gpu.upload(&x16)?;
            let view = DeviceSlice::of(&d16)
                .slice(off..off + n * len)
                .expect("in range");
            let mut o16 = gpu.alloc_poisoned::<u16>(n)?;
            axis.reduce(
                target,
                Reduce::Sum,
                &view,
                len,
                &mut DeviceSliceMut::of(&mut o16),
            )?;
            let got: Vec<u32> = gpu.download(&o16)?.into_iter().map(u32::from).collect();
            merge(
                report,
                compare_exact(&got, &want),
                format!("u16 sum len {len} off {off}"),
            );
        }
    }
    // Natural logs of the values, −∞ for zeros (and some more), NaN or +∞ now and then (rows
    // are read from 1 on, as the words are for off = 1).
    let logs: Vec<f64> = xs
        .iter()
        .map(
            |&w| match rng.random_range(0..if specials { 60 } else { 1_000_000 }) {
                0 => f64::NEG_INFINITY,
                1 => f64::NAN,
                2 => f64::INFINITY,
                _ => f.to_f64(w).abs().ln(),
            },
        )
        .collect();
    let mut logs = logs;
    if n >= 8 {
        // Rows that leave logsumexp's fast path in each way: terms below 2^-36 of the top
        // (a wide row), a huge log (the warp's general path), a huge negative one (the
        // element's general path), nothing but −∞, NaN among −∞, a large finite log.
        let row = |i: usize| 1 + i * len..1 + (i + 1) * len;
        for v in &mut logs[row(1)] {
            *v *= 10.0;
        }
        logs[row(2).start] = 1e9;
        logs[row(3).start] = -1e9;
        logs[row(4)].fill(f64::NEG_INFINITY);
        logs[row(5)].fill(f64::NEG_INFINITY);
        logs[row(5).end - 1] = f64::NAN;
        logs[row(6).start] = 3e7;
    }
    let bits = |v: Vec<f64>| v.into_iter().map(f64::to_bits).collect::<Vec<_>>();
    let d64 = gpu.upload(&logs)?;
    let l32: Vec<f32> = logs.iter().map(|&v| v as f32).collect();
    let d32 = gpu.upload(&l32)?;
    for off in [0, 1] {
        for softmax in [false, true] {
            let body = &logs[off..off + n * len];
            let want = if softmax {
                log_softmax_rows(f, body, len)?
            } else {
                logsumexp_rows(f, body, len)?
            };
            let view = DeviceSlice::of(&d64)
                .slice(off..off + n * len)
                .expect("in range");
            let mut out = gpu.alloc_poisoned::<f64>(want.len())?;
            axis.log_rows(
                target,
                &view,
                len,
                softmax,
                &mut DeviceSliceMut::of(&mut out),
            )?;
            merge(
                report,
                compare_exact(&bits(gpu.download(&out)?), &bits(want)),
                format!("log f64 softmax={softmax} len {len} off {off}"),
            );
            let wide: Vec<f64> = l32[off..off + n * len].iter().map(|&v| v as f64).collect();
            let want32: Vec<u32> = if softmax {
                log_softmax_rows(f, &wide, len)?
            } else {
                logsumexp_rows(f, &wide, len)?
            }
            .into_iter()
            .map(|v| (v as f32).to_bits())
            .collect();
            let view = DeviceSlice::of(&d32)
                .slice(off..off + n * len)
                .expect("in range");
            let mut out = gpu.alloc_poisoned::<f32>(want32.len())?;
            axis.log_rows(
                target,
                &view,
                len,
                softmax,
                &mut DeviceSliceMut::of(&mut out),
            )?;
            let got: Vec<u32> = gpu.download(&out)?.into_iter().map(f32::to_bits).collect();
            merge(
                report,
                compare_exact(&got, &want32),
                format!("log f32 softmax={softmax} len {len} off {off}"),
            );
        }
    }
    Ok(())
}
