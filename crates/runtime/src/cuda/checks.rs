//! The runtime's own self-checks: a launch, the copy kernel, and texture fetches of every
//! filter and coordinate mode against the CPU model of the texture unit (`texture::model`).

use super::check::{compare_exact, compare_f32, Check, CheckResult, Tolerance};
use super::compile::KernelSource;
use super::error::{Error, Result};
use super::gpu::{grid_1d, Gpu};
use super::texture::model::{
    emulate_linear_filter_1d, emulate_linear_filter_2d, emulate_point, WeightRounding,
};
use super::texture::{Coordinates, Filter, Texel, Texture, TextureDesc};
use cudarc::driver::{CudaSlice, LaunchConfig};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The runtime's kernels (`kernels/runtime.cu`).
pub(crate) fn runtime_kernels() -> KernelSource {
    KernelSource::embedded("runtime.cu", include_str!("../../kernels/runtime.cu"))
}

/// The runtime's checks, in the order `sigpu check` runs them.
pub fn checks() -> Vec<Check> {
    use Coordinates::{Normalized, Unnormalized};
    use Filter::{Linear, Point};
    vec![
        Check::new(
            "runtime/saxpy_f32",
            "y = a·x + y, fused, vs f32::mul_add",
            saxpy,
        ),
        Check::new(
            "runtime/copy_f32",
            "vectorised copy with an odd-length tail",
            copy,
        ),
        Check::new(
            "runtime/tex1d_point_f32",
            "1-D point fetch, unnormalised coordinates, clamp",
            |g, s| texture_check::<f32>(g, s, (300, 0), Point, Unnormalized),
        ),
        Check::new(
            "runtime/tex1d_linear_f32",
            "1-D linear fetch, normalised coordinates, vs 8-bit-weight emulation",
            |g, s| texture_check::<f32>(g, s, (256, 0), Linear, Normalized),
        ),
        Check::new(
            "runtime/tex2d_linear_f32",
            "2-D bilinear fetch, unnormalised, vs CPU bilinear with 1/256 weights",
            |g, s| texture_check::<f32>(g, s, (67, 45), Linear, Unnormalized),
        ),
        Check::new(
            "runtime/tex2d_linear_f32x2",
            "2-D bilinear float2 fetch, normalised, vs CPU bilinear with 1/256 weights",
            |g, s| texture_check::<[f32; 2]>(g, s, (64, 32), Linear, Normalized),
        ),
        Check::new(
            "runtime/tex2d_linear_f32x4",
            "2-D bilinear float4 fetch, unnormalised, vs CPU bilinear with 1/256 weights",
            |g, s| texture_check::<[f32; 4]>(g, s, (33, 17), Linear, Unnormalized),
        ),
        Check::new(
            "runtime/tex2d_point_f32x4",
            "2-D point float4 fetch, normalised coordinates, clamp",
            |g, s| texture_check::<[f32; 4]>(g, s, (16, 8), Point, Normalized),
        ),
    ]
}

fn saxpy(gpu: &Gpu, seed: u64) -> CheckResult {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let n = (1 << 20) + rng.random_range(1..1000);
    let a: f32 = rng.random_range(-4.0..4.0);
    let x: Vec<f32> = (0..n).map(|_| rng.random_range(-1e3..1e3)).collect();
    let y: Vec<f32> = (0..n).map(|_| rng.random_range(-1e3..1e3)).collect();
    let want: Vec<f32> = x.iter().zip(&y).map(|(&x, &y)| a.mul_add(x, y)).collect();
    let k = gpu.kernel(&runtime_kernels(), "saxpy_f32")?;
    let dx = gpu.upload(&x)?;
    let mut dy = gpu.upload(&y)?;
    let n64 = n as u64;
    gpu.launch(&k)
        .arg(&a)
        .buf(&dx)
        .buf_mut(&mut dy)
        .arg(&n64)
        .run(grid_1d(n, 256))?;
    Ok(compare_exact(&gpu.download(&dy)?, &want))
}

fn copy(gpu: &Gpu, seed: u64) -> CheckResult {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    // An odd length exercises both the float4 body and the scalar tail.
    let n = (1 << 20) + 4 * rng.random_range(0..100) + 3;
    let src: Vec<f32> = (0..n).map(|_| rng.random()).collect();
    let dsrc = gpu.upload(&src)?;
    let mut dst = gpu.alloc_poisoned::<f32>(n)?;
    launch_copy(
        gpu,
        &dsrc,
        &mut dst,
        LaunchConfig {
            grid_dim: (64, 1, 1),
            block_dim: (256, 1, 1),
            shared_mem_bytes: 0,
        },
    )?;
    let got = gpu.download(&dst)?;
    // Bit patterns, so a NaN-poisoned element can never compare equal.
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    Ok(compare_exact(&bits(&got), &bits(&src)))
}

/// Enqueues `copy_f32` from `src` into `dst` (same length) with `config`.
pub(crate) fn launch_copy(
    gpu: &Gpu,
    src: &CudaSlice<f32>,
    dst: &mut CudaSlice<f32>,
    config: LaunchConfig,
) -> Result<()> {
    let k = gpu.kernel(&runtime_kernels(), "copy_f32")?;
    // The kernel copies min(len) elements with 16-byte accesses: every allocation is aligned.
    let n = src.len().min(dst.len()) as u64;
    gpu.launch(&k).buf(src).buf_mut(dst).arg(&n).run(config)
}

/// A texture coordinate k/256 + u/256 past a texel centre, u in eighths (one half included, to
/// test the filter's ties). Such positions are exact in f32, so the weight the hardware sees is
/// known exactly; spans two texels beyond each edge to exercise clamping.
fn grid_coordinate(rng: &mut ChaCha8Rng, n: usize, coords: Coordinates) -> f32 {
    let k = rng.random_range(-512..((n as i64 + 2) * 256)) as f64;
    let p = (k + rng.random_range(0..8) as f64 / 8.0) / 256.0 + 0.5;
    match coords {
        Coordinates::Unnormalized => p as f32,
        // n is a power of two for normalised checks, so this division is exact.
        Coordinates::Normalized => (p / n as f64) as f32,
    }
}

/// Fills a texture with random texels in [-1, 1), fetches it at random coordinates on the GPU
/// (1-D when `height == 0`) and compares with the CPU emulation. For linear filtering it also
/// reports how the exact-weight model fares, to show the check tells the two apart.
fn texture_check<T: Texel>(
    gpu: &Gpu,
    seed: u64,
    (width, height): (usize, usize),
    filter: Filter,
    coords: Coordinates,
) -> CheckResult {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let texels = width * height.max(1);
    let table: Vec<T> = (0..texels)
        .map(|_| {
            let c: Vec<f32> = (0..T::CHANNELS)
                .map(|_| rng.random_range(-1.0..1.0))
                .collect();
            T::from_channels(&c)
        })
        .collect();
    let n = 1 << 16;
    let points: Vec<(f32, f32)> = (0..n)
        .map(|_| {
            (
                grid_coordinate(&mut rng, width, coords),
                grid_coordinate(&mut rng, height.max(1), coords),
            )
        })
        .collect();
    let desc = TextureDesc { filter, coords };
    let tex = if height == 0 {
        Texture::new_1d(gpu, &table, desc)?
    } else {
        Texture::new_2d(gpu, &table, width, height, desc)?
    };
    let got = fetch(gpu, &tex, &points)?;
    let expect = |model: Option<WeightRounding>| -> Vec<f32> {
        points
            .iter()
            .flat_map(|&p| {
                let t = match model {
                    None => emulate_point(&table, width, height, coords, p),
                    Some(r) if height == 0 => emulate_linear_filter_1d(&table, coords, p.0, r),
                    Some(r) => emulate_linear_filter_2d(&table, width, height, coords, p, r),
                };
                t.channels().to_vec()
            })
            .collect()
    };
    if filter == Filter::Point {
        return Ok(compare_exact(&got, &expect(None)));
    }
    // Texels lie in [-1, 1); the filter's own f32 arithmetic stays far inside 2^-18, while a
    // weight off by 1/256 moves a result by up to 2/256.
    let tol = Tolerance {
        abs: 4e-6,
        rel: 0.0,
    };
    let report = compare_f32(&got, &expect(Some(WeightRounding::Hardware)), tol);
    let exact = compare_f32(&got, &expect(Some(WeightRounding::Exact)), tol);
    Ok(report.with_note(format!(
        "exact-weight model: {} mismatches (max err {:.2e})",
        exact.mismatches, exact.max_error
    )))
}

/// Runs the fetch kernel matching `T` and the texture's dimension; results come back flat.
fn fetch<T: Texel>(gpu: &Gpu, tex: &Texture<T>, points: &[(f32, f32)]) -> Result<Vec<f32>> {
    let n = points.len();
    let (name, coords): (&str, Vec<f32>) = match (tex.height(), T::CHANNELS) {
        (0, 1) => ("tex1d_f32", points.iter().map(|p| p.0).collect()),
        (0, c) => {
            return Err(Error::Invalid(format!(
                "no 1-D fetch kernel for {c}-channel texels"
            )))
        }
        (_, c) => (
            ["tex2d_f32", "tex2d_f32x2", "", "tex2d_f32x4"][c as usize - 1],
            points.iter().flat_map(|p| [p.0, p.1]).collect(),
        ),
    };
    let k = gpu.kernel(&runtime_kernels(), name)?;
    let dcoords = gpu.upload(&coords)?;
    let mut out = gpu.alloc_poisoned::<f32>(n * T::CHANNELS as usize)?;
    let (handle, n32) = (tex.handle(), n as i32);
    gpu.launch(&k)
        .arg(&handle)
        .buf(&dcoords)
        .buf_mut(&mut out)
        .arg(&n32)
        .run(grid_1d(n, 256))?;
    gpu.download(&out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cuda::texture::model::texel_position;

    #[test]
    fn grid_coordinates_are_exact_eighths_of_a_step() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for coords in [Coordinates::Unnormalized, Coordinates::Normalized] {
            for _ in 0..10_000 {
                let p = texel_position(grid_coordinate(&mut rng, 64, coords), 64, coords);
                let steps = (p - 0.5) * 2048.0;
                assert_eq!(steps, steps.round(), "{p}");
                assert!((-4096.0..=(67.0 * 2048.0)).contains(&steps), "{p}");
            }
        }
    }
}
