//! The CLNS paper's Table I on today's GPU (complex f32 add and multiply vs CLNS add and multiply,
//! measured in the same run, in G ops/s and SM clock cycles per warp per op); with the
//! texture-cache cliff and streaming element-wise ops ([`super::cliff`]) the whole
//! `sigpu bench clns` report.

use super::chain::{chain_config, median_ms};
use super::cliff::{cliff, streaming, CliffRow, StreamRow};
use anyhow::Result;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};
use sigpu_clns::gpu::{random_pairs, Float2, GpuClns, Uint2};
use sigpu_clns::{Class, Clns, ClnsF32, ClnsFormat, Geometry, Method};
use sigpu_runtime::cuda::cudarc::driver::{DeviceRepr, LaunchConfig};
use sigpu_runtime::cuda::{self, sm_clock_mhz, DeviceBuffer, Gpu};

/// One Table I measurement: an operation's throughput in dependent chains.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Row {
    /// `complex f32 add`, `complex f32 mul`, `clns mul`, `clns mul (finite fast path)`,
    /// `clns add`, and the f32-radian variant's `clns-f32 mul`, `clns-f32 add`.
    pub op: String,
    /// S_b method of a CLNS add (blend: λ of 8 warps on the texture).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// Median time of one launch, in ms.
    pub median_ms: f64,
    /// Throughput: 10^9 ops per second at the median.
    pub g_ops_per_s: f64,
    /// SM clock cycles per warp-wide op: time × clock × SMs / (ops / 32).
    pub cycles_per_warp: f64,
}

/// What `sigpu bench clns` measures; `--from` reads it back to redraw.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Report {
    /// The GPU's name and architecture.
    pub device: String,
    /// The CLNS format measured (`clns16`, ...).
    pub format: String,
    /// The S_b table's size and near region.
    pub geometry: Geometry,
    /// Streaming multiprocessors of the device.
    pub sms: u32,
    /// SM clock measured while a kernel runs, in MHz: what `cycles_per_warp` divides by.
    pub sm_clock_mhz: f64,
    /// Ops per Table I launch.
    pub ops_per_launch: u64,
    /// Table I: complex f32 add and mul, CLNS mul and add (per S_b method and blend), and the
    /// f32-radian variant's.
    pub table1: Vec<Row>,
    /// The texture-cache cliff: S_b read rates against table size (empty for Table I alone).
    #[serde(default)]
    pub cliff: Vec<CliffRow>,
    /// Streaming element-wise ops against the copy ceiling (empty for Table I alone).
    #[serde(default)]
    pub streaming: Vec<StreamRow>,
}

/// Chains per thread in the Table I kernels (`CHAINS` of clns.cu).
const CHAINS: u64 = 2;

/// One Table I measurement context: the table, the chains' launch, the output words.
struct Chains<'a> {
    gpu: &'a Gpu,
    g: &'a GpuClns,
    config: LaunchConfig,
    iters: i32,
    out: DeviceBuffer<u32>,
    ops: u64,
    clock: f64,
}

impl Chains<'_> {
    fn row(&self, op: &str, method: Option<String>, ms: f64) -> Row {
        let sms = self.gpu.info().sms as f64;
        Row {
            op: op.to_owned(),
            method,
            median_ms: ms,
            g_ops_per_s: self.ops as f64 / (ms * 1e-3) / 1e9,
            cycles_per_warp: ms * 1e-3 * self.clock * 1e6 * sms / (self.ops as f64 / 32.0),
        }
    }

    /// Times `name(const T4* init, W w, int iters, unsigned* out)` (the multiply chains;
    /// `geo`: with the CLNS geometry first, as the code formats' kernels take it).
    fn time_mul<T, W: cuda::KernelValue>(
        &mut self,
        name: &str,
        geo: bool,
        init: &DeviceBuffer<T>,
        w: W,
    ) -> Result<f64> {
        let (gpu, g, config, iters) = (self.gpu, self.g, self.config, self.iters);
        let out = &mut self.out;
        median_ms(gpu, name, |k| {
            let mut l = gpu.launch(k);
            if geo {
                l.arg(g.geo());
            }
            l.buf(init).arg(&w).arg(&iters).buf_mut(out).run(config)
        })
    }

    /// Times `name(ClnsGeo, tex, const float2* table, const T4* init, int lambda, int iters,
    /// unsigned* out)` (the add chains of either representation).
    fn time_add<T: DeviceRepr>(
        &mut self,
        name: &str,
        init: &DeviceBuffer<T>,
        lambda: i32,
    ) -> Result<f64> {
        let (gpu, g, config, iters) = (self.gpu, self.g, self.config, self.iters);
        let (tex, out) = (g.texture_handle(), &mut self.out);
        median_ms(gpu, name, |k| {
            gpu.launch(k)
                .arg(g.geo())
                .arg(&tex)
                .buf(g.texels())
                .buf(init)
                .arg(&lambda)
                .arg(&iters)
                .buf_mut(out)
                .run(config)
        })
    }
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
    let clock = sm_clock_mhz(gpu)?;
    let config = chain_config(gpu);
    let threads = config.grid_dim.0 as u64 * 256;
    let iters = 4096i32;
    let g = GpuClns::new(gpu, format, geometry)?;
    let mut chains = Chains {
        gpu,
        g: &g,
        config,
        iters,
        out: gpu.alloc_poisoned::<u32>(threads as usize)?,
        ops: threads * iters as u64 * CHAINS,
        clock,
    };
    let pool = finite_pool(format);
    let mut table1 = complex_f32_rows(&mut chains, progress)?;
    table1.extend(clns_rows(&mut chains, &pool, progress)?);
    table1.extend(f32_variant_rows(&mut chains, &pool, progress)?);
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
        sms: gpu.info().sms,
        sm_clock_mhz: clock,
        ops_per_launch: chains.ops,
        table1,
        cliff,
        streaming,
    })
}

/// Finite values of `format` from the checks' random pairs: the chains' starting points.
fn finite_pool(format: ClnsFormat) -> Vec<Clns> {
    let (a, b) = random_pairs(format, 8192, 8);
    let finite = |x: &Clns| matches!(format.class(*x), Class::Finite { .. });
    a.iter().chain(&b).filter(|x| finite(x)).copied().collect()
}

/// 4096 starting pairs (x, y) drawn in turn from `pool`, as `[x, y]`.
fn init_pairs<T>(pool: &[Clns], pair: impl Fn(Clns, Clns) -> [T; 4]) -> Vec<[T; 4]> {
    (0..4096)
        .map(|i| pair(pool[2 * i % pool.len()], pool[(2 * i + 1) % pool.len()]))
        .collect()
}

/// The peers: complex f32 add and multiply chains.
fn complex_f32_rows(c: &mut Chains, progress: &dyn Fn(&str)) -> Result<Vec<Row>> {
    progress("complex f32 add / mul");
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let init: Vec<[f32; 4]> = (0..4096)
        .map(|_| [0; 4].map(|_| rng.random_range(-1.0f32..1.0)))
        .collect();
    let init = c.gpu.upload(&init)?;
    let (gpu, config, iters) = (c.gpu, c.config, c.iters);
    let out = &mut c.out;
    let add = median_ms(gpu, "bench_cf32_add", |k| {
        gpu.launch(k)
            .buf(&init)
            .arg(&iters)
            .buf_mut(out)
            .run(config)
    })?;
    let w = Float2([0.1f32.cos(), 0.1f32.sin()]);
    let mul = c.time_mul("bench_cf32_mul", false, &init, w)?;
    Ok(vec![
        c.row("complex f32 add", None, add),
        c.row("complex f32 mul", None, mul),
    ])
}

/// CLNS multiply (full and finite fast path) and add by every method and blend split.
fn clns_rows(c: &mut Chains, pool: &[Clns], progress: &dyn Fn(&str)) -> Result<Vec<Row>> {
    let init = init_pairs(pool, |x, y| [x.log as u32, x.angle, y.log as u32, y.angle]);
    let init = c.gpu.upload(&init)?;
    let w = Uint2([0u32, 12345u32 << c.g.format.angle_shift()]);
    let mut rows = Vec::new();
    for (kernel, op) in [
        ("bench_clns_mul", "clns mul"),
        ("bench_clns_mul_finite", "clns mul (finite fast path)"),
    ] {
        progress(op);
        let ms = c.time_mul(kernel, true, &init, w)?;
        rows.push(c.row(op, None, ms));
    }
    for (method, lambda) in [
        (Method::Tex, 0),
        (Method::Fma, 0),
        (Method::Accurate, 0),
        (Method::F64, 0),
        (Method::Sfu, 0),
        (Method::Blend, 2),
        (Method::Blend, 4),
        (Method::Blend, 6),
    ] {
        if !method.serves(c.g.format) {
            continue;
        }
        progress(&format!("clns add {method}"));
        let ms = c.time_add(&format!("bench_clns_add_{method}"), &init, lambda)?;
        let label = if method == Method::Blend {
            format!("blend λ={lambda}/8 tex")
        } else {
            method.to_string()
        };
        rows.push(c.row("clns add", Some(label), ms));
    }
    Ok(rows)
}

/// Table I rows of the f32-radian variant (the CLNS paper's representation), same chains and
/// launch as the code format's rows, the same S_b table: mul, and add by each method.
fn f32_variant_rows(c: &mut Chains, pool: &[Clns], progress: &dyn Fn(&str)) -> Result<Vec<Row>> {
    let format = c.g.format;
    let v = |x: Clns| ClnsF32::from_complex(format.to_complex(x));
    let init = init_pairs(pool, |x, y| {
        let (x, y) = (v(x), v(y));
        [x.log, x.angle, y.log, y.angle]
    });
    let init = c.gpu.upload(&init)?;
    progress("clns-f32 mul");
    let ms = c.time_mul("bench_clnsf_mul", false, &init, Float2([0.0f32, 0.1f32]))?;
    let mut rows = vec![c.row("clns-f32 mul", None, ms)];
    for method in [
        Method::Tex,
        Method::Fma,
        Method::Accurate,
        Method::F64,
        Method::Sfu,
    ] {
        progress(&format!("clns-f32 add {method}"));
        let ms = c.time_add(&format!("bench_clnsf_add_{method}"), &init, 0)?;
        rows.push(c.row("clns-f32 add", Some(method.to_string()), ms));
    }
    Ok(rows)
}
