//! The engines against the double-double reference, the twin against the engine, gradients
//! against finite differences, and the refusals.

use super::cases::{lpc_coefficients, white};
use super::checks::Run;
use super::reference::{self, relative_error, serial_same_type};
use super::*;

fn cpu<T: Element>(order: usize, channels: usize, zi: bool) -> AllPole<T> {
    let spec = AllPoleSpec {
        order,
        channels,
        zi,
    };
    plan_allpole::<T>(&spec, AllPoleOptions::default(), &Target::cpu()).unwrap()
}

/// Order 16 with poles to radius 0.999: the CPU engine in f32 within 4× the f32 serial loop's
/// error, in f64 within 4× the f64 serial loop's, both against double-double.
#[test]
fn forward_keeps_the_contract_on_hard_lpc_cases() {
    for (seed, radius) in [(1u64, (0.9, 0.999)), (2, (0.99, 0.999)), (3, (0.0, 0.95))] {
        let (channels, n, p) = (2, 3000, 16);
        let x = white(seed, channels * n);
        let a = lpc_coefficients(seed, channels, n, p, 160, radius);
        let zi = white(seed + 9, channels * p);
        let exact = reference::forward(&x, &a, Some(&zi), channels, p);
        // f64
        let mut y = vec![0.0; x.len()];
        cpu::<f64>(p, channels, true)
            .forward(&x, &a, Some(&zi), &mut y, None)
            .unwrap();
        let ours = relative_error(&y, &exact);
        let serial = relative_error(&serial_same_type(&x, &a, Some(&zi), channels, p), &exact);
        assert!(
            ours <= 4.0 * serial + f64::EPSILON,
            "f64 {radius:?}: {ours:e} vs {serial:e}"
        );
        // f32: the same data rounded to f32 (the reference then from the rounded values)
        let (x32, a32, z32): (Vec<f32>, Vec<f32>, Vec<f32>) = (
            x.iter().map(|&v| v as f32).collect(),
            a.iter().map(|&v| v as f32).collect(),
            zi.iter().map(|&v| v as f32).collect(),
        );
        let up = |v: &[f32]| v.iter().map(|&q| q as f64).collect::<Vec<_>>();
        let exact = reference::forward(&up(&x32), &up(&a32), Some(&up(&z32)), channels, p);
        let mut y32 = vec![0.0f32; x.len()];
        cpu::<f32>(p, channels, true)
            .forward(&x32, &a32, Some(&z32), &mut y32, None)
            .unwrap();
        let ours = relative_error(&y32, &exact);
        let serial = relative_error(
            &serial_same_type(&x32, &a32, Some(&z32), channels, p),
            &exact,
        );
        assert!(
            ours <= 4.0 * serial + 6e-8,
            "f32 {radius:?}: {ours:e} vs {serial:e}"
        );
        assert!(
            ours < 1e-6,
            "f32 {radius:?}: {ours:e} (one rounding expected)"
        );
    }
}

/// The GPU kernel's twin (chunked, partial last chunk) against the serial engine and the
/// reference. In f32 it keeps the contract (within 4× the serial f32 loop's error): the chunk
/// carry's f64 roundings stay far below f32's. In f64 they do not (the unit-state responses
/// of order-16 chunks with poles to 0.999 dwarf the output, and the carry's roundings scale
/// with them: 40× and more the serial loop's error), which is why f64 data runs the CPU
/// engine; the gradients still agree with double-double to 1e-6 of their largest value (the
/// CPU engine to 1e-8: the adjoint is as ill-conditioned as the filter, whose f64 serial
/// loop is 3e-10 off here).
#[test]
fn chunked_twin_matches_the_engine_and_the_reference() {
    let (channels, n, p) = (2, 2 * DEFAULT_CHUNK + 37, 16);
    let run = Run::<f32>::new(5, p, channels, n);
    let got = run.twin();
    let up = |v: &[f32]| v.iter().map(|&q| q as f64).collect::<Vec<_>>();
    let (x, a, zi) = (up(&run.x), up(&run.a), up(&run.zi));
    let exact = reference::forward(&x, &a, Some(&zi), channels, p);
    let serial = relative_error(
        &serial_same_type(&run.x, &run.a, Some(&run.zi), channels, p),
        &exact,
    );
    let twin = relative_error(&got.y, &exact);
    assert!(twin <= 4.0 * serial + 6e-8, "f32 {twin:e} vs {serial:e}");
    let run = Run::<f64>::new(5, p, channels, n);
    let got = run.twin();
    let cpu = run.on(&Target::cpu()).unwrap();
    let exact = reference::forward(&run.x, &run.a, Some(&run.zi), channels, p);
    assert!(relative_error(&cpu.y, &exact) < 1e-8);
    assert!(relative_error(&got.y, &exact) < 1e-6);
    let (gx, ga, gzi) = reference::backward(&run.a, &cpu.y, Some(&run.zi), &run.g, channels, p);
    for (name, ours, twin, want) in [
        ("grad_x", &cpu.gx, &got.gx, &gx),
        ("grad_a", &cpu.ga, &got.ga, &ga),
        ("grad_zi", &cpu.gzi, &got.gzi, &gzi),
    ] {
        let (e_cpu, e_twin) = (relative_error(ours, want), relative_error(twin, want));
        assert!(e_cpu < 1e-8, "{name} cpu {e_cpu:e}");
        assert!(e_twin < 1e-6, "{name} twin {e_twin:e}");
    }
}

/// Central differences of L = Σ w·y with respect to x, A and zi against `backward`.
#[test]
fn gradients_match_finite_differences() {
    let (channels, n, p) = (2, 40, 3);
    let x = white(11, channels * n);
    let a = lpc_coefficients(12, channels, n, p, 7, (0.5, 0.9));
    let zi = white(13, channels * p);
    let w = white(14, channels * n);
    let f = cpu::<f64>(p, channels, true);
    let loss = |x: &[f64], a: &[f64], zi: &[f64]| {
        let mut y = vec![0.0; x.len()];
        f.forward(x, a, Some(zi), &mut y, None).unwrap();
        y.iter().zip(&w).map(|(p, q)| p * q).sum::<f64>()
    };
    let mut y = vec![0.0; x.len()];
    f.forward(&x, &a, Some(&zi), &mut y, None).unwrap();
    let (mut gx, mut ga, mut gzi) = (vec![0.0; x.len()], vec![0.0; a.len()], vec![0.0; zi.len()]);
    f.backward(&a, &y, Some(&zi), &w, &mut gx, &mut ga, Some(&mut gzi))
        .unwrap();
    let h = 1e-6;
    let diff = |v: &[f64], i: usize, which: usize| {
        let (mut up, mut down) = (v.to_vec(), v.to_vec());
        up[i] += h;
        down[i] -= h;
        let l = |q: &[f64]| match which {
            0 => loss(q, &a, &zi),
            1 => loss(&x, q, &zi),
            _ => loss(&x, &a, q),
        };
        (l(&up) - l(&down)) / (2.0 * h)
    };
    for i in (0..x.len()).step_by(7) {
        assert!((diff(&x, i, 0) - gx[i]).abs() < 1e-7, "x[{i}]");
    }
    for i in (0..a.len()).step_by(5) {
        assert!((diff(&a, i, 1) - ga[i]).abs() < 1e-7, "a[{i}]");
    }
    for (i, g) in gzi.iter().enumerate() {
        assert!((diff(&zi, i, 2) - g).abs() < 1e-7, "zi[{i}]");
    }
}

/// Two pieces with zf → zi equal one shot; empty channels pass the state through.
#[test]
fn streaming_equals_one_shot() {
    let (n, p) = (500, 4);
    let x = white(21, n);
    let a = lpc_coefficients(22, 1, n, p, 50, (0.8, 0.99));
    let f = cpu::<f64>(p, 1, true);
    let zero = vec![0.0; p];
    let mut y = vec![0.0; n];
    f.forward(&x, &a, Some(&zero), &mut y, None).unwrap();
    let (mut y1, mut y2, mut z1, mut z2) = (
        vec![0.0; 123],
        vec![0.0; n - 123],
        vec![0.0; p],
        vec![0.0; p],
    );
    f.forward(
        &x[..123],
        &a[..123 * p],
        Some(&zero),
        &mut y1,
        Some(&mut z1),
    )
    .unwrap();
    f.forward(&x[123..], &a[123 * p..], Some(&z1), &mut y2, Some(&mut z2))
        .unwrap();
    y1.extend(y2);
    assert_eq!(y, y1);
    assert_eq!(z2, [y[n - 1], y[n - 2], y[n - 3], y[n - 4]]);
    let mut z3 = vec![9.0; p];
    f.forward(&[], &[], Some(&z1), &mut [], Some(&mut z3))
        .unwrap();
    assert_eq!(z3, z1);
}

/// Bad input is refused naming the argument.
#[test]
fn bad_input_names_the_argument() {
    let spec = |order| AllPoleSpec {
        order,
        channels: 2,
        zi: false,
    };
    let t = Target::cpu();
    let o = AllPoleOptions::default();
    assert!(plan_allpole::<f64>(&spec(0), o, &t)
        .err()
        .unwrap()
        .to_string()
        .contains("order 0"));
    assert!(plan_allpole::<f64>(&spec(65), o, &t)
        .err()
        .unwrap()
        .to_string()
        .contains("1 … 64"));
    assert!(plan_allpole::<i32>(&spec(2), o, &t)
        .err()
        .unwrap()
        .to_string()
        .contains("f32 or f64"));
    let f = cpu::<f64>(2, 2, false);
    let mut y = vec![0.0; 6];
    let e = |r: Result<(), FilterError>| r.err().unwrap().to_string();
    assert!(e(f.forward(&[0.0; 5], &[0.0; 10], None, &mut y[..5], None)).starts_with("x:"));
    assert!(e(f.forward(&[0.0; 6], &[0.0; 11], None, &mut y, None)).starts_with("A:"));
    assert!(e(f.forward(&[0.0; 6], &[0.0; 12], Some(&[0.0; 4]), &mut y, None)).starts_with("zi:"));
    let mut x = [0.0; 6];
    x[4] = f64::NAN;
    assert!(e(f.forward(&x, &[0.0; 12], None, &mut y, None)).starts_with("x[4]"));
    let mut a = [0.0; 12];
    a[7] = f64::INFINITY;
    assert!(e(f.forward(&[0.0; 6], &a, None, &mut y, None)).starts_with("A[7]"));
    assert!(e(f.forward(&[0.0; 6], &[0.0; 12], None, &mut y[..5], None)).starts_with("y:"));
}

/// Threads do not change a bit: each channel runs alone.
#[test]
fn threads_do_not_change_the_result() {
    let (channels, n, p) = (5, 300, 6);
    let x = white(31, channels * n);
    let a = lpc_coefficients(32, channels, n, p, 64, (0.5, 0.99));
    let spec = AllPoleSpec {
        order: p,
        channels,
        zi: false,
    };
    let run = |threads| {
        let f = plan_allpole::<f32>(
            &spec,
            AllPoleOptions {
                threads: Some(threads),
                chunk: None,
            },
            &Target::cpu(),
        )
        .unwrap();
        let x: Vec<f32> = x.iter().map(|&v| v as f32).collect();
        let a: Vec<f32> = a.iter().map(|&v| v as f32).collect();
        let mut y = vec![0.0f32; x.len()];
        f.forward(&x, &a, None, &mut y, None).unwrap();
        y
    };
    assert_eq!(run(1), run(3));
}
