//! Set-up is paid once: scipy's functions of `signal` plan through the process's planner, so a
//! filter applied again (blocks of a stream with zi, repeated calls) reuses its compiled
//! tables, and the section tables of long cascades are computed by recursions that grow
//! gently with the number of sections.

use sigpu_recurrence::{planner, signal, FilterOptions, FilterSpec, Recurrence};
use sigpu_runtime::Target;

/// A cascade of `n` resonant sections with poles of radius r at angles spread over
/// (0.2, 2.7) (unit DC gain), shifted by `tag` so that each test plans coefficients no other
/// test uses.
fn cascade(n: usize, r: f64, tag: f64) -> Vec<[f64; 6]> {
    (0..n)
        .map(|s| {
            let th = 0.2 + 0.01 * tag + 2.5 * s as f64 / n as f64;
            let (a1, a2) = (-2.0 * r * th.cos(), r * r);
            let g = (1.0 + a1 + a2) / 4.0;
            [g, 2.0 * g, g, 1.0, a1, a2]
        })
        .collect()
}

#[test]
fn signal_functions_keep_what_they_planned() {
    let opts = FilterOptions::default();
    let cpu = Target::cpu();
    let x: Vec<f64> = (0..3000).map(|i| ((i * 37) % 101) as f64 - 50.0).collect();
    // sosfilt streamed in blocks with zi: the first block plans, the others reuse it.
    let sos = cascade(6, 0.99, 1.0);
    let spec = FilterSpec::Sos(sos.clone());
    assert!(!planner().holds::<f64>(&spec, opts, &cpu));
    let whole = signal::sosfilt(&sos, &x, &[3000], -1, Some((&[0.0; 12], &[6, 2])), &opts)
        .expect("sosfilt");
    assert!(planner().holds::<f64>(&spec, opts, &cpu));
    let mut zi = vec![0.0; 12];
    let mut joined = Vec::new();
    for block in x.chunks(1024) {
        let out = signal::sosfilt(&sos, block, &[block.len()], -1, Some((&zi, &[6, 2])), &opts)
            .expect("a block");
        joined.extend(out.y);
        zi = out.zf.expect("zf");
    }
    let peak = whole.y.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    for (a, b) in joined.iter().zip(&whole.y) {
        assert!((a - b).abs() <= 1e-12 * peak, "{a} {b}");
    }
    assert_eq!(zi, whole.zf.expect("zf"));
    // lfilter and filtfilt of (b, a), in f32.
    let (b, a) = ([0.25, 0.5, 0.25], [1.0, -0.7, 0.2]);
    let spec = FilterSpec::ba(&b, &a);
    let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
    assert!(!planner().holds::<f32>(&spec, opts, &cpu));
    signal::lfilter(&b, &a, &x32, &[3000], -1, None, &opts).expect("lfilter");
    assert!(planner().holds::<f32>(&spec, opts, &cpu));
    let spec = FilterSpec::ba(&b[..2], &a);
    signal::filtfilt(&b[..2], &a, &x32, &[3000], -1, None, &opts).expect("filtfilt");
    assert!(planner().holds::<f32>(&spec, opts, &cpu));
}

#[test]
fn long_cascades_are_set_up_and_run() {
    // 128 all-pass sections (the CPU cascade's cap; |H| = 1 at every frequency, so the
    // cascade is well conditioned) with poles of radius 0.99: the set-up that took seconds
    // (O(S²·SEG) double-double steps) is now O(S·SEG + S³·log SEG).
    let sos: Vec<[f64; 6]> = cascade(128, 0.99, 2.0)
        .into_iter()
        .map(|r| [r[5], r[4], 1.0, 1.0, r[4], r[5]])
        .collect();
    let f = sigpu_recurrence::plan::<f64>(
        &FilterSpec::Sos(sos.clone()),
        FilterOptions::default(),
        &Target::cpu(),
    )
    .expect("plan");
    assert_eq!(f.sections(), Some(128));
    assert!(f.report().error_bound.is_finite());
    // The blocked run (tables and transfer matrix) equals the serial loop.
    let n = 40_000;
    let x: Vec<f64> = (0..n)
        .map(|i| ((i * 7919) % 1013) as f64 / 506.0 - 1.0)
        .collect();
    let (y, _) = f.apply(&x, None).expect("run");
    let serial = sigpu_recurrence::Sos::<f64>::new(
        &sos,
        FilterOptions {
            strategy: sigpu_recurrence::Strategy::Serial,
            ..FilterOptions::default()
        },
    )
    .expect("serial");
    let (ys, _) = serial.apply(&x, None).expect("serial run");
    let peak = ys.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let err = y
        .iter()
        .zip(&ys)
        .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
    assert!(err <= 1e-9 * peak, "{err} of {peak}");
}
