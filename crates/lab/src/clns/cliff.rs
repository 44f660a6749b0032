//! The texture-cache cliff (S_b reads at random inputs against table size) and the streaming
//! element-wise ops (2^26 pairs in device memory against the copy ceiling).

use super::chain::{chain_config, median_ms};
use anyhow::Result;
use serde::{Deserialize, Serialize};
use sigpu_clns::gpu::{random_pairs, GpuClns};
use sigpu_clns::{Clns, ClnsFormat, Geometry, Method};
use sigpu_runtime::cuda::{self, copy_bandwidth, streaming_config, time_gpu, DeviceBuffer, Gpu};

/// S_b reads at random inputs by one reader from a table of one size.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CliffRow {
    /// `tex` (bilinear texture filter) or `fma` (loads and FMA lerps).
    pub reader: String,
    /// Table points along the magnitude axis (P_CL).
    pub p_cl: usize,
    /// Table points along θ (P_θ).
    pub p_theta: usize,
    /// Table size in KiB (8-byte float2 texels): the working set.
    pub table_kib: f64,
    /// Throughput: 10^9 reads per second.
    pub g_reads_per_s: f64,
}

/// One element-wise op over 2^26 pairs of 8-byte values in device memory.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct StreamRow {
    /// `complex f32 add` / `mul`, `clns mul`, `clns add tex` / `fma`.
    pub op: String,
    /// Pairs per launch (2^26).
    pub elements: usize,
    /// Throughput: 10^9 ops per second at the median.
    pub g_ops_per_s: f64,
    /// 24 bytes per op (two 8-byte operands read, one written).
    pub gb_per_s: f64,
    /// `gb_per_s` over the device-to-device copy measured in the same run.
    pub fraction_of_copy: f64,
}

/// Table sizes (P × P) of the cliff sweep.
pub const CLIFF_SIZES: [usize; 11] = [16, 32, 64, 96, 128, 160, 192, 256, 512, 1024, 2048];

/// S_b table reads at random inputs (the whole table is the working set) for each size.
pub fn cliff(gpu: &Gpu, format: ClnsFormat, progress: &dyn Fn(&str)) -> Result<Vec<CliffRow>> {
    let config = chain_config(gpu);
    let threads = config.grid_dim.0 as u64 * 256;
    let iters = 1024i32;
    let mut out = gpu.alloc_poisoned::<u32>(threads as usize)?;
    let mut rows = Vec::new();
    for p in CLIFF_SIZES {
        progress(&format!("cliff {p}×{p}"));
        let g = GpuClns::new(gpu, format, Geometry::new(format, p, p))?;
        let tex = g.texture_handle();
        for reader in ["tex", "fma"] {
            let ms = median_ms(gpu, &format!("cliff_{reader}"), |k| {
                gpu.launch(k)
                    .arg(g.geo())
                    .arg(&tex)
                    .buf(g.texels())
                    .arg(&iters)
                    .buf_mut(&mut out)
                    .run(config)
            })?;
            rows.push(CliffRow {
                reader: reader.to_owned(),
                p_cl: p,
                p_theta: p,
                table_kib: (p * p * 8) as f64 / 1024.0,
                g_reads_per_s: (threads * iters as u64) as f64 / (ms * 1e-3) / 1e9,
            });
        }
    }
    Ok(rows)
}

/// Element-wise complex f32 add and mul, CLNS mul and add (texture and FMA S_b) over 2^26
/// pairs of 8-byte values, against the copy ceiling.
pub fn streaming(gpu: &Gpu, g: &GpuClns) -> Result<Vec<StreamRow>> {
    let n = 1usize << 26;
    let copy = copy_bandwidth(gpu, 1 << 30, 3, 20)?.best_gb_per_s;
    let (a, b) = random_pairs(g.format, 1 << 20, 9);
    let tile =
        |v: &[Clns]| -> Vec<[u32; 2]> { v.iter().map(|x| x.to_pair()).cycle().take(n).collect() };
    let (da, db) = (gpu.upload(&tile(&a))?, gpu.upload(&tile(&b))?);
    let mut out = gpu.alloc_poisoned::<[u32; 2]>(n)?;
    // Complex f32 operands (complex64, the same 8 bytes per value) for the peer rows.
    let complex =
        |v: &[[u32; 2]], f: fn(&[u32; 2]) -> [f32; 2]| v.iter().map(f).collect::<Vec<_>>();
    let fa = gpu.upload(&complex(&tile(&a), |p| [p[0] as f32, p[1] as f32 * 1e-9]))?;
    let fb = gpu.upload(&complex(&tile(&b), |p| [p[1] as f32 * 1e-9, p[0] as f32]))?;
    let mut fout = gpu.alloc_poisoned::<[f32; 2]>(n)?;
    let mut rows = Vec::new();
    for op in [
        "complex f32 add",
        "complex f32 mul",
        "clns mul",
        "clns add tex",
        "clns add fma",
    ] {
        let t = time_gpu(gpu, 3, 20, || match op {
            "complex f32 add" => Ok(complex_f32(gpu, "stream_cf32_add", &fa, &fb, &mut fout)?),
            "complex f32 mul" => Ok(complex_f32(gpu, "stream_cf32_mul", &fa, &fb, &mut fout)?),
            "clns mul" => g.mul(&da, &db, &mut out),
            "clns add tex" => g.add(Method::Tex, &da, &db, &mut out),
            _ => g.add(Method::Fma, &da, &db, &mut out),
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

/// One launch of `stream_cf32_add` / `stream_cf32_mul` over all of `a`, `b`, `out` (equal
/// lengths by construction), grid-stride as the CLNS streaming ops.
fn complex_f32(
    gpu: &Gpu,
    name: &str,
    a: &DeviceBuffer<[f32; 2]>,
    b: &DeviceBuffer<[f32; 2]>,
    out: &mut DeviceBuffer<[f32; 2]>,
) -> cuda::Result<()> {
    let kernel = gpu.kernel(&sigpu_clns::gpu::kernels(), name)?;
    let (n, config) = (out.len() as u64, streaming_config(gpu, out.len()));
    gpu.launch(&kernel)
        .buf(a)
        .buf(b)
        .buf_mut(out)
        .arg(&n)
        .run(config)
}
