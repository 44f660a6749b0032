//! The filter front door keeps the accuracy contract on every target: scipy's butter(8, 0.02),
//! butter(6, 0.02) and butter(4, 0.02) as (b, a), in f32 and f64, on two channels of white
//! noise, come back within the error the contract allows ([`Contract`]: 4× scipy's own at the
//! same dtype against a double-double reference) or are refused with the way out — never NaN,
//! never silently wrong. On the CPU, and on a GPU (skipped without one) with host and with
//! device data.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sigpu_recurrence::testing::{butter_0_02, Contract};
use sigpu_recurrence::{
    plan, DeviceBatch, Element, FilterError, FilterOptions, FilterSpec, Method, Recurrence,
};
use sigpu_runtime::cuda::{gpu_for_test, DeviceSlice, DeviceSliceMut};
use sigpu_runtime::{GpuTarget, Target};

/// One case: the filter, two channels of noise in T, and the contract's reference.
struct Case<T> {
    spec: FilterSpec,
    x: Vec<T>,
    contract: Contract,
    name: String,
}

const CHANNELS: usize = 2;

fn case<T: Element>(order: usize, n: usize) -> Case<T> {
    let (b, a) = butter_0_02(order).expect("a tabulated design");
    let mut rng = ChaCha8Rng::seed_from_u64(24 + order as u64);
    let x: Vec<T> = (0..CHANNELS * n)
        .map(|_| T::from_f64(rng.random_range(-1.0..1.0)))
        .collect();
    Case {
        contract: Contract::new(&b, &a, &x, CHANNELS),
        spec: FilterSpec::ba(&b, &a),
        name: format!("butter({order}, 0.02) {}", T::DTYPE),
        x,
    }
}

/// The contract on one result: within the allowed error, or a refusal that names the way out.
fn judge<T: Element>(c: &Case<T>, face: &str, result: Result<Vec<T>, FilterError>) {
    match result {
        Ok(y) => {
            let (err, allowed) = (c.contract.error(&y), c.contract.allowed);
            println!(
                "{} on {face}: error {err:.3e}, allowed {allowed:.3e}",
                c.name
            );
            assert!(
                err <= allowed,
                "{} on {face}: error {err:.3e}, allowed {allowed:.3e}",
                c.name
            );
        }
        Err(FilterError::Refused(why)) => {
            assert!(
                why.contains("host arrays") || why.contains("second-order sections"),
                "{} on {face}: refused without a way out: {why}",
                c.name
            );
            println!("{} on {face}: refused ({why})", c.name);
        }
        Err(e) => panic!("{} on {face}: {e}", c.name),
    }
}

fn on_cpu<T: Element>(order: usize) {
    let c = case::<T>(order, 1 << 18);
    let f = plan::<T>(&c.spec, FilterOptions::default(), &Target::cpu()).unwrap();
    let mut y = vec![T::ZERO; c.x.len()];
    let result = f.apply_batch(&c.x, CHANNELS, &mut y, None, None).map(|_| y);
    judge(&c, "the CPU", result);
}

#[test]
fn butterworth_designs_keep_the_contract_on_the_cpu() {
    for order in [8, 6, 4] {
        on_cpu::<f32>(order);
        on_cpu::<f64>(order);
    }
}

#[test]
fn the_plan_of_a_steep_design_is_not_plr() {
    // butter(8, 0.02): the PLR factors grow to ~3e9, so the contract runs it otherwise.
    let (b, a) = butter_0_02(8).unwrap();
    let spec = FilterSpec::ba(&b, &a);
    let cpu = Target::cpu();
    let m64 = plan::<f64>(&spec, FilterOptions::default(), &cpu).unwrap();
    let m32 = plan::<f32>(&spec, FilterOptions::default(), &cpu).unwrap();
    assert_ne!(m64.report().method, Method::Plr);
    assert_ne!(m32.report().method, Method::Plr);
}

/// scipy.signal.iirnotch(0.9772, 25.1): a notch near Nyquist whose 1/A amplifies roundings
/// (‖h_{1/A}‖₁ ≈ 209), driven by white noise whose second half is 10⁻⁶ as loud. The GPU's
/// blocked (b, a) kernel was 7.6× SciPy's error on it (f64) and the CPU's up to 4.7×.
fn notch_case<T: Element>(n: usize) -> Case<T> {
    let b = [0.9423018941699558, 1.8797712666449462, 0.9423018941699558];
    let a = [1.0, 1.8797712666449462, 0.8846037883399116];
    let mut rng = ChaCha8Rng::seed_from_u64(77);
    let x: Vec<T> = (0..CHANNELS * n)
        .map(|i| {
            let quiet = if i % n >= n / 2 { 1e-6 } else { 1.0 };
            T::from_f64(quiet * rng.random_range(-1.0..1.0))
        })
        .collect();
    Case {
        contract: Contract::new(&b, &a, &x, CHANNELS),
        spec: FilterSpec::ba(&b, &a),
        name: format!("iirnotch(0.9772, 25.1) {}", T::DTYPE),
        x,
    }
}

#[test]
fn a_notch_near_nyquist_is_not_blocked_as_ba_on_the_cpu_and_keeps_the_contract() {
    fn one<T: Element>() {
        let c = notch_case::<T>(40_009);
        let f = plan::<T>(&c.spec, FilterOptions::default(), &Target::cpu()).unwrap();
        assert_ne!(f.report().method, Method::Plr, "{}", c.name);
        let mut y = vec![T::ZERO; c.x.len()];
        let result = f.apply_batch(&c.x, CHANNELS, &mut y, None, None).map(|_| y);
        judge(&c, "the CPU", result);
    }
    one::<f32>();
    one::<f64>();
}

#[test]
fn a_notch_near_nyquist_runs_as_checked_sections_on_a_gpu() {
    let Some(gpu) = gpu_for_test("a_notch_near_nyquist_runs_as_checked_sections_on_a_gpu") else {
        return;
    };
    let target = Target::Gpu(GpuTarget::new(gpu));
    fn one<T: Element>(target: &Target) {
        let c = notch_case::<T>(40_009);
        let f = plan::<T>(&c.spec, FilterOptions::default(), target).unwrap();
        // Not the blocked (b, a) kernel: checked sections (f64), the checked pole cascade, or
        // the CPU (device data refused with the way out).
        assert_ne!(f.report().method, Method::Plr, "{}", c.name);
        gpu_faces(target, &c);
        // With zi: the (b, a) filter on the CPU for host data, refused for device data.
        let mut y = vec![T::ZERO; c.x.len()];
        let zi = vec![T::ZERO; CHANNELS * f.state_len()];
        let mut zf = vec![T::ZERO; CHANNELS * f.state_len()];
        let host = (f.apply_batch(&c.x, CHANNELS, &mut y, Some(&zi), Some(&mut zf))).map(|_| y);
        judge(&c, "a GPU (host data, zi)", host);
        // zf without zi: the GPU's method (its bound stands), zf as the CPU's within rounding.
        let mut y = vec![T::ZERO; c.x.len()];
        let mut zf = vec![T::ZERO; CHANNELS * f.state_len()];
        let host = (f.apply_batch(&c.x, CHANNELS, &mut y, None, Some(&mut zf))).map(|_| y);
        judge(&c, "a GPU (host data, zf)", host);
        let cpu = plan::<T>(&c.spec, FilterOptions::default(), &Target::cpu()).unwrap();
        let mut cy = vec![T::ZERO; c.x.len()];
        let mut czf = vec![T::ZERO; CHANNELS * f.state_len()];
        cpu.apply_batch(&c.x, CHANNELS, &mut cy, None, Some(&mut czf))
            .unwrap();
        let top = czf.iter().fold(0.0f64, |m, v| m.max(v.to_f64().abs()));
        let diff =
            (zf.iter().zip(&czf)).fold(0.0f64, |m, (a, b)| m.max((a.to_f64() - b.to_f64()).abs()));
        let tol = if T::DTYPE == sigpu_recurrence::DType::F32 {
            1e-4
        } else {
            1e-9
        };
        assert!(
            diff <= tol * top,
            "{}: zf off the CPU's by {diff:e} of {top:e}",
            c.name
        );
    }
    one::<f32>(&target);
    one::<f64>(&target);
}

fn on_gpu<T: Element>(target: &Target, order: usize) {
    gpu_faces(target, &case::<T>(order, 1 << 20));
}

/// One case on a GPU target, with host data and with device data.
fn gpu_faces<T: Element>(target: &Target, c: &Case<T>) {
    let f = plan::<T>(&c.spec, FilterOptions::default(), target).unwrap();
    // Host data on the GPU target.
    let mut y = vec![T::ZERO; c.x.len()];
    let host = f.apply_batch(&c.x, CHANNELS, &mut y, None, None).map(|_| y);
    judge(c, "a GPU (host data)", host);
    // Device data on the target's stream.
    let g = target.gpu().expect("a GPU target");
    let dx = g.gpu().upload(&c.x).unwrap();
    let mut dy = g.gpu().upload(&vec![T::ZERO; c.x.len()]).unwrap();
    g.gpu().synchronize().unwrap();
    let batch = DeviceBatch {
        x: DeviceSlice::of(&dx),
        channels: CHANNELS,
        y: DeviceSliceMut::of(&mut dy),
        zi: None,
        zf: None,
    };
    let device = f.apply_device(batch).and_then(|()| {
        g.synchronize()?;
        Ok(g.gpu().download(&dy)?)
    });
    judge(c, "a GPU (device data)", device);
}

#[test]
fn butterworth_designs_keep_the_contract_on_a_gpu() {
    let Some(gpu) = gpu_for_test("butterworth_designs_keep_the_contract_on_a_gpu") else {
        return;
    };
    let target = Target::Gpu(GpuTarget::new(gpu));
    for order in [8, 6, 4] {
        on_gpu::<f32>(&target, order);
        on_gpu::<f64>(&target, order);
    }
}

/// scipy.signal.butter(4, 0.1): the contract keeps it off the blocked (b, a) method, so on the
/// CPU it runs as sections converted from (b, a).
#[allow(clippy::excessive_precision)]
const BUTTER_4_0_1: ([f64; 5], [f64; 5]) = (
    [
        0.00041659920440659937,
        0.0016663968176263975,
        0.002499595226439596,
        0.0016663968176263975,
        0.00041659920440659937,
    ],
    [
        1.0,
        -3.180638548874719,
        3.8611943489942133,
        -2.112155355110969,
        0.43826514226197977,
    ],
);

#[test]
fn a_ba_design_kept_off_plr_runs_as_sections_on_the_cpu_within_its_bound() {
    let (b, a) = BUTTER_4_0_1;
    let n = 1 << 18;
    let mut rng = ChaCha8Rng::seed_from_u64(41);
    let x: Vec<f64> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
    let spec = FilterSpec::ba(&b, &a);
    let f = plan::<f64>(&spec, FilterOptions::default(), &Target::cpu()).unwrap();
    let report = f.report().clone();
    assert_eq!(report.method, Method::Sections);
    assert!(
        16.0 * report.error_bound <= report.reference_bound,
        "{report:?}"
    );
    let (_, zf) = keeps_contract_and_bound(f.as_ref(), &b, &a, &x);
    // zf is the (b, a) state, and a run continued from it (the (b, a) method, as every call
    // with zi) equals one run over both pieces.
    let serial = FilterOptions {
        strategy: sigpu_recurrence::Strategy::Serial,
        ..FilterOptions::default()
    };
    let s = plan::<f64>(&spec, serial, &Target::cpu()).unwrap();
    assert_eq!(s.report().method, Method::Serial);
    let (ys, zfs) = s.apply(&x, None).unwrap();
    let peak = ys.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    for (g, w) in zf.iter().zip(&zfs) {
        assert!((g - w).abs() <= 1e-12 * peak, "zf {g} against {w}");
    }
    let cut = n / 2 + 7;
    let (y1, z1) = f.apply(&x[..cut], None).unwrap();
    let (y2, _) = f.apply(&x[cut..], Some(&z1)).unwrap();
    let joined: Vec<f64> = y1.into_iter().chain(y2).collect();
    let contract = Contract::new(&b, &a, &x, 1);
    assert!(contract.error(&joined) <= contract.allowed);
}

/// scipy.signal.butter(10, 0.033251205475768174): a (b, a) design far worse conditioned than its sections.
#[allow(clippy::excessive_precision)]
const BUTTER_10_0_033: ([f64; 11], [f64; 11]) = (
    [
        1.0917778996003463e-13,
        1.0917778996003464e-12,
        4.913000548201558e-12,
        1.3101334795204156e-11,
        2.2927335891607272e-11,
        2.7512803069928728e-11,
        2.2927335891607272e-11,
        1.3101334795204156e-11,
        4.913000548201558e-12,
        1.0917778996003464e-12,
        1.0917778996003463e-13,
    ],
    [
        1.0,
        -9.33225362768319,
        39.211970792490426,
        -97.68668082664082,
        159.78834754169236,
        -179.31532544355005,
        139.81132152161624,
        -74.78620812107242,
        26.264982550916923,
        -5.4688027543804285,
        0.5126483667227196,
    ],
);

#[test]
fn an_ill_conditioned_ba_design_as_sections_meets_the_bound_it_reports() {
    // Against the exact output of the coefficients (double-double) the sections keep their
    // bound (3.5e-12; measured 5.5e-15). A long-double reference is off by ~1e-8 of max|y| on
    // this design, so it cannot check the bound (SciPy's own error is 3.6e-5).
    let (b, a) = BUTTER_10_0_033;
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let x: Vec<f64> = (0..40_009).map(|_| rng.random_range(-1.0..1.0)).collect();
    let f = plan::<f64>(
        &FilterSpec::ba(&b, &a),
        FilterOptions::default(),
        &Target::cpu(),
    )
    .unwrap();
    keeps_contract_and_bound(f.as_ref(), &b, &a, &x);
}

/// Runs `f` over `x` and asserts the contract against the exact (double-double) output of
/// (b, a) and the error bound the filter reports; returns (y, zf).
fn keeps_contract_and_bound(
    f: &dyn Recurrence<f64>,
    b: &[f64],
    a: &[f64],
    x: &[f64],
) -> (Vec<f64>, Vec<f64>) {
    let report = f.report().clone();
    let contract = Contract::new(b, a, x, 1);
    let (y, zf) = f.apply(x, None).unwrap();
    let err = contract.error(&y);
    assert!(
        err <= contract.allowed,
        "error {err:.3e}, allowed {:.3e}",
        contract.allowed
    );
    let worst = y
        .iter()
        .zip(&contract.exact)
        .fold(0.0f64, |m, (g, e)| m.max((g - e).abs()));
    assert!(
        worst <= report.error_bound,
        "{:?}: {worst:.3e} > {:.3e}",
        report.method,
        report.error_bound
    );
    (y, zf)
}

#[test]
fn channels_handed_back_run_again_on_the_gpu_a_launch_per_run_of_channels() {
    // butter(8, 0.005) as sections, f32, white noise: the fast kernel's corrections dwarf the
    // output on every channel, so each runs again by the f64-arithmetic kernel — on the
    // device, one launch for the batch, not one host round trip per channel — and later calls
    // start with that kernel. Every channel within the contract, the calls alike bit for bit.
    let Some(gpu) = gpu_for_test("channels_handed_back_run_again_on_the_gpu") else {
        return;
    };
    use sigpu_recurrence::testing::{SosReference, BUTTER8_0005};
    let target = Target::Gpu(GpuTarget::new(gpu));
    let g = target.gpu().expect("a GPU target");
    let (channels, n) = (64, 1 << 14);
    let mut rng = ChaCha8Rng::seed_from_u64(31);
    let x: Vec<f32> = (0..channels * n)
        .map(|_| rng.random_range(-1.0f32..1.0))
        .collect();
    let spec = FilterSpec::Sos(BUTTER8_0005.to_vec());
    let f = plan::<f32>(&spec, FilterOptions::default(), &target).unwrap();
    let dx = g.gpu().upload(&x).unwrap();
    let mut outputs = Vec::new();
    for _ in 0..2 {
        let mut dy = g.gpu().upload(&vec![0.0f32; x.len()]).unwrap();
        g.gpu().synchronize().unwrap();
        let batch = DeviceBatch {
            x: DeviceSlice::of(&dx),
            channels,
            y: DeviceSliceMut::of(&mut dy),
            zi: None,
            zf: None,
        };
        f.apply_device(batch).unwrap();
        g.synchronize().unwrap();
        outputs.push(g.gpu().download(&dy).unwrap());
    }
    let mut host = vec![0.0f32; x.len()];
    f.apply_batch(&x, channels, &mut host, None, None).unwrap();
    assert!(outputs[0] == outputs[1], "the two device calls differ");
    assert!(outputs[0] == host, "device and host data differ");
    for c in [0, 17, channels - 1] {
        let xc = &x[c * n..(c + 1) * n];
        let r = SosReference::of_design(&BUTTER8_0005, xc, 1, None);
        let err = r.error(&outputs[0][c * n..(c + 1) * n]);
        assert!(
            err <= (4.0 * r.serial).max(SosReference::floor::<f32>()),
            "channel {c}: {err:e} vs SciPy's {:e}",
            r.serial
        );
    }
}
