//! Against scipy.signal (fixtures from `tests/data/gen_scipy_fixtures.py`, scipy 1.17.1):
//! exact stability verdicts for 362 designs, the accuracy contract (within 4× SciPy's error at
//! the same dtype against a long-double reference) for (b, a) and sections in f64 and f32,
//! filtfilt / sosfiltfilt, lfilter_zi / sosfilt_zi, shapes and bad input.

use serde_json::Value;
use sigpu_recurrence::signal;
use sigpu_recurrence::stability::{step_down, Stability};
use sigpu_recurrence::{FilterOptions, Lfilter, Method, Recurrence, Sos};

fn fixtures() -> Value {
    let text = include_str!("data/scipy_designs.json");
    serde_json::from_str(text).expect("fixture JSON")
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|x| x.as_f64().expect("number"))
        .collect()
}

fn rows(v: &Value) -> Vec<[f64; 6]> {
    v.as_array()
        .expect("rows")
        .iter()
        .map(|r| {
            let r = floats(r);
            [r[0], r[1], r[2], r[3], r[4], r[5]]
        })
        .collect()
}

fn x_of(n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| ((7919 * i) % 1013) as f64 / 506.5 - 1.0)
        .collect()
}

#[test]
fn stability_verdicts_are_exact_for_every_scipy_design() {
    let f = fixtures();
    let designs = f["stability"].as_array().unwrap();
    assert!(designs.len() >= 360);
    let mut refused = 0;
    for d in designs {
        let name = d["name"].as_str().unwrap();
        let a = floats(&d["a"]);
        let an: Vec<f64> = a[1..].iter().map(|v| v / a[0]).collect();
        let stable = matches!(step_down(&an), Stability::Stable { .. });
        // a[0] = 1 in every scipy design, so the division is exact and the verdicts agree.
        assert_eq!(a[0], 1.0, "{name}");
        assert_eq!(stable, d["ba_stable"].as_bool().unwrap(), "{name}");
        refused += usize::from(!stable);
        // Every scipy section is stable: none may be refused.
        for (s, r) in rows(&d["sos"]).iter().enumerate() {
            assert!(
                matches!(step_down(&[r[4], r[5]]), Stability::Stable { .. }),
                "{name} section {s}"
            );
        }
    }
    assert!(refused > 0);
    // butter(11 / 12, 0.02) are unstable in f64 (b, a): the filter refuses, naming the way out,
    // while their sections run.
    for d in &designs[designs.len() - 2..] {
        let e = Lfilter::<f64>::new(&floats(&d["b"]), &floats(&d["a"]), FilterOptions::default())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("unstable") && e.contains("--allow-unstable"),
            "{e}"
        );
        Sos::<f64>::new(&rows(&d["sos"]), FilterOptions::default()).unwrap();
    }
}

#[test]
fn accuracy_contract_against_scipy_at_the_same_dtype() {
    let f = fixtures();
    let x = x_of(40001);
    let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
    let mut methods = std::collections::BTreeMap::new();
    for d in f["accuracy"].as_array().unwrap() {
        let name = d["name"].as_str().unwrap();
        let (b, a, sos) = (floats(&d["b"]), floats(&d["a"]), rows(&d["sos"]));
        for form in ["ba", "sos"] {
            let r = &d[format!("out_{form}")];
            let reference = floats(&r["ref"]);
            let peak = reference.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            let err = |y: &[f64]| {
                (0..reference.len())
                    .map(|j| (y[97 * j] - reference[j]).abs())
                    .fold(0.0f64, f64::max)
                    / peak
            };
            let opts = FilterOptions::default();
            let shape = [x.len()];
            let (y64, m64) = match form {
                "ba" => {
                    let o = signal::lfilter(&b, &a, &x, &shape, -1, None, &opts).unwrap();
                    (o.y, o.report.method)
                }
                _ => {
                    let o = signal::sosfilt(&sos, &x, &shape, -1, None, &opts).unwrap();
                    (o.y, o.report.method)
                }
            };
            let out32 = match form {
                "ba" => signal::lfilter(&b, &a, &x32, &shape, -1, None, &opts),
                _ => signal::sosfilt(&sos, &x32, &shape, -1, None, &opts),
            };
            // Never a silent wrong answer: where the (b, a) rounded to f32 is unstable (scipy's
            // f32 output is then non-finite), sigpu runs stable f32 sections from the f64
            // poles, or refuses saying so.
            let y32: Vec<f64> = match out32 {
                Ok(o) => o.y.iter().map(|&v| v as f64).collect(),
                Err(e) => {
                    assert!(
                        e.to_string().contains("are unstable"),
                        "{name} {form} f32: {e}"
                    );
                    assert!(
                        r["scipy_f32"].as_f64().unwrap() >= 1.0,
                        "{name}: refused {e}"
                    );
                    continue;
                }
            };
            assert!(
                y32.iter().all(|v| v.is_finite()),
                "{name} {form} f32: non-finite output"
            );
            *methods.entry(m64.name()).or_insert(0) += 1;
            let (e64, e32) = (err(&y64), err(&y32));
            let (s64, s32) = (
                r["scipy_f64"].as_f64().unwrap(),
                r["scipy_f32"].as_f64().unwrap(),
            );
            assert!(
                e64 <= (4.0 * s64).max(8.0 * f64::EPSILON),
                "{name} {form} f64 ({}): {e64:e} vs scipy {s64:e}",
                m64.name()
            );
            assert!(
                e32 <= (4.0 * s32).max(8.0 * f32::EPSILON as f64),
                "{name} {form} f32: {e32:e} vs scipy {s32:e}"
            );
        }
    }
    // The suite exercises the blocked methods, not only the serial fallback.
    assert!(methods.get("sos").copied().unwrap_or(0) > 10, "{methods:?}");
    assert!(methods.contains_key("plr"), "{methods:?}");
}

#[test]
fn state_carries_across_pieces_for_every_method() {
    let f = fixtures();
    let x = x_of(50_001);
    for d in f["accuracy"].as_array().unwrap().iter().take(8) {
        let (b, a, sos) = (floats(&d["b"]), floats(&d["a"]), rows(&d["sos"]));
        let opts = FilterOptions::default();
        let ba = Lfilter::<f64>::new(&b, &a, opts).unwrap();
        let ss = Sos::<f64>::new(&sos, opts).unwrap();
        let zi_ba = vec![0.05; ba.state_len()];
        let zi_s = vec![0.05; ss.state_len()];
        let cut = 37_777;
        let (whole, zf) = ba.apply(&x, Some(&zi_ba)).unwrap();
        let (y1, z1) = ba.apply(&x[..cut], Some(&zi_ba)).unwrap();
        let (y2, z2) = ba.apply(&x[cut..], Some(&z1)).unwrap();
        let peak = whole.iter().fold(1e-300f64, |m, v| m.max(v.abs()));
        let tol = 1e-9 * peak.max(1.0);
        for (p, q) in y1.iter().chain(&y2).zip(&whole) {
            assert!(
                (p - q).abs() <= tol,
                "{} ({:?})",
                d["name"],
                ba.report().method
            );
        }
        for (p, q) in z2.iter().zip(&zf) {
            assert!((p - q).abs() <= tol, "{}", d["name"]);
        }
        let (whole, zf) = ss.apply(&x, Some(&zi_s)).unwrap();
        let (y1, z1) = ss.apply(&x[..cut], Some(&zi_s)).unwrap();
        let (y2, z2) = ss.apply(&x[cut..], Some(&z1)).unwrap();
        for (p, q) in y1.iter().chain(&y2).zip(&whole).chain(z2.iter().zip(&zf)) {
            assert!((p - q).abs() <= 1e-12 * peak.max(1.0), "{}", d["name"]);
        }
    }
}

#[test]
fn filtfilt_and_initial_states_match_scipy() {
    let f = fixtures();
    let x = x_of(1001);
    let opts = FilterOptions::default();
    let close = |got: &[f64], want: &[f64], what: &str| {
        let peak = want.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() <= 1e-9 * peak, "{what}: {g} vs {w}");
        }
        assert_eq!(got.len(), want.len(), "{what}");
    };
    for d in f["filtfilt"].as_array().unwrap() {
        let name = d["name"].as_str().unwrap();
        let (b, a, sos) = (floats(&d["b"]), floats(&d["a"]), rows(&d["sos"]));
        let y = signal::filtfilt(&b, &a, &x, &[1001], -1, None, &opts).unwrap();
        close(&y.y, &floats(&d["filtfilt"]), name);
        let y = signal::filtfilt(&b, &a, &x, &[1001], 0, Some(5), &opts).unwrap();
        close(&y.y, &floats(&d["filtfilt_padlen5"]), name);
        let y = signal::sosfiltfilt(&sos, &x, &[1001], -1, None, &opts).unwrap();
        close(&y.y, &floats(&d["sosfiltfilt"]), name);
    }
    for d in f["zi"].as_array().unwrap() {
        let (b, a, sos) = (floats(&d["b"]), floats(&d["a"]), rows(&d["sos"]));
        close(
            &signal::lfilter_zi(&b, &a).unwrap(),
            &floats(&d["lfilter_zi"]),
            "lfilter_zi",
        );
        let want: Vec<f64> = rows_flat(&d["sosfilt_zi"]);
        close(&signal::sosfilt_zi(&sos).unwrap(), &want, "sosfilt_zi");
    }
    // Too short for the padding: a clear error naming padlen.
    let e = signal::filtfilt(&[0.5, 0.5], &[1.0], &x[..6], &[6], -1, None, &opts).unwrap_err();
    assert!(e.to_string().contains("padlen = 6"), "{e}");
}

fn rows_flat(v: &Value) -> Vec<f64> {
    v.as_array().unwrap().iter().flat_map(floats).collect()
}

#[test]
fn axes_channels_and_zi_shapes_as_scipy() {
    let opts = FilterOptions::default();
    let (b, a) = ([0.2, 0.1], [1.0, -0.7]);
    let n = 20_000;
    // x of shape (3, n): channel c is x_of(n) scaled by c + 1.
    let base = x_of(n);
    let x: Vec<f64> = (0..3)
        .flat_map(|c| base.iter().map(move |v| v * (c + 1) as f64))
        .collect();
    let zi = [0.1, 0.2, 0.3];
    let out = signal::lfilter(&b, &a, &x, &[3, n], -1, Some((&zi, &[3, 1])), &opts).unwrap();
    assert_eq!(out.zf_shape, [3, 1]);
    let (y1, z1) = Lfilter::<f64>::new(&b, &a, opts)
        .unwrap()
        .apply(&x[n..2 * n], Some(&[0.2]))
        .unwrap();
    assert_eq!(&out.y[n..2 * n], &y1[..]);
    assert_eq!(out.zf.as_ref().unwrap()[1], z1[0]);
    // The same data as (n, 3) filtered along axis 0 gives the transposed result.
    let xt: Vec<f64> = (0..n)
        .flat_map(|t| (0..3).map(move |c| (t, c)))
        .map(|(t, c)| x[c * n + t])
        .collect();
    let outt = signal::lfilter(&b, &a, &xt, &[n, 3], 0, Some((&zi, &[1, 3])), &opts).unwrap();
    for t in (0..n).step_by(997) {
        for c in 0..3 {
            assert_eq!(outt.y[t * 3 + c], out.y[c * n + t]);
        }
    }
    // Broadcast zi (1, 1) and a wrong shape, refused with the shape expected.
    signal::lfilter(&b, &a, &x, &[3, n], -1, Some((&[0.1], &[1, 1])), &opts).unwrap();
    let e = signal::lfilter(&b, &a, &x, &[3, n], -1, Some((&zi, &[1, 3])), &opts).unwrap_err();
    assert!(e.to_string().contains("expected [3, 1]"), "{e}");
    let e = signal::lfilter(&b, &a, &x, &[3, n], 2, None, &opts).unwrap_err();
    assert!(e.to_string().contains("axis 2 is out of range"), "{e}");
    // Sections: zi (n_sections, 3, 2) exactly.
    let sos = [
        [0.2, 0.1, 0.0, 1.0, -0.7, 0.0],
        [1.0, 0.5, 0.25, 1.0, -0.5, 0.3],
    ];
    let zs = vec![0.01; 12];
    let o = signal::sosfilt(&sos, &x, &[3, n], -1, Some((&zs, &[2, 3, 2])), &opts).unwrap();
    assert_eq!(o.zf_shape, [2, 3, 2]);
    let e = signal::sosfilt(&sos, &x, &[3, n], -1, Some((&zs, &[2, 2, 3])), &opts).unwrap_err();
    assert!(e.to_string().contains("expected [2, 3, 2]"), "{e}");
}

#[test]
fn bad_input_is_refused_clearly() {
    let opts = FilterOptions::default();
    let x = [1.0f64, 2.0];
    let check = |e: sigpu_recurrence::FilterError, want: &str| {
        let s = e.to_string();
        assert!(s.contains(want), "{s} (wanted {want})");
    };
    check(
        signal::lfilter(&[1.0], &[0.0, 1.0], &x, &[2], -1, None, &opts).unwrap_err(),
        "a[0]",
    );
    check(
        signal::lfilter(&[f64::NAN], &[1.0], &x, &[2], -1, None, &opts).unwrap_err(),
        "b[0]",
    );
    check(
        signal::sos_rows(&[1.0; 5], &[5]).unwrap_err(),
        "expected (n_sections, 6)",
    );
    check(
        signal::sosfilt(&[[1.0, 0.0, 0.0, 0.0, 0.5, 0.0]], &x, &[2], -1, None, &opts).unwrap_err(),
        "a0 = 1",
    );
    check(
        signal::sosfilt(
            &[[1.0, f64::NAN, 0.0, 1.0, 0.5, 0.0]],
            &x,
            &[2],
            -1,
            None,
            &opts,
        )
        .unwrap_err(),
        "sos[0, 1]",
    );
    check(
        signal::lfilter(&[1.0], &[1.0, -0.5], &[f64::NAN], &[1], -1, None, &opts).unwrap_err(),
        "x[0]",
    );
    // An order that would not fit: 20,000 recursive taps are refused at once (set-up would be
    // quadratic), pointing to sections.
    let mut a = vec![0.0; 20_001];
    a[0] = 1.0;
    a[20_000] = 0.5;
    let start = std::time::Instant::now();
    check(
        Lfilter::<f64>::new(&[1.0], &a, opts).unwrap_err(),
        "at most 64",
    );
    assert!(start.elapsed().as_secs_f64() < 1.0);
    // Integer types are for exact recurrences, not scipy-style float filtering.
    check(
        signal::lfilter(&[1.0], &[1.0, -0.5], &[1i32], &[1], -1, None, &opts).unwrap_err(),
        "f32 or f64",
    );
    // Well-conditioned low order runs blocked; an ill-conditioned order 8 runs as sections.
    let m = Lfilter::<f64>::new(&[0.2], &[1.0, -0.8], opts)
        .unwrap()
        .report()
        .method;
    assert_eq!(m, Method::Plr);
}

/// The plr method finds non-finite inputs through its local recurrences (no pass over x):
/// a NaN or ±inf anywhere in a long input — first or last sample, a sub-chunk's edge, the
/// partial last block, another channel, along another axis — is refused naming its index in
/// x, in f32 (tables that end early) and f64, with one thread or two; finite input runs.
#[test]
fn plr_refuses_non_finite_input_anywhere_without_a_pass() {
    fn run<T: sigpu_recurrence::Element>(threads: usize) {
        let opts = FilterOptions {
            threads: Some(threads),
            ..FilterOptions::default()
        };
        let (b, a) = ([0.2, 0.1], [1.0, -1.2, 0.5]);
        assert_eq!(
            Lfilter::<T>::new(&b, &a, opts).unwrap().report().method,
            sigpu_recurrence::Method::Plr
        );
        let n = 3 * sigpu_recurrence::cpu::BLOCK + 2072 + 17;
        let x: Vec<T> = (0..2 * n)
            .map(|i| T::from_f64(((i * 7919) % 101) as f64 / 50.0 - 1.0))
            .collect();
        assert!(signal::lfilter(&b, &a, &x, &[2, n], -1, None, &opts).is_ok());
        let sub = sigpu_recurrence::cpu::SUB;
        for &at in &[
            0,
            sub - 1,
            sub,
            2 * sub + 5,
            3 * sub * 8 + 3,
            n - 1,
            n + 7,
            2 * n - 1,
        ] {
            for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
                let mut xb = x.clone();
                xb[at] = T::from_f64(bad);
                let e = signal::lfilter(&b, &a, &xb, &[2, n], -1, None, &opts).unwrap_err();
                assert!(e.to_string().contains(&format!("x[{at}]")), "{e} ({at})");
                // Along axis 0 the index named is still x's.
                let e = signal::lfilter(&b, &a, &xb, &[n, 2], 0, None, &opts).unwrap_err();
                assert!(e.to_string().contains(&format!("x[{at}]")), "{e} ({at})");
            }
        }
    }
    for threads in [1, 2] {
        run::<f32>(threads);
        run::<f64>(threads);
    }
}
