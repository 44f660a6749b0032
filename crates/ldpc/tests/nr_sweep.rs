//! 5G NR code blocks on the resumable sweep: a sweep cut after its first point resumes to the
//! counts of an uncut one, bit for bit; a file of another block (k, n, base graph, rv list,
//! constellation) refuses to resume; ranks and one process write the same file; the sweep's
//! counts are those of `nr::sim::simulate_point` on the same frames.

use sigpu_ldpc::channel::{Demapper, Modulation};
use sigpu_ldpc::nr::modulation::{Fading, NrModulation};
use sigpu_ldpc::nr::sim::{simulate_point, NrLink, NrSweep};
use sigpu_ldpc::nr::NrCode;
use sigpu_ldpc::sim::sweep::{self, SnrAxis, Sweep, SweepSpec};
use sigpu_ldpc::sim::PointResult;
use sigpu_ldpc::{plan, DecoderConfig};
use sigpu_runtime::Target;
use std::path::Path;

fn nr(spec: &str, rvs: &[u8], modulation: NrModulation) -> NrSweep {
    NrSweep {
        code: NrCode::parse(spec).unwrap(),
        link: NrLink {
            modulation,
            fading: Fading::Awgn,
            demapper: Demapper::Exact,
            rvs: rvs.to_vec(),
            seed: 7,
        },
    }
}

fn config() -> DecoderConfig {
    DecoderConfig {
        iterations: 8,
        threads: 1,
        ..DecoderConfig::default()
    }
}

/// A small sweep of `nr` on Eb/N0 `points`, 5 errors or 48 frames a point, batches of 16,
/// into `out`, resuming it.
fn spec(nr: NrSweep, modulation: Modulation, out: &Path, points: &[f64]) -> SweepSpec {
    let mut s = SweepSpec::for_nr(nr, modulation, SnrAxis::EbN0, points.to_vec(), config());
    (s.min_errors, s.max_frames, s.batch, s.threads) = (5, 48, Some(16), 1);
    (s.out, s.resume) = (Some(out.to_owned()), true);
    s
}

fn run(s: &SweepSpec) -> sigpu_ldpc::Result<Sweep> {
    let code = s.nr.as_ref().unwrap().decoding_code()?;
    sweep::run(&code, &[], s, &mut |_| {})
}

fn untimed(s: &Sweep) -> Vec<PointResult> {
    s.points.iter().map(PointResult::untimed).collect()
}

/// The counts of every point (JSON keeps them exactly; an interval's last bit may differ).
fn counts(s: &Sweep) -> Vec<(f64, f64, u64, u64, u64, u64, u64)> {
    let c = |p: &PointResult| {
        let (e, b) = (p.es_n0_db, p.eb_n0_db);
        (
            e,
            b,
            p.frames,
            p.frame_errors,
            p.bit_errors,
            p.bit_errors_sq,
            p.info_bits,
        )
    };
    s.points.iter().map(c).collect()
}

const BLOCK: &str = "nr:k=100,n=300";

#[test]
fn a_cut_nr_sweep_resumes_to_the_uncut_counts() {
    let dir = tempfile::tempdir().unwrap();
    let (whole, cut) = (dir.path().join("whole.json"), dir.path().join("cut.json"));
    let block = || nr(BLOCK, &[0], NrModulation::Qpsk);
    let points = [0.0, 3.0];
    let uncut = run(&spec(block(), Modulation::Qpsk, &whole, &points)).unwrap();
    assert!(uncut.points[0].frame_errors >= 5 && uncut.points[1].frame_errors < 5);
    // Stopped after the first point: the file holds it alone.
    run(&spec(block(), Modulation::Qpsk, &cut, &points[..1])).unwrap();
    let resumed = run(&spec(block(), Modulation::Qpsk, &cut, &points)).unwrap();
    assert_eq!(untimed(&resumed), untimed(&uncut));
    let file = Sweep::read(&cut).unwrap();
    assert_eq!(counts(&file), counts(&uncut));
    let key = file.nr.as_ref().unwrap();
    // BG2 with K_b = 6 (k ≤ 192): Z = 18, N_cb = 50·18.
    assert_eq!((key.k, key.n, key.bg, key.z, key.qm), (100, 300, 2, 18, 2));
    assert_eq!((key.rvs.as_slice(), key.n_cb), (&[0u8][..], 900));
    assert_eq!(file.code, "nr:k=100,n=300,bg=2");
    // Eb/N0 counts k / n and Q_m: Es/N0 = Eb/N0 + 10 log10(1/3 · 2).
    let es = uncut.points[1].es_n0_db;
    assert!(
        (es - (3.0 + 10.0 * (2.0f64 / 3.0).log10())).abs() < 1e-9,
        "{es}"
    );
}

#[test]
fn a_file_of_another_block_refuses_to_resume() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s.json");
    run(&spec(
        nr(BLOCK, &[0], NrModulation::Qpsk),
        Modulation::Qpsk,
        &out,
        &[3.0],
    ))
    .unwrap();
    let before = std::fs::read_to_string(&out).unwrap();
    let others = [
        (
            nr("nr:k=100,n=320", &[0], NrModulation::Qpsk),
            Modulation::Qpsk,
        ),
        (
            nr("nr:k=104,n=300", &[0], NrModulation::Qpsk),
            Modulation::Qpsk,
        ),
        (
            nr("nr:k=100,n=300,bg=1", &[0], NrModulation::Qpsk),
            Modulation::Qpsk,
        ),
        (nr(BLOCK, &[0, 2], NrModulation::Qpsk), Modulation::Qpsk),
        (nr(BLOCK, &[2], NrModulation::Qpsk), Modulation::Qpsk),
        (nr(BLOCK, &[0], NrModulation::Qam16), Modulation::Qam16),
    ];
    for (block, m) in others {
        let what = format!("{} rv {:?} {}", block.code.name(), block.link.rvs, m.name());
        let e = run(&spec(block, m, &out, &[3.0])).unwrap_err().to_string();
        assert!(e.contains("cannot resume"), "{what}: {e}");
    }
    // Rv and Q_m are not in the code's name: the file's NR record tells them apart.
    let mut rv2 = Sweep::read(&out).unwrap();
    rv2.nr.as_mut().unwrap().rvs = vec![2];
    std::fs::write(&out, serde_json::to_string(&rv2).unwrap()).unwrap();
    let e = run(&spec(
        nr(BLOCK, &[0], NrModulation::Qpsk),
        Modulation::Qpsk,
        &out,
        &[3.0],
    ))
    .unwrap_err()
    .to_string();
    assert!(e.contains("cannot resume"), "{e}");
    std::fs::write(&out, &before).unwrap();
    run(&spec(
        nr(BLOCK, &[0], NrModulation::Qpsk),
        Modulation::Qpsk,
        &out,
        &[3.0],
    ))
    .unwrap();
}

#[test]
fn an_nr_sweep_over_ranks_writes_what_one_process_does() {
    let dir = tempfile::tempdir().unwrap();
    let (one, many) = (dir.path().join("one.json"), dir.path().join("ranks.json"));
    let s = |out: &Path| {
        spec(
            nr(BLOCK, &[0, 1], NrModulation::Qpsk),
            Modulation::Qpsk,
            out,
            &[-1.0, 1.0],
        )
    };
    let single = run(&s(&one)).unwrap();
    let code = s(&one).nr.unwrap().decoding_code().unwrap();
    sigpu_runtime::ranks::on_threads(3, |ranks| {
        sweep::run_ranks(ranks, &code, &[], &s(&many), &mut |_| {}).unwrap();
    });
    assert_eq!(counts(&Sweep::read(&many).unwrap()), counts(&single));
}

#[test]
fn the_sweep_counts_the_frames_simulate_point_does() {
    let block = nr(BLOCK, &[0, 3], NrModulation::Qam16);
    let mut s = SweepSpec::for_nr(
        block.clone(),
        Modulation::Qam16,
        SnrAxis::EsN0,
        vec![-0.5],
        config(),
    );
    (s.min_errors, s.max_frames, s.batch, s.threads) = (1000, 40, Some(8), 2);
    let code = block.decoding_code().unwrap();
    let swept = sweep::run(&code, &[], &s, &mut |_| {}).unwrap();
    let mut decoder = plan::decoder(&code, config(), &Target::cpu()).unwrap();
    let p = simulate_point(
        &block.code,
        &block.link,
        decoder.as_mut(),
        -0.5,
        1000,
        40,
        40,
    )
    .unwrap();
    let q = &swept.points[0];
    assert!(p.frame_errors > 0 && p.frame_errors < p.frames, "{p:?}");
    assert_eq!(
        (q.frames, q.frame_errors, q.bit_errors, q.info_bits),
        (p.frames, p.frame_errors, p.bit_errors, 40 * 100)
    );
}

#[test]
fn nr_sweeps_refuse_what_no_point_could_run() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s.json");
    let bad = |s: SweepSpec, code: &sigpu_ldpc::Code, text: &str| {
        let e = sweep::run(code, &[], &s, &mut |_| {})
            .unwrap_err()
            .to_string();
        assert!(e.contains(text), "{e}");
        assert!(!out.exists(), "nothing is written");
    };
    let block = nr(BLOCK, &[0], NrModulation::Qpsk);
    let code = block.decoding_code().unwrap();
    let wrong = nr(BLOCK, &[0, 1], NrModulation::Qpsk)
        .decoding_code()
        .unwrap();
    bad(
        spec(block.clone(), Modulation::Qpsk, &out, &[1.0]),
        &wrong,
        "decoding code",
    );
    bad(
        spec(block.clone(), Modulation::Qam16, &out, &[1.0]),
        &code,
        "not the NR link's",
    );
    bad(
        spec(
            nr(BLOCK, &[5], NrModulation::Qpsk),
            Modulation::Qpsk,
            &out,
            &[1.0],
        ),
        &code,
        "rv is 0, 1, 2 or 3",
    );
}
