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
    // Two chunks of the cascade (64 blocks of 8 segments) and a tail that is not a whole
    // segment.
    let n = 2 * 64 * 8 * sigpu_recurrence::SEG + 1234;
    let mut s = 0x2545f4914f6cdd1du64;
    let x: Vec<T> = (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            T::from_f64((s >> 11) as f64 / (1u64 << 53) as f64 - 0.5)
        })
        .collect();
    let mut ran = 0;
    for (b, a) in designs() {
        let opts = |threads| FilterOptions {
            threads: Some(threads),
            ..FilterOptions::default()
        };
        // One thread takes the whole-signal path (channels ≥ threads), two the chunked one.
        let whole = Lfilter::<T>::new(&b, &a, opts(1)).expect("filter");
        let chunked = Lfilter::<T>::new(&b, &a, opts(2)).expect("filter");
        if chunked.report().method != Method::PoleCascade {
            // (The contract runs butter(4, 0.1) in f64 serially.)
            continue;
        }
        ran += 1;
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
        // Pieces shorter than the numerator, then the rest, as the whole-signal path streams
        // them (resuming a steep design from its (b, a) state loses digits on either path).
        let (ya, za) = chunked.apply(&x[..3], Some(&zi)).expect("3 samples");
        let (yb, zb) = chunked.apply(&x[3..4], Some(&za)).expect("1 sample");
        let (yc2, _) = chunked.apply(&x[4..], Some(&zb)).expect("the rest");
        let joined: Vec<T> = ya.into_iter().chain(yb).chain(yc2).collect();
        let (wa, wza) = whole.apply(&x[..3], Some(&zi)).expect("3 samples");
        let (wb, wzb) = whole.apply(&x[3..4], Some(&wza)).expect("1 sample");
        let (wc, _) = whole.apply(&x[4..], Some(&wzb)).expect("the rest");
        let wj: Vec<T> = wa.into_iter().chain(wb).chain(wc).collect();
        assert_eq!(za, wza);
        assert!(max_diff(&joined, &wj) <= 10.0 * tol * peak);
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
    // butter(8, 0.02) runs as a pole cascade in both types.
    assert!(ran >= 1);
}

#[test]
fn chunked_pole_cascade_equals_the_whole_signal_run() {
    chunked_equals_whole::<f64>(1e-13);
    chunked_equals_whole::<f32>(1e-6);
}

/// A Hamming-windowed sinc low-pass of `taps` taps, cut-off `fc` (cycles per sample).
fn lowpass(taps: usize, fc: f64) -> Vec<f64> {
    use std::f64::consts::PI;
    (0..taps)
        .map(|i| {
            let t = i as f64 - (taps as f64 - 1.0) / 2.0;
            let sinc = if t == 0.0 {
                2.0 * fc
            } else {
                (2.0 * PI * fc * t).sin() / (PI * t)
            };
            sinc * (0.54 - 0.46 * (2.0 * PI * i as f64 / (taps - 1) as f64).cos())
        })
        .collect()
}

fn fft_fir_keeps_the_contract<T: Element>() {
    let taps = 511;
    let b = lowpass(taps, 0.05);
    let n = 50_000;
    let mut s = 0x2545f4914f6cdd1du64;
    // Noise plus a step: energy in the pass band and the stop band.
    let x: Vec<T> = (0..n)
        .map(|i| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let step = if i > n / 2 { 3.0 } else { 0.0 };
            T::from_f64(step + (s >> 11) as f64 / (1u64 << 53) as f64 - 0.5)
        })
        .collect();
    let zi: Vec<T> = (0..taps - 1)
        .map(|i| T::from_f64(1e-3 * i as f64))
        .collect();
    let fast = Lfilter::<T>::new(&b, &[1.0], FilterOptions::default()).expect("fir");
    let direct = Lfilter::<T>::new(
        &b,
        &[1.0],
        FilterOptions {
            strategy: sigpu_recurrence::Strategy::Serial,
            ..FilterOptions::default()
        },
    )
    .expect("fir");
    assert_eq!(fast.report().method, Method::Fir);
    let (yf, zf) = fast.apply(&x, Some(&zi)).expect("fft");
    let (yd, zd) = direct.apply(&x, Some(&zi)).expect("direct");
    // The exact output of the coefficients as given (f64 sums of exact products; the
    // coefficients rounded to T as both engines see them).
    let bt: Vec<f64> = b.iter().map(|&v| T::from_f64(v).to_f64()).collect();
    let exact: Vec<f64> = (0..n)
        .map(|i| {
            let mut acc = zi.get(i).map_or(0.0, |z| z.to_f64());
            let mut c = 0.0;
            for (j, &bj) in bt.iter().enumerate().take(i + 1) {
                // Kahan-compensated: the reference must be far below both errors.
                let term = bj * x[i - j].to_f64() - c;
                let t = acc + term;
                c = (t - acc) - term;
                acc = t;
            }
            acc
        })
        .collect();
    let err = |y: &[T]| {
        y.iter()
            .zip(&exact)
            .fold(0.0f64, |m, (a, b)| m.max((a.to_f64() - b).abs()))
    };
    let (ef, ed) = (err(&yf), err(&yd));
    let peak_x = x.iter().fold(0.0f64, |m, v| m.max(v.to_f64().abs()));
    assert!(
        ef <= 4.0 * ed.max(f64::EPSILON * peak_x),
        "fft {ef:e}, direct {ed:e}"
    );
    assert!(
        ef <= fast.report().error_bound * peak_x,
        "fft {ef:e} above its bound"
    );
    // zf: the last inputs combined, as the direct filter's.
    assert!(max_diff(&zf, &zd) <= 4.0 * ed.max(f64::EPSILON * peak_x));
    // Streaming in two pieces equals one pass.
    let cut = n / 3 + 5;
    let (y1, z1) = fast.apply(&x[..cut], Some(&zi)).expect("first");
    let (y2, _) = fast.apply(&x[cut..], Some(&z1)).expect("second");
    let joined: Vec<T> = y1.into_iter().chain(y2).collect();
    assert!(max_diff(&joined, &yf) <= 8.0 * ed.max(f64::EPSILON * peak_x));
}

#[test]
fn long_fir_by_fft_keeps_the_contract_and_the_state() {
    fft_fir_keeps_the_contract::<f64>();
    fft_fir_keeps_the_contract::<f32>();
}

/// SciPy's f32 loop (transposed direct form II), as `scipy.signal.lfilter` runs float32.
fn scipy_f32(b: &[f64], a: &[f64], x: &[f32], zi: &[f32]) -> Vec<f32> {
    let (b, a): (Vec<f32>, Vec<f32>) = (
        b.iter().map(|&v| v as f32).collect(),
        a.iter().map(|&v| v as f32).collect(),
    );
    let mut z = zi.to_vec();
    let k = z.len();
    x.iter()
        .map(|&xn| {
            let y = z[0] + b[0] * xn;
            for m in 0..k {
                let next = if m + 1 < k { z[m + 1] } else { 0.0 };
                z[m] = (next + xn * b[m + 1]) - y * a[m + 1];
            }
            y
        })
        .collect()
}

/// A pole cascade on a signal too short for the serial loop's error to grow runs that loop:
/// ellip(8) high-pass from zi, f32, 3 samples, was 14 ε off through the cascade where
/// SciPy's loop is 3 ε off (the accuracy sweep's case); a long signal still runs the cascade.
#[test]
#[allow(clippy::excessive_precision)]
fn a_pole_cascade_runs_short_signals_through_scipy_s_loop() {
    let b = [
        0.5729237510373186,
        -4.456888575456468,
        15.292456902802458,
        -30.224333644176497,
        37.6316851307,
        -30.2243336441765,
        15.292456902802464,
        -4.456888575456471,
        0.572923751037319,
    ];
    let a = [
        1.0,
        -6.870468388056403,
        20.95456780937626,
        -37.03414558189286,
        41.48434509787343,
        -30.176731017872513,
        13.937664604585512,
        -3.744498874368976,
        0.44946626171832665,
    ];
    let x = [
        -0.357978492975235f32,
        0.9222159385681152,
        0.13318929076194763,
    ];
    let zi = [
        0.020495712757110596f32,
        -0.06300980597734451,
        -0.025498421862721443,
        0.09148937463760376,
        0.019559433683753014,
        0.09822443872690201,
        0.0888604000210762,
        0.062211740761995316,
    ];
    let f = Lfilter::<f32>::new(&b, &a, FilterOptions::default()).expect("filter");
    assert_eq!(f.report().method, Method::PoleCascade);
    let (y, _) = f.apply(&x, Some(&zi)).expect("3 samples");
    assert_eq!(y, scipy_f32(&b, &a, &x, &zi));
    // 50,000 samples of a tone: the cascade (SciPy's loop is far off by then).
    let long: Vec<f32> = (0..50_000).map(|t| (0.3 * t as f32).sin()).collect();
    let (y, _) = f.apply(&long, Some(&zi)).expect("long");
    assert_ne!(y, scipy_f32(&b, &a, &long, &zi));
}
