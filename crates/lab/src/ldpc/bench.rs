//! Decoder throughput as the GPU LDPC decoder paper measured it: a batch of codewords decoded
//! for a fixed number of iterations without early termination, coded Mbps = N · codewords /
//! batch time, and information Mbps = K · codewords / batch time.

use anyhow::Result;
use serde::Serialize;
use sigpu_ldpc::channel::{Demapper, Quantizer};
use sigpu_ldpc::gpu::nr_layout::WordInput;
use sigpu_ldpc::gpu::{
    CompactGpuDecoder, GpuDecoder, GpuOptions, LayeredGpuDecoder, NrGpuDecoder, BATCH,
};
use sigpu_ldpc::sim::{make_frames, Link};
use sigpu_ldpc::{Algorithm, Code, Decoder, DecoderConfig, Llrs, Precision, Schedule};
use sigpu_runtime::cuda::{Gpu, Timing};

/// One code / decoder / iteration count.
#[derive(Clone, Debug, Serialize)]
pub struct Throughput {
    /// The code's name ([`Code::name`]).
    pub code: String,
    /// Codeword length N, in bits.
    pub n: usize,
    /// Information bits K per codeword.
    pub k: usize,
    /// The decoder as it describes itself (schedule, algorithm, precision, kernel shape).
    pub decoder: String,
    /// Decoding iterations per codeword (no early termination).
    pub iterations: usize,
    /// Codewords decoded per timed batch.
    pub codewords_per_batch: usize,
    /// Timed batches.
    pub runs: usize,
    /// Batch latency, seconds: median, fastest, slowest.
    pub median_s: f64,
    /// Fastest batch, in seconds.
    pub min_s: f64,
    /// Slowest batch, in seconds.
    pub max_s: f64,
    /// From the median batch time.
    pub coded_mbps: f64,
    /// Information Mbps from the median batch time: K · codewords / time.
    pub info_mbps: f64,
    /// From the slowest batch (the paper's "minimum throughput").
    pub min_coded_mbps: f64,
    /// GPU: median batch time without the LLR upload and hard-decision download.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device_only_s: Option<f64>,
    /// CPU: worker threads the decoder ran (one per core at most), which the per-core rates
    /// divide by.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub threads: Option<usize>,
    /// CPU: information Mbps per worker thread.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub info_mbps_per_core: Option<f64>,
    /// CPU: coded Mbps per worker thread.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coded_mbps_per_core: Option<f64>,
}

/// The encoder's time per code block (a 5G NR code: the lifted code's systematic encoder,
/// bytes in and out).
#[derive(Clone, Debug, Serialize)]
pub struct EncoderSpeed {
    /// The code's name ([`Code::name`]).
    pub code: String,
    /// Information bits per block (K = 22 Z or 10 Z, filler included).
    pub k: usize,
    /// Median time per block, microseconds, over `runs` runs of `blocks` blocks.
    pub us_per_block: f64,
    /// Blocks per timed run.
    pub blocks: usize,
    /// Timed runs.
    pub runs: usize,
}

impl Throughput {
    /// The row of `runs` batch times `samples_s` (seconds, in any order) of `codewords` codewords
    /// of `code` at `iterations` iterations; NaN rates when there are no samples.
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
            threads: None,
            info_mbps_per_core: None,
            coded_mbps_per_core: None,
        }
    }

    /// The row with its per-core rates, for a CPU decoder that ran `threads` workers.
    fn per_core(mut self, threads: usize) -> Throughput {
        self.threads = Some(threads);
        self.info_mbps_per_core = Some(self.info_mbps / threads as f64);
        self.coded_mbps_per_core = Some(self.coded_mbps / threads as f64);
        self
    }
}

/// The encoder of a lifted 5G NR code timed on `blocks` blocks per run (one warm-up run);
/// None for other codes.
pub fn encoder_speed(code: &Code, blocks: usize, runs: usize) -> Result<Option<EncoderSpeed>> {
    let Some((graph, z)) = code.lifted() else {
        return Ok(None);
    };
    let enc = sigpu_ldpc::nr::LiftedEncoder::new(graph, z)?;
    let info: Vec<u8> = (0..enc.k())
        .map(|i| (i.wrapping_mul(0x9E37) >> 5 & 1) as u8)
        .collect();
    let mut word = vec![0u8; enc.n()];
    let mut failed = None;
    let mut samples = sigpu_runtime::host::time_cpu(runs, || {
        for _ in 0..blocks {
            if let Err(e) = enc.encode(std::hint::black_box(&info), &mut word) {
                failed = Some(e);
            }
        }
    });
    if let Some(e) = failed {
        return Err(e.into());
    }
    Ok(Some(EncoderSpeed {
        code: code.name().to_owned(),
        k: enc.k(),
        us_per_block: sigpu_runtime::cuda::median(&mut samples) / blocks as f64 * 1e6,
        blocks,
        runs: samples.len(),
    }))
}

/// Quantised channel LLRs of `count` random codewords of `code` (QPSK, 1 dB above Es/N0 0),
/// codeword after codeword: the input the throughput runs decode.
pub fn bench_llrs(code: &Code, count: usize, scale: f32) -> Result<Vec<i8>> {
    let link = Link {
        demapper: Demapper::MaxLog,
        ..Link::qpsk(1)
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
        return Err(e.into());
    }
    Ok(Throughput::new(
        &code,
        decoder.describe(),
        iterations,
        codewords,
        samples,
    ))
}

/// The worker threads a CPU decoder runs for `threads` (0: one per core the process may use)
/// on a batch of `codewords`: SIMD-over-codeword decoders take groups of 64, the
/// quasi-cyclic one single codewords.
fn cpu_workers(threads: usize, codewords: usize, per_job: usize) -> usize {
    let available = sigpu_runtime::host::threads();
    let t = if threads == 0 { available } else { threads };
    t.min(codewords.div_ceil(per_job)).max(1)
}

/// What `sigpu bench ldpc` times: every code × schedule × iteration count (× sub-batch and
/// kernel width on a GPU, flooding only).
#[derive(Clone, Debug)]
pub struct BenchSpec {
    /// Code names, as `sigpu ldpc` takes them.
    pub codes: Vec<String>,
    /// Iteration counts to time.
    pub iterations: Vec<usize>,
    /// Timed batches per configuration (default 20 on a GPU, 3 on the CPU).
    pub runs: Option<usize>,
    /// The check-node rule.
    pub algorithm: Algorithm,
    /// Schedules to time.
    pub schedules: Vec<Schedule>,
    /// LLR quantisation scale: 8-bit LLRs are round(llr · scale), saturated to ±127.
    pub scale: f32,
    /// CPU: codewords per timed call.
    pub codewords: usize,
    /// GPU: sub-batch sizes to compare (flooding).
    pub sub_batches: Vec<usize>,
    /// GPU: also time the paper's one-word-per-thread CN / VN kernels.
    pub word_kernels: bool,
    /// GPU, layered-compact: codewords per batch to compare.
    pub compact_batches: Vec<usize>,
    /// CPU: worker threads (0: one per core the process may use).
    pub threads: usize,
}

/// The results of a run, as `--json` prints them.
#[derive(Clone, Debug, Serialize)]
pub struct BenchReport {
    /// The GPU's name and architecture, or the CPU's model.
    pub device: String,
    /// What the times cover, in words.
    pub timing: &'static str,
    /// One row per configuration timed.
    pub results: Vec<Throughput>,
    /// The encoder's time per block, for each 5G NR code timed.
    pub encoders: Vec<EncoderSpeed>,
    /// On a GPU with a 5G NR code among the codes and the layered schedule: the NR decoder's
    /// rows ([`super::nr_gpu::nr_gpu_rows`]: BG1 Z = 384 at 5 and 20 iterations, a slot of
    /// 152 blocks, a mixed batch of 16 codes and its uniform peer).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub nr_gpu: Vec<super::nr_gpu::NrGpuRow>,
}

/// One configuration to time.
#[derive(Clone, Copy)]
struct Variant {
    schedule: Schedule,
    iterations: usize,
    sub: usize,
    vector: bool,
}

/// Sub-batches and kernel widths are flooding options on a GPU, batch sizes (in `sub`)
/// layered-compact ones; layered (and the CPU) runs once per iteration count.
fn variants(spec: &BenchSpec, on_gpu: bool) -> Vec<Variant> {
    let subs: &[usize] = if on_gpu { &spec.sub_batches } else { &[BATCH] };
    let vectors: &[bool] = if on_gpu && spec.word_kernels {
        &[true, false]
    } else {
        &[true]
    };
    let mut out = Vec::new();
    for &schedule in &spec.schedules {
        for &iterations in &spec.iterations {
            let (subs, vectors) = match schedule {
                Schedule::Flooding => (subs, vectors),
                Schedule::LayeredCompact if on_gpu => (&spec.compact_batches[..], &[true][..]),
                _ => (&[BATCH][..], &[true][..]),
            };
            for &sub in subs {
                for &vector in vectors {
                    out.push(Variant {
                        schedule,
                        iterations,
                        sub,
                        vector,
                    });
                }
            }
        }
    }
    out
}

/// Times every configuration of `spec` on `gpu` (the CPU decoder without one); `progress`
/// gets (done, total, what runs next).
pub fn run(
    gpu: Option<&Gpu>,
    spec: &BenchSpec,
    progress: &mut dyn FnMut(usize, usize, &str),
) -> Result<BenchReport> {
    let runs = spec.runs.unwrap_or(if gpu.is_some() { 20 } else { 3 });
    let variants = variants(spec, gpu.is_some());
    let total = spec.codes.len() * variants.len();
    let mut results = Vec::new();
    let mut encoders = Vec::new();
    for name in &spec.codes {
        let code = Code::resolve(name)?;
        encoders.extend(encoder_speed(&code, 1000, runs)?);
        for v in &variants {
            progress(results.len(), total, &format!("{name} {} it", v.iterations));
            let config = DecoderConfig {
                algorithm: spec.algorithm,
                schedule: v.schedule,
                precision: Precision::Fixed8 { scale: spec.scale },
                iterations: v.iterations,
                early_termination: false,
                threads: spec.threads,
            };
            results.push(measure(gpu, &code, config, *v, spec, runs)?);
        }
    }
    let mut nr_gpu = Vec::new();
    let nr_named = spec
        .codes
        .iter()
        .any(|c| sigpu_ldpc::nr::NrCode::is_spec(c));
    if let (Some(gpu), true) = (gpu, nr_named && spec.schedules.contains(&Schedule::Layered)) {
        progress(total, total, "5G NR GPU rows");
        nr_gpu = super::nr_gpu::nr_gpu_rows(gpu, spec.algorithm, spec.scale, runs, 528)?;
    }
    progress(total, total, "");
    Ok(BenchReport {
        nr_gpu,
        device: match gpu {
            Some(g) => format!("{} ({})", g.info().name, g.arch()),
            None => sigpu_runtime::host::HostInfo::detect().cpu_model,
        },
        timing: if gpu.is_some() {
            "CUDA events around LLR upload (pinned), kernels and hard-decision download; median"
        } else {
            "wall clock of decode() on 8-bit LLRs; median"
        },
        results,
        encoders,
    })
}

fn measure(
    gpu: Option<&Gpu>,
    code: &Code,
    config: DecoderConfig,
    v: Variant,
    spec: &BenchSpec,
    runs: usize,
) -> Result<Throughput> {
    let Some(gpu) = gpu else {
        // The planner picks the CPU decoder of the schedule (the compact one for
        // layered-compact); on a GPU each engine is timed with its own knobs below.
        let cpu = sigpu_runtime::Target::cpu();
        let mut d = sigpu_ldpc::plan::decoder(code, config, &cpu)?;
        let per_job = if sigpu_ldpc::decoder::QcDecoder::applies(code, &config) {
            1
        } else {
            sigpu_ldpc::decoder::LANES
        };
        let workers = cpu_workers(config.threads, spec.codewords, per_job);
        return Ok(
            cpu_throughput(&mut *d, v.iterations, spec.codewords, spec.scale, runs)?
                .per_core(workers),
        );
    };
    if v.schedule == Schedule::LayeredCompact {
        let batch = v.sub;
        let llr = bench_llrs(code, batch, spec.scale)?;
        let mut d = CompactGpuDecoder::with_batch(gpu, code.clone(), config, batch)?;
        let timing = d.time_batch(&llr, true, 3, runs)?;
        let samples = timing.samples_ms.iter().map(|ms| ms * 1e-3).collect();
        let mut t = Throughput::new(code, d.describe(), v.iterations, batch, samples);
        t.device_only_s = Some(d.time_batch(&llr, false, 3, runs)?.median_ms * 1e-3);
        return Ok(t);
    }
    if v.schedule == Schedule::Layered && NrGpuDecoder::applies(code, &config) {
        return nr_throughput(gpu, code, config, spec.scale, runs);
    }
    let llr = bench_llrs(code, BATCH, spec.scale)?;
    if v.schedule == Schedule::Layered {
        let mut d = LayeredGpuDecoder::new(gpu, code.clone(), config)?;
        return gpu_throughput(
            &mut d,
            LayeredGpuDecoder::time_batch,
            &llr,
            v.iterations,
            runs,
        );
    }
    let options = GpuOptions {
        sub_batch: v.sub,
        vector: v.vector,
    };
    let mut d = GpuDecoder::with_options(gpu, code.clone(), config, options)?;
    gpu_throughput(&mut d, GpuDecoder::time_batch, &llr, v.iterations, runs)
}

/// The GPU 5G NR decoder on one launch of its codewords, with the transfers and without.
fn nr_throughput(
    gpu: &Gpu,
    code: &Code,
    config: DecoderConfig,
    scale: f32,
    runs: usize,
) -> Result<Throughput> {
    let mut d = NrGpuDecoder::new(gpu, code.clone(), config)?;
    let count = d.launch_words();
    let llr = bench_llrs(code, count, scale)?;
    let words: Vec<WordInput<'_>> = (llr.chunks(code.n()))
        .map(|w| WordInput {
            code: 0,
            llr: Llrs::I8 { values: w, scale },
        })
        .collect();
    let table = d.table().clone();
    d.engine().load(&[table], &words)?;
    let timing = d.engine().time(true, 3, runs)?;
    let samples = timing.samples_ms.iter().map(|ms| ms * 1e-3).collect();
    let mut t = Throughput::new(code, d.describe(), config.iterations, count, samples);
    t.device_only_s = Some(d.engine().time(false, 3, runs)?.median_ms * 1e-3);
    Ok(t)
}

/// A GPU decoder's batch latency with the transfers (the throughput) and without them
/// (`device_only_s`), each after 3 warm-up batches.
fn gpu_throughput<D: Decoder>(
    d: &mut D,
    time_batch: fn(&mut D, &[i8], bool, usize, usize) -> sigpu_ldpc::Result<Timing>,
    llr: &[i8],
    iterations: usize,
    runs: usize,
) -> Result<Throughput> {
    let timing = time_batch(d, llr, true, 3, runs)?;
    let samples = timing.samples_ms.iter().map(|ms| ms * 1e-3).collect();
    let mut t = Throughput::new(d.code(), d.describe(), iterations, BATCH, samples);
    let device_only = time_batch(d, llr, false, 3, runs)?;
    t.device_only_s = Some(device_only.median_ms * 1e-3);
    Ok(t)
}

impl Throughput {
    /// The variant the decoder's description ends with: the GPU's sub-batch and access width,
    /// or the CPU's instruction set.
    pub fn kernels(&self) -> &str {
        self.decoder
            .rsplit_once(" codewords per batch")
            .or_else(|| self.decoder.rsplit_once("(cpu"))
            .map_or("-", |(_, tail)| {
                tail.trim_start_matches([',', ' ']).trim_end_matches(')')
            })
    }
}

impl BenchReport {
    /// The report as text: the device, then one row per code and iteration count.
    pub fn text(&self) -> String {
        let mut out = String::new();
        out += &format!("{}\n", self.device);
        let header = [
            "code",
            "iterations",
            "batch",
            "coded Mbps",
            "(min)",
            "info Mbps",
            "info Mbps/core",
            "batch ms",
            "device-only ms",
            "kernels",
        ];
        let ms = |s: f64| format!("{:.3}", s * 1e3);
        out += &crate::table::of(&header, &self.results, |r| {
            vec![
                r.code.clone(),
                r.iterations.to_string(),
                r.codewords_per_batch.to_string(),
                format!("{:.1}", r.coded_mbps),
                format!("{:.1}", r.min_coded_mbps),
                format!("{:.1}", r.info_mbps),
                r.info_mbps_per_core
                    .map_or("-".into(), |m| format!("{m:.1}")),
                ms(r.median_s),
                r.device_only_s.map_or("-".into(), ms),
                r.kernels().to_owned(),
            ]
        });
        if !self.nr_gpu.is_empty() {
            out += &super::nr_gpu::text(&self.nr_gpu);
        }
        for e in &self.encoders {
            out += &format!(
                "encoder {}: {:.2} µs per block of K = {} ({:.0} Mbps of information)\n",
                e.code,
                e.us_per_block,
                e.k,
                e.k as f64 / e.us_per_block
            );
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_multiply_flooding_options_only_on_a_gpu() {
        let spec = BenchSpec {
            codes: vec!["dvbt2-short-1/2".into()],
            iterations: vec![2, 3],
            runs: Some(1),
            algorithm: Algorithm::MinSum,
            schedules: vec![Schedule::Flooding, Schedule::Layered],
            scale: 4.0,
            codewords: 64,
            sub_batches: vec![128, 32],
            word_kernels: true,
            compact_batches: vec![528],
            threads: 0,
        };
        assert_eq!(variants(&spec, false).len(), 4);
        // Flooding: 2 iteration counts × 2 sub-batches × 2 widths; layered: 2.
        assert_eq!(variants(&spec, true).len(), 10);
        let mut seen = Vec::new();
        let report = run(
            None,
            &BenchSpec {
                schedules: vec![Schedule::Layered],
                iterations: vec![2],
                ..spec
            },
            &mut |done, total, _| seen.push((done, total)),
        )
        .unwrap();
        assert_eq!(seen, [(0, 1), (1, 1)]);
        assert!(report.results[0].coded_mbps > 0.0);
        assert_ne!(report.results[0].kernels(), "-");
    }

    #[test]
    fn an_nr_code_gets_the_qc_decoder_per_core_rates_and_the_encoder_time() {
        let spec = BenchSpec {
            codes: vec!["nr:k=200,n=240".into()],
            iterations: vec![2],
            runs: Some(1),
            algorithm: Algorithm::OffsetMinSum { beta: 0.5 },
            schedules: vec![Schedule::Layered],
            scale: 8.0,
            codewords: 4,
            sub_batches: vec![128],
            word_kernels: false,
            compact_batches: vec![528],
            threads: 1,
        };
        let report = run(None, &spec, &mut |_, _, _| {}).unwrap();
        let r = &report.results[0];
        assert!(r.decoder.contains("quasi-cyclic"), "{}", r.decoder);
        assert_eq!(r.threads, Some(1));
        assert_eq!(r.info_mbps_per_core, Some(r.info_mbps));
        assert_eq!(report.encoders.len(), 1);
        assert!(report.encoders[0].us_per_block > 0.0);
        assert!(report.text().contains("encoder nr-bg"), "{}", report.text());
    }
}
