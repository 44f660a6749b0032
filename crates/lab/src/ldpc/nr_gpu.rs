//! The GPU 5G NR decoder's benchmark rows: BG1 Z = 384 (k = 8448, R = 1/3) at 5 and 20
//! iterations, a slot of 152 such code blocks at 10 iterations (latency, LLRs in to bits out;
//! also in two parts), and a mixed batch of 16 codes beside a uniform batch with the same
//! number of edges. Each row gives coded and information Gbps and edge-iterations/s, end to end (LLR upload, kernel,
//! hard-decision download) and device-only (the kernel alone), for both kernels (one check
//! lane per thread, two packed in a word) in one launch, and for the one-lane kernel as the
//! engine splits it by default (`auto_parts`: a large batch in parts on their own streams, one
//! part's copies overlapping another's kernel; a slot in one launch).

use anyhow::Result;
use serde::Serialize;
use sigpu_ldpc::gpu::nr_checks::{mixed_batch, nr_noisy_words};
use sigpu_ldpc::gpu::nr_layout::{NrCodeTable, NrKernel, WordInput};
use sigpu_ldpc::gpu::NrGpuEngine;
use sigpu_ldpc::nr::NrCode;
use sigpu_ldpc::{Algorithm, Code, DecoderConfig, Llrs, Precision, Schedule};
use sigpu_runtime::cuda::Gpu;

/// One timed batch of the GPU NR decoder.
#[derive(Clone, Debug, Serialize)]
pub struct NrGpuRow {
    /// What the batch is.
    pub what: String,
    /// The kernel: one check lane per thread, or two packed in a word.
    pub kernel: NrKernel,
    /// Parts the batch was split into, each on its own stream (1: one launch).
    pub parts: usize,
    /// Distinct codes in the batch.
    pub codes: usize,
    /// Code blocks per launch.
    pub codewords: usize,
    /// Iterations (no early termination).
    pub iterations: usize,
    /// Edges of the lifted graphs of all blocks.
    pub edges: usize,
    /// Median launch time with transfers (the latency, LLRs in to bits out), seconds.
    pub median_s: f64,
    /// Median kernel time alone, seconds.
    pub device_only_s: f64,
    /// Decoded bits (N of the decoding codes, punctured included) per second, end to end.
    pub coded_gbps: f64,
    /// Information bits (K, filler included) per second, end to end.
    pub info_gbps: f64,
    /// Edges × iterations per second, end to end.
    pub edge_iterations_per_s: f64,
    /// As `coded_gbps`, the kernel alone.
    pub device_coded_gbps: f64,
    /// As `info_gbps`, the kernel alone.
    pub device_info_gbps: f64,
    /// As `edge_iterations_per_s`, the kernel alone.
    pub device_edge_iterations_per_s: f64,
}

/// Times `blocks` (code, LLRs of its codewords) in one launch of each kernel, and with the
/// one-lane kernel in the parts the engine picks by default (0 below: none fixed).
fn time_batch(
    gpu: &Gpu,
    what: String,
    blocks: &[(Code, Vec<f32>)],
    config: DecoderConfig,
    runs: usize,
) -> Result<Vec<NrGpuRow>> {
    [
        (NrKernel::Lanes, 1),
        (NrKernel::Pairs, 1),
        (NrKernel::Lanes, 0),
    ]
    .into_iter()
    .map(|(k, parts)| time_kernel(gpu, what.clone(), blocks, config, runs, k, parts))
    .collect()
}

fn time_kernel(
    gpu: &Gpu,
    what: String,
    blocks: &[(Code, Vec<f32>)],
    config: DecoderConfig,
    runs: usize,
    kernel: NrKernel,
    parts: usize,
) -> Result<NrGpuRow> {
    let tables = (blocks.iter())
        .map(|(c, _)| NrCodeTable::new(c))
        .collect::<sigpu_ldpc::Result<Vec<_>>>()?;
    let mut words = Vec::new();
    let mut info = 0usize;
    for (i, (code, llr)) in blocks.iter().enumerate() {
        for w in llr.chunks(code.n()) {
            words.push(WordInput {
                code: i,
                llr: Llrs::F32(w),
            });
            info += code.k();
        }
    }
    let mut engine = NrGpuEngine::with_kernel(gpu, config, kernel)?;
    if parts > 0 {
        engine.set_parts(parts)?;
    }
    engine.load(&tables, &words)?;
    let parts = engine.parts();
    let (edges, bits) = engine.loaded_size().expect("loaded");
    let e2e = engine.time(true, 3, runs)?.median_ms * 1e-3;
    let dev = engine.time(false, 3, runs)?.median_ms * 1e-3;
    let its = config.iterations as f64;
    Ok(NrGpuRow {
        what,
        kernel,
        parts,
        codes: blocks.len(),
        codewords: words.len(),
        iterations: config.iterations,
        edges,
        median_s: e2e,
        device_only_s: dev,
        coded_gbps: bits as f64 / e2e / 1e9,
        info_gbps: info as f64 / e2e / 1e9,
        edge_iterations_per_s: edges as f64 * its / e2e,
        device_coded_gbps: bits as f64 / dev / 1e9,
        device_info_gbps: info as f64 / dev / 1e9,
        device_edge_iterations_per_s: edges as f64 * its / dev,
    })
}

/// `count` noisy BG1 Z = 384 R = 1/3 blocks (k = 8448, n = 25344).
fn bg1_blocks(count: usize) -> Result<(Code, Vec<f32>)> {
    let nr = NrCode::new(8448, 25344, None)?;
    Ok(nr_noisy_words(
        &nr,
        &[0],
        0.5 + 10.0 * (2.0 / 3.0f64).log10(),
        count,
        1,
    )?)
}

/// Every row; see the module documentation. `uniform` codewords per launch for the
/// BG1 rows (528 fills a 132-SM GPU with four blocks per SM).
pub fn nr_gpu_rows(
    gpu: &Gpu,
    algorithm: Algorithm,
    scale: f32,
    runs: usize,
    uniform: usize,
) -> Result<Vec<NrGpuRow>> {
    let config = |iterations| DecoderConfig {
        algorithm,
        schedule: Schedule::Layered,
        precision: Precision::Fixed8 { scale },
        iterations,
        early_termination: false,
        threads: 0,
    };
    let mut rows = Vec::new();
    let big = bg1_blocks(uniform)?;
    for its in [5, 20] {
        let what = format!("BG1 Z=384 k=8448 R=1/3, {uniform} blocks");
        rows.extend(time_batch(
            gpu,
            what,
            std::slice::from_ref(&big),
            config(its),
            runs,
        )?);
    }
    let slot = bg1_blocks(152)?;
    let what = "slot: 152 blocks BG1 Z=384 k=8448 R=1/3 (latency = median_s)".to_owned();
    rows.extend(time_batch(
        gpu,
        what.clone(),
        std::slice::from_ref(&slot),
        config(10),
        runs,
    )?);
    // The slot in two parts as well: the second half's upload under the first half's kernel
    // (the SMs have room for both halves at once), which the default does not do for a slot.
    rows.push(time_kernel(
        gpu,
        what,
        std::slice::from_ref(&slot),
        config(10),
        runs,
        NrKernel::Lanes,
        2,
    )?);
    // The mixed batch and a uniform one with (nearly) the same edges.
    let mixed = mixed_batch(uniform / 16, 3, 0.0)?;
    let edges: usize = mixed
        .iter()
        .map(|(c, l)| c.edges() * (l.len() / c.n()))
        .sum();
    rows.extend(time_batch(
        gpu,
        "mixed: 16 codes".to_owned(),
        &mixed,
        config(5),
        runs,
    )?);
    let same = (edges as f64 / big.0.edges() as f64).round().max(1.0) as usize;
    let (code, llr) = &big;
    let cut = (code.clone(), llr[..same * code.n()].to_vec());
    let what = format!("uniform BG1 Z=384 with the mixed batch's edges ({same} blocks)");
    rows.extend(time_batch(gpu, what, &[cut], config(5), runs)?);
    Ok(rows)
}

/// The rows as a table: end to end, then device-only figures.
pub fn text(rows: &[NrGpuRow]) -> String {
    let header = [
        "5G NR on the GPU",
        "kernel",
        "parts",
        "blocks",
        "it",
        "ms",
        "coded Gbps",
        "info Gbps",
        "edge-it/s",
        "device ms",
        "dev coded Gbps",
        "dev info Gbps",
        "dev edge-it/s",
    ];
    crate::table::of(&header, rows, |r| {
        vec![
            r.what.clone(),
            format!("{:?}", r.kernel),
            r.parts.to_string(),
            r.codewords.to_string(),
            r.iterations.to_string(),
            format!("{:.3}", r.median_s * 1e3),
            format!("{:.2}", r.coded_gbps),
            format!("{:.2}", r.info_gbps),
            format!("{:.3e}", r.edge_iterations_per_s),
            format!("{:.3}", r.device_only_s * 1e3),
            format!("{:.2}", r.device_coded_gbps),
            format!("{:.2}", r.device_info_gbps),
            format!("{:.3e}", r.device_edge_iterations_per_s),
        ]
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_names_every_row_and_its_kernel() {
        let row = NrGpuRow {
            what: "slot".into(),
            kernel: NrKernel::Pairs,
            parts: 1,
            codes: 1,
            codewords: 152,
            iterations: 10,
            edges: 152 * 121_344,
            median_s: 4e-4,
            device_only_s: 3e-4,
            coded_gbps: 1.0,
            info_gbps: 0.5,
            edge_iterations_per_s: 4.6e11,
            device_coded_gbps: 1.5,
            device_info_gbps: 0.7,
            device_edge_iterations_per_s: 6.1e11,
        };
        let t = text(&[row]);
        assert!(
            t.contains("slot") && t.contains("Pairs") && t.contains("0.400"),
            "{t}"
        );
    }
}
