//! The cases each part is timed on: the workloads of the rows the launch shapes are chosen
//! for (BENCHMARKS.md's GPU tables), at a size the search picks.

use super::search::{Case, Outcome};
use crate::recurrence::bench::{bench_input, verify};
use crate::recurrence::sos_bench::streaming_errors;
use sigpu_lns::gpu::{fused, stream_kernels, GpuMethod, LnsWord};
use sigpu_lns::{Format, Method};
use sigpu_recurrence::gpu::DeviceFilter;
use sigpu_recurrence::{Element, Filter, FilterOptions, GpuConfig, GpuFilter, GpuSos};
use sigpu_runtime::cuda::tuning::Fit;
use sigpu_runtime::cuda::{time_gpu, DeviceBuffer, Gpu, Plain};

/// Which PLR kernel a case measures: a tile that gives the filter another kernel is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlrKind {
    /// The tail-carry kernel.
    TailCarry,
    /// The look-back kernel.
    LookBack,
    /// The look-back kernel of a prefix sum.
    PrefixSum,
}

/// Whether `y` is `default` bit for bit (floats by their bits, so −0 is not +0).
fn identical<T: Element>(default: &[T], y: &[T]) -> bool {
    default.len() == y.len()
        && (default.iter().zip(y))
            .all(|(a, b)| a == b && a.to_f64().is_sign_negative() == b.to_f64().is_sign_negative())
}

/// The outcome of output `y` against the default's: identical, or for kernels whose result
/// depends on the blocking, `judge`'s (error, bound) against the reference.
fn outcome<T: Element>(
    default: &[T],
    y: &[T],
    judge: impl FnOnce() -> Option<(f64, f64)>,
) -> Outcome {
    if identical(default, y) {
        return Outcome::Identical;
    }
    let differing = (default.iter().zip(y)).filter(|(a, b)| a != b).count();
    match judge() {
        Some((error, bound)) if error <= bound => Outcome::WithinContract { error, bound },
        Some((error, bound)) => Outcome::Differs {
            reason: format!("error {error:.3e} against the reference, over {bound:.1e}"),
        },
        None => Outcome::Differs {
            reason: format!(
                "{differing} of {} values differ from the default's",
                y.len()
            ),
        },
    }
}

/// log2 of a case's length (its floor), for its name.
fn log2(n: usize) -> u32 {
    n.max(1).ilog2()
}

/// The outcome of output `y`: a case's first output is the default's (kept in `default`),
/// later ones are compared with it by `compare(default, y)`.
fn against_default<V>(
    default: &mut Option<V>,
    y: V,
    compare: impl FnOnce(&V, &V) -> Outcome,
) -> Outcome {
    match default {
        None => {
            *default = Some(y);
            Outcome::Identical
        }
        Some(d) => compare(d, &y),
    }
}

/// One (b, a) filter through [`GpuFilter`], one channel.
pub struct PlrCase<T: Element> {
    filter: Filter<T>,
    kind: PlrKind,
    x: Vec<T>,
    dx: DeviceBuffer<T>,
    dy: DeviceBuffer<T>,
    default: Option<Vec<T>>,
}

impl<T: Element> PlrCase<T> {
    /// `signature` in `T` over `n` samples of the benchmark's input.
    pub fn new(gpu: &Gpu, signature: &str, kind: PlrKind, n: usize) -> anyhow::Result<Self> {
        let filter = Filter::<T>::parse(signature, FilterOptions::default())?;
        let x = bench_input::<T>(n, 7);
        Ok(PlrCase {
            filter,
            kind,
            dx: gpu.upload(&x)?,
            dy: gpu.alloc_poisoned::<T>(n)?,
            x,
            default: None,
        })
    }
}

impl<T: Element> Case for PlrCase<T> {
    fn name(&self) -> String {
        format!(
            "{} {} 2^{}",
            self.filter.signature(),
            T::DTYPE,
            log2(self.x.len())
        )
    }

    fn measure(
        &mut self,
        gpu: &Gpu,
        warmup: usize,
        runs: usize,
    ) -> anyhow::Result<(Option<f64>, Outcome)> {
        let g = GpuFilter::new(gpu, &self.filter, GpuConfig::default())?;
        let generated = g.generated();
        let kind = match (generated.tail_carry, generated.prefix_sum) {
            (true, _) => PlrKind::TailCarry,
            (false, true) => PlrKind::PrefixSum,
            (false, false) => PlrKind::LookBack,
        };
        if kind != self.kind {
            let reason = format!("the filter gets the {kind:?} kernel with this tile");
            return Ok((None, Outcome::Refused { reason }));
        }
        let threads = generated.block_threads() as u32;
        let fit = Fit::of(g.kernel(), threads, generated.shared_bytes)?;
        if let Some(reason) = fit.refuses(threads, generated.config.min_blocks as u32) {
            return Ok((None, Outcome::Refused { reason }));
        }
        gpu.poison(&mut self.dy)?;
        g.run(gpu, &self.dx, &mut self.dy, 1, None, None)?;
        let y = gpu.download(&self.dy)?;
        let (filter, x) = (&self.filter, &self.x);
        let result = against_default(&mut self.default, y, |d, y| {
            outcome(d, y, || {
                // Floats rounded in another order: the self-check's bound against serial f64.
                let bound = match T::DTYPE {
                    sigpu_recurrence::DType::F32 => 1e-5,
                    sigpu_recurrence::DType::F64 => 1e-12,
                    _ => return None,
                };
                verify(filter, x, y).ok().map(|(e, _)| (e, bound))
            })
        });
        let t = g.time_run(gpu, (warmup, runs), &self.dx, &mut self.dy, 1, None, None)?;
        Ok((Some(t.median_ms), result))
    }
}

/// Second-order sections through [`GpuSos`] (the unchecked launch), f32, one channel.
pub struct SosCase {
    name: String,
    sos: Vec<[f64; 6]>,
    x: Vec<f32>,
    dx: DeviceBuffer<f32>,
    dy: DeviceBuffer<f32>,
    default: Option<Vec<f32>>,
}

impl SosCase {
    /// The sections `sos` (named `name`) over `n` samples of the benchmark's input.
    pub fn new(gpu: &Gpu, name: &str, sos: Vec<[f64; 6]>, n: usize) -> anyhow::Result<Self> {
        let x = bench_input::<f32>(n, 7);
        Ok(SosCase {
            name: name.into(),
            sos,
            dx: gpu.upload(&x)?,
            dy: gpu.alloc_poisoned::<f32>(n)?,
            x,
            default: None,
        })
    }
}

impl Case for SosCase {
    fn name(&self) -> String {
        format!("sosfilt {} f32 2^{}", self.name, log2(self.x.len()))
    }

    fn measure(
        &mut self,
        gpu: &Gpu,
        warmup: usize,
        runs: usize,
    ) -> anyhow::Result<(Option<f64>, Outcome)> {
        let g = GpuSos::<f32>::new(gpu, &self.sos)?;
        let threads = g.tables().block_threads() as u32;
        let fit = Fit::of(g.kernel(), threads, 0)?;
        if let Some(reason) = fit.refuses(threads, g.config().min_blocks as u32) {
            return Ok((None, Outcome::Refused { reason }));
        }
        gpu.poison(&mut self.dy)?;
        g.run(gpu, &self.dx, &mut self.dy, 1, None, None)?;
        let y = gpu.download(&self.dy)?;
        let x = &self.x;
        let result = against_default(&mut self.default, y, |d, y| {
            // The contract of the fast kernel: within 2x SciPy's own (serial f32) error.
            outcome(d, y, || {
                let (error, serial) = streaming_errors(g.coefficients(), x, y);
                Some((error, 2.0 * serial))
            })
        });
        let t = g.time_run(gpu, (warmup, runs), &self.dx, &mut self.dy, 1, None, None)?;
        Ok((Some(t.median_ms), result))
    }
}

/// The element-wise LNS add of one method over words of type `W`.
pub struct StreamCase<W: LnsWord> {
    method: GpuMethod,
    a: DeviceBuffer<W>,
    b: DeviceBuffer<W>,
    out: DeviceBuffer<W>,
    default: Option<Vec<W>>,
}

impl<W: LnsWord + Plain + PartialEq + TryFrom<u32>> StreamCase<W> {
    /// `method`'s add on `n` random words of `format`.
    pub fn new(gpu: &Gpu, method: Method, format: Format, n: usize) -> anyhow::Result<Self> {
        let [a, b] = crate::lns::bench::stream_inputs_of(gpu, format, n)?;
        let narrow = |v: &DeviceBuffer<u32>| -> anyhow::Result<DeviceBuffer<W>> {
            let host: Vec<W> = (gpu.download(v)?.into_iter())
                .map(|w| {
                    W::try_from(w)
                        .map_err(|_| anyhow::anyhow!("word {w:#x} is wider than {}", W::NAME))
                })
                .collect::<anyhow::Result<_>>()?;
            Ok(gpu.upload(&host)?)
        };
        Ok(StreamCase {
            method: GpuMethod::new(gpu, method, format)?,
            a: narrow(&a)?,
            b: narrow(&b)?,
            out: gpu.alloc_poisoned::<W>(n)?,
            default: None,
        })
    }
}

impl<W: LnsWord + Plain + PartialEq> Case for StreamCase<W> {
    fn name(&self) -> String {
        format!(
            "{} add {} ({} words) 2^{}",
            self.method.format,
            self.method.method,
            W::NAME,
            log2(self.out.len())
        )
    }

    fn measure(
        &mut self,
        gpu: &Gpu,
        warmup: usize,
        runs: usize,
    ) -> anyhow::Result<(Option<f64>, Outcome)> {
        let policy = gpu.policies().lns_stream;
        let name = format!("lns_add_{}{}", self.method.method, W::SUFFIX);
        let kernel = gpu.kernel(&stream_kernels(&policy), &name)?;
        let fit = Fit::of(&kernel, policy.threads, 0)?;
        if let Some(reason) = fit.refuses(policy.threads, 1) {
            return Ok((None, Outcome::Refused { reason }));
        }
        gpu.poison(&mut self.out)?;
        self.method.add(&self.a, &self.b, &mut self.out)?;
        let y = gpu.download(&self.out)?;
        // Every word is computed alone: any shape must give the default's words.
        let result = against_default(&mut self.default, y, |d, y| {
            let n = d.iter().zip(y).filter(|(a, b)| a != b).count();
            match n {
                0 if d.len() == y.len() => Outcome::Identical,
                _ => Outcome::Differs {
                    reason: format!("{n} of {} words differ from the default's", y.len()),
                },
            }
        });
        let (m, a, b, out) = (&self.method, &self.a, &self.b, &mut self.out);
        let t = time_gpu(gpu, warmup, runs, || m.add(a, b, out))?;
        Ok((Some(t.median_ms), result))
    }
}

/// The fused LNS sum of one format.
pub struct FusedSumCase {
    format: Format,
    xs: DeviceBuffer<u32>,
    out: DeviceBuffer<u32>,
    default: Option<u32>,
}

impl FusedSumCase {
    /// The fused sum of `n` random words of `format`.
    pub fn new(gpu: &Gpu, format: Format, n: usize) -> anyhow::Result<Self> {
        let [xs, _] = crate::lns::bench::stream_inputs_of(gpu, format, n)?;
        Ok(FusedSumCase {
            format,
            xs,
            out: gpu.alloc_poisoned::<u32>(1)?,
            default: None,
        })
    }
}

impl Case for FusedSumCase {
    fn name(&self) -> String {
        format!("{} fused sum 2^{}", self.format, log2(self.xs.len()))
    }

    fn measure(
        &mut self,
        gpu: &Gpu,
        warmup: usize,
        runs: usize,
    ) -> anyhow::Result<(Option<f64>, Outcome)> {
        let policy = gpu.policies().lns_fused_sum;
        let kernel = gpu.kernel(
            &fused::kernels_for(&policy),
            fused::partials_kernel(self.format),
        )?;
        let fit = Fit::of(&kernel, 256, 0)?;
        // The grid is one wave: every block of it must be resident at once.
        if let Some(reason) = fit.refuses(256, policy.blocks_per_sm) {
            return Ok((None, Outcome::Refused { reason }));
        }
        gpu.poison(&mut self.out)?;
        fused::fused_into(gpu, self.format, &self.xs, None, &mut self.out)?;
        let word = gpu.download(&self.out)?[0];
        // The order of the terms follows the grid, so another grid may round the total to
        // another word: only the default's word is taken.
        let result = against_default(&mut self.default, word, |&d, &word| match d == word {
            true => Outcome::Identical,
            false => Outcome::Differs {
                reason: format!("the sum is {word:#x}, the default's {d:#x}"),
            },
        });
        let (format, xs, out) = (self.format, &self.xs, &mut self.out);
        let t = time_gpu(gpu, warmup, runs, || {
            fused::fused_into(gpu, format, xs, None, out)
        })?;
        Ok((Some(t.median_ms), result))
    }
}
