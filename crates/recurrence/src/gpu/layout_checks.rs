//! GPU self-checks of the PLR kernels on laid-out views ([`ChannelLayout`]): interleaved pairs
//! (complex data with real coefficients), backwards (an adjoint), both, padded channel strides.
//! Each check draws the laid-out memory and a state, runs the laid-out kernel in place into an
//! output of NaN, and compares with its twin, the plain kernel of the same launch shape
//! (`GpuFilter::laid_out_config`: pairs take half the values per thread) on the channels
//! gathered to rows (itself held to the serial reference by the other checks): bit for bit
//! where the filter runs
//! the tail-carry kernel (deterministic) — but f32 pairs forwards, whose FMA contraction differs
//! (the serial reference's tolerance, the ulp gap in the note) — within that tolerance where it
//! looks back (the look-back folds whatever mix of carries it finds). Elements between channels
//! must stay NaN (nothing written outside the view's channels).

use super::checks::{compare_float_tol, tolerance, Ran, DIRECT};
use super::{DeviceFilter, GpuConfig, GpuFilter, GpuSos, KernelLayout};
use crate::elem::Element;
use crate::engine::DeviceBatch;
use crate::error::FilterError;
use crate::filter::{Filter, FilterOptions};
use crate::layout::ChannelLayout;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sigpu_runtime::cuda::{check_result, compare_exact, Check, CheckReport, Gpu};
use sigpu_runtime::cuda::{DeviceSlice, DeviceSliceMut};
use sigpu_runtime::GpuTarget;

/// butter(2, 0.1): its factors vanish within a warp's span (the tail-carry kernel).
const BUTTER2: &str = "(0.020083365564211236, 0.04016673112842247, 0.020083365564211236 : \
                       1.5610180758007182, -0.6413515380575631)";
/// A pole at 0.999: the look-back kernel.
const SLOW: &str = "(0.001 : 0.999)";

/// The laid-out kernels' checks, in the order `sigpu check` runs them.
pub fn checks() -> Vec<Check> {
    vec![
        Check {
            name: "recurrence/view_pairs_f32",
            about: "butter(2, 0.1) f32 on 3 complex rows read in place as (re, im) pairs, \
                    padded rows, zi/zf: vs serial f64 (rel. 1e-5), the gap to the plain kernel \
                    on the split parts in the note (FMA contraction differs)",
            run: |gpu, seed| check_result(view_case::<f32>(gpu, seed, ViewCase::pairs(BUTTER2))),
        },
        Check {
            name: "recurrence/view_pairs_lookback_f32",
            about: "(0.001 : 0.999) f32 on 2 complex rows as pairs: the look-back kernel, vs \
                    serial f64 (rel. 1e-5)",
            run: |gpu, seed| {
                let case = ViewCase {
                    n: (1 << 20) + 5,
                    ..ViewCase::pairs(SLOW)
                };
                check_result(view_case::<f32>(gpu, seed, case))
            },
        },
        Check {
            name: "recurrence/view_reversed_f32",
            about: "butter(2, 0.1) f32, 4 channels filtered backwards in place, zi/zf: bit for \
                    bit the plain kernel on the reversed data",
            run: |gpu, seed| check_result(view_case::<f32>(gpu, seed, ViewCase::reversed(BUTTER2))),
        },
        Check {
            name: "recurrence/view_reversed_direct_f32",
            about: "butter(2, 0.1) f32 backwards with direct loads, odd length (element loads \
                    at the unaligned end)",
            run: |gpu, seed| {
                let case = ViewCase {
                    n: 70_001,
                    config: DIRECT,
                    ..ViewCase::reversed(BUTTER2)
                };
                check_result(view_case::<f32>(gpu, seed, case))
            },
        },
        Check {
            name: "recurrence/view_reversed_lookback_f64",
            about: "(0.001 : 0.999) f64 backwards: the look-back kernel, vs serial f64 \
                    (rel. 1e-12)",
            run: |gpu, seed| check_result(view_case::<f64>(gpu, seed, ViewCase::reversed(SLOW))),
        },
        Check {
            name: "recurrence/view_sos_reversed_f32",
            about: "butter(8, 0.1) f32 as 4 fused sections, 3 channels filtered backwards in \
                    place, zi/zf: the plain kernel on the reversed data (bit for bit, NaN \
                    matching NaN)",
            run: |gpu, seed| check_result(sos_reversed_case(gpu, seed)),
        },
        Check {
            name: "recurrence/view_pairs_reversed_f64",
            about: "butter(2, 0.1) f64 on complex rows as pairs, backwards, padded rows, zi/zf: \
                    bit for bit the plain kernel",
            run: |gpu, seed| {
                let case = ViewCase {
                    reversed: true,
                    ..ViewCase::pairs(BUTTER2)
                };
                check_result(view_case::<f64>(gpu, seed, case))
            },
        },
    ]
}

/// One checked laid-out run.
#[derive(Clone, Copy)]
struct ViewCase {
    sig: &'static str,
    pairs: bool,
    reversed: bool,
    /// Channels as the plain kernel counts them (a complex row is 2).
    channels: usize,
    n: usize,
    /// Elements between one group's last element and the next group's first.
    pad: usize,
    config: GpuConfig,
}

impl ViewCase {
    fn pairs(sig: &'static str) -> ViewCase {
        ViewCase {
            sig,
            pairs: true,
            reversed: false,
            channels: 6,
            n: (1 << 18) + 77,
            pad: 8,
            config: GpuConfig::default(),
        }
    }

    fn reversed(sig: &'static str) -> ViewCase {
        ViewCase {
            sig,
            pairs: false,
            reversed: true,
            channels: 4,
            n: 100_003,
            pad: 0,
            config: GpuConfig::default(),
        }
    }
}

fn view_case<T: Element>(gpu: &Gpu, seed: u64, case: ViewCase) -> Result<CheckReport, FilterError> {
    let ViewCase { channels, n, .. } = case;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let filter = Filter::<T>::parse(case.sig, FilterOptions::default())?;
    let g = GpuFilter::new(gpu, &filter, case.config)?;
    let group = if case.pairs { 2 } else { 1 };
    let sign = if case.reversed { -1 } else { 1 };
    let layout = ChannelLayout {
        sample_stride: sign * group as isize,
        channel_stride: group * n + case.pad,
    };
    let span = layout.span(channels, n)?;
    let mut draw = |len: usize| -> Vec<T> {
        (0..len)
            .map(|_| T::from_f64(rng.random_range(-1.0..1.0)))
            .collect()
    };
    let mem = draw(span);
    let s = filter.state_len();
    let zi_rows = draw(channels * s);
    // The twin: the plain kernel of the laid-out kernel's shape on the channels gathered to
    // rows.
    let kernel_layout = KernelLayout {
        pairs: case.pairs,
        reversed: case.reversed,
    };
    let twin = GpuFilter::new(gpu, &filter, g.laid_out_config(kernel_layout))?;
    let rows = layout.gather(&mem, channels, n);
    let (y_plain, zf_plain) = twin.apply(gpu, &rows, channels, Some(&zi_rows))?;
    // The laid-out kernel in place, into NaN.
    let target = GpuTarget::new(gpu.clone());
    let zi_laid = layout.state_from_rows(&zi_rows, channels, s);
    let (y_mem, zf_laid) = on_device(gpu, &mem, &zi_laid, channels, |batch| {
        g.launch_laid_out(&target, batch, n, layout)
    })?;
    let y = layout.gather(&y_mem, channels, n);
    let zf = layout.state_to_rows(&zf_laid, channels, s);
    // f32 pairs forwards: the pair kernel's two-part arithmetic is contracted into FMAs
    // differently from the plain kernel's scalar one (its PTX has other mul / fma counts), so
    // last bits differ; it is held to the serial reference's tolerance, and the note gives its
    // largest gap to the plain kernel in ulps. f64 pairs run the `_rn` compensated steps, never
    // contracted: bit for bit.
    let contracted = case.pairs && !case.reversed && T::DTYPE == crate::DType::F32;
    let against_serial = || {
        let ran = Ran {
            x: &rows,
            channels,
            zi: Some(&zi_rows),
            y: &y,
            zf: &zf,
        };
        compare_float_tol(&filter, ran, tolerance::<T>())
    };
    let mut report = match (twin.generated().tail_carry, contracted) {
        (true, false) => {
            let mut r = compare_exact(&[&y[..], &zf[..]].concat(), &[y_plain, zf_plain].concat());
            r.note = format!("bit for bit against the plain kernel; {}", r.note);
            r
        }
        (_, true) => {
            let gap = ulp_gap(&[&y[..], &zf[..]].concat(), &[y_plain, zf_plain].concat());
            let mut r = against_serial();
            r.note = format!(
                "{gap:.1} ulp(s) of max |y| at most from the plain kernel; {}",
                r.note
            );
            r
        }
        (false, false) => against_serial(),
    };
    // Elements of no channel (the padding) are never written.
    let mut inside = vec![false; span];
    for c in 0..channels {
        for i in 0..n {
            inside[layout.index(c, i, n)] = true;
        }
    }
    let written = (y_mem.iter().zip(&inside))
        .filter(|(v, inside)| !**inside && !v.to_f64().is_nan())
        .count();
    if written > 0 {
        report.mismatches += written;
        report.note = format!("{written} element(s) between channels were written");
    }
    Ok(report)
}

/// The largest gap between two results of the same length, in ulps of the element type at
/// the largest magnitude of `b` (a gap near zero then counts for what it is against the
/// signal, not in the tiny ulps of the small value); NaN where either is NaN.
fn ulp_gap<T: Element>(a: &[T], b: &[T]) -> f64 {
    let scale = b.iter().fold(0.0f64, |m, v| m.max(v.to_f64().abs()));
    let eps = if T::DTYPE == crate::DType::F32 {
        f32::EPSILON as f64
    } else {
        f64::EPSILON
    };
    let gap = a
        .iter()
        .zip(b)
        .map(|(x, y)| (x.to_f64() - y.to_f64()).abs())
        .fold(0.0f64, |m, d| {
            if d.is_nan() || m.is_nan() {
                f64::NAN
            } else {
                m.max(d)
            }
        });
    match scale > 0.0 {
        true => gap / (scale * eps),
        false => gap,
    }
}

/// The fused sections backwards in place against the plain kernel on the reversed channels.
fn sos_reversed_case(gpu: &Gpu, seed: u64) -> Result<CheckReport, FilterError> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (channels, n) = (3, 200_003);
    let g = GpuSos::<f32>::new(gpu, &crate::testing::BUTTER8_01)?;
    let s = g.state_len();
    let x: Vec<f32> = (0..channels * n)
        .map(|_| rng.random_range(-1.0..1.0))
        .collect();
    let zi: Vec<f32> = (0..channels * s)
        .map(|_| rng.random_range(-1.0..1.0))
        .collect();
    let layout = ChannelLayout::reversed(n);
    let (y_plain, zf_plain) = g.apply(gpu, &layout.gather(&x, channels, n), channels, Some(&zi))?;
    let target = GpuTarget::new(gpu.clone());
    let (y_mem, zf) = on_device(gpu, &x, &zi, channels, |batch| {
        g.launch_laid_out(&target, batch, n, layout)
    })?;
    let y = layout.gather(&y_mem, channels, n);
    let mut r = compare_exact(&[y, zf].concat(), &[y_plain, zf_plain].concat());
    r.note = format!("bit for bit against the plain kernel; {}", r.note);
    Ok(r)
}

/// Uploads `x` and `zi`, runs `launch` on views of them into an output of NaN and a poisoned
/// zf, and downloads both.
fn on_device<T: Element>(
    gpu: &Gpu,
    x: &[T],
    zi: &[T],
    channels: usize,
    launch: impl FnOnce(DeviceBatch<'_, T>) -> Result<(), FilterError>,
) -> Result<(Vec<T>, Vec<T>), FilterError> {
    let x_dev = gpu.upload(x)?;
    let mut y_dev = gpu.upload(&vec![T::from_f64(f64::NAN); x.len()])?;
    let zi_dev = gpu.upload(zi)?;
    let mut zf_dev = gpu.alloc_poisoned::<T>(zi.len())?;
    launch(DeviceBatch {
        x: DeviceSlice::of(&x_dev),
        channels,
        y: DeviceSliceMut::of(&mut y_dev),
        zi: Some(DeviceSlice::of(&zi_dev)),
        zf: Some(DeviceSliceMut::of(&mut zf_dev)),
    })?;
    Ok((gpu.download(&y_dev)?, gpu.download(&zf_dev)?))
}
