//! The CPU paths against the serial f64 reference: random stable filters of random orders and
//! lengths, zi/zf streaming, integer exactness, batches, and the errors users meet.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sigpu_recurrence::cpu::{BLOCK, SUB};
use sigpu_recurrence::serial::{filter_serial, reference_f64};
use sigpu_recurrence::testing::{random_signature, relative_error};
use sigpu_recurrence::{lfilter, Element, Filter, FilterError, FilterOptions, Strategy};
use sigpu_runtime::host::CpuArch;

const LENGTHS: [usize; 14] = [
    1,
    2,
    7,
    SUB - 1,
    SUB,
    SUB + 1,
    BLOCK - 1,
    BLOCK,
    BLOCK + 1,
    2 * BLOCK + 3,
    65_537,
    104_729,
    3 * BLOCK - 1,
    5 * BLOCK,
];

fn options(strategy: Strategy, threads: usize, simd: bool, optimize: bool) -> FilterOptions {
    FilterOptions {
        strategy,
        threads: Some(threads),
        cpu: if simd {
            CpuArch::host()
        } else {
            CpuArch::scalar()
        },
        optimize,
        ..FilterOptions::default()
    }
}

/// The reference for `filter` as its element type holds the coefficients and `x`.
fn reference<T: Element>(filter: &Filter<T>, x: &[T], zi: Option<&[T]>) -> Vec<f64> {
    let f64s = |v: &[T]| v.iter().map(|v| v.to_f64()).collect::<Vec<_>>();
    let zi = zi.map(f64s);
    reference_f64(
        &f64s(filter.feedforward()),
        &f64s(filter.feedback()),
        &f64s(x),
        zi.as_deref(),
    )
}

fn random_input<T: Element>(rng: &mut ChaCha8Rng, n: usize) -> Vec<T> {
    (0..n)
        .map(|_| T::from_f64(rng.random_range(-1.0..1.0)))
        .collect()
}

fn check_random<T: Element>(tolerance: f64, seed: u64) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut worst = 0.0f64;
    for (case, &n) in LENGTHS.iter().enumerate() {
        let sig = random_signature(&mut rng, 8, 9, 0.95);
        let strategy = if case % 4 == 3 {
            Strategy::Auto
        } else {
            Strategy::Chunked
        };
        let opts = options(strategy, 1 + case % 3, case % 2 == 0, case % 5 != 4);
        let filter = Filter::<T>::new(&sig, opts).unwrap();
        let x = random_input::<T>(&mut rng, n);
        let (y, _) = filter.apply(&x, None).unwrap();
        let got: Vec<f64> = y.iter().map(|v| v.to_f64()).collect();
        let err = relative_error(&got, &reference(&filter, &x, None));
        worst = worst.max(err);
        // A carry's rounding error reaches the output multiplied by the correction factors:
        // random filters with clustered poles have factors in the thousands, and no chunked
        // method stays within the bound for them, so it is scaled by the largest factor.
        let factors = filter.cpu_factors();
        let amplification = (0..factors.order())
            .flat_map(|j| factors.table(j).iter().map(|f| f.to_f64().abs()))
            .fold(1.0f64, f64::max);
        let tolerance = tolerance * amplification;
        assert!(
            err <= tolerance,
            "{sig} {} n={n} {opts:?}: relative error {err:e} > {tolerance:e}",
            T::DTYPE
        );
    }
    println!("{}: worst relative error {worst:e}", T::DTYPE);
}

#[test]
fn random_stable_filters_f32_within_1e_5() {
    check_random::<f32>(1e-5, 1);
}

#[test]
fn random_stable_filters_f64_within_1e_12() {
    check_random::<f64>(1e-12, 2);
}

#[test]
fn seed_signatures_and_slow_poles() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let n = 3 * BLOCK + 17;
    for sig in [
        "(0.2 : 0.8)",
        "(0.04 : 1.6, -0.64)",
        "(0.9, -0.9 : 0.8)",
        "(0.81, -1.62, 0.81 : 1.6, -0.64)",
        "(0.001 : 0.999)",
        "(1 : 1)",
        "(1 : 0, 1)",
    ] {
        for optimize in [true, false] {
            let opts = options(Strategy::Chunked, 2, true, optimize);
            let f32f = Filter::<f32>::parse(sig, opts).unwrap();
            let x = random_input::<f32>(&mut rng, n);
            let got: Vec<f64> = f32f
                .apply(&x, None)
                .unwrap()
                .0
                .iter()
                .map(|&v| v as f64)
                .collect();
            let err = relative_error(&got, &reference(&f32f, &x, None));
            assert!(err <= 1e-5, "{sig} f32 optimize={optimize}: {err:e}");
            let f64f = Filter::<f64>::parse(sig, opts).unwrap();
            let x: Vec<f64> = x.iter().map(|&v| v as f64).collect();
            let got = f64f.apply(&x, None).unwrap().0;
            let err = relative_error(&got, &reference(&f64f, &x, None));
            assert!(err <= 1e-12, "{sig} f64 optimize={optimize}: {err:e}");
        }
    }
}

fn check_integers_exact<T: Element>(seed: u64) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for &n in &LENGTHS {
        let k = rng.random_range(1..=8);
        let taps = rng.random_range(1..=8);
        let ff: Vec<String> = (0..taps)
            .map(|_| rng.random_range(-3..=3).to_string())
            .collect();
        let fb: Vec<String> = (0..k)
            .map(|_| rng.random_range(-2..=2).to_string())
            .collect();
        let text = format!("({} : {})", ff.join(", "), fb.join(", "));
        for sig in [text.as_str(), "(1 : 1)", "(1 : 0, 1)", "(1 : 2, -1)"] {
            let opts = options(Strategy::Chunked, 1 + n % 3, n % 2 == 0, n % 3 != 0);
            let filter = Filter::<T>::parse(sig, opts).unwrap();
            let x: Vec<T> = (0..n)
                .map(|_| T::from_f64(rng.random_range(-1e9..1e9)))
                .collect();
            let (got, _) = filter.apply(&x, None).unwrap();
            let mut want = vec![T::ZERO; n];
            filter_serial(filter.feedforward(), filter.feedback(), &x, None, &mut want);
            if let Some(i) = (0..n).find(|&i| got[i] != want[i]) {
                panic!(
                    "{sig} {} n={n}: [{i}] {:?} != {:?}",
                    T::DTYPE,
                    got[i],
                    want[i]
                );
            }
        }
    }
}

#[test]
fn integers_are_exact_and_wrap() {
    check_integers_exact::<i32>(4);
    check_integers_exact::<i64>(5);
    // An i32 prefix sum that overflows wraps like two's complement.
    let f = Filter::<i32>::parse("(1 : 1)", FilterOptions::default()).unwrap();
    let (y, _) = f.apply(&[i32::MAX, 1, 1], None).unwrap();
    assert_eq!(y, [i32::MAX, i32::MIN, i32::MIN + 1]);
}

fn streaming_equals_one_shot<T: Element>(sig: &str, tolerance: f64, seed: u64) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let opts = options(Strategy::Auto, 2, true, true);
    let filter = Filter::<T>::parse(sig, opts).unwrap();
    let n = 2 * BLOCK + 999;
    let x: Vec<T> = (0..n)
        .map(|_| T::from_f64(rng.random_range(-100.0..100.0)))
        .collect();
    let zi0: Vec<T> = (0..filter.state_len())
        .map(|_| T::from_f64(rng.random_range(-5.0..5.0)))
        .collect();
    let (whole, zf_whole) = filter.apply(&x, Some(&zi0)).unwrap();
    // Pieces of random length, some shorter than the state, some of a block or more.
    let mut pieces = Vec::new();
    let mut zi = zi0.clone();
    let mut at = 0;
    while at < n {
        let len = match rng.random_range(0..4) {
            0 => rng.random_range(0..3),
            1 => rng.random_range(0..100),
            _ => rng.random_range(0..BLOCK + 10),
        }
        .min(n - at);
        let (y, zf) = filter.apply(&x[at..at + len], Some(&zi)).unwrap();
        pieces.extend(y);
        zi = zf;
        at += len;
    }
    let to64 = |v: &[T]| v.iter().map(|v| v.to_f64()).collect::<Vec<_>>();
    let err = relative_error(&to64(&pieces), &to64(&whole));
    assert!(
        err <= tolerance,
        "{sig} {}: streamed vs one shot {err:e}",
        T::DTYPE
    );
    let err = relative_error(&to64(&zi), &to64(&zf_whole));
    assert!(err <= tolerance * 10.0, "{sig} {}: zf {err:e}", T::DTYPE);
    // And the output agrees with the f64 reference's (floats; integers may grow and wrap).
    if !T::DTYPE.is_float() {
        return;
    }
    let err = relative_error(&to64(&whole), &reference(&filter, &x, Some(&zi0)));
    assert!(err <= tolerance, "{sig} {}: vs reference {err:e}", T::DTYPE);
}

#[test]
fn zi_zf_streaming_equals_one_shot() {
    for (i, sig) in [
        "(0.2 : 0.8)",
        "(0.81, -1.62, 0.81 : 1.6, -0.64)",
        "(0.5, 0.1, 0.3, -0.2 : 0.5)",
    ]
    .into_iter()
    .enumerate()
    {
        streaming_equals_one_shot::<f32>(sig, 1e-5, 10 + i as u64);
        streaming_equals_one_shot::<f64>(sig, 1e-12, 20 + i as u64);
    }
    streaming_equals_one_shot::<i32>("(1 : 1)", 0.0, 30);
    streaming_equals_one_shot::<i64>("(3, -1, 2 : 1, 0, 1)", 0.0, 31);
}

#[test]
fn zi_matches_scipy_semantics() {
    // scipy.signal.lfilter([1, 2], [1, -0.5], [1, 0, 0], zi=[3]) = [4, 4, 2], zf = [1].
    let (y, zf) =
        lfilter::<f64>(&[1.0, 2.0], &[1.0, -0.5], &[1.0, 0.0, 0.0], Some(&[3.0])).unwrap();
    assert_eq!(y, [4.0, 4.0, 2.0]);
    assert_eq!(zf, [1.0]);
    // lfilter([0.5, 0.5], [2, -1], [2, 4]): y0 = 0.5, y1 = 0.5·0.5 + 1.5 = 1.75; zf = 0.25·4 + 0.5·1.75.
    let (y, zf) = lfilter::<f64>(&[0.5, 0.5], &[2.0, -1.0], &[2.0, 4.0], None).unwrap();
    assert_eq!(y, [0.5, 1.75]);
    assert_eq!(zf, [1.875]);
}

#[test]
fn batches_filter_each_channel_with_its_own_state() {
    let mut rng = ChaCha8Rng::seed_from_u64(40);
    let filter = Filter::<f64>::parse("(0.3, 0.2 : 1.2, -0.5)", FilterOptions::default()).unwrap();
    for (channels, n) in [(3usize, BLOCK + 5), (7, 1000), (1, 0), (5, 1)] {
        let x: Vec<f64> = (0..channels * n)
            .map(|_| rng.random_range(-1.0..1.0))
            .collect();
        let zi: Vec<f64> = (0..channels * 2)
            .map(|_| rng.random_range(-1.0..1.0))
            .collect();
        let mut y = vec![0.0; x.len()];
        let mut zf = vec![0.0; zi.len()];
        filter
            .apply_batch(&x, channels, &mut y, Some(&zi), Some(&mut zf))
            .unwrap();
        for c in 0..channels {
            let (yc, zfc) = filter
                .apply(&x[c * n..(c + 1) * n], Some(&zi[c * 2..c * 2 + 2]))
                .unwrap();
            assert!(relative_error(&y[c * n..(c + 1) * n], &yc) <= 1e-12);
            assert!(relative_error(&zf[c * 2..c * 2 + 2], &zfc) <= 1e-12);
        }
    }
}

#[test]
fn errors_name_the_problem() {
    let unstable = Filter::<f32>::parse("(1 : 1.01)", FilterOptions::default()).unwrap_err();
    assert!(
        matches!(unstable, FilterError::Unstable { .. }),
        "{unstable}"
    );
    assert!(unstable.to_string().contains("1.01"), "{unstable}");
    let allowed = FilterOptions {
        allow_unstable: true,
        ..FilterOptions::default()
    };
    let f = Filter::<f64>::parse("(1 : 2)", allowed).unwrap();
    assert_eq!(f.apply(&[1.0, 0.0, 0.0], None).unwrap().0, [1.0, 2.0, 4.0]);
    // Integers wrap, so growth is not an error for them.
    Filter::<i32>::parse("(1 : 2)", FilterOptions::default()).unwrap();
    let e = Filter::<i32>::parse("(0.2 : 0.8)", FilterOptions::default()).unwrap_err();
    assert!(
        e.to_string().contains("0.2") && e.to_string().contains("integer"),
        "{e}"
    );
    let e = Filter::<i32>::parse("(1 : 5000000000)", FilterOptions::default()).unwrap_err();
    assert!(e.to_string().contains("does not fit in i32"), "{e}");
    let e = Filter::<f32>::parse("(1 : 1e39)", FilterOptions::default()).unwrap_err();
    assert!(e.to_string().contains("f32"), "{e}");
    let e = Filter::<f32>::parse("(1 : x)", FilterOptions::default()).unwrap_err();
    assert!(e.to_string().contains("column"), "{e}");
    let f = Filter::<f32>::parse("(1 : 0.5, 0.1)", FilterOptions::default()).unwrap();
    let e = f.apply(&[1.0; 4], Some(&[0.0])).unwrap_err();
    assert!(e.to_string().contains("zi holds 1"), "{e}");
    let mut y = vec![0.0; 5];
    let e = f.apply_batch(&[0.0; 5], 2, &mut y, None, None).unwrap_err();
    assert!(e.to_string().contains("2 channels"), "{e}");
    let e = lfilter::<f32>(&[1.0], &[1.0, -0.5], &[1.0, f32::NAN], None).unwrap_err();
    assert!(e.to_string().contains("x[1]"), "{e}");
    // Empty input is fine: empty output, the state passes through.
    let (y, zf) = lfilter::<f64>(&[1.0, 1.0], &[1.0], &[], Some(&[2.0])).unwrap();
    assert!(y.is_empty());
    assert_eq!(zf, [2.0]);
}

#[test]
fn the_fused_avx512_block_has_the_bits_of_the_separate_passes() {
    // f64 orders 1–4 with len(b) = len(a) run the map and the local recurrences in one
    // AVX-512 pass; it must round as the AVX2 map and chains do, with and without zi, over
    // whole blocks, a short last block and several threads.
    let host = CpuArch::host();
    if !host.avx512f {
        return;
    }
    let mut rng = ChaCha8Rng::seed_from_u64(4_194_304);
    let n = 3 * BLOCK + 5 * SUB + 777;
    let x: Vec<f64> = random_input(&mut rng, n);
    for (k, sig) in [
        (1, "(0.2, 0.1 : 0.7)"),
        (2, "(0.01221394, 0, -0.01221394 : 0.06453552, -0.97557211)"),
        (2, "(0.02008, 0.04017, 0.02008 : 1.561018, -0.641352)"),
        (3, "(0.1, -0.2, 0.3, 0.05 : 1.2, -0.5, 0.1)"),
        (4, "(0.3, 0.2, 0.1, -0.1, 0.05 : 1.5, -0.9, 0.3, -0.05)"),
    ] {
        let zi: Vec<f64> = (0..k).map(|j| 0.25 - 0.1 * j as f64).collect();
        for threads in [1, 2] {
            let run = |cpu: CpuArch, zi: Option<&[f64]>| {
                let opts = FilterOptions {
                    strategy: Strategy::Chunked,
                    threads: Some(threads),
                    cpu,
                    ..FilterOptions::default()
                };
                Filter::<f64>::parse(sig, opts)
                    .unwrap()
                    .apply(&x, zi)
                    .unwrap()
            };
            let narrow = CpuArch {
                avx512f: false,
                ..host
            };
            for zi in [None, Some(&zi[..])] {
                let (y, zf) = run(host, zi);
                let (y2, zf2) = run(narrow, zi);
                let same = y.iter().zip(&y2).all(|(a, b)| a.to_bits() == b.to_bits());
                assert!(same && zf == zf2, "{sig}, {threads} thread(s), zi {zi:?}");
            }
        }
    }
}
