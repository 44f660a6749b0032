//! `sigpu check` entries of the complex-coefficient kernel: fresh random stable filters with
//! complex poles ((b, a) and sections), complex64 and complex128 data with zi, run on the GPU
//! from poisoned outputs and compared with the CPU engine (its twin) bit for bit, y and zf;
//! from a zero state, y also against a double-double run of the same loop, within the plan's
//! reported bound.

use super::c64::C64;
use super::cases::{random_spec, reference, relative_error};
use super::chunked;
#[cfg(test)]
use super::serial::Serial;
use super::{plan_complex, ComplexSpec};
use crate::elem::Element;
use crate::engine::DeviceBatch;
use crate::error::FilterError;
use crate::filter::FilterOptions;
use crate::time_varying::cases::white;
use crate::time_varying::merged;
use sigpu_runtime::cuda::{
    check_result, compare_exact, Check, CheckReport, DeviceSlice, DeviceSliceMut, DriverContext,
    Gpu,
};
use sigpu_runtime::{GpuTarget, Target};

/// The kernel's checks, in the order `sigpu check` runs them.
pub fn checks() -> Vec<Check> {
    vec![
        Check::new(
            "recurrence/complex_serial_f64",
            "complex coefficients, complex128: order-4 (b, a) and 3 complex sections, 37 \
             channels of 777 with zi, bit for bit vs the CPU serial engine (y, zf); from zero, \
             y vs double-double within the reported bound",
            |gpu, seed| check_result(both::<f64>(gpu, seed, 37, 777)),
        ),
        Check::new(
            "recurrence/complex_serial_f32",
            "the same on complex64 (filtered in f64, rounded once): bit for bit vs the CPU",
            |gpu, seed| check_result(both::<f32>(gpu, seed, 37, 777)),
        ),
        Check::new(
            "recurrence/complex_chunked_f32",
            "complex64, few long channels (3 of 16·4096 + 1234): the chunked scan, order-3 \
             (b, a) and 2 complex sections with zi, bit for bit vs its CPU twin (y, zf); from \
             zero, y vs double-double within the reported bound",
            |gpu, seed| check_result(scan(gpu, seed)),
        ),
        Check::new(
            "recurrence/complex_serial_shapes",
            "one-tap FIR, order 1, order 12, 12 sections; lengths 1 … 300, 1 … 70 channels, \
             complex128, bit for bit vs the CPU",
            |gpu, seed| check_result(shapes(gpu, seed)),
        ),
    ]
}

/// One call's inputs: `channels` channels of `n` complex samples, and a state.
struct Case<T> {
    spec: ComplexSpec,
    channels: usize,
    x: Vec<T>,
    zi: Option<Vec<T>>,
}

/// What a run gives: y and zf.
struct Out<T> {
    y: Vec<T>,
    zf: Vec<T>,
}

impl<T: Element> Case<T> {
    fn new(spec: ComplexSpec, seed: u64, channels: usize, n: usize, zi: bool) -> Self {
        let conv = |v: Vec<f64>| v.into_iter().map(T::from_f64).collect::<Vec<T>>();
        let state = match &spec {
            ComplexSpec::Ba { b, a } => a.len().max(b.len()) - 1,
            ComplexSpec::Sos(rows) => 2 * rows.len(),
        };
        Case {
            spec,
            channels,
            x: conv(white(seed, 2 * channels * n)),
            zi: zi.then(|| conv(white(seed ^ 7, 2 * channels * state))),
        }
    }

    /// The CPU serial engine (the twin).
    fn cpu(&self) -> Result<Out<T>, FilterError> {
        let f = plan_complex::<T>(&self.spec, FilterOptions::default(), &Target::cpu())?;
        let mut out = Out {
            y: vec![T::ZERO; self.x.len()],
            zf: vec![T::ZERO; 2 * self.channels * f.state_len()],
        };
        f.run(
            &self.x,
            self.channels,
            &mut out.y,
            self.zi.as_deref(),
            Some(&mut out.zf),
        )?;
        Ok(out)
    }

    /// The chunked scan's twin (module `chunked`) of `f`'s plan, channel by channel.
    fn scan_twin(&self, f: &super::ComplexFilter<T>) -> Option<Out<T>> {
        let (serial, phi) = f.scan_parts()?;
        let k = serial.state_len();
        let len = self.x.len() / self.channels;
        let mut out = Out {
            y: vec![T::ZERO; self.x.len()],
            zf: Vec::new(),
        };
        for (c, (xc, yc)) in self.x.chunks(len).zip(out.y.chunks_mut(len)).enumerate() {
            let mut z: Vec<C64> = match &self.zi {
                Some(zi) => zi[2 * c * k..2 * (c + 1) * k]
                    .chunks_exact(2)
                    .map(|p| C64::new(p[0].to_f64(), p[1].to_f64()))
                    .collect(),
                None => vec![C64::ZERO; k],
            };
            chunked::run(serial, phi, xc, yc, &mut z);
            out.zf.extend(
                z.iter()
                    .flat_map(|v| [T::from_f64(v.re), T::from_f64(v.im)]),
            );
        }
        Some(out)
    }

    /// The kernel, through the plan's device call on poisoned outputs; and the plan's bound.
    fn gpu(&self, gpu: &Gpu) -> Result<(Out<T>, f64), FilterError> {
        let target = GpuTarget::new(gpu.clone());
        let f = plan_complex::<T>(
            &self.spec,
            FilterOptions::default(),
            &Target::Gpu(target.clone()),
        )?;
        let stream = target.stream();
        let what = "copying the complex check's data";
        let dx = stream.clone_htod(&self.x).context(what)?;
        let dzi = self
            .zi
            .as_ref()
            .map(|z| stream.clone_htod(z))
            .transpose()
            .context(what)?;
        let state = 2 * self.channels * f.state_len();
        let mut dy = gpu.alloc_poisoned::<T>(self.x.len())?;
        let mut dzf = gpu.alloc_poisoned::<T>(state.max(1))?;
        // A filter without state has an empty zf.
        let zf = (state > 0).then(|| DeviceSliceMut::of(&mut dzf));
        f.run_device(DeviceBatch {
            x: DeviceSlice::of(&dx),
            channels: self.channels,
            y: DeviceSliceMut::of(&mut dy),
            zi: dzi.as_ref().map(DeviceSlice::of),
            zf,
        })?;
        let mut out = Out {
            y: vec![T::ZERO; self.x.len()],
            zf: vec![T::ZERO; state.max(1)],
        };
        stream.memcpy_dtoh(&dy, &mut out.y).context(what)?;
        stream.memcpy_dtoh(&dzf, &mut out.zf).context(what)?;
        stream.synchronize().context(what)?;
        out.zf.truncate(state);
        Ok((out, f.report().error_bound))
    }
}

fn bits<T: Element>(v: &[T]) -> Vec<u64> {
    v.iter().map(|x| x.to_f64().to_bits()).collect()
}

/// GPU against CPU, bit for bit, y and zf together.
fn compare<T: Element>(got: &Out<T>, want: &Out<T>) -> CheckReport {
    let g: Vec<u64> = bits(&got.y).into_iter().chain(bits(&got.zf)).collect();
    let w: Vec<u64> = bits(&want.y).into_iter().chain(bits(&want.zf)).collect();
    compare_exact(&g, &w)
}

/// (b, a) and sections, with zi (bit for bit) and from zero (bit for bit, and within the
/// bound of the double-double run).
fn both<T: Element>(
    gpu: &Gpu,
    seed: u64,
    channels: usize,
    n: usize,
) -> Result<CheckReport, FilterError> {
    let specs = [
        random_spec(seed, 4, None),
        random_spec(seed ^ 1, 0, Some(3)),
    ];
    against_twin::<T>(gpu, seed, specs, channels, n, false)
}

/// The chunked scan on the GPU (complex64, 3 long channels) against its twin.
fn scan(gpu: &Gpu, seed: u64) -> Result<CheckReport, FilterError> {
    let specs = [
        random_spec(seed, 3, None),
        random_spec(seed ^ 5, 0, Some(2)),
    ];
    against_twin::<f32>(gpu, seed, specs, 3, chunked::MIN_LENGTH + 1234, true)
}

/// `specs` ((b, a), then sections) on the GPU against the twin — the serial engine, or with
/// `scan` the chunked scan's — bit for bit, with zi and from zero; from zero, y also within
/// the plan's bound of the double-double run.
fn against_twin<T: Element>(
    gpu: &Gpu,
    seed: u64,
    specs: [ComplexSpec; 2],
    channels: usize,
    n: usize,
    scan: bool,
) -> Result<CheckReport, FilterError> {
    let mut all: Option<CheckReport> = None;
    let mut notes = Vec::new();
    let target = Target::Gpu(GpuTarget::new(gpu.clone()));
    for (i, spec) in specs.into_iter().enumerate() {
        for zi in [true, false] {
            let case = Case::<T>::new(spec.clone(), seed + i as u64, channels, n, zi);
            let (got, bound) = case.gpu(gpu)?;
            let want = match scan {
                false => case.cpu()?,
                true => {
                    let f = plan_complex::<T>(&spec, FilterOptions::default(), &target)?;
                    case.scan_twin(&f).ok_or_else(|| {
                        FilterError::Input(format!("the plan of {spec} built no chunked scan"))
                    })?
                }
            };
            let mut r = compare(&got, &want);
            if !zi {
                let x: Vec<f64> = case.x.iter().map(|v| v.to_f64()).collect();
                let err = relative_error(&got.y, &reference(&spec, &x, channels), &case.x);
                if err > bound {
                    r.mismatches += 1;
                }
                notes.push(format!(
                    "{}: {err:.1e} of max|x| vs double-double (bound {bound:.1e})",
                    if i == 0 { "(b, a)" } else { "sections" }
                ));
            }
            all = Some(merged(all, r));
        }
    }
    Ok(all.expect("cases").with_note(notes.join(", ")))
}

fn shapes(gpu: &Gpu, seed: u64) -> Result<CheckReport, FilterError> {
    let mut all: Option<CheckReport> = None;
    let fir = ComplexSpec::ba(&[0.5], &[-0.25], &[1.0], &[0.5]).expect("valid");
    for (i, (spec, channels, n)) in [
        (fir, 3, 17),
        (random_spec(seed, 1, None), 70, 1),
        (random_spec(seed ^ 2, 12, None), 5, 300),
        (random_spec(seed ^ 3, 0, Some(12)), 33, 64),
    ]
    .into_iter()
    .enumerate()
    {
        let case = Case::<f64>::new(spec, seed + 10 + i as u64, channels, n, true);
        let (got, _) = case.gpu(gpu)?;
        all = Some(merged(all, compare(&got, &case.cpu()?)));
    }
    Ok(all.expect("cases"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_serial_engine_is_within_its_bound_of_double_double() {
        // The twin against the reference the GPU check uses: within the reported bound, for
        // (b, a) of order 4 and 3 sections, complex128 and complex64.
        for spec in [random_spec(3, 4, None), random_spec(4, 0, Some(3))] {
            let c = Case::<f64>::new(spec.clone(), 5, 4, 500, false);
            let y = c.cpu().unwrap().y;
            let f = plan_complex::<f64>(&spec, FilterOptions::default(), &Target::cpu()).unwrap();
            let x: Vec<f64> = c.x.clone();
            let err = relative_error(&y, &reference(&spec, &x, 4), &c.x);
            assert!(err <= f.report().error_bound, "{err} {:?}", f.report());
            assert!(err > 0.0 || f.report().error_bound > 0.0);
            let c32 = Case::<f32>::new(spec.clone(), 5, 4, 500, false);
            let y32 = c32.cpu().unwrap().y;
            let f32p =
                plan_complex::<f32>(&spec, FilterOptions::default(), &Target::cpu()).unwrap();
            let x32: Vec<f64> = c32.x.iter().map(|v| v.to_f64()).collect();
            let err = relative_error(&y32, &reference(&spec, &x32, 4), &c32.x);
            assert!(
                err <= f32p.report().error_bound,
                "{err} {:?}",
                f32p.report()
            );
        }
    }

    #[test]
    fn the_chunked_twin_is_within_its_bound_and_near_the_serial_loop() {
        // The scan's twin from a zero state and from zi, complex64, a long channel: within the
        // reported bound of double-double, and its zf near the serial loop's.
        let n = chunked::MIN_LENGTH + 999;
        for spec in [random_spec(8, 3, None), random_spec(9, 0, Some(2))] {
            let (serial, phi, bound) = scan_of(&spec);
            let c = Case::<f32>::new(spec.clone(), 11, 1, n, false);
            let mut y = vec![0.0f32; c.x.len()];
            let mut z = vec![C64::ZERO; serial.state_len()];
            chunked::run(&serial, &phi, &c.x, &mut y, &mut z);
            let x: Vec<f64> = c.x.iter().map(|v| v.to_f64()).collect();
            let err = relative_error(&y, &reference(&spec, &x, 1), &c.x);
            assert!(err <= bound, "{spec}: {err} > {bound}");
            let mut y_serial = vec![0.0f32; c.x.len()];
            serial.run(
                &c.x,
                &mut y_serial,
                &mut vec![C64::ZERO; serial.state_len()],
            );
            let serial_err = relative_error(&y_serial, &reference(&spec, &x, 1), &c.x);
            println!("{spec}: scan {err:.2e}, serial {serial_err:.2e}, bound {bound:.2e}");
            // The scan's bound keeps the complex64 contract.
            let cpu = plan_complex::<f32>(&spec, FilterOptions::default(), &Target::cpu()).unwrap();
            assert!(bound <= 4.0 * cpu.report().reference_bound);
            let mut serial_z = vec![C64::ZERO; serial.state_len()];
            let mut y2 = vec![0.0f32; c.x.len()];
            serial.run(&c.x, &mut y2, &mut serial_z);
            for (p, q) in z.iter().zip(&serial_z) {
                assert!((*p - *q).abs() < 1e-9, "{p:?} {q:?}");
            }
        }
    }

    #[test]
    fn the_scan_is_planned_where_it_keeps_the_contract() {
        // Φ by squaring is the transition of CHUNK zero-input steps of the loop itself.
        let spec = random_spec(21, 3, None);
        let (serial, phi, _) = scan_of(&spec);
        let k = serial.state_len();
        for j in 0..k {
            let mut z = vec![C64::ZERO; k];
            z[j] = C64::ONE;
            for _ in 0..chunked::CHUNK {
                serial.step(&mut z, C64::ZERO);
            }
            for i in 0..k {
                assert!((z[i] - phi[i * k + j]).abs() <= 1e-12, "{i} {j}");
            }
        }
        // A pole at radius 0.9995 (Φ ≈ 0.13, its powers summed over a few dozen terms).
        let p = C64::new(0.9995 * 0.3f64.cos(), 0.9995 * 0.3f64.sin());
        let slow = ComplexSpec::Ba {
            b: vec![C64::new(0.01, 0.0)],
            a: vec![C64::ONE, -p],
        };
        let (_, phi, bound) = scan_of(&slow);
        assert!((phi[0].abs() - 0.9995f64.powi(4096)).abs() < 1e-9);
        assert!(bound.is_finite());
        // No scan past its largest state: order 20 runs one thread per channel.
        let (serial, b, a, _) = super::super::serial_of(&random_spec(3, 20, None));
        let norms = super::super::scan_norms(&b, &a, 20);
        assert!(chunked::plan(&serial, 20, &norms).is_none());
    }

    /// The scan `plan_complex` builds for complex64 on a GPU, without a GPU.
    fn scan_of(spec: &ComplexSpec) -> (Serial, Vec<C64>, f64) {
        let (serial, b, a, _) = super::super::serial_of(spec);
        let k = serial.state_len();
        let scan = chunked::plan(&serial, k, &super::super::scan_norms(&b, &a, k))
            .expect("a scan for a well-damped filter");
        (serial, scan.phi, scan.bound)
    }

    #[test]
    fn random_filters_are_stable_and_complex() {
        for seed in 0..20 {
            for spec in [random_spec(seed, 6, None), random_spec(seed, 0, Some(4))] {
                assert!(spec.as_real().is_none());
                plan_complex::<f64>(&spec, FilterOptions::default(), &Target::cpu())
                    .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            }
        }
    }

    #[test]
    fn the_kernel_compiles_for_what_the_planner_builds() {
        if !sigpu_runtime::cuda::nvrtc_for_test("the_kernel_compiles_for_what_the_planner_builds") {
            return;
        }
        use sigpu_runtime::cuda::{compile, KernelCache};
        for (real, sos, state) in [
            ("double", false, 0),
            ("double", false, 4),
            ("float", false, 1),
            ("double", true, 6),
            ("float", true, 2),
            ("double", false, crate::MAX_ORDER),
        ] {
            let source = super::super::gpu::kernel_source(real, sos, state);
            let compiled = compile(&source, "sm_90", &KernelCache::disabled())
                .unwrap_or_else(|e| panic!("{real} sos={sos} state {state}: {e}"));
            let names = compiled.kernel_names();
            assert!(names.iter().any(|n| n == super::super::gpu::KERNEL));
            // The chunked scan's passes are built for states up to its largest.
            for pass in [
                "complex_chunk_end",
                "complex_chunk_carry",
                "complex_chunk_apply",
            ] {
                let built = names.iter().any(|n| n == pass);
                assert_eq!(built, state <= chunked::MAX_STATE, "{pass}, state {state}");
            }
        }
    }
}
