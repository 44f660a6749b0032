//! The runtime's own self-checks, and CPU emulations of texture filtering that capability
//! crates reuse as the twins of their texture-based methods.

use super::check::{compare_exact, compare_f32, Check, CheckReport, Tolerance};
use super::compile::KernelSource;
use super::error::{DriverContext, Error, Result};
use super::gpu::{grid_1d, Gpu};
use super::texture::{Coordinates, Filter, Texel, Texture, TextureDesc};
use cudarc::driver::{CudaSlice, LaunchConfig, PushKernelArg};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The runtime's kernels (`kernels/runtime.cu`).
pub(crate) fn runtime_kernels() -> KernelSource {
    KernelSource::embedded("runtime.cu", include_str!("../../kernels/runtime.cu"))
}

/// The runtime's checks, in the order `sigpu check` runs them.
pub fn checks() -> Vec<Check> {
    vec![
        Check {
            name: "runtime/saxpy_f32",
            about: "y = a·x + y, fused, vs f32::mul_add",
            run: saxpy,
        },
        Check {
            name: "runtime/copy_f32",
            about: "vectorised copy with an odd-length tail",
            run: copy,
        },
        Check {
            name: "runtime/tex1d_point_f32",
            about: "1-D point fetch, unnormalised coordinates, clamp",
            run: |gpu, seed| {
                texture_check::<f32>(
                    gpu,
                    seed,
                    (300, 0),
                    Filter::Point,
                    Coordinates::Unnormalized,
                )
            },
        },
        Check {
            name: "runtime/tex1d_linear_f32",
            about: "1-D linear fetch, normalised coordinates, vs 8-bit-weight emulation",
            run: |gpu, seed| {
                texture_check::<f32>(gpu, seed, (256, 0), Filter::Linear, Coordinates::Normalized)
            },
        },
        Check {
            name: "runtime/tex2d_linear_f32",
            about: "2-D bilinear fetch, unnormalised, vs CPU bilinear with 1/256 weights",
            run: |gpu, seed| {
                texture_check::<f32>(
                    gpu,
                    seed,
                    (67, 45),
                    Filter::Linear,
                    Coordinates::Unnormalized,
                )
            },
        },
        Check {
            name: "runtime/tex2d_linear_f32x2",
            about: "2-D bilinear float2 fetch, normalised, vs CPU bilinear with 1/256 weights",
            run: |gpu, seed| {
                texture_check::<[f32; 2]>(
                    gpu,
                    seed,
                    (64, 32),
                    Filter::Linear,
                    Coordinates::Normalized,
                )
            },
        },
        Check {
            name: "runtime/tex2d_linear_f32x4",
            about: "2-D bilinear float4 fetch, unnormalised, vs CPU bilinear with 1/256 weights",
            run: |gpu, seed| {
                texture_check::<[f32; 4]>(
                    gpu,
                    seed,
                    (33, 17),
                    Filter::Linear,
                    Coordinates::Unnormalized,
                )
            },
        },
        Check {
            name: "runtime/tex2d_point_f32x4",
            about: "2-D point float4 fetch, normalised coordinates, clamp",
            run: |gpu, seed| {
                texture_check::<[f32; 4]>(
                    gpu,
                    seed,
                    (16, 8),
                    Filter::Point,
                    Coordinates::Normalized,
                )
            },
        },
    ]
}

fn saxpy(gpu: &Gpu, seed: u64) -> Result<CheckReport> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let n = (1 << 20) + rng.random_range(1..1000);
    let a: f32 = rng.random_range(-4.0..4.0);
    let x: Vec<f32> = (0..n).map(|_| rng.random_range(-1e3..1e3)).collect();
    let y: Vec<f32> = (0..n).map(|_| rng.random_range(-1e3..1e3)).collect();
    let want: Vec<f32> = x.iter().zip(&y).map(|(&x, &y)| a.mul_add(x, y)).collect();
    let f = gpu.function(&runtime_kernels(), "saxpy_f32")?;
    let dx = gpu.upload(&x)?;
    let mut dy = gpu.upload(&y)?;
    let n64 = n as u64;
    let mut launch = gpu.stream().launch_builder(&f);
    launch.arg(&a).arg(&dx).arg(&mut dy).arg(&n64);
    // SAFETY: argument types and order match saxpy_f32; buffers hold n elements.
    unsafe { launch.launch(grid_1d(n, 256)) }.context("launching saxpy_f32")?;
    Ok(compare_exact(&gpu.download(&dy)?, &want))
}

fn copy(gpu: &Gpu, seed: u64) -> Result<CheckReport> {
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
    let f = gpu.function(&runtime_kernels(), "copy_f32")?;
    let n = src.len().min(dst.len()) as u64;
    let mut launch = gpu.stream().launch_builder(&f);
    launch.arg(src).arg(dst).arg(&n);
    // SAFETY: argument types match copy_f32; both buffers hold at least n elements and are
    // 16-byte aligned as every allocation is.
    unsafe { launch.launch(config) }
        .context("launching copy_f32")
        .map(drop)
}

/// How the texture unit's interpolation weights are formed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WeightRounding {
    /// Weights in full precision: ideal interpolation, what the hardware does *not* do.
    Exact,
    /// The filtering hardware as measured on an H100 (sm_90): each axis weight is rounded to
    /// the nearest 1/256, ties up (the Programming Guide's "9-bit fixed point with 8 bits of
    /// fractional value"), and in 2-D the corner product α·β is rounded to 1/256 again; the
    /// four bilinear weights are then α·β, α − α·β, β − α·β and 1 − α − β + α·β.
    Hardware,
}

/// Rounds to the nearest multiple of 1/256, ties up, as the filter does.
fn to_256ths(w: f64) -> f64 {
    (w * 256.0 + 0.5).floor() / 256.0
}

impl WeightRounding {
    fn axis(self, alpha: f64) -> f64 {
        match self {
            WeightRounding::Exact => alpha,
            WeightRounding::Hardware => to_256ths(alpha),
        }
    }

    /// Weights of the taps (i, j), (i+1, j), (i, j+1), (i+1, j+1) for axis weights a, b
    /// (already passed through [`axis`](Self::axis)).
    fn bilinear(self, a: f64, b: f64) -> [f64; 4] {
        let ab = match self {
            WeightRounding::Exact => a * b,
            WeightRounding::Hardware => to_256ths(a * b),
        };
        [1.0 - a - b + ab, a - ab, b - ab, ab]
    }
}

/// Texel-space position along one axis of `n` texels: normalised coordinates scale by `n`.
fn texel_position(x: f32, n: usize, coords: Coordinates) -> f64 {
    match coords {
        Coordinates::Unnormalized => x as f64,
        Coordinates::Normalized => x as f64 * n as f64,
    }
}

/// Lower texel index (clamped) and the interpolation weight towards the next one.
fn linear_tap(p: f64, n: usize, rounding: WeightRounding) -> (usize, usize, f64) {
    let pb = p - 0.5;
    let i = pb.floor();
    let alpha = rounding.axis(pb - i);
    let clamp = |k: f64| k.clamp(0.0, (n - 1) as f64) as usize;
    (clamp(i), clamp(i + 1.0), alpha)
}

/// CPU twin of a 1-D linear-filtered, clamp-addressed `tex1D` fetch of `table` at `x`.
pub fn emulate_linear_filter_1d<T: Texel>(
    table: &[T],
    coords: Coordinates,
    x: f32,
    rounding: WeightRounding,
) -> T {
    let (i0, i1, a) = linear_tap(
        texel_position(x, table.len(), coords),
        table.len(),
        rounding,
    );
    let (t0, t1) = (table[i0].channels(), table[i1].channels());
    let c: Vec<f32> = (0..T::CHANNELS as usize)
        .map(|c| ((1.0 - a) * t0[c] as f64 + a * t1[c] as f64) as f32)
        .collect();
    T::from_channels(&c)
}

/// CPU twin of a 2-D bilinear-filtered, clamp-addressed `tex2D` fetch of the row-major
/// `width × height` `table` at (`x`, `y`).
///
/// # Panics
/// If `table` does not hold exactly `width × height ≥ 1` texels, as [`Texture::new_2d`]
/// requires too.
pub fn emulate_linear_filter_2d<T: Texel>(
    table: &[T],
    width: usize,
    height: usize,
    coords: Coordinates,
    (x, y): (f32, f32),
    rounding: WeightRounding,
) -> T {
    assert!(
        width > 0 && height > 0 && width.checked_mul(height) == Some(table.len()),
        "a {width}×{height} texture needs {width}×{height} texels, not {}",
        table.len()
    );
    let (i0, i1, a) = linear_tap(texel_position(x, width, coords), width, rounding);
    let (j0, j1, b) = linear_tap(texel_position(y, height, coords), height, rounding);
    let w = rounding.bilinear(a, b);
    let taps =
        [(i0, j0), (i1, j0), (i0, j1), (i1, j1)].map(|(i, j)| table[j * width + i].channels());
    let c: Vec<f32> = (0..T::CHANNELS as usize)
        .map(|c| {
            w.iter()
                .zip(&taps)
                .map(|(w, t)| w * t[c] as f64)
                .sum::<f64>() as f32
        })
        .collect();
    T::from_channels(&c)
}

/// CPU twin of a point-filtered, clamp-addressed fetch (`height == 0` for 1-D).
fn emulate_point<T: Texel>(
    table: &[T],
    width: usize,
    height: usize,
    coords: Coordinates,
    (x, y): (f32, f32),
) -> T {
    let index = |p: f64, n: usize| p.floor().clamp(0.0, (n - 1) as f64) as usize;
    let i = index(texel_position(x, width, coords), width);
    let j = if height == 0 {
        0
    } else {
        index(texel_position(y, height, coords), height)
    };
    table[j * width + i]
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
) -> Result<CheckReport> {
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
    let f = gpu.function(&runtime_kernels(), name)?;
    let dcoords = gpu.upload(&coords)?;
    let mut out = gpu.alloc_poisoned::<f32>(n * T::CHANNELS as usize)?;
    let (handle, n32) = (tex.handle(), n as i32);
    let mut launch = gpu.stream().launch_builder(&f);
    launch.arg(&handle).arg(&dcoords).arg(&mut out).arg(&n32);
    // SAFETY: argument types match the tex*d_* kernels; `out` holds n texels of T.
    unsafe { launch.launch(grid_1d(n, 256)) }.context(format_args!("launching {name}"))?;
    gpu.download(&out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_filter_hits_texels_at_centres_and_clamps() {
        let t = [1.0f32, 3.0, -2.0];
        for (i, &v) in t.iter().enumerate() {
            let x = i as f32 + 0.5;
            assert_eq!(
                emulate_linear_filter_1d(
                    &t,
                    Coordinates::Unnormalized,
                    x,
                    WeightRounding::Hardware
                ),
                v
            );
        }
        assert_eq!(
            emulate_linear_filter_1d(&t, Coordinates::Unnormalized, -7.0, WeightRounding::Exact),
            1.0
        );
        assert_eq!(
            emulate_linear_filter_1d(&t, Coordinates::Unnormalized, 9.0, WeightRounding::Exact),
            -2.0
        );
        // Normalised: the centre of texel 1 of 3 is at 1.5 / 3.
        assert_eq!(
            emulate_linear_filter_1d(&t, Coordinates::Normalized, 0.5, WeightRounding::Exact),
            3.0
        );
    }

    #[test]
    fn hardware_weights_are_multiples_of_1_256_ties_up() {
        let t = [0.0f32, 256.0];
        let at = |x: f32, r| emulate_linear_filter_1d(&t, Coordinates::Unnormalized, x, r);
        // Position 0.5 + 1/3 between the two centres: exact weight 1/3, hardware 85/256.
        assert!((at(0.5 + 1.0 / 3.0, WeightRounding::Exact) - 256.0 / 3.0).abs() < 1e-4);
        assert_eq!(at(0.5 + 1.0 / 3.0, WeightRounding::Hardware), 85.0);
        // Weight 0.71: 181.76/256 rounds to 182/256.
        assert_eq!(at(0.5 + 0.71, WeightRounding::Hardware), 182.0);
        // A tie, 0.5/256, goes up (seen on the H100).
        assert_eq!(at(0.5 + 0.5 / 256.0, WeightRounding::Hardware), 1.0);
    }

    #[test]
    fn bilinear_corner_weight_is_rounded_again() {
        // Only texel (1, 1) is set: the result is the corner weight α·β. With α = 100/256 and
        // β = 150/256, α·β = 58.59/256, which the H100 returns as 59/256.
        let t = [0.0f32, 0.0, 0.0, 256.0];
        let p = (0.5 + 100.0 / 256.0, 0.5 + 150.0 / 256.0);
        let hw = emulate_linear_filter_2d(
            &t,
            2,
            2,
            Coordinates::Unnormalized,
            p,
            WeightRounding::Hardware,
        );
        assert_eq!(hw, 59.0);
        let exact = emulate_linear_filter_2d(
            &t,
            2,
            2,
            Coordinates::Unnormalized,
            p,
            WeightRounding::Exact,
        );
        assert!((exact - 58.59375).abs() < 1e-5);
        // The four weights still sum to one: a constant table reads back unchanged.
        let c = [0.75f32; 4];
        assert_eq!(
            emulate_linear_filter_2d(
                &c,
                2,
                2,
                Coordinates::Unnormalized,
                p,
                WeightRounding::Hardware
            ),
            0.75
        );
    }

    #[test]
    fn bilinear_is_separable_on_float2() {
        // 2×2 table: channel 0 varies with x, channel 1 with y.
        let t = [[0.0f32, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]];
        let v = emulate_linear_filter_2d(
            &t,
            2,
            2,
            Coordinates::Unnormalized,
            (0.75, 1.25),
            WeightRounding::Hardware,
        );
        assert_eq!(v, [0.25, 0.75]);
    }

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
