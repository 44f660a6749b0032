//! Prints how a (b, a) design from a text file (b, then a) is run and times it on 2^22 samples.
//! `cargo run --release -p sigpu-recurrence --example cascade_probe -- FILE`

use sigpu_recurrence::{signal, FilterOptions, Lfilter, Recurrence};
use std::time::Instant;

fn main() {
    let path = std::env::args().nth(1).expect("a file");
    let rows: Vec<Vec<f64>> = std::fs::read_to_string(path)
        .expect("read")
        .lines()
        .map(|l| {
            l.split_whitespace()
                .map(|v| v.parse().expect("number"))
                .collect()
        })
        .collect();
    let (b, a) = (&rows[0], &rows[1]);
    let f = Lfilter::<f64>::new(b, a, FilterOptions::default()).expect("filter");
    println!(
        "method {}, pole sections {:?}",
        f.report().method.name(),
        f.pole_sections().map(|s| s.report().method.name())
    );
    let n = 1 << 22;
    let x: Vec<f64> = (0..n)
        .map(|i| ((i * 7919) % 1013) as f64 / 506.0 - 1.0)
        .collect();
    for _ in 0..5 {
        let t = Instant::now();
        let out =
            signal::lfilter(b, a, &x, &[n], -1, None, &FilterOptions::default()).expect("run");
        std::hint::black_box(&out.y);
        println!("{:.2} ms", t.elapsed().as_secs_f64() * 1e3);
    }
}
