//! Planned CPU filters stop taking blocks once their caller's cancellation token is set: a
//! run under a cancelled token leaves the output unwritten past the blocks already handed out
//! (the caller that cancelled discards it), and the same run without one fills it.

use sigpu_recurrence::{plan, Batch, FilterOptions, FilterSpec};
use sigpu_runtime::cancel::Cancel;
use sigpu_runtime::Target;

fn run(spec: &FilterSpec, threads: usize, token: &Cancel) -> Vec<f64> {
    let options = FilterOptions {
        threads: Some(threads),
        ..FilterOptions::default()
    };
    let filter = plan::<f64>(spec, options, &Target::cpu()).unwrap();
    let n = 1 << 20;
    let x: Vec<f64> = (0..n)
        .map(|i| ((i * 7919) % 1000) as f64 * 1e-3 - 0.5)
        .collect();
    let mut y = vec![f64::NAN; n];
    let batch = Batch {
        x: &x,
        channels: 1,
        y: &mut y,
        zi: None,
        zf: None,
        fresh: None,
    };
    token.scope(|| filter.run(batch)).unwrap();
    y
}

#[test]
fn a_cancelled_token_stops_the_block_loops() {
    let specs = [
        FilterSpec::ba(&[0.2, 0.3], &[1.0, -0.5]),
        FilterSpec::Sos(vec![[0.1, 0.2, 0.1, 1.0, -0.9, 0.2]]),
    ];
    for spec in &specs {
        for threads in [1, 2] {
            let whole = run(spec, threads, &Cancel::never());
            assert!(whole.iter().all(|v| v.is_finite()));
            let token = Cancel::new();
            token.cancel();
            let stopped = run(spec, threads, &token);
            assert!(
                stopped.last().unwrap().is_nan(),
                "{threads} threads: the last block was filtered after the cancel"
            );
        }
    }
}
