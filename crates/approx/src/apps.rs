//! The application suite: kernels re-expressed from the seed's Table 6, each written with the
//! accurate standard functions (`kernels/apps/*.cu`), turned into λ kernels by
//! [`transform`](crate::transform) and scored by its own quality metric against its
//! accurate output. Inputs come from fixed seeds at sizes that fill an H100.

use crate::catalog::Precision;
use crate::dev::{launch_err, Buf, Scalar};
use crate::error::ApproxError;
use crate::numeric::Values;
use rand::{Rng, SeedableRng};
use rayon::prelude::*;
use serde::Serialize;
use sigpu_runtime::cuda::cudarc::driver::{CudaFunction, LaunchArgs, LaunchConfig, PushKernelArg};
use sigpu_runtime::cuda::{DeviceBuffer, Gpu, KernelSource, Result};

/// How an app's output is scored against its accurate output (higher is worse).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// Mean of |a − r| / |r| over outputs with r ≠ 0 (the seed's footnote 5).
    MeanRelative,
    /// Σ|a − r| / Σ|r| (the CUDA samples' L1 norm).
    L1Relative,
    /// ‖a − r‖₂ / ‖r‖₂.
    RelativeL2,
}

impl Metric {
    /// The error of `got` against `reference`; NaN in `got` where the reference is a number
    /// makes it infinite.
    pub fn error(self, got: &Values, reference: &Values) -> f64 {
        let n = reference.len().min(got.len());
        let (num, den, count) = (0..n)
            .into_par_iter()
            .map(|i| {
                let (a, r) = (got.get(i), reference.get(i));
                let d = if a.is_nan() && r.is_nan() {
                    0.0
                } else {
                    (a - r).abs()
                };
                let d = if d.is_nan() { f64::INFINITY } else { d };
                match self {
                    Metric::MeanRelative if r != 0.0 => (d / r.abs(), 0.0, 1usize),
                    Metric::MeanRelative => (0.0, 0.0, 0),
                    Metric::L1Relative => (d, r.abs(), 1),
                    Metric::RelativeL2 => (d * d, r * r, 1),
                }
            })
            .reduce(|| (0.0, 0.0, 0), |a, b| (a.0 + b.0, a.1 + b.1, a.2 + b.2));
        if got.len() != reference.len() {
            return f64::INFINITY;
        }
        match self {
            Metric::MeanRelative => num / count.max(1) as f64,
            Metric::L1Relative => num / den,
            Metric::RelativeL2 => (num / den).sqrt(),
        }
    }
}

/// Arguments appended to a generated kernel's own.
pub enum Extra<'a> {
    /// The original or the all-SFU kernel.
    None,
    /// `K_lambda`: λ and the slot-recording buffer (null when not recording).
    Slot {
        lambda: i32,
        slots: Option<&'a DeviceBuffer<u32>>,
    },
    /// `K_lambda_block`: λ over the warp index within the block.
    Block { lambda: i32 },
}

static NULL: u64 = 0;

impl<'a> Extra<'a> {
    fn push(&'a self, l: &mut LaunchArgs<'a>) {
        match self {
            Extra::None => {}
            Extra::Slot { lambda, slots } => {
                l.arg(lambda);
                match slots {
                    Some(s) => l.arg(*s),
                    None => l.arg(&NULL),
                };
            }
            Extra::Block { lambda } => {
                l.arg(lambda);
            }
        }
    }
}

/// One argument of an app kernel.
enum Arg {
    In(Buf),
    Out(Buf),
    S(Scalar),
}

/// An app's data on the device and how it is launched.
pub struct Workload {
    precision: Precision,
    args: Vec<Arg>,
    config: LaunchConfig,
    /// Gaussian elimination only: the matrix size; runs Fan1 (the app kernel) and Fan2 for
    /// every column, from pristine copies of the matrix and right-hand side.
    gaussian: Option<Gaussian>,
}

struct Gaussian {
    n: i32,
    a0: DeviceBuffer<f32>,
    b0: DeviceBuffer<f32>,
    a: DeviceBuffer<f32>,
    b: DeviceBuffer<f32>,
    m: DeviceBuffer<f32>,
    fan2: CudaFunction,
}

impl Workload {
    pub fn config(&self) -> LaunchConfig {
        self.config
    }

    /// Enqueues one run of the app with `kernel` (a variant of its kernel).
    pub fn run(&mut self, gpu: &Gpu, kernel: &CudaFunction, extra: &Extra) -> Result<()> {
        if let Some(g) = &mut self.gaussian {
            return g.run(gpu, kernel, extra);
        }
        let mut l = gpu.stream().launch_builder(kernel);
        for a in &self.args {
            match a {
                Arg::In(b) | Arg::Out(b) => b.push(&mut l),
                Arg::S(s) => s.push(&mut l),
            }
        }
        extra.push(&mut l);
        // SAFETY: the app's argument list matches its kernel's parameters (each app builds
        // both), the generated variants append exactly what `extra` pushes, and every buffer
        // holds the elements the launch configuration makes the kernel touch.
        unsafe { l.launch(self.config) }
            .map(drop)
            .map_err(launch_err("app kernel"))
    }

    /// Fills every output with NaN, so a value the kernel failed to write cannot pass.
    pub fn poison(&mut self, gpu: &Gpu) -> Result<()> {
        if let Some(g) = &mut self.gaussian {
            return gpu.poison(&mut g.m);
        }
        for a in &mut self.args {
            if let Arg::Out(b) = a {
                b.poison(gpu)?;
            }
        }
        Ok(())
    }

    /// Every output buffer, concatenated.
    pub fn output(&self, gpu: &Gpu) -> Result<Values> {
        if let Some(g) = &self.gaussian {
            return g.solution(gpu);
        }
        let mut f32s = Vec::new();
        let mut f64s = Vec::new();
        for a in &self.args {
            if let Arg::Out(b) = a {
                match b.download(gpu, self.precision)? {
                    Values::F32(v) => f32s.extend(v),
                    Values::F64(v) => f64s.extend(v),
                    Values::Bits16(..) => unreachable!("apps are f32 or f64"),
                }
            }
        }
        Ok(match self.precision {
            Precision::F64 => Values::F64(f64s),
            _ => Values::F32(f32s),
        })
    }
}

impl Gaussian {
    fn run(&mut self, gpu: &Gpu, fan1: &CudaFunction, extra: &Extra) -> Result<()> {
        let s = gpu.stream();
        s.memcpy_dtod(&self.a0, &mut self.a)
            .map_err(launch_err("matrix copy"))?;
        s.memcpy_dtod(&self.b0, &mut self.b)
            .map_err(launch_err("vector copy"))?;
        let n = self.n;
        for t in 0..n - 1 {
            let rows = (n - 1 - t) as u32;
            let mut l = s.launch_builder(fan1);
            l.arg(&mut self.m).arg(&self.a).arg(&n).arg(&t);
            extra.push(&mut l);
            // SAFETY: matches fan1(float*, const float*, int, int) plus the variant's extras;
            // m and a hold n*n elements.
            unsafe { l.launch(grid_1d_cfg(rows, 256)) }.map_err(launch_err("fan1"))?;
            let cols = (n - t) as u32;
            let mut l = s.launch_builder(&self.fan2);
            l.arg(&self.m)
                .arg(&mut self.a)
                .arg(&mut self.b)
                .arg(&n)
                .arg(&t);
            let cfg = LaunchConfig {
                grid_dim: (cols.div_ceil(32), rows.div_ceil(8), 1),
                block_dim: (32, 8, 1),
                shared_mem_bytes: 0,
            };
            // SAFETY: matches fan2(const float*, float*, float*, int, int); sizes as above.
            unsafe { l.launch(cfg) }.map_err(launch_err("fan2"))?;
        }
        Ok(())
    }

    /// Back substitution on the host: the solution x of the eliminated system.
    fn solution(&self, gpu: &Gpu) -> Result<Values> {
        let n = self.n as usize;
        let a = gpu.download(&self.a)?;
        let b = gpu.download(&self.b)?;
        let mut x = vec![0f64; n];
        for i in (0..n).rev() {
            let s: f64 = (i + 1..n).map(|j| a[i * n + j] as f64 * x[j]).sum();
            x[i] = (b[i] as f64 - s) / a[i * n + i] as f64;
        }
        Ok(Values::F64(x))
    }
}

fn grid_1d_cfg(n: u32, block: u32) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (n.div_ceil(block).max(1), 1, 1),
        block_dim: (block, 1, 1),
        shared_mem_bytes: 0,
    }
}

fn grid_2d(w: u32, h: u32) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (w.div_ceil(16), h.div_ceil(16), 1),
        block_dim: (16, 16, 1),
        shared_mem_bytes: 0,
    }
}

/// One application of the suite.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct App {
    pub name: &'static str,
    /// The seed's abbreviation (Table 6).
    pub abbr: &'static str,
    pub about: &'static str,
    /// Standard functions the kernel calls.
    pub functions: &'static str,
    pub precision: Precision,
    pub metric: Metric,
    /// The kernel the transformation rewrites.
    pub kernel: &'static str,
    #[serde(skip)]
    pub file: &'static str,
    #[serde(skip)]
    pub code: &'static str,
    #[serde(skip)]
    build: fn(&Gpu, &KernelSource, &mut rand_chacha::ChaCha8Rng) -> Result<Workload>,
}

impl App {
    /// The kernel source as written (accurate functions only).
    pub fn source(&self) -> KernelSource {
        KernelSource::embedded(self.file, self.code)
    }

    /// Uploads the app's inputs (drawn from `seed`) and allocates its outputs; `src` is the
    /// module the app's helper kernels are taken from.
    pub fn workload(&self, gpu: &Gpu, src: &KernelSource, seed: u64) -> Result<Workload> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        (self.build)(gpu, src, &mut rng)
    }
}

macro_rules! app_source {
    ($file:literal) => {
        include_str!(concat!("../kernels/apps/", $file))
    };
}

fn uniform(rng: &mut impl Rng, n: usize, lo: f32, hi: f32) -> Vec<f32> {
    (0..n).map(|_| rng.random_range(lo..hi)).collect()
}

fn up(gpu: &Gpu, v: Vec<f32>) -> Result<Arg> {
    Ok(Arg::In(Buf::F32(gpu.upload(&v)?)))
}

fn up64(gpu: &Gpu, v: Vec<f64>) -> Result<Arg> {
    Ok(Arg::In(Buf::F64(gpu.upload(&v)?)))
}

fn out(gpu: &Gpu, n: usize) -> Result<Arg> {
    Ok(Arg::Out(Buf::F32(gpu.alloc_poisoned(n)?)))
}

fn out64(gpu: &Gpu, n: usize) -> Result<Arg> {
    Ok(Arg::Out(Buf::F64(gpu.alloc_poisoned(n)?)))
}

fn plain(precision: Precision, args: Vec<Arg>, config: LaunchConfig) -> Workload {
    Workload {
        precision,
        args,
        config,
        gaussian: None,
    }
}

/// A full wave of 256-thread blocks (8 per SM) for grid-stride kernels.
fn full_wave(gpu: &Gpu) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (gpu.info().sms * 8, 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    }
}

fn blackscholes(
    gpu: &Gpu,
    _: &KernelSource,
    rng: &mut rand_chacha::ChaCha8Rng,
) -> Result<Workload> {
    let n = 16 << 20;
    Ok(plain(
        Precision::F32,
        vec![
            out(gpu, n)?,
            out(gpu, n)?,
            up(gpu, uniform(rng, n, 5.0, 30.0))?,
            up(gpu, uniform(rng, n, 1.0, 100.0))?,
            up(gpu, uniform(rng, n, 0.25, 10.0))?,
            Arg::S(Scalar::F32(0.02)),
            Arg::S(Scalar::F32(0.30)),
            Arg::S(Scalar::I32(n as i32)),
        ],
        full_wave(gpu),
    ))
}

fn boxmuller(gpu: &Gpu, _: &KernelSource, rng: &mut rand_chacha::ChaCha8Rng) -> Result<Workload> {
    let (rngs, per) = (1usize << 20, 16usize);
    // Uniforms in (0, 1]: log(0) is not a sample.
    let u: Vec<f32> = (0..rngs * per).map(|_| 1.0 - rng.random::<f32>()).collect();
    Ok(plain(
        Precision::F32,
        vec![
            out(gpu, rngs * per)?,
            up(gpu, u)?,
            Arg::S(Scalar::I32(rngs as i32)),
            Arg::S(Scalar::I32(per as i32)),
        ],
        grid_1d_cfg(rngs as u32, 256),
    ))
}

fn montecarlo(gpu: &Gpu, _: &KernelSource, rng: &mut rand_chacha::ChaCha8Rng) -> Result<Workload> {
    let (options, paths) = (1024usize, 1usize << 16);
    // Standard normals by Box-Muller in f64 on the host.
    let normals: Vec<f32> = (0..paths)
        .map(|_| {
            let (u1, u2): (f64, f64) = (1.0 - rng.random::<f64>(), rng.random());
            ((-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()) as f32
        })
        .collect();
    Ok(plain(
        Precision::F32,
        vec![
            out(gpu, options)?,
            up(gpu, normals)?,
            Arg::S(Scalar::I32(paths as i32)),
            up(gpu, uniform(rng, options, 5.0, 50.0))?,
            up(gpu, uniform(rng, options, 10.0, 25.0))?,
            Arg::S(Scalar::F32(0.06)),
            Arg::S(Scalar::F32(0.10)),
            Arg::S(Scalar::F32(1.0)),
        ],
        LaunchConfig {
            grid_dim: (options as u32, 1, 1),
            block_dim: (256, 1, 1),
            shared_mem_bytes: 0,
        },
    ))
}

fn nbody(gpu: &Gpu, _: &KernelSource, rng: &mut rand_chacha::ChaCha8Rng) -> Result<Workload> {
    let n = 1usize << 16;
    let pos: Vec<f32> = (0..n)
        .flat_map(|_| {
            let p = uniform(&mut *rng, 3, -100.0, 100.0);
            [p[0], p[1], p[2], rng.random_range(0.5..1.5)]
        })
        .collect();
    Ok(plain(
        Precision::F32,
        vec![
            up(gpu, pos)?,
            out(gpu, 4 * n)?,
            Arg::S(Scalar::I32(n as i32)),
            Arg::S(Scalar::F32(0.01)),
        ],
        grid_1d_cfg(n as u32, 256),
    ))
}

fn cp(gpu: &Gpu, _: &KernelSource, rng: &mut rand_chacha::ChaCha8Rng) -> Result<Workload> {
    let (w, h, atoms) = (1024usize, 1024usize, 1000usize);
    let spacing = 0.1f32;
    let extent = w as f32 * spacing;
    let a: Vec<f32> = (0..atoms)
        .flat_map(|_| {
            [
                rng.random_range(0.0..extent),
                rng.random_range(0.0..extent),
                rng.random_range(0.0..20.0),
                rng.random_range(0.1..1.0),
            ]
        })
        .collect();
    Ok(plain(
        Precision::F32,
        vec![
            out(gpu, w * h)?,
            up(gpu, a)?,
            Arg::S(Scalar::I32(atoms as i32)),
            Arg::S(Scalar::I32(w as i32)),
            Arg::S(Scalar::I32(h as i32)),
            Arg::S(Scalar::F32(spacing)),
            // The lattice plane sits above every atom: r never reaches 0.
            Arg::S(Scalar::F32(21.0)),
        ],
        grid_2d(w as u32, h as u32),
    ))
}

fn mriq(gpu: &Gpu, _: &KernelSource, rng: &mut rand_chacha::ChaCha8Rng) -> Result<Workload> {
    let (voxels, samples) = (1usize << 18, 2048usize);
    let k: Vec<f32> = (0..samples)
        .flat_map(|_| {
            let f = uniform(&mut *rng, 3, -0.5, 0.5);
            [f[0], f[1], f[2], rng.random_range(0.0..1.0)]
        })
        .collect();
    Ok(plain(
        Precision::F32,
        vec![
            out(gpu, voxels)?,
            out(gpu, voxels)?,
            up(gpu, uniform(rng, voxels, -32.0, 32.0))?,
            up(gpu, uniform(rng, voxels, -32.0, 32.0))?,
            up(gpu, uniform(rng, voxels, -32.0, 32.0))?,
            Arg::S(Scalar::I32(voxels as i32)),
            up(gpu, k)?,
            Arg::S(Scalar::I32(samples as i32)),
        ],
        grid_1d_cfg(voxels as u32, 256),
    ))
}

fn lavamd(gpu: &Gpu, _: &KernelSource, rng: &mut rand_chacha::ChaCha8Rng) -> Result<Workload> {
    let boxes = 4096usize;
    let n = boxes * 100;
    // Particle coordinates in [0, 1) with w = |p|² (the kernel's r² = w_i + w_j − 2 p_i·p_j
    // form, as lavaMD stores it; here without the factor 2, as in lavaMD's DOT).
    let p: Vec<f32> = (0..n)
        .flat_map(|_| {
            let c = uniform(&mut *rng, 3, 0.0, 1.0);
            [c[0], c[1], c[2], c[0] * c[0] + c[1] * c[1] + c[2] * c[2]]
        })
        .collect();
    Ok(plain(
        Precision::F32,
        vec![
            out(gpu, 4 * n)?,
            up(gpu, p)?,
            up(gpu, uniform(rng, n, 0.1, 1.0))?,
            Arg::S(Scalar::I32(boxes as i32)),
            Arg::S(Scalar::F32(2.0 * 0.5 * 0.5)),
        ],
        grid_1d_cfg(n as u32, 128),
    ))
}

fn bilateral(gpu: &Gpu, _: &KernelSource, rng: &mut rand_chacha::ChaCha8Rng) -> Result<Workload> {
    let (w, h) = (2048usize, 2048usize);
    // A smooth image plus noise, in (0.1, 1.1).
    let img: Vec<f32> = (0..w * h)
        .map(|i| {
            let (x, y) = ((i % w) as f32, (i / w) as f32);
            0.6 + 0.3 * (x * 0.01).sin() * (y * 0.013).cos() + rng.random_range(-0.15..0.15)
        })
        .collect();
    Ok(plain(
        Precision::F32,
        vec![
            out(gpu, w * h)?,
            up(gpu, img)?,
            Arg::S(Scalar::I32(w as i32)),
            Arg::S(Scalar::I32(h as i32)),
            Arg::S(Scalar::I32(5)),
            Arg::S(Scalar::F32(3.0)),
            Arg::S(Scalar::F32(0.1)),
        ],
        grid_2d(w as u32, h as u32),
    ))
}

fn srad(gpu: &Gpu, _: &KernelSource, rng: &mut rand_chacha::ChaCha8Rng) -> Result<Workload> {
    let (rows, cols) = (4096usize, 4096usize);
    // Speckled intensities, as srad's exp(image/255) input: positive, around 1..2.7.
    let j: Vec<f32> = (0..rows * cols)
        .map(|_| rng.random_range(0.0f32..1.0).exp())
        .collect();
    Ok(plain(
        Precision::F32,
        vec![
            out(gpu, rows * cols)?,
            up(gpu, j)?,
            Arg::S(Scalar::I32(rows as i32)),
            Arg::S(Scalar::I32(cols as i32)),
            Arg::S(Scalar::F32(0.05)),
        ],
        grid_2d(cols as u32, rows as u32),
    ))
}

fn gaussian(gpu: &Gpu, src: &KernelSource, rng: &mut rand_chacha::ChaCha8Rng) -> Result<Workload> {
    let n = 1024usize;
    // Diagonally dominant, so elimination without pivoting is stable.
    let mut a = uniform(rng, n * n, -1.0, 1.0);
    for i in 0..n {
        a[i * n + i] = n as f32 * 0.5 + rng.random_range(0.0..1.0);
    }
    let b = uniform(rng, n, -1.0, 1.0);
    let g = Gaussian {
        n: n as i32,
        a0: gpu.upload(&a)?,
        b0: gpu.upload(&b)?,
        a: gpu.upload(&a)?,
        b: gpu.upload(&b)?,
        m: gpu.upload(&vec![0f32; n * n])?,
        fan2: gpu.function(src, "fan2")?,
    };
    Ok(Workload {
        precision: Precision::F64,
        args: Vec::new(),
        config: grid_1d_cfg(n as u32 - 1, 256),
        gaussian: Some(g),
    })
}

fn corr(gpu: &Gpu, _: &KernelSource, rng: &mut rand_chacha::ChaCha8Rng) -> Result<Workload> {
    let (m, n) = (32768usize, 512usize);
    let data: Vec<f64> = (0..m * n)
        .map(|i| (i % m) as f64 * 0.001 + rng.random_range(-1.0..1.0))
        .collect();
    Ok(plain(
        Precision::F64,
        vec![
            out64(gpu, m * n)?,
            up64(gpu, data)?,
            Arg::S(Scalar::I32(m as i32)),
            Arg::S(Scalar::I32(n as i32)),
        ],
        grid_1d_cfg(m as u32, 128),
    ))
}

fn cfd(gpu: &Gpu, _: &KernelSource, rng: &mut rand_chacha::ChaCha8Rng) -> Result<Workload> {
    let cells = 8usize << 20;
    let mut col =
        |lo: f64, hi: f64| -> Vec<f64> { (0..cells).map(|_| rng.random_range(lo..hi)).collect() };
    let density = col(0.5, 1.5);
    let (mx, my, mz) = (col(-0.5, 0.5), col(-0.5, 0.5), col(-0.5, 0.5));
    // Energy well above the kinetic part, so pressure stays positive.
    let energy = col(2.0, 3.0);
    let area = col(0.01, 0.1);
    Ok(plain(
        Precision::F64,
        vec![
            out64(gpu, cells)?,
            up64(gpu, density)?,
            up64(gpu, mx)?,
            up64(gpu, my)?,
            up64(gpu, mz)?,
            up64(gpu, energy)?,
            up64(gpu, area)?,
            Arg::S(Scalar::I32(cells as i32)),
        ],
        grid_1d_cfg(cells as u32, 256),
    ))
}

/// The suite, in the seed's Table 6 order.
pub const APPS: &[App] = &[
    App {
        name: "blackscholes",
        abbr: "BLA",
        about: "Black-Scholes option pricing, 16M options",
        functions: "sqrt, div, log, exp, rcp",
        precision: Precision::F32,
        metric: Metric::L1Relative,
        kernel: "blackscholes",
        file: "blackscholes.cu",
        code: app_source!("blackscholes.cu"),
        build: blackscholes,
    },
    App {
        name: "montecarlo",
        abbr: "MCO",
        about: "Monte-Carlo option pricing, 1024 options x 65536 paths",
        functions: "exp, sqrt, div",
        precision: Precision::F32,
        metric: Metric::MeanRelative,
        kernel: "montecarlo",
        file: "montecarlo.cu",
        code: app_source!("montecarlo.cu"),
        build: montecarlo,
    },
    App {
        name: "cp",
        abbr: "COP",
        about: "Coulombic potential, 1024x1024 lattice x 1000 atoms",
        functions: "div, sqrt",
        precision: Precision::F32,
        metric: Metric::RelativeL2,
        kernel: "cp",
        file: "cp.cu",
        code: app_source!("cp.cu"),
        build: cp,
    },
    App {
        name: "lavamd",
        abbr: "LAV",
        about: "lavaMD-style pair potential, 4096 boxes x 100 particles",
        functions: "exp",
        precision: Precision::F32,
        metric: Metric::RelativeL2,
        kernel: "lavamd",
        file: "lavamd.cu",
        code: app_source!("lavamd.cu"),
        build: lavamd,
    },
    App {
        name: "nbody",
        abbr: "NBO",
        about: "all-pairs n-body accelerations, 65536 bodies",
        functions: "rsqrt (1/sqrt)",
        precision: Precision::F32,
        metric: Metric::RelativeL2,
        kernel: "nbody",
        file: "nbody.cu",
        code: app_source!("nbody.cu"),
        build: nbody,
    },
    App {
        name: "corr",
        abbr: "COR",
        about: "correlation preprocessing (mean, std, scale), 512 x 32768, f64",
        functions: "div, sqrt",
        precision: Precision::F64,
        metric: Metric::RelativeL2,
        kernel: "corr",
        file: "corr.cu",
        code: app_source!("corr.cu"),
        build: corr,
    },
    App {
        name: "gaussian",
        abbr: "GUS",
        about: "Gaussian elimination Fan1 + Fan2, 1024 x 1024, solution by back substitution",
        functions: "div",
        precision: Precision::F32,
        metric: Metric::RelativeL2,
        kernel: "fan1",
        file: "gaussian.cu",
        code: app_source!("gaussian.cu"),
        build: gaussian,
    },
    App {
        name: "boxmuller",
        abbr: "MEN",
        about: "Box-Muller (Mersenne BoxMullerGPU), 16M normals",
        functions: "log, sqrt, sin, cos",
        precision: Precision::F32,
        metric: Metric::L1Relative,
        kernel: "boxmuller",
        file: "boxmuller.cu",
        code: app_source!("boxmuller.cu"),
        build: boxmuller,
    },
    App {
        name: "cfd",
        abbr: "CFD",
        about: "CFD compute_step_factor, 8M cells, f64",
        functions: "sqrt, rcp, div",
        precision: Precision::F64,
        metric: Metric::MeanRelative,
        kernel: "cfd",
        file: "cfd.cu",
        code: app_source!("cfd.cu"),
        build: cfd,
    },
    App {
        name: "mriq",
        abbr: "MRQ",
        about: "MRI-Q, 262144 voxels x 2048 k-space samples",
        functions: "sin, cos",
        precision: Precision::F32,
        metric: Metric::RelativeL2,
        kernel: "mriq",
        file: "mriq.cu",
        code: app_source!("mriq.cu"),
        build: mriq,
    },
    App {
        name: "bilateral",
        abbr: "BIF",
        about: "bilateral filter, 2048x2048, radius 5",
        functions: "div, exp",
        precision: Precision::F32,
        metric: Metric::MeanRelative,
        kernel: "bilateral",
        file: "bilateral.cu",
        code: app_source!("bilateral.cu"),
        build: bilateral,
    },
    App {
        name: "srad",
        abbr: "SRD",
        about: "SRAD diffusion coefficient, 4096x4096",
        functions: "rcp, div",
        precision: Precision::F32,
        metric: Metric::L1Relative,
        kernel: "srad",
        file: "srad.cu",
        code: app_source!("srad.cu"),
        build: srad,
    },
];

/// The app called `name` (or its abbreviation), or an error listing the suite.
pub fn find(name: &str) -> std::result::Result<&'static App, ApproxError> {
    APPS.iter()
        .find(|a| a.name == name || a.abbr.eq_ignore_ascii_case(name))
        .ok_or_else(|| ApproxError::UnknownApp {
            name: name.to_owned(),
            known: APPS.iter().map(|a| a.name).collect::<Vec<_>>().join(", "),
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transform::transform;

    #[test]
    fn every_app_transforms() {
        for app in APPS {
            let t = transform(app.code, app.kernel).unwrap_or_else(|e| panic!("{}: {e}", app.name));
            assert!(!t.rewrites.is_empty(), "{}", app.name);
        }
        assert_eq!(APPS.len(), 12);
    }

    #[test]
    fn metrics() {
        let r = Values::F32(vec![1.0, -2.0, 4.0]);
        let g = Values::F32(vec![1.1, -2.0, 4.0]);
        assert!((Metric::L1Relative.error(&g, &r) - 0.1 / 7.0).abs() < 1e-6);
        assert!((Metric::MeanRelative.error(&g, &r) - 0.1 / 3.0).abs() < 1e-6);
        assert!((Metric::RelativeL2.error(&g, &r) - (0.01f64 / 21.0).sqrt()).abs() < 1e-6);
        assert_eq!(Metric::RelativeL2.error(&r, &r), 0.0);
        let nan = Values::F32(vec![f32::NAN, -2.0, 4.0]);
        assert!(Metric::L1Relative.error(&nan, &r).is_infinite());
    }

    #[test]
    fn unknown_app_lists_the_suite() {
        let e = find("blackscholez").unwrap_err().to_string();
        assert!(e.contains("blackscholes") && e.contains("srad"), "{e}");
        assert_eq!(find("MRQ").unwrap().name, "mriq");
    }
}
