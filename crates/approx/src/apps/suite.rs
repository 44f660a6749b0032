//! The suite's workloads: each app's inputs, drawn from a seed at sizes that fill an H100, and
//! its launch shape. [`super::APPS`] names each builder.

use super::workload::{grid_1d_cfg, grid_2d, Arg, Gaussian, Workload};
use crate::catalog::Precision;
use crate::dev::{Buf, Scalar};
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use sigpu_runtime::cuda::cudarc::driver::LaunchConfig;
use sigpu_runtime::cuda::{Gpu, KernelSource, Result};

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

/// A 32-bit integer kernel argument (sizes and counts, all far below 2^31).
fn int(n: usize) -> Arg {
    Arg::S(Scalar::I32(n as i32))
}

/// A float kernel argument.
fn real(x: f32) -> Arg {
    Arg::S(Scalar::F32(x))
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

pub(super) fn blackscholes(gpu: &Gpu, _: &KernelSource, rng: &mut ChaCha8Rng) -> Result<Workload> {
    let n = 16 << 20;
    Ok(plain(
        Precision::F32,
        vec![
            out(gpu, n)?,
            out(gpu, n)?,
            up(gpu, uniform(rng, n, 5.0, 30.0))?,
            up(gpu, uniform(rng, n, 1.0, 100.0))?,
            up(gpu, uniform(rng, n, 0.25, 10.0))?,
            real(0.02),
            real(0.30),
            int(n),
        ],
        full_wave(gpu),
    ))
}

pub(super) fn boxmuller(gpu: &Gpu, _: &KernelSource, rng: &mut ChaCha8Rng) -> Result<Workload> {
    let (rngs, per) = (1usize << 20, 16usize);
    // Uniforms in (0, 1]: log(0) is not a sample.
    let u: Vec<f32> = (0..rngs * per).map(|_| 1.0 - rng.random::<f32>()).collect();
    Ok(plain(
        Precision::F32,
        vec![out(gpu, rngs * per)?, up(gpu, u)?, int(rngs), int(per)],
        grid_1d_cfg(rngs as u32, 256),
    ))
}

pub(super) fn montecarlo(gpu: &Gpu, _: &KernelSource, rng: &mut ChaCha8Rng) -> Result<Workload> {
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
            int(paths),
            up(gpu, uniform(rng, options, 5.0, 50.0))?,
            up(gpu, uniform(rng, options, 10.0, 25.0))?,
            real(0.06),
            real(0.10),
            real(1.0),
        ],
        LaunchConfig {
            grid_dim: (options as u32, 1, 1),
            block_dim: (256, 1, 1),
            shared_mem_bytes: 0,
        },
    ))
}

pub(super) fn nbody(gpu: &Gpu, _: &KernelSource, rng: &mut ChaCha8Rng) -> Result<Workload> {
    let n = 1usize << 16;
    let pos: Vec<f32> = (0..n)
        .flat_map(|_| {
            let p = uniform(&mut *rng, 3, -100.0, 100.0);
            [p[0], p[1], p[2], rng.random_range(0.5..1.5)]
        })
        .collect();
    Ok(plain(
        Precision::F32,
        vec![up(gpu, pos)?, out(gpu, 4 * n)?, int(n), real(0.01)],
        grid_1d_cfg(n as u32, 256),
    ))
}

pub(super) fn cp(gpu: &Gpu, _: &KernelSource, rng: &mut ChaCha8Rng) -> Result<Workload> {
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
            int(atoms),
            int(w),
            int(h),
            real(spacing),
            // The lattice plane sits above every atom: r never reaches 0.
            real(21.0),
        ],
        grid_2d(w as u32, h as u32),
    ))
}

pub(super) fn mriq(gpu: &Gpu, _: &KernelSource, rng: &mut ChaCha8Rng) -> Result<Workload> {
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
            int(voxels),
            up(gpu, k)?,
            int(samples),
        ],
        grid_1d_cfg(voxels as u32, 256),
    ))
}

pub(super) fn lavamd(gpu: &Gpu, _: &KernelSource, rng: &mut ChaCha8Rng) -> Result<Workload> {
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
            int(boxes),
            real(2.0 * 0.5 * 0.5),
        ],
        grid_1d_cfg(n as u32, 128),
    ))
}

pub(super) fn bilateral(gpu: &Gpu, _: &KernelSource, rng: &mut ChaCha8Rng) -> Result<Workload> {
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
            int(w),
            int(h),
            int(5),
            real(3.0),
            real(0.1),
        ],
        grid_2d(w as u32, h as u32),
    ))
}

pub(super) fn srad(gpu: &Gpu, _: &KernelSource, rng: &mut ChaCha8Rng) -> Result<Workload> {
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
            int(rows),
            int(cols),
            real(0.05),
        ],
        grid_2d(cols as u32, rows as u32),
    ))
}

pub(super) fn gaussian(gpu: &Gpu, src: &KernelSource, rng: &mut ChaCha8Rng) -> Result<Workload> {
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
        fan2: gpu.kernel(src, "fan2")?,
    };
    Ok(Workload {
        precision: Precision::F64,
        args: Vec::new(),
        config: grid_1d_cfg(n as u32 - 1, 256),
        gaussian: Some(g),
    })
}

pub(super) fn corr(gpu: &Gpu, _: &KernelSource, rng: &mut ChaCha8Rng) -> Result<Workload> {
    let (m, n) = (32768usize, 512usize);
    let data: Vec<f64> = (0..m * n)
        .map(|i| (i % m) as f64 * 0.001 + rng.random_range(-1.0..1.0))
        .collect();
    Ok(plain(
        Precision::F64,
        vec![out64(gpu, m * n)?, up64(gpu, data)?, int(m), int(n)],
        grid_1d_cfg(m as u32, 128),
    ))
}

pub(super) fn cfd(gpu: &Gpu, _: &KernelSource, rng: &mut ChaCha8Rng) -> Result<Workload> {
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
            int(cells),
        ],
        grid_1d_cfg(cells as u32, 256),
    ))
}
