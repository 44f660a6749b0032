//! The seed's Table 1 on today's GPU: compute-bound s_b (and s_b + d_b) throughput per method
//! and per blend, in G evaluations/s and SM clock cycles per warp at the measured clock.

use crate::format::Format;
use crate::gpu::{kernels, GpuMethod};
use crate::method::Method;
use serde::Serialize;
use sigpu_runtime::cuda::cudarc::driver::{LaunchConfig, PushKernelArg};
use sigpu_runtime::cuda::{time_gpu, DeviceBuffer, Error, Gpu, Result};

#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// A method, or `A+B` for a blend.
    pub method: String,
    /// Blends: warps with (warp index mod 8) < lambda run A.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lambda: Option<u32>,
    /// s_b and d_b at the same point (one evaluation = both).
    pub both: bool,
    pub median_ms: f64,
    pub g_evals_per_s: f64,
    pub cycles_per_warp: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub device: String,
    pub format: String,
    pub sms: u32,
    /// SM clock measured with clock64() against %globaltimer while a kernel runs.
    pub sm_clock_mhz: f64,
    pub evals_per_launch: u64,
    pub rows: Vec<Row>,
    /// Element-wise add of two device arrays: memory-bound.
    pub streaming: Vec<StreamRow>,
    /// Fused sum and dot over the same arrays (one pass, one rounding).
    pub reductions: Vec<ReduceRow>,
}

/// A fused reduction over device buffers of LNS words.
#[derive(Clone, Debug, Serialize)]
pub struct ReduceRow {
    /// `sum` or `dot`.
    pub op: &'static str,
    pub elements: usize,
    pub median_ms: f64,
    pub g_elems_per_s: f64,
    /// Bytes read (4 per word) per second.
    pub gb_per_s: f64,
    /// Of the device-to-device copy measured in the same run (read + write counted there, so
    /// a read-only kernel at full memory speed is near 100%).
    pub fraction_of_copy: f64,
}

/// Element-wise `out = a + b` over device buffers of LNS words.
#[derive(Clone, Debug, Serialize)]
pub struct StreamRow {
    pub method: String,
    pub elements: usize,
    pub median_ms: f64,
    pub g_adds_per_s: f64,
    /// Bytes read and written (3 words per add: 12 bytes, 6 with u16 words) per second.
    pub gb_per_s: f64,
    /// Of the device-to-device copy measured in the same run.
    pub fraction_of_copy: f64,
}

/// Streaming adds of 2^28 random words for a few methods, and fused sum and dot of the same
/// words, against the copy ceiling.
fn streaming(
    gpu: &Gpu,
    format: Format,
    methods: &[&GpuMethod],
) -> Result<(Vec<StreamRow>, Vec<ReduceRow>)> {
    use rand::{Rng, SeedableRng};
    let n = 1usize << 28;
    let copy = sigpu_runtime::cuda::copy_bandwidth(gpu, 1 << 30, 3, 20)?.best_gb_per_s;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
    let words: Vec<u32> = (0..1 << 20)
        .map(|_| {
            let log = rng.random_range(-(12i64 << format.frac_bits)..(12i64 << format.frac_bits));
            format.encode(crate::Class::Finite {
                negative: rng.random(),
                log,
            })
        })
        .collect();
    // 2^20 random words tiled to 2^28: the kernel sees varied inputs, the host stays fast.
    let tiled: Vec<u32> = words.iter().copied().cycle().take(n).collect();
    let a = gpu.upload(&tiled)?;
    let b = gpu.upload(
        &tiled[12345..]
            .iter()
            .chain(&tiled[..12345])
            .copied()
            .collect::<Vec<_>>(),
    )?;
    let mut out = gpu.alloc_poisoned::<u32>(n)?;
    let mut reductions = Vec::new();
    for (op, ys) in [("sum", None), ("dot", Some(&b))] {
        let t = time_gpu(gpu, 3, 20, || {
            crate::gpu_fused::fused_into(gpu, format, &a, ys, &mut out)
        })?;
        let words = if ys.is_some() { 2 } else { 1 };
        let gb_per_s = (4 * words * n) as f64 / (t.median_ms * 1e-3) / 1e9;
        reductions.push(ReduceRow {
            op,
            elements: n,
            median_ms: t.median_ms,
            g_elems_per_s: n as f64 / (t.median_ms * 1e-3) / 1e9,
            gb_per_s,
            fraction_of_copy: gb_per_s / copy,
        });
    }
    let mut rows = methods
        .iter()
        .map(|m| {
            let t = time_gpu(gpu, 3, 20, || m.add(gpu, &a, &b, &mut out))?;
            let gb_per_s = 12.0 * n as f64 / (t.median_ms * 1e-3) / 1e9;
            Ok(StreamRow {
                method: m.method.to_string(),
                elements: n,
                median_ms: t.median_ms,
                g_adds_per_s: n as f64 / (t.median_ms * 1e-3) / 1e9,
                gb_per_s,
                fraction_of_copy: gb_per_s / copy,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    // Formats of ≤ 16 bits stored as u16 words: 6 bytes per add instead of 12.
    if let Some(m) = methods.first().filter(|_| format.word_bits() <= 16) {
        let narrow = |v: &DeviceBuffer<u32>| -> Result<DeviceBuffer<u16>> {
            let host: Vec<u16> = gpu.download(v)?.iter().map(|&w| w as u16).collect();
            gpu.upload(&host)
        };
        let (a16, b16) = (narrow(&a)?, narrow(&b)?);
        let mut out16 = gpu.alloc_poisoned::<u16>(n)?;
        let t = time_gpu(gpu, 3, 20, || m.add(gpu, &a16, &b16, &mut out16))?;
        let gb_per_s = 6.0 * n as f64 / (t.median_ms * 1e-3) / 1e9;
        rows.push(StreamRow {
            method: format!("{} (u16 words)", m.method),
            elements: n,
            median_ms: t.median_ms,
            g_adds_per_s: n as f64 / (t.median_ms * 1e-3) / 1e9,
            gb_per_s,
            fraction_of_copy: gb_per_s / copy,
        });
    }
    Ok((rows, reductions))
}

/// Blends measured: (A, B) pairs of units that can run side by side.
pub const BLENDS: [(Method, Method, &str); 4] = [
    (Method::Tex2, Method::Sfu, "lns_blend_tex2_sfu"),
    (Method::Tex2, Method::Horner(3), "lns_blend_tex2_horner3"),
    (Method::Horner(3), Method::Sfu, "lns_blend_horner3_sfu"),
    (Method::Tex1, Method::Sfu, "lns_blend_tex1_sfu"),
];

struct Launch {
    config: LaunchConfig,
    zlo: i64,
    mask: u32,
    iters: i32,
    evals: u64,
}

impl Launch {
    fn new(gpu: &Gpu, format: Format, iters: i32) -> Launch {
        let blocks = gpu.info().sms * 8;
        let threads = blocks as u64 * 256;
        let z0 = format.essential_zero_code();
        // Inputs stay in [z0, 0]: the largest power-of-two span that fits.
        let span = 1u64 << (63 - ((-z0) as u64).leading_zeros());
        Launch {
            config: LaunchConfig {
                grid_dim: (blocks, 1, 1),
                block_dim: (256, 1, 1),
                shared_mem_bytes: 0,
            },
            zlo: z0,
            mask: (span - 1) as u32,
            iters,
            evals: threads * iters as u64,
        }
    }
}

/// Measures the SM clock in MHz.
pub fn sm_clock_mhz(gpu: &Gpu) -> Result<f64> {
    let f = gpu.function(&kernels(), "lns_sm_clock")?;
    let mut out = gpu.alloc_poisoned::<i64>(2)?;
    let spin = 200_000_000i64; // ~0.1 s at 2 GHz
    let mut launch = gpu.stream().launch_builder(&f);
    launch.arg(&spin).arg(&mut out);
    // SAFETY: matches lns_sm_clock(long long, long long*); `out` holds 2 elements.
    unsafe {
        launch.launch(LaunchConfig {
            grid_dim: (1, 1, 1),
            block_dim: (1, 1, 1),
            shared_mem_bytes: 0,
        })
    }
    .map_err(|e| Error::Invalid(format!("launching lns_sm_clock: {e}")))?;
    let v = gpu.download(&out)?;
    Ok(v[0] as f64 / v[1] as f64 * 1e3)
}

/// Every method alone and every blend at every λ, s_b alone and s_b + d_b, for `format`.
pub fn throughput(gpu: &Gpu, format: Format, progress: &dyn Fn(&str)) -> Result<Report> {
    let launch = Launch::new(gpu, format, 2048);
    let mut out = gpu.alloc_poisoned::<i32>(launch.config.grid_dim.0 as usize * 256)?;
    let clock = sm_clock_mhz(gpu)?;
    let sms = gpu.info().sms;
    let row = |method: String, lambda, both, ms: f64| Row {
        method,
        lambda,
        both,
        median_ms: ms,
        g_evals_per_s: launch.evals as f64 / (ms * 1e-3) / 1e9,
        cycles_per_warp: ms * 1e-3 * clock * 1e6 * sms as f64 / (launch.evals as f64 / 32.0),
    };
    let mut rows = Vec::new();
    let mut methods = Vec::new();
    for m in Method::ALL.into_iter().filter(|m| m.runs_on_gpu()) {
        progress(&m.to_string());
        let gm = GpuMethod::new(gpu, m, format)?;
        let f = gpu.function(&kernels(), &format!("lns_bench_{m}"))?;
        for both in [0i32, 1] {
            let t = time_gpu(gpu, 2, 10, || {
                let [t0, t1, t2, t3] = gm.handles();
                let mut l = gpu.stream().launch_builder(&f);
                l.arg(gm.geo()).arg(&t0).arg(&t1).arg(&t2).arg(&t3);
                l.arg(&launch.zlo)
                    .arg(&launch.mask)
                    .arg(&launch.iters)
                    .arg(&both)
                    .arg(&mut out);
                // SAFETY: matches LNS_BENCH's signature; `out` holds one int per thread.
                unsafe { l.launch(launch.config) }
                    .map(drop)
                    .map_err(|e| Error::Invalid(format!("lns_bench_{m}: {e}")))
            })?;
            rows.push(row(m.to_string(), None, both == 1, t.median_ms));
        }
        methods.push(gm);
    }
    let find = |m: Method| {
        methods
            .iter()
            .find(|g| g.method == m)
            .expect("every method was prepared")
    };
    for (a, b, kernel) in BLENDS {
        progress(kernel);
        let (ga, gb) = (find(a), find(b));
        let f = gpu.function(&kernels(), kernel)?;
        for both in [0i32, 1] {
            for lambda in 1..8i32 {
                let t = time_gpu(gpu, 2, 10, || {
                    let ([a0, a1, a2, a3], [b0, b1, b2, b3]) = (ga.handles(), gb.handles());
                    let mut l = gpu.stream().launch_builder(&f);
                    l.arg(ga.geo()).arg(&a0).arg(&a1).arg(&a2).arg(&a3);
                    l.arg(gb.geo())
                        .arg(&b0)
                        .arg(&b1)
                        .arg(&b2)
                        .arg(&b3)
                        .arg(&lambda);
                    l.arg(&launch.zlo)
                        .arg(&launch.mask)
                        .arg(&launch.iters)
                        .arg(&both)
                        .arg(&mut out);
                    // SAFETY: matches LNS_BLEND's signature; `out` holds one int per thread.
                    unsafe { l.launch(launch.config) }
                        .map(drop)
                        .map_err(|e| Error::Invalid(format!("{kernel}: {e}")))
                })?;
                rows.push(row(
                    format!("{a}+{b}"),
                    Some(lambda as u32),
                    both == 1,
                    t.median_ms,
                ));
            }
        }
    }
    progress("streaming add");
    let mut wanted = vec![
        Method::gpu_default(format),
        Method::Tex2,
        Method::Horner(3),
        Method::F64,
    ];
    wanted.dedup();
    let stream_methods: Vec<&GpuMethod> = wanted
        .iter()
        .filter_map(|&m| methods.iter().find(|g| g.method == m))
        .collect();
    let (streaming, reductions) = streaming(gpu, format, &stream_methods)?;
    Ok(Report {
        device: format!("{} ({})", gpu.info().name, gpu.arch()),
        format: format.to_string(),
        sms,
        sm_clock_mhz: clock,
        evals_per_launch: launch.evals,
        rows,
        streaming,
        reductions,
    })
}

/// One CPU add/sub measurement.
#[derive(Clone, Debug, Serialize)]
pub struct CpuRow {
    pub method: String,
    pub threads: usize,
    pub elements: usize,
    pub median_s: f64,
    pub g_adds_per_s: f64,
}

/// Element-wise `add_slices` throughput on the CPU for `method`, over `n` pairs of values with
/// log2 magnitudes uniform in [−8, 8] and random signs (so half the adds are subtractions, and
/// inputs land across the whole s_b / d_b domain rather than mostly beyond the essential zero),
/// on all threads; median of `runs`.
pub fn cpu_add_throughput(format: Format, method: Method, n: usize, runs: usize) -> Result<CpuRow> {
    use rand::{Rng, SeedableRng};
    let eval = method
        .cpu(format)
        .map_err(|e| Error::Invalid(e.to_string()))?
        .ok_or_else(|| Error::Invalid(format!("{method} has no CPU evaluator")))?;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let mut value = || {
        let x = rng.random_range(-8.0..8.0f64).exp2();
        format.from_f64(if rng.random() { x } else { -x })
    };
    let a: Vec<u32> = (0..n).map(|_| value()).collect();
    let b: Vec<u32> = (0..n).map(|_| value()).collect();
    let mut out = vec![0u32; n];
    let mut failed = None;
    let mut samples = sigpu_runtime::host::time_cpu(runs, || {
        if let Err(e) = format.add_slices(&eval, &a, &b, &mut out) {
            failed = Some(e);
        }
    });
    if let Some(e) = failed {
        return Err(Error::Invalid(e.to_string()));
    }
    std::hint::black_box(&out);
    let median_s = sigpu_runtime::cuda::median(&mut samples);
    Ok(CpuRow {
        method: method.to_string(),
        threads: rayon::current_num_threads(),
        elements: n,
        median_s,
        g_adds_per_s: n as f64 / median_s / 1e9,
    })
}
