//! Times the f64 (b, a) CPU path of butter(2, 0.1) piece by piece: the library call
//! `signal::lfilter` (fresh output), the engine into a reused output (`Lfilter::apply_batch`),
//! the engine into fresh outputs, and a read pass over x (what a separate non-finite check
//! costs). `cargo run --release -p sigpu-recurrence --example lfilter_time -- [log2 n] [runs]`

use sigpu_recurrence::{check_finite, signal, Batch, FilterOptions, Lfilter, Recurrence};
use std::time::Instant;

/// CPU time of the process (every thread), ms.
fn cpu_ms() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: t is a valid timespec to write.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 * 1e3 + t.tv_nsec as f64 * 1e-6
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let log2: u32 = args.get(1).map_or(24, |s| s.parse().expect("log2 n"));
    let runs: usize = args.get(2).map_or(9, |s| s.parse().expect("runs"));
    let n = 1usize << log2;
    let b = [
        0.020083365564211232,
        0.040166731128422464,
        0.020083365564211232,
    ];
    let a = [1.0, -1.5610180758007182, 0.6413515380575631];
    let mut s = 0x2545f4914f6cdd1du64;
    let x: Vec<f64> = (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        })
        .collect();
    let opts = FilterOptions::default();
    let f = Lfilter::<f64>::new(&b, &a, opts).expect("filter");
    println!(
        "n = 2^{log2}, method {}, factor table length {}",
        f.report().method.name(),
        f.plr().map_or(0, |p| p.cpu_factors().len())
    );
    let one = Lfilter::<f64>::new(
        &b,
        &a,
        FilterOptions {
            threads: Some(1),
            ..opts
        },
    )
    .expect("filter");
    let mut reused = vec![0.0f64; n];
    // (wall ms, CPU ms) per run of each piece.
    let mut t: Vec<Vec<(f64, f64)>> = vec![vec![]; 5];
    let time = |v: &mut Vec<(f64, f64)>, f: &mut dyn FnMut()| {
        let (w, c) = (Instant::now(), cpu_ms());
        f();
        v.push((w.elapsed().as_secs_f64() * 1e3, cpu_ms() - c));
    };
    for _ in 0..runs {
        time(&mut t[0], &mut || {
            let out = signal::lfilter(&b, &a, &x, &[n], -1, None, &opts).expect("lfilter");
            std::hint::black_box(&out.y);
        });
        time(&mut t[1], &mut || {
            f.apply_batch(&x, 1, &mut reused, None, None)
                .expect("apply");
        });
        time(&mut t[2], &mut || {
            let mut y = sigpu_recurrence::cpu::output_vec::<f64>(n);
            f.run(Batch {
                x: &x,
                channels: 1,
                y: &mut y,
                zi: None,
                zf: None,
                fresh: Some("x"),
            })
            .expect("apply");
            std::hint::black_box(&y);
        });
        time(&mut t[3], &mut || {
            one.apply_batch(&x, 1, &mut reused, None, None)
                .expect("apply");
        });
        time(&mut t[4], &mut || check_finite(&x, "x").expect("finite"));
    }
    let names = [
        "signal::lfilter (fresh output, checks)",
        "Lfilter::apply_batch (reused output)",
        "output_vec + run (fresh batch)",
        "apply_batch, reused output, 1 thread",
        "check_finite(x) alone",
    ];
    for (name, v) in names.iter().zip(t) {
        let w = median(v.iter().map(|p| p.0).collect());
        let c = median(v.iter().map(|p| p.1).collect());
        println!(
            "{name:<40} wall {w:7.2} ms ({:5.0} M samples/s)  CPU {c:7.2} ms",
            n as f64 / w / 1e3
        );
    }
}
