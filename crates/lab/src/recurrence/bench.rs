//! Throughput measurements for `sigpu bench filter`: the GPU kernel timed with CUDA events
//! (checked against the reference at the benchmarked size), and the CPU path timed on the
//! host.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use sigpu_recurrence::cpu::SUB;
use sigpu_recurrence::gpu::DeviceFilter;
use sigpu_recurrence::{Element, Filter, FilterError, GpuConfig, GpuFilter};
use sigpu_runtime::cuda::{gb_per_s, gelem_per_s, Gpu, Timing};

/// One timed configuration.
#[derive(Clone, Debug, Serialize)]
pub struct BenchRow {
    /// The filter as `sigpu bench filter` takes it, e.g. `(0.2 : 0.8)`.
    pub signature: String,
    /// Element type (`f32`, `i32`, ...).
    pub dtype: String,
    /// Whether the factor optimisations were on (truncation, zero and unit factors).
    pub optimize: bool,
    /// The GPU's name and architecture, or `cpu (model)`.
    pub device: String,
    /// Elements filtered.
    pub n: usize,
    /// Independent channels (1: one long sequence).
    pub channels: usize,
    /// GPU launch shape (threads × values per thread), or CPU threads and SIMD.
    pub shape: String,
    /// Length of the factor tables after truncation.
    pub factor_len: usize,
    /// Chunk carry-outs do not depend on carry-ins (every factor reaching a chunk's end was
    /// truncated to zero), so a chunk posts its carry-out before it knows its carry-in.
    pub independent: bool,
    /// GPU: carry-ins recomputed from the previous chunk's inputs (no look-back).
    pub tail_carry: bool,
    /// Median time of one pass over `n` elements, in ms.
    pub median_ms: f64,
    /// Throughput: 10^9 elements per second at the median.
    pub gelem_per_s: f64,
    /// Read + write bytes per second.
    pub gb_per_s: f64,
    /// Against the copy ceiling given (GPU) — NaN when none was given.
    pub percent_of_copy: f64,
    /// max |y − y_ref| / max |y_ref| at this size (floats, vs serial f64), or the number of
    /// mismatching elements vs the CPU path (integers).
    pub error: f64,
    /// What `error` measures, in words.
    pub error_kind: &'static str,
    /// Every timed run (GPU rows only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timing: Option<Timing>,
}

/// Inputs for a benchmark: U[-1, 1) for floats, small integers for integer types. Blocks of
/// 2^16 values have their own seeded generator and are filled on all cores, so a sweep up to
/// 2^30 elements spends seconds, not minutes, making inputs; the values depend only on
/// (n, seed).
pub fn bench_input<T: Element>(n: usize, seed: u64) -> Vec<T> {
    const BLOCK: usize = 1 << 16;
    let mut x = vec![T::ZERO; n];
    let fill = |b: usize, out: &mut [T]| {
        let mut rng =
            ChaCha8Rng::seed_from_u64(seed ^ (b as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
        for v in out {
            *v = if T::DTYPE.is_float() {
                T::from_f64(rng.random_range(-1.0..1.0))
            } else {
                T::from_f64(rng.random_range(-100..=100) as f64)
            };
        }
    };
    let threads = sigpu_runtime::host::threads().max(1);
    let per_thread = n.div_ceil(BLOCK).div_ceil(threads).max(1) * BLOCK;
    std::thread::scope(|s| {
        for (t, part) in x.chunks_mut(per_thread).enumerate() {
            s.spawn(move || {
                for (i, block) in part.chunks_mut(BLOCK).enumerate() {
                    fill(t * per_thread / BLOCK + i, block);
                }
            });
        }
    });
    x
}

/// How far `y` is from the truth for `x`: relative error vs serial f64 (floats) or the count
/// of elements differing from the CPU path (integers). Streams: the reference is computed
/// alongside the comparison (floats) or in pieces carrying the state (integers), so checking
/// 2^28 samples needs no memory beyond x and y.
pub fn verify<T: Element>(
    filter: &Filter<T>,
    x: &[T],
    y: &[T],
) -> Result<(f64, &'static str), FilterError> {
    if T::DTYPE.is_float() {
        let to64 = |v: &[T]| v.iter().map(|v| v.to_f64()).collect::<Vec<_>>();
        Ok((
            streaming_error(&to64(filter.feedforward()), &to64(filter.feedback()), x, y),
            "relative to max|y_ref|, vs serial f64",
        ))
    } else {
        const PIECE: usize = 1 << 20;
        let mut state: Option<Vec<T>> = None;
        let mut wrong = 0;
        for (xs, ys) in x.chunks(PIECE).zip(y.chunks(PIECE)) {
            let (want, zf) = filter.apply(xs, state.as_deref())?;
            wrong += want.iter().zip(ys).filter(|(a, b)| a != b).count();
            state = Some(zf);
        }
        Ok((wrong as f64, "elements differing from the CPU path"))
    }
}

/// max |y − y_ref| / max |y_ref| for the serial f64 recurrence (SciPy's lfilter, a[0] = 1, zero
/// initial state), computed sample by sample with only the last inputs and outputs kept.
pub fn streaming_error<T: Element>(ff: &[f64], fb: &[f64], x: &[T], y: &[T]) -> f64 {
    let (p, k) = (ff.len(), fb.len());
    // Rings of the last p inputs and k outputs, newest at `head`.
    let (mut xs, mut ys) = (vec![0.0f64; p.max(1)], vec![0.0f64; k.max(1)]);
    let (mut xh, mut yh) = (0usize, 0usize);
    let (mut scale, mut err) = (0.0f64, 0.0f64);
    for (xi, yi) in x.iter().zip(y) {
        xh = (xh + 1) % xs.len();
        xs[xh] = xi.to_f64();
        let mut v = 0.0;
        for (j, a) in ff.iter().enumerate() {
            v += a * xs[(xh + xs.len() - j) % xs.len()];
        }
        for (l, b) in fb.iter().enumerate() {
            v += b * ys[(yh + ys.len() - l) % ys.len()];
        }
        if k > 0 {
            yh = (yh + 1) % ys.len();
            ys[yh] = v;
        }
        scale = scale.max(v.abs());
        let g = yi.to_f64();
        err = if g.is_nan() {
            f64::INFINITY
        } else {
            err.max((g - v).abs())
        };
    }
    err / scale.max(f64::MIN_POSITIVE)
}

/// Refuses a benchmark whose buffers would not fit in the memory the host has available,
/// saying how much it needs: checked before anything is allocated.
pub fn check_host_memory(bytes: u64, what: &str) -> anyhow::Result<()> {
    let Some(available) = sigpu_runtime::host::available_memory() else {
        return Ok(());
    };
    // Leave a fifth for everything else the process and the host hold.
    if bytes > available / 5 * 4 {
        anyhow::bail!(
            "{what} needs {:.1} GB of host memory and {:.1} GB is available: lower --log2-n",
            bytes as f64 / 1e9,
            available as f64 / 1e9
        );
    }
    Ok(())
}

/// How a GPU measurement is taken.
#[derive(Clone, Copy, Debug)]
pub struct GpuBench {
    /// The launch shape.
    pub config: GpuConfig,
    /// Untimed runs before the timed ones.
    pub warmup: usize,
    /// Timed runs; the row reports their median.
    pub runs: usize,
    /// The device's copy throughput (read + write GB/s), to report a percentage of.
    pub copy_gb_per_s: Option<f64>,
    /// Compare the result with the reference (slow at large sizes: a serial f64 pass).
    pub check: bool,
}

/// Times the generated kernel on `x` (one channel) with CUDA events.
pub fn bench_gpu<T: Element>(
    gpu: &Gpu,
    filter: &Filter<T>,
    x: &[T],
    how: GpuBench,
) -> Result<BenchRow, FilterError> {
    let GpuBench {
        config,
        warmup,
        runs,
        copy_gb_per_s,
        check,
    } = how;
    let n = x.len();
    let g = GpuFilter::new(gpu, filter, config)?;
    let dx = gpu.upload(x)?;
    let mut dy = gpu.alloc_poisoned::<T>(n)?;
    let timing = g.time_run(gpu, (warmup, runs), &dx, &mut dy, 1, None, None)?;
    let (error, error_kind) = if check {
        let y = gpu.download(&dy)?;
        verify(filter, x, &y)?
    } else {
        (f64::NAN, "not checked")
    };
    let bytes = 2.0 * (n * T::DTYPE.size()) as f64;
    let gb = gb_per_s(bytes, timing.median_ms);
    let cfg = g.generated().config;
    Ok(BenchRow {
        signature: filter.signature().to_string(),
        dtype: T::DTYPE.to_string(),
        optimize: filter.options().optimize,
        device: format!("{} ({})", gpu.info().name, gpu.arch()),
        n,
        channels: 1,
        shape: shape_name(&cfg, !g.generated().tail_carry),
        factor_len: g.generated().factor_len,
        independent: g.generated().independent,
        tail_carry: g.generated().tail_carry,
        median_ms: timing.median_ms,
        gelem_per_s: gelem_per_s(n as f64, timing.median_ms),
        gb_per_s: gb,
        percent_of_copy: copy_gb_per_s.map_or(f64::NAN, |c| 100.0 * gb / c),
        error,
        error_kind,
        timing: Some(timing),
    })
}

/// A launch shape as `--shapes` takes it: `THREADSxVPT`, `d` for direct loads, `n` for a
/// look-back kernel without the look-back warp, `/B` blocks.
fn shape_name(cfg: &GpuConfig, looks_back: bool) -> String {
    let direct = match (cfg.transpose, cfg.lookback_warp || !looks_back) {
        (true, true) => "",
        (false, true) => "d",
        (true, false) => "n",
        (false, false) => "dn",
    };
    match cfg.min_blocks {
        0 => format!("{}x{}{direct}", cfg.threads, cfg.vpt),
        b => format!("{}x{}{direct}/{b}", cfg.threads, cfg.vpt),
    }
}

/// Times the CPU path on `x` (one channel): median wall time of `runs` calls.
pub fn bench_cpu<T: Element>(
    filter: &Filter<T>,
    x: &[T],
    runs: usize,
    check: bool,
) -> Result<BenchRow, FilterError> {
    let n = x.len();
    let mut y = vec![T::ZERO; n];
    let mut failed = None;
    let mut samples: Vec<f64> = sigpu_runtime::host::time_cpu(runs, || {
        if let Err(e) = filter.apply_batch(x, 1, &mut y, None, None) {
            failed = Some(e);
        }
    })
    .into_iter()
    .map(|s| s * 1e3)
    .collect();
    if let Some(e) = failed {
        return Err(e);
    }
    let median_ms = sigpu_runtime::cuda::median(&mut samples);
    let (error, error_kind) = if check {
        verify(filter, x, &y)?
    } else {
        (f64::NAN, "not checked")
    };
    let threads = filter
        .options()
        .threads
        .unwrap_or_else(sigpu_runtime::host::threads);
    let bytes = 2.0 * (n * T::DTYPE.size()) as f64;
    Ok(BenchRow {
        signature: filter.signature().to_string(),
        dtype: T::DTYPE.to_string(),
        optimize: filter.options().optimize,
        device: format!(
            "cpu ({})",
            sigpu_runtime::host::HostInfo::detect().cpu_model
        ),
        n,
        channels: 1,
        shape: format!("{threads} threads, {}", filter.simd().name()),
        factor_len: filter.cpu_factors().len(),
        independent: filter.cpu_factors().carry_independent(SUB),
        tail_carry: false,
        median_ms,
        gelem_per_s: gelem_per_s(n as f64, median_ms),
        gb_per_s: gb_per_s(bytes, median_ms),
        percent_of_copy: f64::NAN,
        error,
        error_kind,
        timing: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use sigpu_recurrence::serial::reference_f64;

    #[test]
    fn streaming_error_equals_the_stored_reference() {
        let (ff, fb) = ([0.1, -0.05, 0.02], [0.9, -0.1, 0.05]);
        let x: Vec<f32> = (0..3000)
            .map(|i| ((i * 37) % 23) as f32 / 11.0 - 1.0)
            .collect();
        let x64: Vec<f64> = x.iter().map(|&v| v as f64).collect();
        let want = reference_f64(&ff, &fb, &x64, None);
        let mut y: Vec<f32> = want.iter().map(|&v| v as f32).collect();
        let scale = want.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let rounded = want
            .iter()
            .zip(&y)
            .fold(0.0f64, |m, (w, g)| m.max((w - *g as f64).abs()))
            / scale;
        assert_eq!(streaming_error(&ff, &fb, &x, &y), rounded);
        y[2000] += 0.5;
        assert!(streaming_error(&ff, &fb, &x, &y) > 0.1);
        y[10] = f32::NAN;
        assert_eq!(streaming_error(&ff, &fb, &x, &y), f64::INFINITY);
    }

    #[test]
    fn memory_beyond_the_host_is_refused_up_front() {
        let e = check_host_memory(u64::MAX / 2, "a test")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("a test needs") && e.contains("lower --log2-n"),
            "{e}"
        );
        check_host_memory(1 << 20, "a small test").unwrap();
    }
}
