use sigpu_recurrence::{plan, FilterOptions, FilterSpec, Recurrence};
use sigpu_runtime::Target;
use std::time::Instant;
fn read(p: &str) -> Vec<Vec<f64>> {
    std::fs::read_to_string(p)
        .unwrap()
        .lines()
        .map(|l| l.split_whitespace().map(|v| v.parse().unwrap()).collect())
        .collect()
}
fn cpu_ms() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 * 1e3 + t.tv_nsec as f64 * 1e-6
}
fn main() {
    let threads: usize = std::env::var("THREADS")
        .ok()
        .map_or(0, |v| v.parse().unwrap());
    let opts = FilterOptions {
        threads: (threads > 0).then_some(threads),
        ..FilterOptions::default()
    };
    let args: Vec<String> = std::env::args().collect();
    let log2: u32 = args[1].parse().unwrap();
    let n = 1usize << log2;
    let x: Vec<f64> = (0..n)
        .map(|i| ((i * 7919) % 1013) as f64 / 506.0 - 1.0)
        .collect();
    for name in &args[2..] {
        let ba = read(&format!("/tmp/lfs/ba_{name}.txt"));
        let sos: Vec<[f64; 6]> = read(&format!("/tmp/lfs/sos_{name}.txt"))
            .into_iter()
            .map(|r| r.try_into().unwrap())
            .collect();
        for (what, spec) in [
            ("ba", FilterSpec::ba(&ba[0], &ba[1])),
            ("sos", FilterSpec::Sos(sos.clone())),
        ] {
            let f = plan::<f64>(&spec, opts, &Target::cpu()).unwrap();
            let mut t = vec![];
            for _ in 0..7 {
                let mut y = sigpu_recurrence::cpu::output_vec::<f64>(n);
                let s = Instant::now();
                let c = cpu_ms();
                f.run(sigpu_recurrence::Batch {
                    x: &x,
                    channels: 1,
                    y: &mut y,
                    zi: None,
                    zf: None,
                    fresh: Some("x"),
                })
                .unwrap();
                t.push(if threads == 1 {
                    cpu_ms() - c
                } else {
                    s.elapsed().as_secs_f64() * 1e3
                });
                std::hint::black_box(&y);
            }
            t.sort_by(f64::total_cmp);
            println!(
                "{name} {what}: {:?} {:.2} ms (min {:.2})",
                f.report(),
                t[3],
                t[0]
            );
        }
    }
}
