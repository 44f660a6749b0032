use sigpu_ldpc::bench::cpu_throughput;
use sigpu_ldpc::decoder::{Fixed8Decoder, Simd};
use sigpu_ldpc::*;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let code = Code::standard(&args[1]).unwrap();
    let its: usize = args[2].parse().unwrap();
    let threads: usize = args[3].parse().unwrap();
    let cw: usize = args[4].parse().unwrap();
    let sched: Schedule = args
        .get(5)
        .map_or(Schedule::Flooding, |s| s.parse().unwrap());
    for simd in Simd::available()
        .into_iter()
        .take(std::env::var("NSIMD").map_or(9, |v| v.parse().unwrap()))
    {
        let cfg = DecoderConfig {
            algorithm: Algorithm::MinSum,
            schedule: sched,
            precision: Precision::Fixed8 { scale: 4.0 },
            iterations: its,
            early_termination: false,
            threads,
        };
        let mut d = Fixed8Decoder::new(code.clone(), cfg)
            .unwrap()
            .with_simd(simd)
            .unwrap();
        let t = cpu_throughput(&mut d, its, cw, 4.0, 3).unwrap();
        println!(
            "{:?} {:.1} Mbps coded, {:.3} s",
            simd, t.coded_mbps, t.median_s
        );
    }
}
