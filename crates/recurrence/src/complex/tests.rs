use super::*;

fn signal(n: usize, seed: u64) -> Vec<f64> {
    let mut s = seed;
    (0..2 * n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        })
        .collect()
}

// butter(2, 0.1) and a complex one-pole shifted band-pass.
const B: [f64; 3] = [0.020083365564211, 0.040166731128423, 0.020083365564211];
const A: [f64; 3] = [1.0, -1.561018075800718, 0.641351538057563];

fn complex_spec() -> ComplexSpec {
    // b = [0.1], a = [1, −0.9·e^{i·0.3}]: a one-pole filter centred at 0.3 rad/sample.
    let p = (0.9 * 0.3f64.cos(), 0.9 * 0.3f64.sin());
    ComplexSpec::ba(&[0.1, 0.05], &[0.0, 0.02], &[1.0, -p.0], &[0.0, -p.1]).unwrap()
}

#[test]
fn real_coefficients_filter_both_parts_with_the_real_filter() {
    let spec = ComplexSpec::ba(&B, &[], &A, &[]).unwrap();
    let f = plan_complex::<f64>(&spec, FilterOptions::default(), &Target::cpu()).unwrap();
    assert_eq!(f.report().coefficients, "real");
    let x = signal(3000, 1);
    let (y, zf) = f.apply(&x, None).unwrap();
    // Against SciPy's loop in complex arithmetic.
    let (b, a) = normalised(&B.map(C64::real), &A.map(C64::real));
    let s = Serial::Ba { b, a };
    let mut want = vec![0.0; x.len()];
    let mut z = vec![C64::ZERO; 2];
    s.run(&x, &mut want, &mut z);
    let err = y
        .iter()
        .zip(&want)
        .map(|(p, q)| (p - q).abs())
        .fold(0.0, f64::max);
    assert!(err < 1e-12, "{err}");
    assert!((zf[0] - z[0].re).abs() < 1e-12 && (zf[3] - z[1].im).abs() < 1e-12);
}

#[test]
fn streaming_with_zi_equals_one_shot_on_both_engines() {
    for spec in [ComplexSpec::ba(&B, &[], &A, &[]).unwrap(), complex_spec()] {
        let f = plan_complex::<f64>(&spec, FilterOptions::default(), &Target::cpu()).unwrap();
        let channels = 3;
        let n = 500;
        let x = signal(channels * n, 2);
        let k = f.state_len();
        let zi = signal(channels * k, 3);
        let mut y = vec![0.0; x.len()];
        let mut zf = vec![0.0; zi.len()];
        f.run(&x, channels, &mut y, Some(&zi), Some(&mut zf))
            .unwrap();
        // Channel 1 in two pieces.
        let xc = &x[2 * n..4 * n];
        let (y1, z1) = f.apply(&xc[..2 * 200], Some(&zi[2 * k..4 * k])).unwrap();
        let (y2, z2) = f.apply(&xc[2 * 200..], Some(&z1)).unwrap();
        let joined: Vec<f64> = y1.into_iter().chain(y2).collect();
        let err = joined
            .iter()
            .zip(&y[2 * n..4 * n])
            .map(|(p, q)| (p - q).abs())
            .fold(0.0, f64::max);
        assert!(err < 1e-12, "{}: {err}", f.report().method);
        let zerr = z2.iter().zip(&zf[2 * k..4 * k]).map(|(p, q)| (p - q).abs());
        assert!(zerr.fold(0.0, f64::max) < 1e-12);
    }
}

#[test]
fn complex_coefficients_run_serially_the_same_on_every_thread_count() {
    let spec = complex_spec();
    let one = FilterOptions {
        threads: Some(1),
        ..FilterOptions::default()
    };
    let many = FilterOptions {
        threads: Some(4),
        ..FilterOptions::default()
    };
    let f1 = plan_complex::<f64>(&spec, one, &Target::cpu()).unwrap();
    let f4 = plan_complex::<f64>(&spec, many, &Target::cpu()).unwrap();
    assert_eq!(
        (f1.report().method.as_str(), f1.report().coefficients),
        ("serial", "complex")
    );
    assert!(f1.report().error_bound > 0.0 && f1.report().error_bound < 1e-13);
    let x = signal(8 * 5000, 4);
    let (mut y1, mut y4) = (vec![0.0; x.len()], vec![0.0; x.len()]);
    f1.run(&x, 8, &mut y1, None, None).unwrap();
    f4.run(&x, 8, &mut y4, None, None).unwrap();
    assert_eq!(y1, y4);
    // complex64 parts: computed in f64, rounded once.
    let f = plan_complex::<f32>(&spec, one, &Target::cpu()).unwrap();
    let x32: Vec<f32> = x[..2000].iter().map(|&v| v as f32).collect();
    let (y32, _) = f.apply(&x32, None).unwrap();
    assert!(f.report().reference_bound > f.report().error_bound);
    assert!(y32.iter().all(|v| v.is_finite()));
}

#[test]
fn sections_with_complex_coefficients_match_the_same_filter_as_b_a() {
    let p = C64::new(0.6, 0.5);
    let q = C64::new(-0.3, 0.2);
    // (1 − p z⁻¹)(1 − q z⁻¹) as one section and as (b, a).
    let a = [C64::ONE, -(p + q), p * q];
    let b = [C64::new(0.2, 0.1), C64::new(0.1, 0.0), C64::new(0.0, -0.05)];
    let sos = ComplexSpec::Sos(vec![[b[0], b[1], b[2], a[0], a[1], a[2]]]);
    let ba = ComplexSpec::Ba {
        b: b.to_vec(),
        a: a.to_vec(),
    };
    let fs = plan_complex::<f64>(&sos, FilterOptions::default(), &Target::cpu()).unwrap();
    let fb = plan_complex::<f64>(&ba, FilterOptions::default(), &Target::cpu()).unwrap();
    assert_eq!(fs.report().method, "sos-serial");
    assert_eq!(fs.sections(), Some(1));
    let x = signal(400, 5);
    let (ys, _) = fs.apply(&x, None).unwrap();
    let (yb, _) = fb.apply(&x, None).unwrap();
    let err = ys
        .iter()
        .zip(&yb)
        .map(|(p, q)| (p - q).abs())
        .fold(0.0, f64::max);
    assert!(err < 1e-13, "{err}");
}

#[test]
fn bad_filters_and_inputs_are_refused_with_the_reason() {
    let unstable = ComplexSpec::ba(&[1.0], &[], &[1.0, 0.0], &[0.0, -1.2]).unwrap();
    let e = plan_complex::<f64>(&unstable, FilterOptions::default(), &Target::cpu());
    let e = e.err().unwrap().to_string();
    assert!(
        e.contains("unstable") && e.contains("--allow-unstable"),
        "{e}"
    );
    let allowed = FilterOptions {
        allow_unstable: true,
        ..FilterOptions::default()
    };
    assert!(plan_complex::<f64>(&unstable, allowed, &Target::cpu()).is_ok());
    let a0 = ComplexSpec::ba(&[1.0], &[], &[0.0, 1.0], &[0.0, 1.0]).unwrap();
    let e = plan_complex::<f64>(&a0, FilterOptions::default(), &Target::cpu());
    assert!(e.err().unwrap().to_string().contains("a[0]"));
    let sos = ComplexSpec::sos(
        &[1.0, 0.0, 0.0, 1.0, 0.5, 0.0],
        &[0.0, 0.0, 0.0, 0.5, 0.0, 0.0],
    );
    let e = plan_complex::<f64>(&sos.unwrap(), FilterOptions::default(), &Target::cpu());
    assert!(e.err().unwrap().to_string().contains("a0 = 1"));
    assert!(ComplexSpec::sos(&[1.0; 5], &[]).is_err());
    assert!(ComplexSpec::ba(&[1.0, 2.0], &[1.0], &[1.0], &[]).is_err());
    let ints = plan_complex::<i32>(&complex_spec(), FilterOptions::default(), &Target::cpu());
    assert!(ints
        .err()
        .unwrap()
        .to_string()
        .contains("complex64 or complex128"));

    let f = plan_complex::<f64>(&complex_spec(), FilterOptions::default(), &Target::cpu()).unwrap();
    let mut x = signal(10, 6);
    x[7] = f64::NAN;
    let e = f.apply(&x, None).err().unwrap().to_string();
    assert!(
        e.contains("complex index 3") && e.contains("imaginary"),
        "{e}"
    );
    let mut y = vec![0.0; 5];
    let e = f
        .run(&[0.0; 5], 1, &mut y, None, None)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("(re, im) pairs"), "{e}");
    let mut y = vec![0.0; 4];
    let e = f
        .run(&[0.0; 4], 1, &mut y, Some(&[0.0]), None)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("zi holds 1 values"), "{e}");
}

#[test]
fn a_one_tap_complex_filter_runs_every_channel() {
    // b = 0.5j, a = 1: no state; two channels, with and without zi / zf, several threads.
    let spec = ComplexSpec::ba(&[0.0], &[0.5], &[1.0], &[]).unwrap();
    for threads in [1, 4] {
        let options = FilterOptions {
            threads: Some(threads),
            ..FilterOptions::default()
        };
        let f = plan_complex::<f64>(&spec, options, &Target::cpu()).unwrap();
        assert_eq!(f.state_len(), 0);
        let x = signal(2 * 20_000, 7);
        let mut y = vec![0.0; x.len()];
        f.run(&x, 2, &mut y, Some(&[]), Some(&mut [])).unwrap();
        for (p, q) in x.chunks_exact(2).zip(y.chunks_exact(2)) {
            assert_eq!((q[0], q[1]), (-0.5 * p[1], 0.5 * p[0]));
        }
    }
}
