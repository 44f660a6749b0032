//! The (b, a) engines' fast paths give what the plain ones give: a pole cascade run chunk by
//! chunk (the numerator's output kept in the caches, the sections' state carried in f64)
//! equals the whole-signal run, with zi and zf, in f32 and f64.

use sigpu_recurrence::{Element, FilterOptions, Lfilter, Method, Recurrence};

/// scipy.signal.butter(4, 0.1) and butter(8, 0.02), (b, a).
#[allow(clippy::excessive_precision)]
fn designs() -> Vec<(Vec<f64>, Vec<f64>)> {
    vec![
        (
            vec![
                0.0004165992044065786,
                0.0016663968176263143,
                0.0024995952264394716,
                0.0016663968176263143,
                0.0004165992044065786,
            ],
            vec![
                1.0,
                -3.180638548874721,
                3.8611943489942133,
                -2.112155355110969,
                0.43826514226197977,
            ],
        ),
        sigpu_recurrence::testing::butter_0_02(8).expect("butter(8, 0.02)"),
    ]
}

fn max_diff<T: Element>(a: &[T], b: &[T]) -> f64 {
    a.iter()
        .zip(b)
        .fold(0.0f64, |m, (p, q)| m.max((p.to_f64() - q.to_f64()).abs()))
}

fn chunked_equals_whole<T: Element>(tol: f64) {
    // Three chunks of the cascade and a tail that is not a whole segment.
    let n = 3 * 16 * 8 * sigpu_recurrence::SEG + 1234;
    let mut s = 0x2545f4914f6cdd1du64;
    let x: Vec<T> = (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            T::from_f64((s >> 11) as f64 / (1u64 << 53) as f64 - 0.5)
        })
        .collect();
    for (b, a) in designs() {
        let opts = |threads| FilterOptions {
            threads: Some(threads),
            ..FilterOptions::default()
        };
        // One thread takes the whole-signal path (channels ≥ threads), two the chunked one.
        let whole = Lfilter::<T>::new(&b, &a, opts(1)).expect("filter");
        let chunked = Lfilter::<T>::new(&b, &a, opts(2)).expect("filter");
        assert_eq!(chunked.report().method, Method::PoleCascade);
        let s = chunked.state_len();
        let zi: Vec<T> = (0..s)
            .map(|i| T::from_f64(0.01 * i as f64 - 0.02))
            .collect();
        let (yw, zw) = whole.apply(&x, Some(&zi)).expect("whole");
        let (yc, zc) = chunked.apply(&x, Some(&zi)).expect("chunked");
        let peak = yw.iter().fold(0.0f64, |m, v| m.max(v.to_f64().abs()));
        assert!(
            max_diff(&yw, &yc) <= tol * peak,
            "y: {}",
            max_diff(&yw, &yc)
        );
        assert!(
            max_diff(&zw, &zc) <= tol * peak,
            "zf: {}",
            max_diff(&zw, &zc)
        );
        // Streaming in two pieces equals one pass.
        let cut = n / 3 + 77;
        let (y1, z1) = chunked.apply(&x[..cut], Some(&zi)).expect("first");
        let (y2, z2) = chunked.apply(&x[cut..], Some(&z1)).expect("second");
        let joined: Vec<T> = y1.into_iter().chain(y2).collect();
        assert!(max_diff(&joined, &yc) <= 10.0 * tol * peak);
        assert!(max_diff(&z2, &zc) <= 10.0 * tol * peak);
        // A non-finite input is named.
        let mut bad = x.clone();
        bad[n / 2] = T::from_f64(f64::NAN);
        let mut y = vec![T::ZERO; n];
        let e = chunked
            .run(sigpu_recurrence::Batch {
                x: &bad,
                channels: 1,
                y: &mut y,
                zi: None,
                zf: None,
                fresh: Some("x"),
            })
            .unwrap_err()
            .to_string();
        assert!(e.contains(&format!("x[{}]", n / 2)), "{e}");
    }
}

#[test]
fn chunked_pole_cascade_equals_the_whole_signal_run() {
    chunked_equals_whole::<f64>(1e-13);
    chunked_equals_whole::<f32>(1e-6);
}
