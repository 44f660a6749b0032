//! The seed's Table I on today's GPU (complex f32 add and multiply vs CLNS add and multiply,
//! measured in the same run, in G ops/s and SM clock cycles per warp per op), the texture-cache
//! cliff (S_b reads at random inputs vs table size), and streaming element-wise ops.

use crate::format::{Clns, ClnsFormat};
use crate::gpu::{kernels, random_pairs, GpuClns};
use crate::radian::ClnsF32;
use crate::sb::{Geometry, Method};
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};
use sigpu_runtime::cuda::cudarc::driver::{LaunchConfig, PushKernelArg};
use sigpu_runtime::cuda::{time_gpu, DeviceBuffer, Error, Gpu, Result};

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Row {
    /// `complex f32 add`, `complex f32 mul`, `clns mul`, `clns mul (finite fast path)`,
    /// `clns add`, and the f32-radian variant's `clns-f32 mul`, `clns-f32 add`.
    pub op: String,
    /// S_b method of a CLNS add (blend: λ of 8 warps on the texture).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    pub median_ms: f64,
    pub g_ops_per_s: f64,
    /// SM clock cycles per warp-wide op: time × clock × SMs / (ops / 32).
    pub cycles_per_warp: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CliffRow {
    pub reader: String,
    pub p_cl: usize,
    pub p_theta: usize,
    pub table_kib: f64,
    pub g_reads_per_s: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct StreamRow {
    pub op: String,
    pub elements: usize,
    pub g_ops_per_s: f64,
    /// 24 bytes per op (two 8-byte operands read, one written).
    pub gb_per_s: f64,
    pub fraction_of_copy: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Report {
    pub device: String,
    pub format: String,
    pub geometry: Geometry,
    pub sms: u32,
    pub sm_clock_mhz: f64,
    pub ops_per_launch: u64,
    pub table1: Vec<Row>,
    #[serde(default)]
    pub cliff: Vec<CliffRow>,
    #[serde(default)]
    pub streaming: Vec<StreamRow>,
}

/// Table sizes (P × P) of the cliff sweep.
pub const CLIFF_SIZES: [usize; 11] = [16, 32, 64, 96, 128, 160, 192, 256, 512, 1024, 2048];

const CHAINS: u64 = 2;

fn launch(gpu: &Gpu) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (gpu.info().sms * 16, 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    }
}

fn failed(name: &str) -> impl Fn(sigpu_runtime::cuda::cudarc::driver::DriverError) -> Error + '_ {
    move |e| Error::Invalid(format!("{name}: {e}"))
}

/// Everything, for `format` with the S_b table `geometry` (Table I alone if `table1_only`:
/// the cliff and streaming rows are left empty).
pub fn run(
    gpu: &Gpu,
    format: ClnsFormat,
    geometry: Geometry,
    table1_only: bool,
    progress: &dyn Fn(&str),
) -> Result<Report> {
    let clock = sigpu_runtime::cuda::sm_clock_mhz(gpu)?;
    let sms = gpu.info().sms;
    let config = launch(gpu);
    let threads = config.grid_dim.0 as u64 * 256;
    let iters = 4096i32;
    let ops = threads * iters as u64 * CHAINS;
    let g = GpuClns::new(gpu, format, geometry)?;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let init_f: Vec<[f32; 4]> = (0..4096)
        .map(|_| [0; 4].map(|_| rng.random_range(-1.0f32..1.0)))
        .collect();
    let (a, b) = random_pairs(format, 8192, 8);
    let finite = |x: &Clns| matches!(format.class(*x), crate::Class::Finite { .. });
    let pool: Vec<Clns> = a.iter().chain(&b).filter(|x| finite(x)).copied().collect();
    let init_c: Vec<[u32; 4]> = (0..4096)
        .map(|i| {
            let (x, y) = (pool[2 * i % pool.len()], pool[(2 * i + 1) % pool.len()]);
            [x.log as u32, x.angle, y.log as u32, y.angle]
        })
        .collect();
    let (init_f, init_c) = (gpu.upload(&init_f)?, gpu.upload(&init_c)?);
    let mut out = gpu.alloc_poisoned::<u32>(threads as usize)?;
    let row = |op: &str, method: Option<String>, ms: f64| Row {
        op: op.to_owned(),
        method,
        median_ms: ms,
        g_ops_per_s: ops as f64 / (ms * 1e-3) / 1e9,
        cycles_per_warp: ms * 1e-3 * clock * 1e6 * sms as f64 / (ops as f64 / 32.0),
    };
    let mut table1 = Vec::new();
    progress("complex f32 add / mul");
    let f = gpu.function(&kernels(), "bench_cf32_add")?;
    let t = time_gpu(gpu, 2, 10, || {
        let mut l = gpu.stream().launch_builder(&f);
        l.arg(&init_f).arg(&iters).arg(&mut out);
        // SAFETY: matches bench_cf32_add; `out` holds one word per thread, init 4096 float4.
        unsafe { l.launch(config) }
            .map(drop)
            .map_err(failed("bench_cf32_add"))
    })?;
    table1.push(row("complex f32 add", None, t.median_ms));
    let f = gpu.function(&kernels(), "bench_cf32_mul")?;
    let w = [0.1f32.cos(), 0.1f32.sin()];
    let t = time_gpu(gpu, 2, 10, || {
        let mut l = gpu.stream().launch_builder(&f);
        l.arg(&init_f).arg(&w).arg(&iters).arg(&mut out);
        // SAFETY: matches bench_cf32_mul (float2 w passed as [f32; 2]).
        unsafe { l.launch(config) }
            .map(drop)
            .map_err(failed("bench_cf32_mul"))
    })?;
    table1.push(row("complex f32 mul", None, t.median_ms));
    let wc = [0u32, 12345u32 << format.angle_shift()];
    for (kernel, op) in [
        ("bench_clns_mul", "clns mul"),
        ("bench_clns_mul_finite", "clns mul (finite fast path)"),
    ] {
        progress(op);
        let f = gpu.function(&kernels(), kernel)?;
        let t = time_gpu(gpu, 2, 10, || {
            let mut l = gpu.stream().launch_builder(&f);
            l.arg(g.geo())
                .arg(&init_c)
                .arg(&wc)
                .arg(&iters)
                .arg(&mut out);
            // SAFETY: both kernels take (ClnsGeo, const uint4* init, uint2 w as [u32; 2], int iters,
            // unsigned* out), the buffers sized by this run.
            unsafe { l.launch(config) }
                .map(drop)
                .map_err(failed(kernel))
        })?;
        table1.push(row(op, None, t.median_ms));
    }
    for (method, lambda) in [
        (Method::Tex, 0),
        (Method::Fma, 0),
        (Method::Accurate, 0),
        (Method::F64, 0),
        (Method::Blend, 2),
        (Method::Blend, 4),
        (Method::Blend, 6),
    ] {
        progress(&format!("clns add {method}"));
        let name = format!("bench_clns_add_{method}");
        let f = gpu.function(&kernels(), &name)?;
        let tex = g.tex();
        let t = time_gpu(gpu, 2, 10, || {
            let mut l = gpu.stream().launch_builder(&f);
            l.arg(g.geo())
                .arg(&tex)
                .arg(g.buffer())
                .arg(&init_c)
                .arg(&lambda)
                .arg(&iters)
                .arg(&mut out);
            // SAFETY: matches BENCH_CLNS_ADD / bench_clns_add_blend.
            unsafe { l.launch(config) }.map(drop).map_err(failed(&name))
        })?;
        let label = if method == Method::Blend {
            format!("blend λ={lambda}/8 tex")
        } else {
            method.to_string()
        };
        table1.push(row("clns add", Some(label), t.median_ms));
    }
    table1.extend(f32_variant(
        gpu, &g, &pool, config, iters, &mut out, &row, progress,
    )?);
    let (cliff, streaming) = if table1_only {
        (Vec::new(), Vec::new())
    } else {
        let cliff = cliff(gpu, format, progress)?;
        progress("streaming");
        (cliff, streaming(gpu, &g)?)
    };
    Ok(Report {
        device: format!("{} ({})", gpu.info().name, gpu.arch()),
        format: format.to_string(),
        geometry,
        sms,
        sm_clock_mhz: clock,
        ops_per_launch: ops,
        table1,
        cliff,
        streaming,
    })
}

/// Table I rows of the f32-radian variant (the seed's representation), same chains and
/// launch as the code format's rows, the same S_b table: mul, and add by each method.
#[allow(clippy::too_many_arguments)]
fn f32_variant(
    gpu: &Gpu,
    g: &GpuClns,
    pool: &[Clns],
    config: LaunchConfig,
    iters: i32,
    out: &mut DeviceBuffer<u32>,
    row: &dyn Fn(&str, Option<String>, f64) -> Row,
    progress: &dyn Fn(&str),
) -> Result<Vec<Row>> {
    let v = |x: Clns| ClnsF32::from_complex(g.format.to_complex(x));
    let init: Vec<[f32; 4]> = (0..4096)
        .map(|i| {
            let (x, y) = (
                v(pool[2 * i % pool.len()]),
                v(pool[(2 * i + 1) % pool.len()]),
            );
            [x.log, x.angle, y.log, y.angle]
        })
        .collect();
    let init = gpu.upload(&init)?;
    let mut rows = Vec::new();
    progress("clns-f32 mul");
    let f = gpu.function(&kernels(), "bench_clnsf_mul")?;
    let w = [0.0f32, 0.1f32];
    let t = time_gpu(gpu, 2, 10, || {
        let mut l = gpu.stream().launch_builder(&f);
        l.arg(&init).arg(&w).arg(&iters).arg(&mut *out);
        // SAFETY: matches bench_clnsf_mul (float2 w passed as [f32; 2]).
        unsafe { l.launch(config) }
            .map(drop)
            .map_err(failed("bench_clnsf_mul"))
    })?;
    rows.push(row("clns-f32 mul", None, t.median_ms));
    let (tex, lambda) = (g.tex(), 0i32);
    for method in [Method::Tex, Method::Fma, Method::Accurate, Method::F64] {
        progress(&format!("clns-f32 add {method}"));
        let name = format!("bench_clnsf_add_{method}");
        let f = gpu.function(&kernels(), &name)?;
        let t = time_gpu(gpu, 2, 10, || {
            let mut l = gpu.stream().launch_builder(&f);
            l.arg(g.geo())
                .arg(&tex)
                .arg(g.buffer())
                .arg(&init)
                .arg(&lambda)
                .arg(&iters)
                .arg(&mut *out);
            // SAFETY: matches BENCH_CLNSF_ADD; init holds 4096 float4, out one word a thread.
            unsafe { l.launch(config) }.map(drop).map_err(failed(&name))
        })?;
        rows.push(row("clns-f32 add", Some(method.to_string()), t.median_ms));
    }
    Ok(rows)
}

/// S_b table reads at random inputs (the whole table is the working set) for each size.
pub fn cliff(gpu: &Gpu, format: ClnsFormat, progress: &dyn Fn(&str)) -> Result<Vec<CliffRow>> {
    let config = launch(gpu);
    let threads = config.grid_dim.0 as u64 * 256;
    let iters = 1024i32;
    let mut out = gpu.alloc_poisoned::<u32>(threads as usize)?;
    let mut rows = Vec::new();
    for p in CLIFF_SIZES {
        progress(&format!("cliff {p}×{p}"));
        let g = GpuClns::new(gpu, format, Geometry::new(format, p, p))?;
        for reader in ["tex", "fma"] {
            let name = format!("cliff_{reader}");
            let f = gpu.function(&kernels(), &name)?;
            let tex = g.tex();
            let t = time_gpu(gpu, 2, 10, || {
                let mut l = gpu.stream().launch_builder(&f);
                l.arg(g.geo())
                    .arg(&tex)
                    .arg(g.buffer())
                    .arg(&iters)
                    .arg(&mut out);
                // SAFETY: matches cliff_tex / cliff_fma; `out` holds one word per thread.
                unsafe { l.launch(config) }.map(drop).map_err(failed(&name))
            })?;
            rows.push(CliffRow {
                reader: reader.to_owned(),
                p_cl: p,
                p_theta: p,
                table_kib: (p * p * 8) as f64 / 1024.0,
                g_reads_per_s: (threads * iters as u64) as f64 / (t.median_ms * 1e-3) / 1e9,
            });
        }
    }
    Ok(rows)
}

/// Element-wise complex f32 add and mul, CLNS mul and add (texture and FMA S_b) over 2^26
/// pairs of 8-byte values, against the copy ceiling.
fn streaming(gpu: &Gpu, g: &GpuClns) -> Result<Vec<StreamRow>> {
    let n = 1usize << 26;
    let copy = sigpu_runtime::cuda::copy_bandwidth(gpu, 1 << 30, 3, 20)?.best_gb_per_s;
    let (a, b) = random_pairs(g.format, 1 << 20, 9);
    let tile =
        |v: &[Clns]| -> Vec<[u32; 2]> { v.iter().map(|x| x.to_pair()).cycle().take(n).collect() };
    let (da, db) = (gpu.upload(&tile(&a))?, gpu.upload(&tile(&b))?);
    let mut out = gpu.alloc_poisoned::<[u32; 2]>(n)?;
    // Complex f32 operands (complex64, the same 8 bytes per value) for the peer rows.
    let (fa, fb) = (
        gpu.upload(
            &tile(&a)
                .iter()
                .map(|p| [p[0] as f32, p[1] as f32 * 1e-9])
                .collect::<Vec<_>>(),
        )?,
        gpu.upload(
            &tile(&b)
                .iter()
                .map(|p| [p[1] as f32 * 1e-9, p[0] as f32])
                .collect::<Vec<_>>(),
        )?,
    );
    let mut fout = gpu.alloc_poisoned::<[f32; 2]>(n)?;
    let cf32 = |name: &str, fout: &mut sigpu_runtime::cuda::DeviceBuffer<[f32; 2]>| -> Result<()> {
        let f = gpu.function(&kernels(), name)?;
        let n64 = n as u64;
        let mut l = gpu.stream().launch_builder(&f);
        l.arg(&fa).arg(&fb).arg(fout).arg(&n64);
        let config = LaunchConfig {
            grid_dim: (gpu.info().sms * 32, 1, 1),
            block_dim: (256, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: matches stream_cf32_add / stream_cf32_mul; all buffers hold n values.
        unsafe { l.launch(config) }.map(drop).map_err(failed(name))
    };
    let mut rows = Vec::new();
    for op in [
        "complex f32 add",
        "complex f32 mul",
        "clns mul",
        "clns add tex",
        "clns add fma",
    ] {
        let t = time_gpu(gpu, 3, 20, || match op {
            "complex f32 add" => cf32("stream_cf32_add", &mut fout),
            "complex f32 mul" => cf32("stream_cf32_mul", &mut fout),
            "clns mul" => g.mul(gpu, &da, &db, &mut out),
            "clns add tex" => g.add(gpu, Method::Tex, &da, &db, &mut out),
            _ => g.add(gpu, Method::Fma, &da, &db, &mut out),
        })?;
        let gb = 24.0 * n as f64 / (t.median_ms * 1e-3) / 1e9;
        rows.push(StreamRow {
            op: op.to_owned(),
            elements: n,
            g_ops_per_s: n as f64 / (t.median_ms * 1e-3) / 1e9,
            gb_per_s: gb,
            fraction_of_copy: gb / copy,
        });
    }
    Ok(rows)
}

/// GPU FFT throughput: `batch` transforms of `n` in one launch.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FftRow {
    pub method: String,
    pub n: usize,
    pub batch: usize,
    pub median_ms: f64,
    pub transforms_per_s: f64,
    /// Radix-2 butterflies (n/2 · log2 n per transform) per second, in G.
    pub g_butterflies_per_s: f64,
}

/// Times the batched GPU FFT of random inputs (each run on its own copy: 12 copies of the
/// batch on the device).
pub fn fft_throughput(
    gpu: &Gpu,
    g: &GpuClns,
    method: Method,
    n: usize,
    batch: usize,
) -> Result<FftRow> {
    let x = crate::fft::random_input(n, batch, 5);
    let data: Vec<[u32; 2]> = x
        .iter()
        .map(|&c| g.format.from_complex(c).to_pair())
        .collect();
    // Every run transforms fresh input: the FFT is unscaled and in place, so rerunning it on
    // its own output grows magnitudes by ~√N a pass until they overflow to ∞ and NaN, whose
    // adds take the special-value shortcut and skip S_b (timings then ~3× too fast).
    let (warmup, runs) = (2, 10);
    let mut buffers = (0..warmup + runs)
        .map(|_| gpu.upload(&data))
        .collect::<Result<Vec<_>>>()?;
    let mut fresh = buffers.iter_mut();
    let t = time_gpu(gpu, warmup, runs, || {
        let d = fresh
            .next()
            .ok_or_else(|| Error::Invalid("FFT timing: more runs than input buffers".into()))?;
        g.fft(gpu, method, d, n)
    })?;
    let s = t.median_ms * 1e-3;
    Ok(FftRow {
        method: method.to_string(),
        n,
        batch,
        median_ms: t.median_ms,
        transforms_per_s: batch as f64 / s,
        g_butterflies_per_s: (batch * n / 2 * n.trailing_zeros() as usize) as f64 / s / 1e9,
    })
}
