//! The flags of `sigpu ldpc …` and `sigpu bench ldpc`, parsed by clap into the library's own
//! option types (`FromStr` in `sigpu_ldpc`), and the decoder configuration and sweep they ask
//! for.

use anyhow::{bail, Result};
use clap::{Args, Subcommand};
use sigpu_ldpc::channel::{Demapper, Modulation};
use sigpu_ldpc::decoder_options::DecoderOptions;
use sigpu_ldpc::interleave::InterleaverChoice;
use sigpu_ldpc::sim::sweep::{self, SnrAxis, SweepSpec};
use sigpu_ldpc::sweep_request::{LinkChoice, SweepStop};
use sigpu_ldpc::{Algorithm, Code, DecoderConfig, Precision, Schedule};
use std::path::PathBuf;

#[derive(Subcommand, Debug)]
pub enum LdpcCommand {
    /// List the built-in DVB-T2 / DVB-S2 codes with their parameters (`--code`: one code,
    /// e.g. a 5G NR code's lifted mother code).
    Codes(CodesArgs),
    /// Write a code's parity-check matrix as an alist file.
    Export(ExportArgs),
    /// Encode information bits from a .npy file (uint8, … × K) into codewords (… × N).
    Encode(EncodeArgs),
    /// Decode LLRs from a .npy file (f32 or i8, codewords × N) into hard decisions.
    Decode(DecodeArgs),
    /// BER / FER over an SNR sweep, with confidence intervals (`--device all`: spread over
    /// every GPU of the host).
    Simulate(SimulateArgs),
    /// Draw the BER of several sweep files (from `simulate --out`) in one PNG or SVG.
    Plot(PlotArgs),
}

#[derive(Args, Debug)]
pub struct PlotArgs {
    /// Sweep files; each becomes one BER curve labelled with its decoder.
    #[arg(long = "input", value_name = "FILE", required = true)]
    pub inputs: Vec<PathBuf>,
    /// Plot against Eb/N0 instead of Es/N0.
    #[arg(long)]
    pub eb_n0: bool,
    /// Also draw each file's FER, dashed.
    #[arg(long)]
    pub fer: bool,
    /// The chart's title (default: the first file's code and modulation).
    #[arg(long)]
    pub title: Option<String>,
    /// The picture to write: PNG or SVG, by the extension.
    #[arg(long, value_name = "FILE.png|FILE.svg")]
    pub output: PathBuf,
}

#[derive(Args, Debug)]
pub struct CodesArgs {
    /// List this code only: a built-in name, an alist file or `nr:k=K,n=N[,bg=1|2]` (its
    /// lifted code, 68·Z or 52·Z bits with the first 2·Z punctured).
    #[arg(long)]
    pub code: Option<String>,
}

#[derive(Args, Debug)]
pub struct ExportArgs {
    /// A built-in code name (`sigpu ldpc codes`), an alist file or `nr:k=K,n=N[,bg=1|2]` (the
    /// lifted code).
    #[arg(long)]
    pub code: String,
    /// The alist file to write.
    #[arg(long, value_name = "FILE")]
    pub output: PathBuf,
}

#[derive(Args, Debug)]
pub struct EncodeArgs {
    /// A built-in code name (`sigpu ldpc codes`), an alist file of a code with the DVB
    /// accumulator staircase as its parity part, or a 5G NR code `nr:k=K,n=N[,bg=1|2]`
    /// (input … × k, output … × n rate-matched bits).
    #[arg(long)]
    pub code: String,
    #[command(flatten)]
    pub nr: NrArgs,
    /// Information bits: uint8 (or bool) 0/1, shape … × K (K from `sigpu ldpc codes`).
    #[arg(long, value_name = "FILE.npy")]
    pub input: PathBuf,
    /// Codewords: uint8 0/1, shape … × N, information bits first (systematic).
    #[arg(long, value_name = "FILE.npy")]
    pub output: PathBuf,
}

/// The decoder choice shared by every LDPC command; the defaults are the library's
/// (`DecoderConfig::default()`: 8-bit layered offset min-sum β = 0.5 at scale 8).
#[derive(Args, Debug, Clone)]
pub struct DecoderArgs {
    /// spa | minsum | nms[:alpha] | oms[:beta] | aoms[:beta] (adaptive offset, CPU) |
    /// lmin[:beta] (λ-min, three minima, CPU; the closest to sum-product on low-rate 5G NR codes);
    /// α in [0.0625, 1] (default 0.875), β in [0, 8] LLR units (default 0.5; lmin 0.125). Plain min-sum (with --schedule flooding --scale 4: the GPU
    /// LDPC decoder paper's decoder) loses about 0.4 dB to the default.
    #[arg(long, default_value_t = DecoderConfig::default().algorithm)]
    pub decoder: Algorithm,
    /// float | 8bit (the GPU decoder is 8-bit; sum-product is float only).
    #[arg(long, default_value = "8bit")]
    pub precision: Precision,
    /// flooding | layered | layered-compact (8-bit, compressed check state; CPU or GPU, the GPU one
    /// for codes with at most 8 circulants per layer and without early termination).
    #[arg(long, default_value_t = DecoderConfig::default().schedule)]
    pub schedule: Schedule,
    /// Most decoding iterations per codeword.
    #[arg(long, default_value_t = DecoderConfig::default().iterations)]
    pub iterations: usize,
    /// Stop each batch once all its codewords satisfy every check.
    #[arg(long)]
    pub early_termination: bool,
    /// 8-bit LLR scale, in [0.25, 32]: quantised = round(LLR · scale), saturated to ±127.
    #[arg(long, default_value_t = DecoderOptions::default_scale())]
    pub scale: f32,
    /// CPU threads (0 = all).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
}

impl DecoderArgs {
    /// The decoder configuration these flags ask for, checked.
    pub fn config(&self) -> Result<DecoderConfig> {
        let options = DecoderOptions {
            algorithm: self.decoder,
            schedule: self.schedule,
            precision: self.precision,
            iterations: self.iterations,
            early_termination: self.early_termination,
            scale: self.scale,
            threads: self.threads,
        };
        Ok(options.config()?)
    }
}

#[derive(Args, Debug)]
pub struct DecodeArgs {
    /// A built-in code name (`sigpu ldpc codes`), an alist file, or a 5G NR code
    /// `nr:k=K,n=N[,bg=1|2]` (input … × n LLRs, or … × R × n for R redundancy versions;
    /// --output gets the k decoded bits of each word, … × k).
    #[arg(long)]
    pub code: String,
    #[command(flatten)]
    pub nr: NrArgs,
    /// LLRs, ln P(0)/P(1), as float32, float64 (converted to float32) or int8 (int8 is taken
    /// at --scale steps per unit).
    #[arg(long, value_name = "FILE")]
    pub input: PathBuf,
    /// Hard decisions, uint8 0/1, codewords × N.
    #[arg(long, value_name = "FILE")]
    pub output: PathBuf,
    /// Also write the information bits alone (the first K of each codeword), uint8,
    /// codewords × K.
    #[arg(long, value_name = "FILE.npy")]
    pub output_info: Option<PathBuf>,
    /// Also write each bit's posterior LLR (ln P(0)/P(1) after the last iteration), float32,
    /// codewords × N. Needs the f32 CPU decoder: --precision float, no --device cuda.
    #[arg(long, value_name = "FILE.npy")]
    pub soft: Option<PathBuf>,
    #[command(flatten)]
    pub decoder: DecoderArgs,
}

/// The flags of 5G NR codes on `encode` and `decode`.
#[derive(Args, Debug, Clone)]
pub struct NrArgs {
    /// 5G NR codes: the redundancy version (0–3), or a comma list (one axis per version:
    /// encode writes … × R × n, decode combines the R transmissions). Default 0.
    #[arg(long, value_name = "RV[,RV…]")]
    pub rv: Option<String>,
    /// 5G NR codes: apply the bit interleaver of TS 38.212 §5.4.2.2 for this many bits per
    /// symbol (Q_m: 1, 2, 4, 6, 8, 10); n must be a multiple of it.
    #[arg(long, value_name = "QM")]
    pub bits_per_symbol: Option<usize>,
}

#[derive(Args, Debug)]
pub struct SimulateArgs {
    /// A built-in code name (`sigpu ldpc codes`), an alist file, or a 5G NR code
    /// `nr:k=K,n=N[,bg=1|2]` (one code block, rate-matched; FER is the BLER).
    #[arg(long)]
    pub code: String,
    /// 5G NR codes: the redundancy versions sent (comma list: their LLRs are combined).
    #[arg(long, value_name = "RV[,RV…]")]
    pub rv: Option<String>,
    /// 5G NR codes: awgn | rayleigh (block fading, one coefficient per transmission, known
    /// to the demapper).
    #[arg(long)]
    pub fading: Option<String>,
    /// bpsk | qpsk | 16qam | 64qam | 256qam (DVB-T2 Gray mapping, unrotated; TS 38.211's
    /// mapping for 5G NR codes).
    #[arg(long, default_value = "qpsk")]
    pub modulation: Modulation,
    /// exact | max-log
    #[arg(long, default_value = "exact")]
    pub demapper: Demapper,
    /// auto | dvbt2 | none: the bit interleaver and bit-to-cell demultiplexer between encoder
    /// and mapper (auto: DVB-T2's, EN 302 755 §6.1, for DVB-T2 codes; none for other codes).
    #[arg(long, default_value = "auto")]
    pub bit_interleaver: InterleaverChoice,
    /// Es/N0 points in dB: START:STOP:STEP or a comma list.
    #[arg(long, alias = "es-n0", value_name = "DB", allow_hyphen_values = true)]
    #[arg(conflicts_with = "eb_n0")]
    pub snr: Option<String>,
    /// Eb/N0 points in dB instead (Eb = Es / (R · bits per symbol)).
    #[arg(long, value_name = "DB", allow_hyphen_values = true)]
    pub eb_n0: Option<String>,
    #[command(flatten)]
    pub decoder: DecoderArgs,
    /// A point stops after this many frame errors ...
    #[arg(long, default_value_t = 100)]
    pub min_errors: u64,
    /// ... or this many frames.
    #[arg(long, default_value_t = 10_000)]
    pub max_frames: u64,
    /// Frames per decoder call (default 1024 on a GPU making the frames, 128 on a GPU fed
    /// from the host, 64 per CPU thread for 8-bit, 2 per thread for float).
    #[arg(long)]
    pub batch: Option<usize>,
    /// On GPUs, make the frames (bits, encoder, mapper, noise, demapper) on the host instead
    /// of on the GPU (the GPU frame chain, used with the flooding schedule): the same frames
    /// and counts, for comparing the two.
    #[arg(long)]
    pub host_frames: bool,
    /// Seed of the random information bits and noise: the same seed gives the same frames.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Results file (JSON), rewritten atomically after every point.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Skip the points already in --out (same code, link, decoder and seed). Points the file
    /// ran with another --min-errors / --max-frames run again (each one is named on stderr).
    /// --out is locked while the sweep runs: a second sweep on the same file is refused.
    #[arg(long, requires = "out")]
    pub resume: bool,
    /// Draw BER and FER against SNR, with confidence intervals: PNG or SVG, by the extension.
    #[arg(long, value_name = "FILE.png|FILE.svg")]
    pub plot: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Codes to time (comma list; a 5G NR code `nr:k=K,n=N[,bg=B]` keeps its commas and is
    /// timed on the code its decoder runs for rv 0).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "dvbt2-normal-1/2,dvbt2-normal-3/4,dvbt2-normal-5/6,dvbt2-short-1/2,dvbt2-short-3/4,dvbt2-short-5/6"
    )]
    pub codes: Vec<String>,
    /// Iteration counts (comma list).
    #[arg(long, value_delimiter = ',', default_value = "20,30,50")]
    pub iterations: Vec<usize>,
    /// Timed batches per configuration (default 20 on a GPU, 3 on the CPU).
    #[arg(long)]
    pub runs: Option<usize>,
    /// spa | minsum | nms[:alpha] | oms[:beta] | aoms[:beta] | lmin[:beta] (8-bit).
    #[arg(long, default_value = "minsum")]
    pub decoder: Algorithm,
    /// flooding | layered | layered-compact (comma list to compare).
    #[arg(long, value_delimiter = ',', default_value = "flooding")]
    pub schedule: Vec<Schedule>,
    /// 8-bit LLR scale: quantised = round(LLR · scale), saturated to ±127.
    #[arg(long, default_value_t = 4.0)]
    pub scale: f32,
    /// CPU: codewords per timed call (default 128, the batch of the GPU LDPC decoder paper).
    #[arg(long, default_value_t = 128)]
    pub codewords: usize,
    /// GPU: decode each 128-codeword batch as sub-batches of this many codewords (128, 64 or
    /// 32; comma list to compare).
    #[arg(long, value_delimiter = ',', default_value = "128")]
    pub sub_batch: Vec<usize>,
    /// GPU: also time the one-word-per-thread check- and variable-node kernels of the GPU
    /// LDPC decoder paper (default: the 16-byte ones only).
    #[arg(long)]
    pub word_kernels: bool,
    /// GPU, layered-compact: codewords per batch (multiples of 4; comma list to compare).
    /// 528 fills an H100 once (one block of 4 codewords per SM); fewer lower the latency.
    #[arg(long, value_delimiter = ',', default_value = "528")]
    pub compact_batch: Vec<usize>,
    /// CPU: worker threads (0: one per core this process may use; the per-core rates divide
    /// by the threads that ran).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    #[command(flatten)]
    pub out: crate::cmd::JsonOut,
}

impl SimulateArgs {
    /// The sweep these flags ask for.
    pub fn spec(&self, code: &Code) -> Result<SweepSpec> {
        let link = LinkChoice {
            modulation: self.modulation,
            demapper: self.demapper,
            bit_interleaver: self.bit_interleaver,
            seed: self.seed,
        };
        let (axis, points) = self.points()?;
        let mut spec = SweepSpec::new(link.link(code), axis, points, self.decoder.config()?);
        self.stop().apply(&mut spec);
        spec.device_frames = !self.host_frames;
        Ok(spec)
    }

    /// The SNR axis and points of --snr or --eb-n0.
    pub fn points(&self) -> Result<(SnrAxis, Vec<f64>)> {
        Ok(match (&self.snr, &self.eb_n0) {
            (Some(s), None) => (SnrAxis::EsN0, sweep::parse_points(s)?),
            (None, Some(s)) => (SnrAxis::EbN0, sweep::parse_points(s)?),
            _ => bail!("give the SNR points with --snr (Es/N0) or --eb-n0"),
        })
    }

    /// --min-errors, --max-frames, --batch, --out and --resume.
    pub fn stop(&self) -> SweepStop {
        SweepStop {
            min_errors: self.min_errors,
            max_frames: self.max_frames,
            batch: self.batch,
            out: self.out.clone(),
            resume: self.resume,
        }
    }
}
