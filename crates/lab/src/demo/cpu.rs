//! The demo's CPU sections: one capability each, on built-in seeded inputs, through the same
//! library calls a user would make, each with a measured speed and its error vs a reference.

use crate::numfmt::{si, sig3};
use crate::recurrence::bench::{bench_cpu, bench_input};
use anyhow::{Context, Result};
use serde::Serialize;
use sigpu_approx::cpu::CpuFunction;
use sigpu_clns::{fft, ClnsFormat, Geometry, Method};
use sigpu_ldpc::channel::{Demapper, Modulation, Snr};
use sigpu_ldpc::decoder::cpu_decoder;
use sigpu_ldpc::interleave::Interleaving;
use sigpu_ldpc::sim::{make_frames, Link};
use sigpu_ldpc::{Algorithm, Code, DecoderConfig, Llrs, Precision, Schedule};
use sigpu_lns::hmm::{random_emissions, HmmModel};
use sigpu_lns::Format;
use sigpu_recurrence::{Filter, FilterOptions, Lfilter, Method as FilterMethod, Recurrence};
use std::time::Instant;

/// The demo's seed: the same inputs every run.
pub const SEED: u64 = 0x5167_7075;

/// An HMM forward pass in LNS against the f64 log-space forward.
#[derive(Serialize)]
pub struct HmmSection {
    pub device: String,
    pub format: String,
    pub states: usize,
    pub steps: usize,
    pub batch: usize,
    pub seconds: f64,
    /// Transition terms (states² × steps × batch) per second.
    pub g_cells_per_s: f64,
    /// max over the sequences of |ll − ll_f64| / |ll_f64|.
    pub max_relative_error: f64,
}

impl HmmSection {
    /// A measured forward pass of `batch` sequences of `steps` steps over `states` states.
    pub fn new(
        device: &str,
        format: Format,
        (states, steps, batch): (usize, usize, usize),
        seconds: f64,
        max_relative_error: f64,
    ) -> HmmSection {
        HmmSection {
            device: device.to_owned(),
            format: format.to_string(),
            states,
            steps,
            batch,
            seconds,
            g_cells_per_s: (states * states * steps * batch) as f64 / seconds / 1e9,
            max_relative_error,
        }
    }

    /// What was measured, in one line: the speed counts transition terms (α_i · a_ij, states²
    /// per step per sequence) per second.
    pub fn line(&self) -> String {
        format!(
            "HMM forward algorithm in {}, {} states × {} steps × {} sequences: {}; \
             log-likelihood relative error {:.1e} vs float64",
            format_words(&self.format),
            self.states,
            self.steps,
            self.batch,
            si(self.g_cells_per_s * 1e9, "transitions/s"),
            self.max_relative_error
        )
    }

    /// What the line means, for a reader who does not know LNS.
    pub fn gloss(&self) -> &'static str {
        "the likelihood of observation sequences under a hidden Markov model, computed in a \
         logarithmic number system (LNS: products become additions, nothing underflows)"
    }
}

/// "32-bit LNS" for `lns32`, "16-bit complex LNS" for `clns16`: a format name in words.
pub fn format_words(name: &str) -> String {
    let (kind, bits) = match name.strip_prefix("clns") {
        Some(bits) => ("complex LNS", bits),
        None => ("LNS", name.strip_prefix("lns").unwrap_or(name)),
    };
    format!("{bits}-bit {kind}")
}

/// Worst relative error of `got` against the f64 forward of each sequence.
pub fn hmm_error(model: &HmmModel, emit: &[f64], got: &[f64]) -> Result<f64> {
    let per_seq = emit.len() / got.len();
    let mut worst = 0.0f64;
    for (seq, &ll) in emit.chunks(per_seq).zip(got) {
        let want = model.forward_f64(seq)?;
        worst = worst.max(((ll - want) / want).abs());
    }
    Ok(worst)
}

pub fn lns_hmm() -> Result<HmmSection> {
    let (states, steps, batch) = (64, 100, 8);
    let model = HmmModel::random(states, SEED);
    let emit = random_emissions(batch, steps, states, SEED + 1);
    let start = Instant::now();
    let got = model.forward_lns_batch(Format::LNS32, &emit, batch)?;
    let seconds = start.elapsed().as_secs_f64();
    let error = hmm_error(&model, &emit, &got)?;
    Ok(HmmSection::new(
        "cpu",
        Format::LNS32,
        (states, steps, batch),
        seconds,
        error,
    ))
}

/// A 16-bit CLNS FFT against fixed point and f16 of the same width, all vs f64.
#[derive(Serialize)]
pub struct FftSection {
    pub n: usize,
    pub batch: usize,
    pub bits: u32,
    /// The S_b evaluator: the CPU twin of the GPU's bilinear texture read.
    pub method: String,
    pub seconds: f64,
    #[serde(flatten)]
    pub snr: fft::SnrRow,
}

impl FftSection {
    /// What was measured, in one line.
    pub fn line(&self) -> String {
        format!(
            "FFT in {}, N = {}: SNR {:.1} dB vs float64; other {}-bit formats: fixed point \
             {:.1} dB ({:.1} dB with the input scaled by 1/N), float16 {}",
            format_words(&self.snr.clns_format),
            self.n,
            self.snr.clns_db,
            self.bits,
            self.snr.fixed_db,
            self.snr.fixed_input_scaled_db,
            self.snr.f16_db.map_or("-".into(), |v| format!("{v:.1} dB")),
        )
    }

    /// What the line means.
    pub fn gloss(&self) -> &'static str {
        "complex numbers as log-magnitude and phase (CLNS), their additions read from an \
         interpolated table as the GPU's texture unit does; higher SNR is better"
    }
}

pub fn clns_fft() -> Result<FftSection> {
    let (n, batch, bits) = (1024, 4, 16);
    let format = ClnsFormat::CLNS16;
    let method = Method::Tex;
    let sb = method
        .cpu(format, Geometry::default_for(format))?
        .context("the texture S_b has a CPU twin")?;
    let x = fft::random_input(n, batch, SEED);
    let start = Instant::now();
    let snr = fft::snr_row(format, &sb, bits, &x, n)?;
    Ok(FftSection {
        n,
        batch,
        bits,
        method: method.to_string(),
        seconds: start.elapsed().as_secs_f64(),
        snr,
    })
}

/// A 2-pole low-pass `lfilter` on all cores against the serial f64 recurrence, beside the
/// one-core loop SciPy runs.
#[derive(Serialize)]
pub struct FilterSection {
    pub b: Vec<f64>,
    pub a: Vec<f64>,
    pub samples: usize,
    pub threads: usize,
    /// The instruction set of the CPU path (`AVX-512`, `AVX2+FMA`, …).
    pub isa: String,
    pub seconds: f64,
    pub m_samples_per_s: f64,
    /// The serial direct form II transposed loop (`scipy.signal.lfilter`'s) on one core, in
    /// float64 as SciPy runs it for these coefficients, over the same samples.
    pub serial_m_samples_per_s: f64,
    /// `m_samples_per_s / serial_m_samples_per_s`.
    pub speedup_vs_serial: f64,
    /// max |y − y_f64| / max |y_f64|.
    pub max_relative_error: f64,
}

impl FilterSection {
    /// What was measured, in one line, with the serial baseline beside it.
    pub fn line(&self) -> String {
        let coefs = |c: &[f64]| {
            let v: Vec<String> = c.iter().map(|v| v.to_string()).collect();
            format!("[{}]", v.join(", "))
        };
        format!(
            "IIR low-pass lfilter(b = {}, a = {}) on {} float32 samples: {} on {} threads \
             ({}); serial direct form (what scipy.signal.lfilter runs) {} on 1 core: {}×; \
             max error {:.1e} of max |y| vs float64",
            coefs(&self.b),
            coefs(&self.a),
            si(self.samples as f64, "").trim_end(),
            si(self.m_samples_per_s * 1e6, "samples/s"),
            self.threads,
            self.isa,
            si(self.serial_m_samples_per_s * 1e6, "samples/s"),
            sig3(self.speedup_vs_serial),
            self.max_relative_error
        )
    }

    /// What the line means.
    pub fn gloss(&self) -> &'static str {
        "one long signal through a 2-pole recursive filter, split across cores by parallel \
         linear recurrence (PLR) against the sample-by-sample loop"
    }
}

/// A double pole at 0.8 with unit DC gain: y = 0.04 x + 1.6 y[−1] − 0.64 y[−2]. (A double
/// pole at 0.9 amplifies roundings by ‖h_1/A‖₁ = 100, beyond what the contract lets the
/// blocked path take; at 0.8 it is 25.)
pub const LOW_PASS_B: [f64; 1] = [0.04];
pub const LOW_PASS_A: [f64; 3] = [1.0, -1.6, 0.64];

pub fn iir_filter() -> Result<FilterSection> {
    let samples = 4 << 20;
    let x: Vec<f32> = bench_input(samples, SEED);
    // A filter built once and applied many times (what `lfilter` does in one call), timed on
    // all cores into a reused output, and checked against the serial f64 recurrence with the
    // coefficients as f32 holds them: the error is the parallel algorithm's rounding alone.
    let filter = low_pass()?;
    let row = bench_cpu(&filter, &x, 5, true)?;
    let serial = super::serial::tdf2_samples_per_s(&LOW_PASS_B, &LOW_PASS_A, &x, 5) / 1e6;
    let m_samples_per_s = row.gelem_per_s * 1e3;
    Ok(FilterSection {
        b: LOW_PASS_B.to_vec(),
        a: LOW_PASS_A.to_vec(),
        samples,
        threads: sigpu_runtime::host::threads(),
        isa: filter.simd().name().to_owned(),
        seconds: row.median_ms / 1e3,
        m_samples_per_s,
        serial_m_samples_per_s: serial,
        speedup_vs_serial: m_samples_per_s / serial,
        max_relative_error: row.error,
    })
}

/// The demo's low-pass as an f32 filter, in SciPy's `lfilter(b, a)` convention, as the
/// accuracy contract builds it: the demo times the PLR engine, so a contract that ran this
/// filter another way would be an error here, not a figure for an engine it would not use.
pub fn low_pass() -> Result<Filter<f32>> {
    let f = Lfilter::<f32>::new(&LOW_PASS_B, &LOW_PASS_A, FilterOptions::default())?;
    let method = f.report().method;
    f.plr()
        .filter(|_| method == FilterMethod::Plr)
        .cloned()
        .ok_or_else(|| {
            anyhow::anyhow!("the contract runs the demo's low-pass as {}", method.name())
        })
}

/// One fast CPU transcendental against Rust's f32 method and f64.
#[derive(Serialize)]
pub struct ApproxRow {
    pub function: CpuFunction,
    /// The instruction set of the loop that ran (`AVX2+FMA`, `scalar`): the widest this
    /// function has code for that the CPU runs.
    pub path: String,
    /// Largest error of the fast version in f32 ulps vs f64, over its documented domain.
    pub fast_max_ulp: f64,
    pub accurate_max_ulp: f64,
    pub fast_gelem_per_s: f64,
    pub speedup: f64,
}

/// The fast transcendentals in one line.
pub fn approx_line(rows: &[ApproxRow]) -> String {
    let Some(first) = rows.first() else {
        return String::new();
    };
    let name = |r: &ApproxRow| format!("{:?}", r.function).to_lowercase();
    let names: Vec<String> = rows.iter().map(name).collect();
    let cells: Vec<String> = rows
        .iter()
        .map(|r| {
            format!(
                "{} {} ulp {}×",
                name(r),
                sig3(r.fast_max_ulp),
                sig3(r.speedup)
            )
        })
        .collect();
    format!(
        "fast float32 {} ({} code): {}",
        names.join(", "),
        first.path,
        cells.join(", ")
    )
}

/// What the fast transcendentals' line means.
pub const APPROX_GLOSS: &str = "worst error in units in the last place (ulp) of float32 \
    against float64, and speed against Rust's standard float32 functions";

pub fn approx() -> Vec<ApproxRow> {
    crate::approx::cpu_bench::bench(&sigpu_runtime::host::CpuArch::host(), 20_000, 1 << 20, 3)
        .into_iter()
        .map(|r| ApproxRow {
            function: r.function,
            path: r.path.isa().name().to_owned(),
            fast_max_ulp: r.fast_domain.max_ulp,
            accurate_max_ulp: r.accurate_domain.max_ulp,
            fast_gelem_per_s: r.fast_gelem_per_s,
            speedup: r.fast_gelem_per_s / r.accurate_gelem_per_s,
        })
        .collect()
}

/// DVB-T2 short frames over QPSK + AWGN, decoded by the 8-bit min-sum CPU decoder.
#[derive(Serialize)]
pub struct LdpcSection {
    pub code: String,
    pub modulation: String,
    pub decoder: String,
    pub eb_n0_db: f64,
    pub frames: usize,
    pub frame_errors: usize,
    pub bit_errors: usize,
    pub fer: f64,
    pub ber: f64,
    /// Decoding only (frame generation excluded).
    pub seconds: f64,
    /// Coded bits (N per frame) decoded per second, as `sigpu bench ldpc` counts.
    pub coded_mbps: f64,
    /// Bits per frame (the code's N).
    pub n: usize,
    /// The instruction set of the decoder's lane loops.
    pub isa: String,
}

impl LdpcSection {
    /// What was measured, in one line.
    pub fn line(&self) -> String {
        format!(
            "LDPC decoding, {}, {} at Eb/N0 {:.1} dB: frame error rate {}, bit error \
             rate {:.2e}, {} coded ({}, {})",
            code_words(&self.code),
            self.modulation.to_uppercase(),
            self.eb_n0_db,
            sig3(self.fer),
            self.ber,
            si(self.coded_mbps * 1e6, "bit/s"),
            self.decoder,
            self.isa
        )
    }

    /// What the line means.
    pub fn gloss(&self) -> String {
        format!(
            "error correction of {} noisy frames of {} bits; at this SNR, in the code's \
             waterfall, some frames still fail",
            self.frames, self.n
        )
    }
}

/// "DVB-T2 short frames, rate 1/2" for `dvbt2-short-1/2`; other names as they are.
fn code_words(name: &str) -> String {
    let mut parts = name.splitn(3, '-');
    match (parts.next(), parts.next(), parts.next()) {
        (Some(standard), Some(frame @ ("short" | "normal")), Some(rate)) => {
            let standard = match standard {
                "dvbt2" => "DVB-T2",
                "dvbs2" => "DVB-S2",
                s => s,
            };
            format!("{standard} {frame} frames, rate {rate}")
        }
        _ => name.to_owned(),
    }
}

pub fn ldpc() -> Result<LdpcSection> {
    let code = Code::standard("dvbt2-short-1/2")?;
    let threads = sigpu_runtime::host::threads();
    // One 64-codeword SIMD batch per thread (up to 4), in the waterfall of the code.
    let frames = 64 * threads.clamp(1, 4);
    let eb_n0_db = 1.2;
    let link = Link {
        modulation: Modulation::Qpsk,
        demapper: Demapper::Exact,
        interleaving: Interleaving::default_for(&code),
        seed: SEED,
    };
    let config = DecoderConfig {
        algorithm: Algorithm::MinSum,
        schedule: Schedule::Flooding,
        precision: Precision::Fixed8 { scale: 4.0 },
        iterations: 50,
        early_termination: true,
        threads: 0,
    };
    let mut decoder = cpu_decoder(&code, config)?;
    let es_n0 = Snr::EbN0(eb_n0_db).es_n0_db(link.modulation, code.rate());
    let sent = make_frames(&code, &link, es_n0, 0, frames, threads)?;
    let (n, k) = (code.n(), code.k());
    let mut bits = vec![0u8; frames * n];
    let start = Instant::now();
    decoder.decode(Llrs::F32(&sent.llr), &mut bits)?;
    let seconds = start.elapsed().as_secs_f64();
    let (mut frame_errors, mut bit_errors) = (0, 0);
    for (word, info) in bits.chunks(n).zip(sent.info.chunks(k)) {
        let e = word[..k].iter().zip(info).filter(|(a, b)| a != b).count();
        bit_errors += e;
        frame_errors += (e > 0) as usize;
    }
    Ok(LdpcSection {
        code: code.name().to_owned(),
        modulation: link.modulation.name().to_owned(),
        decoder: config.describe(),
        eb_n0_db,
        frames,
        frame_errors,
        bit_errors,
        fer: frame_errors as f64 / frames as f64,
        ber: bit_errors as f64 / (frames * k) as f64,
        seconds,
        coded_mbps: (frames * n) as f64 / seconds / 1e6,
        n,
        isa: sigpu_ldpc::decoder::best_simd(&sigpu_runtime::host::CpuArch::host())
            .name()
            .to_owned(),
    })
}
