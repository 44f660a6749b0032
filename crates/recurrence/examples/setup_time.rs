//! Times filter set-up (planning on a fresh planner: the contract's bounds, factor tables,
//! transfer matrices, pole finding) and a cached plan, for (b, a) and section files given as
//! text (rows of numbers: b then a, or sos rows).
//! `cargo run --release -p sigpu-recurrence --example setup_time -- ba|sos FILE [f32]`

use sigpu_recurrence::{FilterOptions, FilterPlanner, FilterSpec};
use sigpu_runtime::Target;
use std::time::Instant;

fn rows(path: &str) -> Vec<Vec<f64>> {
    std::fs::read_to_string(path)
        .expect("read the file")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            l.split_whitespace()
                .map(|v| v.parse().expect("a number"))
                .collect()
        })
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let r = rows(&args[2]);
    let spec = match args[1].as_str() {
        "ba" => FilterSpec::ba(&r[0], &r[1]),
        _ => FilterSpec::Sos(
            r.iter()
                .map(|v| [v[0], v[1], v[2], v[3], v[4], v[5]])
                .collect(),
        ),
    };
    let single = args.get(3).is_some_and(|s| s == "f32");
    let planner = FilterPlanner::new();
    let t = Instant::now();
    let report = if single {
        let f = planner
            .plan::<f32>(&spec, FilterOptions::default(), &Target::cpu())
            .expect("plan");
        f.report().clone()
    } else {
        let f = planner
            .plan::<f64>(&spec, FilterOptions::default(), &Target::cpu())
            .expect("plan");
        f.report().clone()
    };
    let first = t.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    if single {
        let _ = planner.plan::<f32>(&spec, FilterOptions::default(), &Target::cpu());
    } else {
        let _ = planner.plan::<f64>(&spec, FilterOptions::default(), &Target::cpu());
    }
    let second = t.elapsed().as_secs_f64() * 1e3;
    println!(
        "{}: method {}, bound {:.2e} (serial {:.2e}); first plan {first:.2} ms, cached {second:.4} ms",
        args[2],
        report.method.name(),
        report.error_bound,
        report.reference_bound
    );
}
