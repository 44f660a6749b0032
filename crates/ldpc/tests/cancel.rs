//! A sweep run under a cancelled token stops before its first batch and keeps no point: the
//! point fails with `LdpcError::Cancelled`, and the sweep file is never written.

use sigpu_ldpc::sim::sweep::{run, SnrAxis, SweepSpec};
use sigpu_ldpc::sim::Link;
use sigpu_ldpc::{Code, DecoderConfig, LdpcError};
use sigpu_runtime::cancel::Cancel;

#[test]
fn a_cancelled_sweep_stops_and_writes_no_point() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sweep.json");
    let code = Code::standard("dvbt2-short-1/2").unwrap();
    let config = DecoderConfig {
        iterations: 10,
        threads: 1,
        ..DecoderConfig::default()
    };
    let mut spec = SweepSpec::new(Link::qpsk(3), SnrAxis::EsN0, vec![1.0, 2.0], config);
    (spec.min_errors, spec.max_frames, spec.threads) = (1_000_000, 1_000_000, 1);
    spec.batch = Some(8);
    spec.out = Some(out.clone());
    let token = Cancel::new();
    token.cancel();
    let started = std::time::Instant::now();
    let e = token
        .scope(|| run(&code, &[], &spec, &mut |_| {}))
        .unwrap_err();
    assert!(matches!(e, LdpcError::Cancelled(_)), "{e}");
    assert!(started.elapsed().as_secs_f64() < 5.0);
    assert!(!out.exists(), "no sweep file from a cancelled first point");
}

#[test]
fn a_sweep_cancelled_mid_batch_stops_within_the_batch() {
    let code = Code::standard("dvbt2-short-1/2").unwrap();
    let mut spec = SweepSpec::new(
        Link::qpsk(3),
        SnrAxis::EsN0,
        vec![8.0],
        DecoderConfig::default(),
    );
    // Batches of 128 frames (the default on two threads), 50 iterations each: seconds of work
    // per batch on a busy machine, cut short within one decoder iteration.
    (spec.min_errors, spec.max_frames) = (1_000_000, 1_000_000);
    spec.batch = Some(128);
    let token = Cancel::new();
    let remote = token.clone();
    let setter = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(300));
        remote.cancel();
        std::time::Instant::now()
    });
    let e = token
        .scope(|| run(&code, &[], &spec, &mut |_| {}))
        .unwrap_err();
    let stopped = std::time::Instant::now();
    let cancelled_at = setter.join().unwrap();
    assert!(matches!(e, LdpcError::Cancelled(_)), "{e}");
    let latency = stopped.duration_since(cancelled_at).as_secs_f64();
    assert!(latency < 1.0, "stopped {latency:.2} s after the cancel");
}
