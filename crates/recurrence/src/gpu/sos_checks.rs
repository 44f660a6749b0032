//! `sigpu check` twins of the fused cascade: [`GpuSos`] on fresh random inputs against the
//! serial cascade in double-double, held to the accuracy contract (within 4× the error of the
//! serial cascade in the same element type, as scipy's `sosfilt` runs it), and against the CPU
//! emulation of its own block and carry scheme.

use super::sos::{GpuSos, RawSosCall, SosConfig};
use super::sos_tables::{channel_error, emulate};
use crate::elem::Element;
use crate::engine::DeviceBatch;
use crate::error::FilterError;
use crate::filter::FilterOptions;
use crate::planner::{plan, FilterSpec};
use crate::testing::{
    chirp, empty_report, lengths_around, random_values as random, resonator, stopband_sections,
    stopband_signal, SosReference, BUTTER3_HIGH, BUTTER8_0005, BUTTER8_01, CHEBY1_BP,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sigpu_runtime::cuda::cudarc::driver::{DevicePtr, DevicePtrMut};
use sigpu_runtime::cuda::{
    check_result, Check, CheckReport, DeviceSlice, DeviceSliceMut, DriverContext, Gpu, Tolerance,
};
use sigpu_runtime::{GpuTarget, Target};

pub fn checks() -> Vec<Check> {
    vec![
        Check {
            name: "recurrence/sos_stopband_planned",
            about: "planned sections on stopband-heavy input (resonator r=0.9999 near Nyquist on \
                    a low chirp f32; cheby1(8) band-pass near Nyquist on a chirp f64; random \
                    stopband cases): host data, device data, in place, vs double-double",
            run: |gpu, seed| check_result(stopband(gpu, seed)),
        },
        Check {
            name: "recurrence/sos_butter8_f32",
            about:
                "sosfilt butter(8, 0.1) as 4 fused sections, f32, vs double-double (4x serial f32)",
            run: |gpu, seed| {
                check_result(contract::<f32>(
                    gpu,
                    seed,
                    Case::new(&BUTTER8_01, 1, (1 << 20) + 77),
                ))
            },
        },
        Check {
            name: "recurrence/sos_butter8_f32_look_back",
            about:
                "the same through the look-back kernel (tail carry forced off), 2 channels, zi/zf",
            run: |gpu, seed| {
                let forced = SosConfig {
                    force_look_back: true,
                    ..SosConfig::default()
                };
                let case = Case::new(&BUTTER8_01, 2, (1 << 20) + 77).state().on(forced);
                check_result(contract::<f32>(gpu, seed, case))
            },
        },
        Check {
            name: "recurrence/sos_butter8_f32_chunks_per_block",
            about: "the tail-carry kernel with 3 chunks per block, 3 channels of odd length, zi/zf",
            run: |gpu, seed| {
                let three = SosConfig {
                    chunks_per_block: 3,
                    ..SosConfig::default()
                };
                let case = Case::new(&BUTTER8_01, 3, 300_007).state().on(three);
                check_result(contract::<f32>(gpu, seed, case))
            },
        },
        Check {
            name: "recurrence/sos_lowcut_f32_state",
            about: "sosfilt butter(8, 0.005) (poles to 0.997) f32, 3 channels, zi/zf",
            run: |gpu, seed| {
                check_result(contract::<f32>(
                    gpu,
                    seed,
                    Case::new(&BUTTER8_0005, 3, 300_001).state(),
                ))
            },
        },
        Check {
            name: "recurrence/sos_f64_state",
            about: "sosfilt butter(8, 0.1) f64, 3 channels, zi/zf, vs double-double",
            run: |gpu, seed| {
                check_result(contract::<f64>(
                    gpu,
                    seed,
                    Case::new(&BUTTER8_01, 3, 200_003).state(),
                ))
            },
        },
        Check {
            name: "recurrence/sos_odd_order_f64",
            about: "sosfilt butter(3, 0.2, 'high'): first-order section, 64-thread blocks, zi/zf",
            run: |gpu, seed| {
                let case = Case::new(&BUTTER3_HIGH, 2, 50_001).state().on(SosConfig {
                    threads: 64,
                    vpt: 4,
                    ..SosConfig::default()
                });
                check_result(contract::<f64>(gpu, seed, case))
            },
        },
        Check {
            name: "recurrence/sos_lengths_f32",
            about: "sosfilt f32 at lengths 1 … chunk ± 1 … primes, zi/zf, vs the CPU emulation",
            run: |gpu, seed| check_result(lengths(gpu, seed)),
        },
        Check {
            name: "recurrence/sos_streaming_f64",
            about: "sosfilt f64 in 3 GPU pieces with zf → zi vs one shot",
            run: |gpu, seed| check_result(streaming(gpu, seed)),
        },
        Check {
            name: "recurrence/sos_raw_stream_inplace",
            about: "sosfilt f32 through raw pointers on a second stream, in place (y = x, zf = zi)",
            run: |gpu, seed| check_result(raw_in_place(gpu, seed)),
        },
    ]
}

#[derive(Clone, Copy)]
struct Case {
    sos: &'static [[f64; 6]],
    channels: usize,
    n: usize,
    state: bool,
    config: SosConfig,
}

impl Case {
    fn new(sos: &'static [[f64; 6]], channels: usize, n: usize) -> Case {
        Case {
            sos,
            channels,
            n,
            state: false,
            config: SosConfig::default(),
        }
    }
    fn state(self) -> Case {
        Case {
            state: true,
            ..self
        }
    }
    fn on(self, config: SosConfig) -> Case {
        Case { config, ..self }
    }
}

/// Output and zf of a run against the extended reference, with the serial run in `T` as the
/// yardstick: the GPU passes within 4× the serial error (or the floor).
fn judge<T: Element>(
    coefs: &[[T; 6]],
    x: &[T],
    channels: usize,
    zi: Option<&[T]>,
    out: (&[T], Option<&[T]>),
) -> CheckReport {
    judge_against(SosReference::new(coefs, x, channels, zi), x, channels, out)
}

/// [`judge`] against a given reference: the planner's runs, whose f64 engines filter f32 signals
/// with the coefficients as given, are judged against the design ([`SosReference::of_design`]).
fn judge_against<T: Element>(
    r: SosReference,
    x: &[T],
    channels: usize,
    (y, zf): (&[T], Option<&[T]>),
) -> CheckReport {
    let (yr, serial) = (&r.y, r.serial);
    let floor = SosReference::floor::<T>();
    let tol = (4.0 * serial).max(floor);
    let n = x.len() / channels;
    let mut mismatches = 0;
    let mut first = String::new();
    for c in 0..channels {
        let w = &yr[c * n..(c + 1) * n];
        let scale = w.iter().fold(f64::MIN_POSITIVE, |m, v| m.max(v.abs()));
        for (i, (g, w)) in y[c * n..(c + 1) * n].iter().zip(w).enumerate() {
            let g = g.to_f64();
            if g.is_nan() || (g - w).abs() / scale > tol {
                if mismatches == 0 {
                    first = format!("; first mismatch channel {c} [{i}]: got {g:e}, want {w:e}");
                }
                mismatches += 1;
            }
        }
    }
    let err = r.error(y);
    let mut note = format!(
        "serial {} error {serial:.2e}, ratio {:.2}{first}",
        T::DTYPE,
        err / serial.max(1e-300)
    );
    if let Some(zf) = zf {
        // zf is judged on the signal's scale, against the serial run's zf error likewise.
        // The serial zf error alone can be far below its output error by chance (3.7e-16
        // against 3.1e-13 for butter(8, 0.005) in f64); a state error feeds the outputs that
        // follow, so it is held to the output contract: 4x the larger of the two serial errors.
        let (zerr, zserial) = (r.zf_error(zf), r.serial_zf);
        if zerr.is_nan() || zerr > (4.0 * zserial.max(serial)).max(floor) {
            mismatches += 1;
            note += &format!("; zf error {zerr:.2e} vs serial {zserial:.2e}");
        }
    }
    CheckReport {
        elements: x.len(),
        mismatches,
        max_error: err,
        tolerance: Tolerance { abs: 0.0, rel: tol },
        note,
    }
}

fn contract<T: Element>(gpu: &Gpu, seed: u64, case: Case) -> Result<CheckReport, FilterError> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let g = GpuSos::<T>::with_config(gpu, case.sos, case.config)?;
    let x: Vec<T> = random(&mut rng, case.channels * case.n, 1.0);
    let zi: Option<Vec<T>> = case
        .state
        .then(|| random(&mut rng, case.channels * g.state_len(), 0.5));
    let (y, zf) = g.apply(gpu, &x, case.channels, zi.as_deref())?;
    Ok(judge(
        g.coefficients(),
        &x,
        case.channels,
        zi.as_deref(),
        (&y, Some(&zf)),
    ))
}

/// Lengths around the chunk size: the GPU against its CPU emulation (same tables, same
/// scheme: they differ by the rounding of fused multiply-adds only) and the contract.
fn lengths(gpu: &Gpu, seed: u64) -> Result<CheckReport, FilterError> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let g = GpuSos::<f32>::new(gpu, &BUTTER8_01)?;
    let chunk = g.config().chunk();
    let mut total = empty_report(1e-5);
    for n in lengths_around(chunk) {
        let channels = 2;
        let x: Vec<f32> = random(&mut rng, channels * n, 1.0);
        let zi: Vec<f32> = random(&mut rng, channels * g.state_len(), 0.5);
        let (y, zf) = g.apply(gpu, &x, channels, Some(&zi))?;
        let r = judge(g.coefficients(), &x, channels, Some(&zi), (&y, Some(&zf)));
        let (ye, zfe) = emulate(g.tables(), &x, channels, Some(&zi));
        // The outputs agree to FMA rounding (1e-5 of max |y|). The final states are each an f32
        // result within the contract of the exact zf (judged above); the emulation's own zf error
        // reaches 1.3e-5 of max |zf| (300 seeds at chunk ± 1, 3·chunk + 7), so the two may
        // differ by the sum of both errors: 4e-5.
        let to64 = |v: &[f32]| v.iter().map(|&a| f64::from(a)).collect::<Vec<_>>();
        let twin_y = channel_error(&y, &to64(&ye), channels);
        let twin_zf = channel_error(&zf, &to64(&zfe), 1);
        let twin = twin_y.max(twin_zf / 4.0);
        total.elements += r.elements;
        total.max_error = total.max_error.max(twin);
        if (r.mismatches > 0 || twin > 1e-5) && total.mismatches == 0 {
            total.note = format!("n = {n}: {} (vs emulation {twin:.2e})", r.note);
        }
        total.mismatches += r.mismatches + usize::from(twin > 1e-5);
    }
    if total.mismatches == 0 {
        total.note = "max error vs the CPU emulation; every length within the contract".into();
    }
    Ok(total)
}

fn streaming(gpu: &Gpu, seed: u64) -> Result<CheckReport, FilterError> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let g = GpuSos::<f64>::new(gpu, &BUTTER8_0005)?;
    let n = 250_000;
    let x: Vec<f64> = random(&mut rng, n, 1.0);
    let (whole, zf_whole) = g.apply(gpu, &x, 1, None)?;
    let mut y = Vec::with_capacity(n);
    let mut z = vec![0.0; g.state_len()];
    for (a, b) in [(0, 70_001), (70_001, 70_002), (70_002, n)] {
        let (part, zf) = g.apply(gpu, &x[a..b], 1, Some(&z))?;
        y.extend(part);
        z = zf;
    }
    // The pieces are judged as one run against the extended-precision one-shot result (the
    // contract, as every other check): with poles at 0.997 the f64 rounding of a blocked run
    // reaches ~1e-12 of max |y| itself, so pieces and GPU one shot may differ by the sum of
    // both errors (2.7e-12 seen), which is reported beside it.
    let twin = channel_error(&y, &whole, 1).max(channel_error(&z, &zf_whole, 1));
    let mut report = judge(g.coefficients(), &x, 1, None, (&y, Some(&z)));
    report.note = format!(
        "pieces (70001, 1, rest) vs exact one shot: {}; vs the GPU one shot {twin:.2e}",
        report.note
    );
    Ok(report)
}

fn raw_in_place(gpu: &Gpu, seed: u64) -> Result<CheckReport, FilterError> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let g = GpuSos::<f32>::new(gpu, &BUTTER8_0005)?;
    let (channels, n) = (2, 123_457);
    let x: Vec<f32> = random(&mut rng, channels * n, 1.0);
    let zi: Vec<f32> = random(&mut rng, channels * g.state_len(), 0.5);
    let stream = gpu.context().new_stream().context("creating a stream")?;
    let mut buf = stream.clone_htod(&x).context("copying host to device")?;
    let mut state = stream.clone_htod(&zi).context("copying host to device")?;
    {
        let (p, _gp) = buf.device_ptr_mut(&stream);
        let (z, _gz) = state.device_ptr_mut(&stream);
        let call = RawSosCall {
            x: p,
            y: p,
            n,
            channels,
            zi: z,
            zf: z,
            stream: stream.cu_stream() as usize,
        };
        // SAFETY: both buffers live on this context and outlive the synchronisation below;
        // in place is allowed.
        unsafe { g.run_raw(gpu, call)? };
    }
    stream.synchronize().context("waiting for the stream")?;
    let y = stream.clone_dtoh(&buf).context("copying device to host")?;
    let zf = stream
        .clone_dtoh(&state)
        .context("copying device to host")?;
    let _ = buf.device_ptr(&stream);
    Ok(judge(
        g.coefficients(),
        &x,
        channels,
        Some(&zi),
        (&y, Some(&zf)),
    ))
}

/// One stopband-heavy case through the planner on the GPU: host data, device data and device
/// data in place, each judged by the contract (the kernel's result, or the CPU's where the
/// kernel's peaks handed the channel back).
fn planned_case<T: Element>(
    gpu: &Gpu,
    sos: &[[f64; 6]],
    x: &[f64],
    total: &mut CheckReport,
) -> Result<(), FilterError> {
    let target = Target::Gpu(GpuTarget::new(gpu.clone()));
    let filter = match plan::<T>(
        &FilterSpec::Sos(sos.to_vec()),
        FilterOptions::default(),
        &target,
    ) {
        Ok(f) => f,
        Err(e) if e.to_string().contains("unstable") => return Ok(()),
        Err(e) => return Err(e),
    };
    let xt: Vec<T> = x.iter().map(|&v| T::from_f64(v)).collect();
    let (host, _) = filter.apply(&xt, None)?;
    let mut outputs = vec![host];
    // Sections the contract keeps only serially (f64 poles beyond radius 0.999) refuse device
    // data with the way out; the host run above is their whole check.
    if filter.report().method == crate::report::Method::Sos {
        outputs.extend(device_runs(gpu, filter.as_ref(), &xt)?);
    }
    for y in &outputs {
        let reference = SosReference::of_design(sos, &xt, 1, None);
        let r = judge_against(reference, &xt, 1, (y, None));
        total.elements += r.elements;
        total.max_error = total.max_error.max(r.max_error);
        if r.mismatches > 0 && total.mismatches == 0 {
            total.note = format!("{:?}: {}", T::DTYPE, r.note);
        }
        total.mismatches += r.mismatches;
    }
    Ok(())
}

/// The planned filter on device data, out of place and in place: the two outputs.
fn device_runs<T: Element>(
    gpu: &Gpu,
    filter: &dyn crate::engine::Recurrence<T>,
    xt: &[T],
) -> Result<Vec<Vec<T>>, FilterError> {
    let stream = gpu.stream();
    let what = "device data";
    let dx = stream.clone_htod(xt).context(what)?;
    let mut dy = gpu.alloc_poisoned::<T>(xt.len())?;
    filter.apply_device(DeviceBatch {
        x: DeviceSlice::of(&dx),
        channels: 1,
        y: DeviceSliceMut::of(&mut dy),
        zi: None,
        zf: None,
    })?;
    let device = stream.clone_dtoh(&dy).context(what)?;
    let mut inplace = stream.clone_htod(xt).context(what)?;
    {
        let (p, _g) = inplace.device_ptr_mut(stream);
        // SAFETY: both views address the one live buffer of xt.len() values; in place is allowed.
        let (xv, yv) = unsafe {
            (
                DeviceSlice::from_raw(p, xt.len(), gpu),
                DeviceSliceMut::from_raw(p, xt.len(), gpu),
            )
        };
        filter.apply_device(DeviceBatch {
            x: xv,
            channels: 1,
            y: yv,
            zi: None,
            zf: None,
        })?;
    }
    let in_place = stream.clone_dtoh(&inplace).context(what)?;
    Ok(vec![device, in_place])
}

fn stopband(gpu: &Gpu, seed: u64) -> Result<CheckReport, FilterError> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut total = empty_report(0.0);
    #[allow(clippy::approx_constant)]
    planned_case::<f32>(
        gpu,
        &resonator(0.9999, 3.14),
        &chirp(100_003, 0.05),
        &mut total,
    )?;
    let x = chirp(70_001, 0.5 * std::f64::consts::PI);
    planned_case::<f64>(gpu, &CHEBY1_BP, &x, &mut total)?;
    planned_case::<f32>(gpu, &CHEBY1_BP, &x, &mut total)?;
    for case in 0..6 {
        let (_, sos) = stopband_sections(&mut rng);
        let band = (-sos[0][4] / 2.0 / sos[0][5].sqrt())
            .clamp(-1.0, 1.0)
            .acos();
        let n = rng.random_range(30_000..90_000usize);
        let (_, x) = stopband_signal(&mut rng, n, band);
        if case % 2 == 0 {
            planned_case::<f32>(gpu, &sos, &x, &mut total)?;
        } else {
            planned_case::<f64>(gpu, &sos, &x, &mut total)?;
        }
    }
    if total.mismatches == 0 {
        total.note = "every case within the contract on host, device and in-place data".into();
    }
    Ok(total)
}
