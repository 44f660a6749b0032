//! Fused LNS sum and dot product over device buffers (`kernels/reduce.cu`): the GPU twins of
//! [`Format::sum`] and [`Format::dot`]. Products are exact, every term is summed in f64 with
//! compensation after a max shift, and the total is rounded to a word once, so the result is
//! the CPU's (one code apart at most, where f64 exp2 or the summation order tip a rounding).
//!
//! One pass over the data: each thread keeps the largest binade seen and rescales its sum by an
//! exact power of two when it grows (so x and −x cancel exactly wherever they meet); blocks
//! write partials that one block combines in a fixed order, so a buffer gives the same word on
//! every call.

use crate::format::Format;
use crate::value::Class;
use rand::{Rng, SeedableRng};
use sigpu_runtime::cuda::cudarc::driver::{DeviceRepr, LaunchConfig, PushKernelArg};
use sigpu_runtime::cuda::{
    Check, CheckReport, DeviceBuffer, Error, Gpu, KernelSource, Result, Tolerance,
};

/// The reduction kernels (`kernels/reduce.cu`).
pub fn kernels() -> KernelSource {
    KernelSource::embedded("reduce.cu", include_str!("../kernels/reduce.cu"))
}

/// `struct LnsFmt` in reduce.cu.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
struct LnsFmt {
    f: i32,
    log_bits: i32,
}

// SAFETY: a plain #[repr(C)] struct of i32s, laid out as `struct LnsFmt` in reduce.cu.
unsafe impl DeviceRepr for LnsFmt {}

/// f64s in one `struct Partial` of reduce.cu (i64 max, two f64 sums, two i32).
const PARTIAL_F64S: usize = 4;
const THREADS: u32 = 256;

/// Σ xs, fused (see [`Format::sum`]).
pub fn sum(gpu: &Gpu, format: Format, xs: &DeviceBuffer<u32>) -> Result<u32> {
    let mut out = gpu.alloc_poisoned::<u32>(1)?;
    fused_into(gpu, format, xs, None, &mut out)?;
    Ok(gpu.download(&out)?[0])
}

/// Σ xs[i]·ys[i], fused (see [`Format::dot`]).
pub fn dot(
    gpu: &Gpu,
    format: Format,
    xs: &DeviceBuffer<u32>,
    ys: &DeviceBuffer<u32>,
) -> Result<u32> {
    let mut out = gpu.alloc_poisoned::<u32>(1)?;
    fused_into(gpu, format, xs, Some(ys), &mut out)?;
    Ok(gpu.download(&out)?[0])
}

/// Σ xs (`ys` None) or Σ xs[i]·ys[i] into `out[0]` on the device, without waiting for it.
pub fn fused_into(
    gpu: &Gpu,
    format: Format,
    xs: &DeviceBuffer<u32>,
    ys: Option<&DeviceBuffer<u32>>,
    out: &mut DeviceBuffer<u32>,
) -> Result<()> {
    if let Some(ys) = ys.filter(|ys| ys.len() != xs.len()) {
        return Err(Error::Invalid(format!(
            "dot of {} and {} words: lengths differ",
            xs.len(),
            ys.len()
        )));
    }
    if out.is_empty() {
        return Err(Error::Invalid("fused sum into an empty buffer".into()));
    }
    let fmt = LnsFmt {
        f: format.frac_bits as i32,
        log_bits: format.log_bits() as i32,
    };
    let n = xs.len() as i64;
    // Enough blocks to keep every SM's memory pipe busy; the grid stride covers the rest.
    let blocks = (xs.len().div_ceil(THREADS as usize)).clamp(1, gpu.info().sms as usize * 8);
    let mut parts = gpu.alloc_poisoned::<f64>(blocks * PARTIAL_F64S)?;
    let partials = gpu.function(&kernels(), "lns_fused_partials")?;
    let finish = gpu.function(&kernels(), "lns_fused_finish")?;
    let null: u64 = 0;
    let mut launch = gpu.stream().launch_builder(&partials);
    launch.arg(&fmt).arg(xs);
    match ys {
        Some(ys) => launch.arg(ys),
        None => launch.arg(&null),
    };
    launch.arg(&n).arg(&mut parts);
    let cfg = LaunchConfig {
        grid_dim: (blocks as u32, 1, 1),
        block_dim: (THREADS, 1, 1),
        shared_mem_bytes: 0,
    };
    // SAFETY: arguments match lns_fused_partials; xs (and ys) hold n words; parts holds one
    // 32-byte Partial per block.
    unsafe { launch.launch(cfg) }
        .map_err(|e| Error::Invalid(format!("launching lns_fused_partials: {e}")))?;
    let count = blocks as i32;
    let mut launch = gpu.stream().launch_builder(&finish);
    launch.arg(&fmt).arg(&parts).arg(&count).arg(out);
    let cfg = LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (1024, 1, 1),
        shared_mem_bytes: 0,
    };
    // SAFETY: arguments match lns_fused_finish; parts holds `count` partials, out ≥ one word.
    unsafe { launch.launch(cfg) }
        .map_err(|e| Error::Invalid(format!("launching lns_fused_finish: {e}")))?;
    Ok(())
}

/// GPU self-checks: fused sum and dot of random words (specials included) vs the CPU twin.
pub fn checks() -> Vec<Check> {
    vec![
        Check {
            name: "lns/fused_sum_dot_lns16",
            about: "fused LNS sum and dot of random vectors (specials, cancellation) vs Format::sum/dot",
            run: |gpu, seed| check_fused(gpu, seed, Format::LNS16),
        },
        Check {
            name: "lns/fused_sum_dot_lns32",
            about: "fused LNS sum and dot of random vectors (specials, cancellation) vs Format::sum/dot",
            run: |gpu, seed| check_fused(gpu, seed, Format::LNS32),
        },
    ]
}

fn check_fused(gpu: &Gpu, seed: u64, format: Format) -> Result<CheckReport> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let (mut elements, mut mismatches, mut max_codes, mut exact) = (0, 0, 0i64, 0);
    let mut note = String::new();
    for case in 0..24 {
        // Lengths from 1 to ~2^21; specials in a few cases only, so most totals are finite.
        let bits = rng.random_range(0..22);
        let n = 1 + rng.random_range(0..(1usize << bits));
        let specials = case % 6 == 5;
        let spread = rng.random_range(1..(1i64 << (format.int_bits - 2)));
        let word = |rng: &mut rand_chacha::ChaCha8Rng| -> u32 {
            if specials && rng.random_range(0..(n as u32 + 1)) == 0 {
                return [
                    format.zero(),
                    format.nan(),
                    format.encode(Class::Inf {
                        negative: rng.random(),
                    }),
                ][rng.random_range(0..3)];
            }
            let log =
                rng.random_range(-(spread << format.frac_bits)..(spread << format.frac_bits) / 2);
            format.encode(Class::Finite {
                negative: rng.random_range(0..4) == 0,
                log,
            })
        };
        let mut xs: Vec<u32> = (0..n).map(|_| word(&mut rng)).collect();
        let ys: Vec<u32> = (0..n).map(|_| word(&mut rng)).collect();
        if case % 4 == 1 {
            // Exact cancellation: pairs x, −x sum to zero.
            for i in (1..n).step_by(2) {
                xs[i] = format.neg(xs[i - 1]);
            }
        }
        let (dx, dy) = (gpu.upload(&xs)?, gpu.upload(&ys)?);
        let pairs = [
            (sum(gpu, format, &dx)?, format.sum(&xs)),
            (
                dot(gpu, format, &dx, &dy)?,
                format
                    .dot(&xs, &ys)
                    .map_err(|e| Error::Invalid(e.to_string()))?,
            ),
        ];
        for (got, want) in pairs {
            elements += 1;
            let codes = match (format.decode(got), format.decode(want)) {
                (a, b) if a == b => 0,
                (
                    Class::Finite {
                        negative: p,
                        log: a,
                    },
                    Class::Finite {
                        negative: q,
                        log: b,
                    },
                ) if p == q => (a - b).abs(),
                _ => i64::MAX,
            };
            if codes == 0 {
                exact += 1;
            }
            max_codes = max_codes.max(codes);
            if codes > 1 {
                mismatches += 1;
                if note.is_empty() {
                    note = format!("n = {n}: GPU {got:#x} vs CPU {want:#x}");
                }
            }
        }
    }
    if note.is_empty() {
        note = format!("{exact} of {elements} results equal the CPU's word, the rest 1 code apart");
    }
    Ok(CheckReport {
        elements,
        mismatches,
        max_error: if max_codes == i64::MAX {
            f64::INFINITY
        } else {
            max_codes as f64
        },
        tolerance: Tolerance { abs: 1.0, rel: 0.0 },
        note,
    })
}
