//! Writes the generated kernels (source and constants) that gen_main.cu runs: copy to
//! crates/recurrence/examples/ and `cargo run -p sigpu-recurrence --example emit_kernels -- DIR`.
//! Prints: tag, threads, vpt, block threads, dynamic shared bytes, constants, tail carry.
use sigpu_recurrence::gpu::{generate, GpuConfig};
use sigpu_recurrence::{Filter, FilterOptions};
use std::io::Write;

fn emit<T: sigpu_recurrence::Element>(dir: &str, tag: &str, sig: &str, config: GpuConfig) {
    let filter = Filter::<T>::parse(sig, FilterOptions::default()).unwrap();
    let g = generate(&filter, config).unwrap();
    std::fs::write(format!("{dir}/{tag}_src.cu"), &g.source).unwrap();
    let mut f = std::fs::File::create(format!("{dir}/{tag}.consts")).unwrap();
    let bytes: Vec<u8> = g
        .constants
        .iter()
        .flat_map(|c| {
            let v = c.to_f64();
            if std::mem::size_of::<T>() == 8 {
                if T::DTYPE.is_float() { v.to_le_bytes().to_vec() } else { (v as i64 as u64).to_le_bytes().to_vec() }
            } else if T::DTYPE.is_float() {
                (v as f32).to_le_bytes().to_vec()
            } else {
                (v as i64 as u32).to_le_bytes().to_vec()
            }
        })
        .collect();
    f.write_all(&bytes).unwrap();
    println!(
        "{tag} {} {} {} {} {} {}",
        g.config.threads, g.config.vpt, g.block_threads(), g.shared_bytes, g.constants.len(), g.tail_carry
    );
}

fn main() {
    let dir = std::env::args().nth(1).unwrap();
    let old = GpuConfig { threads: 256, lookback_warp: false, ..GpuConfig::default() };
    emit::<i32>(&dir, "ps_i32_new", "(1 : 1)", GpuConfig::default());
    emit::<i32>(&dir, "ps_i32_old", "(1 : 1)", old);
    emit::<f32>(&dir, "ps_f32_new", "(1 : 1)", GpuConfig::default());
    emit::<f32>(&dir, "ps_f32_old", "(1 : 1)", old);
    emit::<f32>(&dir, "p999_f32_new", "(0.001 : 0.999)", GpuConfig::default());
    emit::<f32>(&dir, "p999_f32_old", "(0.001 : 0.999)", old);
    emit::<f64>(&dir, "k2_f64_new", "(0.000001 : 1.998, -0.998001)", GpuConfig::default());
    emit::<f64>(&dir, "k2_f64_old", "(0.000001 : 1.998, -0.998001)", old);
}
