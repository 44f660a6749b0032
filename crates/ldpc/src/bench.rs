//! Decoder throughput as the seed measured it: a batch of codewords decoded for a fixed number
//! of iterations without early termination, coded Mbps = N · codewords / batch time, and
//! information Mbps = K · codewords / batch time.

use crate::channel::{Demapper, Modulation, Quantizer};
use crate::code::Code;
use crate::decoder::{Decoder, Llrs};
use crate::error::Result;
use crate::interleave::Interleaving;
use crate::sim::{make_frames, Link};
use serde::Serialize;

/// One code / decoder / iteration count.
#[derive(Clone, Debug, Serialize)]
pub struct Throughput {
    pub code: String,
    pub n: usize,
    pub k: usize,
    pub decoder: String,
    pub iterations: usize,
    pub codewords_per_batch: usize,
    pub runs: usize,
    /// Batch latency, seconds: median, fastest, slowest.
    pub median_s: f64,
    pub min_s: f64,
    pub max_s: f64,
    /// From the median batch time.
    pub coded_mbps: f64,
    pub info_mbps: f64,
    /// From the slowest batch (the seed's "minimum throughput").
    pub min_coded_mbps: f64,
    /// GPU: median batch time without the LLR upload and hard-decision download.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device_only_s: Option<f64>,
}

impl Throughput {
    pub fn new(
        code: &Code,
        decoder: String,
        iterations: usize,
        codewords: usize,
        mut samples_s: Vec<f64>,
    ) -> Throughput {
        let runs = samples_s.len();
        let median_s = sigpu_runtime::cuda::median(&mut samples_s);
        let min_s = samples_s.first().copied().unwrap_or(f64::NAN);
        let max_s = samples_s.last().copied().unwrap_or(f64::NAN);
        let bits = (code.n() * codewords) as f64;
        Throughput {
            code: code.name().to_owned(),
            n: code.n(),
            k: code.k(),
            decoder,
            iterations,
            codewords_per_batch: codewords,
            runs,
            median_s,
            min_s,
            max_s,
            coded_mbps: bits / median_s / 1e6,
            info_mbps: bits * code.rate() / median_s / 1e6,
            min_coded_mbps: bits / max_s / 1e6,
            device_only_s: None,
        }
    }
}

/// Quantised channel LLRs of `count` random codewords of `code` (QPSK, 1 dB above Es/N0 0),
/// codeword after codeword: the input the throughput runs decode.
pub fn bench_llrs(code: &Code, count: usize, scale: f32) -> Result<Vec<i8>> {
    let link = Link {
        modulation: Modulation::Qpsk,
        demapper: Demapper::MaxLog,
        interleaving: Interleaving::None,
        seed: 1,
    };
    let frames = make_frames(
        code,
        &link,
        1.0 + 10.0 * (2.0 * code.rate()).log10(),
        0,
        count,
        sigpu_runtime::host::threads(),
    )?;
    let q = Quantizer::new(scale)?;
    let mut out = vec![0i8; frames.llr.len()];
    q.quantize_all(&frames.llr, &mut out);
    Ok(out)
}

/// Times `decoder` on batches of `codewords` 8-bit LLR codewords: one warm-up, then `runs`.
pub fn cpu_throughput(
    decoder: &mut dyn Decoder,
    iterations: usize,
    codewords: usize,
    scale: f32,
    runs: usize,
) -> Result<Throughput> {
    let code = decoder.code().clone();
    let llr = bench_llrs(&code, codewords, scale)?;
    let mut bits = vec![0u8; llr.len()];
    let input = Llrs::I8 {
        values: &llr,
        scale,
    };
    let mut failed = None;
    let samples = sigpu_runtime::host::time_cpu(runs, || {
        if let Err(e) = decoder.decode(input, &mut bits) {
            failed = Some(e);
        }
    });
    if let Some(e) = failed {
        return Err(e);
    }
    Ok(Throughput::new(
        &code,
        decoder.describe(),
        iterations,
        codewords,
        samples,
    ))
}
