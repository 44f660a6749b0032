//! Fused LNS sum and dot product over device buffers (`kernels/reduce.cu`): the GPU twins of
//! [`Format::sum`] and [`Format::dot`]. Products are exact, every term is summed in f64 with
//! compensation after a max shift, and the total is rounded to a word once, so the result is
//! the CPU's (one code apart at most, where f64 exp2 or the summation order tip a rounding).
//!
//! One pass over the data: each thread keeps the largest binade seen and rescales its sums by
//! an exact power of two when it grows (so x and −x cancel exactly wherever they meet); blocks
//! write partials that one block combines in a fixed order, so a buffer gives the same word on
//! every call. Terms are 2^(fraction) from a 4096-entry f64 table times a degree-3 polynomial in
//! the low fraction bits (truncation < 2^-54.6, 0.16 f64 ulp; each term within 2 f64 ulps of
//! its exact value, as against exp2's 1), read with 16-byte loads into two compensated
//! accumulators per thread. lns32 and lns16 run kernels compiled for their shifts and masks.

use crate::error::LnsError;
use crate::format::Format;
use sigpu_runtime::cuda::cudarc::driver::{DeviceRepr, LaunchConfig};
use sigpu_runtime::cuda::tuning::FusedSumPolicy;
use sigpu_runtime::cuda::{equal_lengths, DeviceBuffer, Gpu, KernelSource, KernelValue};

/// The reduction kernels (`kernels/reduce.cu`).
pub fn kernels() -> KernelSource {
    KernelSource::embedded("reduce.cu", include_str!("../../kernels/reduce.cu"))
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
impl KernelValue for LnsFmt {}

/// `struct ExpPoly` in reduce.cu: 2^(r·ulp) − 1 = r·(c1 + c2 r + c3 r²) for the low fraction
/// bits r of a code (below 2^-12 in the exponent), the top 12 bits from a table.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
struct ExpPoly {
    c: [f64; 3],
    rmask: u32,
    rshift: i32,
}

// SAFETY: a plain #[repr(C)] struct of f64s and 32-bit integers, laid out as `struct ExpPoly`.
unsafe impl DeviceRepr for ExpPoly {}
impl KernelValue for ExpPoly {}

/// Fraction bits looked up in the kernel's table of 2^(j/4096) (`EXP_TBITS` in reduce.cu).
const TABLE_BITS: u32 = 12;

impl ExpPoly {
    fn new(format: Format) -> ExpPoly {
        let x = std::f64::consts::LN_2 * format.ulp();
        let mut c = [0.0; 3];
        let mut term = 1.0;
        for (k, ck) in c.iter_mut().enumerate() {
            term *= x / (k + 1) as f64;
            *ck = term;
        }
        let rshift = format.frac_bits.saturating_sub(TABLE_BITS);
        ExpPoly {
            c,
            rmask: (1u32 << rshift) - 1,
            rshift: rshift as i32,
        }
    }
}

/// f64s in one `struct Partial` of reduce.cu (i64 max, two f64 sums, two i32).
const PARTIAL_F64S: usize = 4;
const THREADS: u32 = 256;

/// Σ xs, fused (see [`Format::sum`]).
pub fn sum(gpu: &Gpu, format: Format, xs: &DeviceBuffer<u32>) -> Result<u32, LnsError> {
    fused_word(gpu, format, xs, None, None)
}

/// Σ xs[i]·ys[i], fused (see [`Format::dot`]).
pub fn dot(
    gpu: &Gpu,
    format: Format,
    xs: &DeviceBuffer<u32>,
    ys: &DeviceBuffer<u32>,
) -> Result<u32, LnsError> {
    fused_word(gpu, format, xs, Some(ys), None)
}

/// One-dimensional launch shape.
fn shape(blocks: u32, threads: u32) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (threads, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// Σ xs (`ys` None) or Σ xs[i]·ys[i] into `out[0]` on the device, without waiting for it.
pub fn fused_into(
    gpu: &Gpu,
    format: Format,
    xs: &DeviceBuffer<u32>,
    ys: Option<&DeviceBuffer<u32>>,
    out: &mut DeviceBuffer<u32>,
) -> Result<(), LnsError> {
    fused_on_grid(gpu, format, xs, ys, out, None)
}

/// Blocks of the partials kernel for `n` words on a device of `sms` SMs running `per_sm`
/// blocks per SM (the fused-sum policy's, also its `__launch_bounds__`, so they are resident:
/// one wave, no tail): enough to keep every SM's memory pipe busy, the grid stride covering
/// the rest.
pub(crate) fn blocks_for(n: usize, sms: usize, per_sm: usize) -> usize {
    n.div_ceil(THREADS as usize).clamp(1, sms * per_sm.max(1))
}

/// The reduction kernels compiled for `policy`: its blocks per SM as the launch bounds
/// (`RED_MINB`) and its cp.async stages (`RED_CPA`); the default policy adds no option, so its
/// kernels are the file's own.
pub fn kernels_for(policy: &FusedSumPolicy) -> KernelSource {
    let base = FusedSumPolicy::default();
    let mut source = kernels();
    if policy.blocks_per_sm != base.blocks_per_sm {
        source = source.with_option(format!("-DRED_MINB={}", policy.blocks_per_sm));
    }
    if policy.stages != base.stages {
        source = source.with_option(format!("-DRED_CPA={}", policy.stages));
    }
    source
}

/// The partials kernel that sums words of `format`: lns32 and lns16 have kernels with their
/// shifts and masks compiled in (same arithmetic); formats of ≤ 8 integer bits the narrow one
/// (binades of terms, products included, stay within 512 of each other, so every scale 2^d is
/// a normal f64 built from its bits).
pub fn partials_kernel(format: Format) -> &'static str {
    if format == Format::LNS32 {
        "lns_fused_partials_lns32"
    } else if format == Format::LNS16 {
        "lns_fused_partials_lns16"
    } else if format.int_bits <= 8 {
        "lns_fused_partials_narrow"
    } else {
        "lns_fused_partials"
    }
}

/// The word Σ xs or Σ xs·ys on a grid of `blocks` blocks (None: [`blocks_for`]), so the
/// self-check can reach the ends of the grid-stride loop with short vectors.
pub(crate) fn fused_word(
    gpu: &Gpu,
    format: Format,
    xs: &DeviceBuffer<u32>,
    ys: Option<&DeviceBuffer<u32>>,
    blocks: Option<usize>,
) -> Result<u32, LnsError> {
    let mut out = gpu.alloc_poisoned::<u32>(1)?;
    fused_on_grid(gpu, format, xs, ys, &mut out, blocks)?;
    Ok(gpu.download(&out)?[0])
}

fn fused_on_grid(
    gpu: &Gpu,
    format: Format,
    xs: &DeviceBuffer<u32>,
    ys: Option<&DeviceBuffer<u32>>,
    out: &mut DeviceBuffer<u32>,
    blocks: Option<usize>,
) -> Result<(), LnsError> {
    if let Some(ys) = ys {
        equal_lengths("fused LNS dot", &[xs.len(), ys.len()])?;
    }
    if out.is_empty() {
        return Err(LnsError::Invalid("fused sum into an empty buffer".into()));
    }
    let fmt = LnsFmt {
        f: format.frac_bits as i32,
        log_bits: format.log_bits() as i32,
    };
    let poly = ExpPoly::new(format);
    let n = xs.len() as i64;
    let policy = gpu.policies().lns_fused_sum;
    let per_sm = policy.blocks_per_sm as usize;
    let blocks = blocks
        .unwrap_or_else(|| blocks_for(xs.len(), gpu.info().sms as usize, per_sm))
        .clamp(1, 1 << 20);
    let mut parts = gpu.alloc_poisoned::<f64>(blocks * PARTIAL_F64S)?;
    // ≤ 8 integer bits: binades of terms (products included) stay within 512 of each other, so
    // every scale 2^d is a normal f64 built from its bits.
    // lns32 and lns16 have kernels with their shifts and masks compiled in (same arithmetic).
    let partials = gpu.kernel(&kernels_for(&policy), partials_kernel(format))?;
    let finish = gpu.kernel(&kernels_for(&policy), "lns_fused_finish")?;
    let null: u64 = 0;
    {
        let mut launch = gpu.launch(&partials);
        launch.arg(&fmt).arg(&poly).buf(xs);
        match ys {
            Some(ys) => launch.buf(ys),
            None => launch.arg(&null),
        };
        launch
            .arg(&n)
            .buf_mut(&mut parts)
            .run(shape(blocks as u32, THREADS))?;
    }
    let count = blocks as i32;
    gpu.launch(&finish)
        .arg(&fmt)
        .buf(&parts)
        .arg(&count)
        .buf_mut(out)
        .run(shape(1, 1024))?;
    Ok(())
}

#[cfg(test)]
pub(crate) mod model;

#[cfg(test)]
mod tests {
    use super::*;

    /// The kernel's term, as reduce.cu evaluates it: table entry times 1 + r·q(r).
    fn term(format: Format, frac: u32) -> f64 {
        let e = ExpPoly::new(format);
        let tb = format.frac_bits.min(TABLE_BITS);
        let j = frac >> e.rshift;
        let t = (j as f64 / (1u64 << tb) as f64).exp2();
        let r = (frac & e.rmask) as f64;
        let [c1, c2, c3] = e.c;
        let q = r.mul_add(r.mul_add(c3, c2), c1);
        t.mul_add(r * q, t)
    }

    /// The per-term budget of the error contract (≤ 4 f64 ulps of 2^fraction): the table entry
    /// (within 1 ulp, from exp2, CUDA's or the host's), the degree-3 truncation (< 0.16 ulp at
    /// 12 table bits), Horner's roundings (scaled by r·q < 2^-12: negligible) and the final FMA
    /// (0.5 ulp) give < 2 ulps; asserted here over every lns16 fraction and a stride through
    /// lns32 and i2f29 ones.
    #[test]
    fn table_and_polynomial_terms_are_within_four_f64_ulps_of_exp2() {
        for format in [Format::LNS16, Format::LNS32, Format::new(2, 29).unwrap()] {
            let f = format.frac_bits;
            let mut worst = 0.0f64;
            // Every fraction of lns16; a stride through the others, both ends included.
            let step = (1u32 << f).div_ceil(1 << 20).max(1);
            for frac in (0..1u32 << f)
                .step_by(step as usize)
                .chain([(1u32 << f) - 1])
            {
                let exact = (frac as f64 * format.ulp()).exp2();
                let ulps = (term(format, frac) - exact).abs() / (exact * f64::EPSILON);
                worst = worst.max(ulps);
            }
            assert!(worst <= 4.0, "{format}: {worst} f64 ulps");
        }
    }
}
