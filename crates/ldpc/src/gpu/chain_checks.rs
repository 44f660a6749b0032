//! Self-checks of the GPU frame chain (`sigpu check`): its LLRs and information bits bit for
//! bit against the CPU twin ([`FramePlan`]) over many frames, and a simulated batch's counts
//! (frames made, decoded and counted on the device) against the CPU's.

use super::chain::{ChainDecoder, GpuFrameChain};
use crate::channel::{Demapper, Modulation};
use crate::code::Code;
use crate::decoder::{Algorithm, Decoder, DecoderConfig, Fixed8Decoder, Llrs, Precision, Schedule};
use crate::interleave::Interleaving;
use crate::sim::{make_planned_frames, FrameCounts, FramePlan, Link};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sigpu_runtime::cuda::{compare_exact, Check, CheckResult, Gpu};

/// The frame chain's checks.
pub fn checks() -> Vec<Check> {
    vec![
        Check {
            name: "ldpc/frame_chain_qpsk",
            about: "GPU frame chain (Philox, encoder, QPSK, Box-Muller noise, exact demapper) on a random DVB-T2 code, 300 frames: LLRs and information bits bit for bit vs CPU twin",
            run: |gpu, seed| llr_check(gpu, seed, Some(Modulation::Qpsk), 300),
        },
        Check {
            name: "ldpc/frame_chain_16qam",
            about: "GPU frame chain with 16-QAM, the DVB-T2 bit interleaver and the exact demapper on a random DVB-T2 code, 300 frames: LLRs bit for bit vs CPU twin",
            run: |gpu, seed| llr_check(gpu, seed, Some(Modulation::Qam16), 300),
        },
        Check {
            name: "ldpc/frame_chain_any",
            about: "GPU frame chain with a random constellation (BPSK to 256-QAM) and demapper, 64 frames: LLRs bit for bit vs CPU twin",
            run: |gpu, seed| llr_check(gpu, seed, None, 64),
        },
        Check {
            name: "ldpc/frame_chain_counts",
            about: "a simulated batch on the GPU (frames made, decoded by the flooding 8-bit min-sum and counted on the device), 2 batches (one partial): counts vs CPU frames + CPU twin decoder",
            run: counts_check,
        },
    ]
}

/// A random DVB-T2 code (short, or normal 1/2), link and SNR near the code's waterfall.
fn random_point(rng: &mut ChaCha8Rng, modulation: Option<Modulation>) -> (Code, Link, f64) {
    let mut names: Vec<_> = Code::standard_names()
        .into_iter()
        .filter(|n| n.starts_with("dvbt2-short") && *n != "dvbt2-short-1/4")
        .collect();
    names.push("dvbt2-normal-1/2");
    let code = Code::standard(names[rng.random_range(0..names.len())]).expect("a standard code");
    let modulation =
        modulation.unwrap_or_else(|| Modulation::ALL[rng.random_range(0..Modulation::ALL.len())]);
    let demapper = if rng.random_bool(0.5) {
        Demapper::MaxLog
    } else {
        Demapper::Exact
    };
    let link = Link {
        modulation,
        demapper,
        interleaving: Interleaving::default_for(&code),
        seed: rng.random(),
    };
    // Eb/N0 0.5 to 3.5 dB: Es/N0 from it for the rate and constellation.
    let eb = rng.random_range(0.5..3.5);
    let es = crate::channel::Snr::EbN0(eb).es_n0_db(modulation, code.rate());
    (code, link, es)
}

fn llr_check(gpu: &Gpu, seed: u64, modulation: Option<Modulation>, count: usize) -> CheckResult {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (code, mut link, es) = random_point(&mut rng, modulation);
    if modulation.is_some() {
        link.demapper = Demapper::Exact;
    }
    let plan = FramePlan::new(&code, &link, es)?;
    let first = rng.random_range(0..1u64 << 40);
    let want = make_planned_frames(&plan, first, count, sigpu_runtime::host::threads());
    let mut chain = GpuFrameChain::new(gpu, &code)?;
    chain.make(&plan, first, count)?;
    let got_llr: Vec<u32> = chain.llr(count)?.iter().map(|x| x.to_bits()).collect();
    let want_llr: Vec<u32> = want.llr.iter().map(|x| x.to_bits()).collect();
    let got_info = chain.info_bits(count)?;
    let report = compare_exact(&got_llr, &want_llr);
    let info_report = compare_exact(&got_info, &want.info);
    let report = if info_report.passed() {
        report
    } else {
        info_report.with_note("information bits differ")
    };
    Ok(report.with_note(format!(
        "{}, {} / {} demapper / {} interleaver, Es/N0 {es:.3} dB, frames {first} .. +{count}",
        code.name(),
        link.modulation.name(),
        link.demapper.name(),
        link.interleaving.name()
    )))
}

fn counts_check(gpu: &Gpu, seed: u64) -> CheckResult {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (code, link, es) = random_point(&mut rng, Some(Modulation::Qpsk));
    // Near the waterfall of the code: some frames decode, some do not.
    let config = DecoderConfig {
        algorithm: Algorithm::MinSum,
        schedule: Schedule::Flooding,
        precision: Precision::Fixed8 {
            scale: rng.random_range(2.0..6.0),
        },
        iterations: super::checks::check_iterations(&mut rng),
        early_termination: rng.random_bool(0.5),
        threads: 0,
    };
    let plan = FramePlan::new(&code, &link, es)?;
    let count = super::BATCH + 37;
    let first = rng.random_range(0..1u64 << 40);
    let frames = make_planned_frames(&plan, first, count, sigpu_runtime::host::threads());
    let mut cpu = Fixed8Decoder::new(code.clone(), config)?;
    let mut bits = vec![0u8; frames.llr.len()];
    let stats = cpu.decode(Llrs::F32(&frames.llr), &mut bits)?;
    let want = FrameCounts::of_errors(frames.errors_each(&code, &bits), stats.iterations);
    let frame_errors = want.totals(count)[0];
    let mut gpu_decoder = ChainDecoder::new(gpu, &code, config)?;
    let got = gpu_decoder
        .simulate_frames(&plan, first, count)
        .expect("the chain decoder simulates")?;
    // Iterations are compared without early termination only: with it, the GPU stops a
    // sub-batch when all its codewords are valid and the CPU a SIMD group, so the counts of
    // iterations run (not the decisions) differ.
    let early = config.early_termination;
    // Each frame's bit errors, then the iterations.
    let as_words = |c: &FrameCounts| {
        let iterations = if early { 0 } else { c.iterations as u64 };
        let mut words = c.errors.clone();
        words.extend([c.frames(), iterations]);
        words
    };
    Ok(compare_exact(&as_words(&got), &as_words(&want)).with_note(format!(
        "{}, QPSK {} demapper, Es/N0 {es:.3} dB, {} iterations{}: {frame_errors} frame errors of {count}, iterations run gpu {} cpu {}",
        code.name(),
        link.demapper.name(),
        config.iterations,
        if early { ", early termination" } else { "" },
        got.iterations,
        want.iterations
    )))
}
