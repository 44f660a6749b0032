//! The GPU self-checks (`sigpu check`): each GPU decoder against its CPU twin on fresh frames
//! near each code's waterfall (so some frames decode and some do not, and messages saturate),
//! and a simulation point spread over every GPU against the CPU.

use super::flooding::{GpuDecoder, GpuOptions};
use super::layered::LayeredGpuDecoder;
use crate::channel::{Demapper, Modulation, Snr};
use crate::code::Code;
use crate::decoder::{Algorithm, Decoder, DecoderConfig, Fixed8Decoder, Llrs, Precision, Schedule};
use crate::sim::{make_frames, run_point_parallel, Frames, Link, PointResult, StopRule};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sigpu_runtime::cuda::{compare_exact, sanitize_sizes, Check, CheckResult, Gpu};

/// Which GPU kernels a twin check runs.
#[derive(Clone, Copy, PartialEq)]
enum Kernels {
    /// The fused layered kernel.
    Layered,
    /// Flooding in sub-batches of `sub` codewords, 16-byte (`vector`) or 4-byte accesses.
    Flooding { sub: usize, vector: bool },
    /// Flooding with the GPU LDPC decoder paper's re-reading kernels.
    Reread,
}

/// One twin check: the rule, early termination, the code (`None`: a random DVB-T2 short
/// code) and the codewords decoded.
#[derive(Clone, Copy)]
struct Case {
    algorithm: Algorithm,
    early: bool,
    code: Option<&'static str>,
    count: usize,
    kernels: Kernels,
}

fn case(algorithm: Algorithm, kernels: Kernels, count: usize) -> Case {
    Case {
        algorithm,
        early: false,
        code: None,
        count,
        kernels,
    }
}

impl Case {
    fn early(self) -> Case {
        Case {
            early: true,
            ..self
        }
    }
    fn on(self, code: &'static str) -> Case {
        Case {
            code: Some(code),
            ..self
        }
    }
}

const NMS: Algorithm = Algorithm::NormalizedMinSum { alpha: 0.75 };
const OMS: Algorithm = Algorithm::OffsetMinSum { beta: 0.5 };
const fn flooding(sub: usize, vector: bool) -> Kernels {
    Kernels::Flooding { sub, vector }
}

/// Every LDPC GPU check; see the module documentation.
pub fn checks() -> Vec<Check> {
    use Algorithm::MinSum;
    use Kernels::{Layered, Reread};
    vec![
        Check {
            name: "ldpc/minsum8_layered",
            about: "fused layered 8-bit min-sum, 2 batches (one partial) of a random DVB-T2 short code, vs CPU twin",
            run: |gpu, seed| twin_check(gpu, seed, case(MinSum, Layered, 128 + 21)),
        },
        Check {
            name: "ldpc/nms8_layered_normal_early",
            about: "fused layered 8-bit normalised min-sum with early termination on DVB-T2 normal 1/2, vs CPU twin",
            run: |gpu, seed| {
                let nms = Algorithm::NormalizedMinSum { alpha: 0.875 };
                twin_check(gpu, seed, case(nms, Layered, 128).early().on("dvbt2-normal-1/2"))
            },
        },
        Check {
            name: "ldpc/oms8_layered_s2_short_8_9",
            about: "fused layered 8-bit offset min-sum on DVB-S2 short 8/9 (checks of degree 27), vs CPU twin",
            run: |gpu, seed| twin_check(gpu, seed, case(OMS, Layered, 64).on("dvbs2-short-8/9")),
        },
        Check {
            name: "ldpc/oms8_compact_normal_1_2",
            about: "compact layered 8-bit offset min-sum on DVB-T2 normal 1/2, batches of 8 (one partial block), vs CPU twin",
            run: |gpu, seed| compact_check(gpu, seed, OMS, "dvbt2-normal-1/2", 8, 13),
        },
        Check {
            name: "ldpc/nms8_compact_short_1_2",
            about: "compact layered 8-bit normalised min-sum on DVB-T2 short 1/2, one full batch of 528, vs CPU twin",
            run: |gpu, seed| {
                let nms = Algorithm::NormalizedMinSum { alpha: 0.875 };
                let batch = super::COMPACT_BATCH;
                compact_check(gpu, seed, nms, "dvbt2-short-1/2", batch, batch)
            },
        },
        Check {
            name: "ldpc/sim_all_gpus",
            about: "simulation point spread over every GPU of the host (two workers per GPU), counts vs one CPU twin",
            run: |_, seed| all_gpus_check(seed),
        },
        Check {
            name: "ldpc/minsum8_flooding",
            about: "8-bit min-sum, 2 batches (one partial) of a random DVB-T2 short code, vs CPU twin",
            run: |gpu, seed| twin_check(gpu, seed, case(MinSum, flooding(128, true), 128 + 37)),
        },
        Check {
            name: "ldpc/nms8_early_termination",
            about: "8-bit normalised min-sum with early termination (per-codeword freeze), vs CPU twin",
            run: |gpu, seed| twin_check(gpu, seed, case(NMS, flooding(64, true), 128).early()),
        },
        Check {
            name: "ldpc/minsum8_sub_batch32",
            about: "8-bit min-sum in sub-batches of 32 codewords, 2 batches (one partial), vs CPU twin",
            run: |gpu, seed| twin_check(gpu, seed, case(MinSum, flooding(32, true), 128 + 45)),
        },
        Check {
            name: "ldpc/minsum8_reread",
            about: "8-bit min-sum with the GPU LDPC decoder paper's re-reading kernels (any degree), vs CPU twin",
            run: |gpu, seed| twin_check(gpu, seed, case(MinSum, Reread, 128).early()),
        },
        Check {
            name: "ldpc/minsum8_device_io",
            about: "8-bit min-sum on float32 LLRs already on the device (quantised and unpacked by kernels), 2 batches (one partial), vs CPU twin",
            run: device_io_check,
        },
        Check {
            name: "ldpc/oms8_normal_1_2",
            about: "8-bit offset min-sum on DVB-T2 normal 1/2, vs CPU twin",
            run: |gpu, seed| {
                twin_check(gpu, seed, case(OMS, flooding(128, false), 128).on("dvbt2-normal-1/2"))
            },
        },
    ]
}

/// `sim::run_point_parallel` over every GPU of the host, two decoders (worker threads) per
/// GPU so that workers race even on a one-GPU host, against one worker with the CPU twin on
/// the same frames: frames, frame errors and bit errors must be equal. The GPU handed in is
/// not used: the check opens every device itself, as `--device all` does.
fn all_gpus_check(seed: u64) -> CheckResult {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let code = Code::standard("dvbt2-short-1/2")?;
    let link = Link::qpsk(rng.random());
    // From FER ≈ 0.3 (stops on errors after a few batches) to ≈ 0.01 (runs to max_frames).
    let eb_n0 = rng.random_range(1.6..1.8);
    let config = DecoderConfig {
        iterations: 20,
        early_termination: true,
        ..DecoderConfig::PAPER
    };
    let stop = if sanitize_sizes() {
        StopRule {
            min_errors: 5,
            max_frames: 2 * 64,
            batch: 64,
        }
    } else {
        StopRule {
            min_errors: 50,
            max_frames: 20 * 64,
            batch: 64,
        }
    };
    let threads = sigpu_runtime::host::threads();
    let gpus = Gpu::open_all()?;
    let mut decoders = Vec::new();
    for gpu in gpus.iter().chain(&gpus) {
        decoders.push(GpuDecoder::new(gpu, code.clone(), config)?);
    }
    let mut workers: Vec<&mut dyn Decoder> =
        decoders.iter_mut().map(|d| d as &mut dyn Decoder).collect();
    let snr = Snr::EbN0(eb_n0);
    let got = run_point_parallel(&mut workers, &link, snr, stop, threads, &mut |_| {})?;
    let mut cpu = Fixed8Decoder::new(code, config)?;
    let want = run_point_parallel(&mut [&mut cpu], &link, snr, stop, threads, &mut |_| {})?;
    let counts = |p: &PointResult| [p.frames, p.frame_errors, p.bit_errors];
    Ok(compare_exact(&counts(&got), &counts(&want)).with_note(format!(
        "{} GPU(s), {} workers, Eb/N0 {eb_n0:.2} dB: {} frames, {} frame errors, {} bit errors (CPU {} / {} / {})",
        gpus.len(),
        workers.len(),
        got.frames,
        got.frame_errors,
        got.bit_errors,
        want.frames,
        want.frame_errors,
        want.bit_errors
    )))
}

/// A twin check's iteration count: 5 to 29, or 2 to 3 for compute-sanitizer's tools (every
/// kernel still runs; each iteration costs them seconds).
pub(super) fn check_iterations(rng: &mut ChaCha8Rng) -> usize {
    if sanitize_sizes() {
        rng.random_range(2..4)
    } else {
        rng.random_range(5..30)
    }
}

/// A twin check's random inputs: the code, its frames at a random Eb/N0 (dB) and a random
/// scale and iteration count.
struct Inputs {
    name: String,
    code: Code,
    frames: Frames,
    eb_n0: f64,
    config: DecoderConfig,
}

fn twin_inputs(seed: u64, case: Case) -> crate::Result<Inputs> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let name = case.code.map_or_else(
        || {
            let short: Vec<_> = Code::standard_names()
                .into_iter()
                .filter(|n| n.starts_with("dvbt2-short"))
                .collect();
            short[rng.random_range(0..short.len())].to_owned()
        },
        str::to_owned,
    );
    let code = Code::standard(&name)?;
    let link = Link {
        demapper: Demapper::MaxLog,
        ..Link::qpsk(rng.random())
    };
    // Eb/N0 between 0.5 and 2.5 dB: below, in and above the waterfalls of these codes.
    let eb_n0 = rng.random_range(0.5..2.5);
    let es = Snr::EbN0(eb_n0).es_n0_db(Modulation::Qpsk, code.rate());
    let threads = sigpu_runtime::host::threads();
    let frames = make_frames(&code, &link, es, 0, case.count, threads)?;
    let schedule = match case.kernels {
        Kernels::Layered => Schedule::Layered,
        _ => Schedule::Flooding,
    };
    let scale = rng.random_range(2.0..6.0);
    let config = DecoderConfig {
        algorithm: case.algorithm,
        schedule,
        precision: Precision::Fixed8 { scale },
        iterations: check_iterations(&mut rng),
        early_termination: case.early,
        threads: 0,
    };
    Ok(Inputs {
        name,
        code,
        frames,
        eb_n0,
        config,
    })
}

/// The GPU decoder a case runs.
fn gpu_decoder(
    gpu: &Gpu,
    code: Code,
    config: DecoderConfig,
    kernels: Kernels,
) -> crate::Result<Box<dyn Decoder>> {
    Ok(match kernels {
        Kernels::Layered => Box::new(LayeredGpuDecoder::new(gpu, code, config)?),
        Kernels::Reread => {
            let options = GpuOptions {
                sub_batch: 128,
                vector: false,
            };
            Box::new(GpuDecoder::with_options(gpu, code, config, options)?.rereading()?)
        }
        Kernels::Flooding { sub, vector } => {
            let options = GpuOptions {
                sub_batch: sub,
                vector,
            };
            Box::new(GpuDecoder::with_options(gpu, code, config, options)?)
        }
    })
}

fn twin_check(gpu: &Gpu, seed: u64, case: Case) -> CheckResult {
    let Inputs {
        name,
        code,
        frames,
        eb_n0,
        config,
    } = twin_inputs(seed, case)?;
    let mut cpu = Fixed8Decoder::new(code.clone(), config)?;
    let mut want = vec![0u8; frames.llr.len()];
    let cpu_stats = cpu.decode(Llrs::F32(&frames.llr), &mut want)?;
    let mut decoder = gpu_decoder(gpu, code, config, case.kernels)?;
    let mut got = vec![0xFFu8; frames.llr.len()];
    let gpu_stats = decoder.decode(Llrs::F32(&frames.llr), &mut got)?;
    let kernels = match case.kernels {
        Kernels::Layered => ", fused layered kernel",
        Kernels::Reread => ", re-reading kernels of the GPU LDPC decoder paper",
        Kernels::Flooding { vector: true, .. } => ", 16-byte kernels",
        Kernels::Flooding { vector: false, .. } => ", 4-byte kernels",
    };
    let sub = match case.kernels {
        Kernels::Flooding { sub, .. } => sub,
        _ => 128,
    };
    Ok(compare_exact(&got, &want).with_note(format!(
        "{name}, sub-batch {sub}{kernels}, Eb/N0 {eb_n0:.2} dB, {} iterations, {} of {} valid (cpu {}), iterations run gpu {} cpu {}",
        config.iterations, gpu_stats.valid, case.count, cpu_stats.valid, gpu_stats.iterations, cpu_stats.iterations
    )))
}

/// [`CompactGpuDecoder`] with batches of `batch` codewords on `count` frames of `code`, vs the CPU's [`CompactDecoder`](crate::decoder::CompactDecoder),
/// itself tested bit for bit against its scalar twin.
fn compact_check(
    gpu: &Gpu,
    seed: u64,
    algorithm: Algorithm,
    code: &'static str,
    batch: usize,
    count: usize,
) -> CheckResult {
    let c = case(algorithm, Kernels::Layered, count).on(code);
    let Inputs {
        name,
        code,
        frames,
        eb_n0,
        mut config,
    } = twin_inputs(seed, c)?;
    config.schedule = Schedule::LayeredCompact;
    let mut cpu = crate::decoder::CompactDecoder::new(code.clone(), config)?;
    let mut want = vec![0u8; frames.llr.len()];
    let cpu_stats = cpu.decode(Llrs::F32(&frames.llr), &mut want)?;
    let mut decoder = super::CompactGpuDecoder::with_batch(gpu, code, config, batch)?;
    let mut got = vec![0xFFu8; frames.llr.len()];
    let gpu_stats = decoder.decode(Llrs::F32(&frames.llr), &mut got)?;
    Ok(compare_exact(&got, &want).with_note(format!(
        "{name}, batch {batch}, Eb/N0 {eb_n0:.2} dB, {} iterations, {} of {count} valid (cpu {})",
        config.iterations, gpu_stats.valid, cpu_stats.valid
    )))
}

/// [`GpuDecoder::decode_device`]: float32 LLRs already on the device (quantised there) and the
/// decisions unpacked there, 2 batches (one partial), vs the CPU twin.
fn device_io_check(gpu: &Gpu, seed: u64) -> CheckResult {
    use sigpu_runtime::cuda::{DeviceSlice, DeviceSliceMut};
    let count = 128 + 29;
    let Inputs {
        name,
        code,
        frames,
        eb_n0,
        config,
    } = twin_inputs(seed, case(Algorithm::MinSum, flooding(128, true), count))?;
    let mut cpu = Fixed8Decoder::new(code.clone(), config)?;
    let mut want = vec![0u8; frames.llr.len()];
    cpu.decode(Llrs::F32(&frames.llr), &mut want)?;
    let mut decoder = GpuDecoder::new(gpu, code, config)?;
    let llr = gpu.upload(&frames.llr)?;
    let mut out = gpu.alloc_poisoned::<u8>(want.len())?;
    let target = sigpu_runtime::GpuTarget::new(gpu.clone());
    let iterations =
        (decoder.decode_resident(&target, DeviceSlice::of(&llr), DeviceSliceMut::of(&mut out))?)
            .iterations;
    gpu.synchronize()?;
    let got = gpu.download(&out)?;
    Ok(compare_exact(&got, &want).with_note(format!(
        "{name}, device-resident LLRs and decisions, Eb/N0 {eb_n0:.2} dB, {} iterations (run: {iterations})",
        config.iterations
    )))
}
