//! Error-rate simulation: random information words, the staircase encoder, a DVB-T2
//! constellation over AWGN, a demapper and any [`Decoder`]; BER over information bits and FER
//! with 95% Wilson confidence intervals.
//!
//! Frame f at a given SNR draws everything from its own generator, seeded by (seed, SNR, f),
//! so results are reproducible whatever the batch size, thread count or device.

use crate::channel::{Channel, Demapper, Modulation, Snr};
use crate::code::Code;
use crate::decoder::{Decoder, Llrs};
use crate::encode::Encoder;
use crate::error::{LdpcError, Result};
use crate::interleave::{BitInterleaver, Interleaving};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;

/// What a simulation point transmits.
#[derive(Clone, Copy, Debug)]
pub struct Link {
    pub modulation: Modulation,
    pub demapper: Demapper,
    /// The bit interleaver between encoder and mapper (and its inverse after the demapper).
    pub interleaving: Interleaving,
    pub seed: u64,
}

/// One SNR point's counts and rates.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct PointResult {
    pub es_n0_db: f64,
    pub eb_n0_db: f64,
    pub frames: u64,
    pub frame_errors: u64,
    pub bit_errors: u64,
    pub info_bits: u64,
    pub ber: f64,
    pub fer: f64,
    /// 95% Wilson intervals (bits counted as independent trials for the BER).
    pub ber_ci: [f64; 2],
    pub fer_ci: [f64; 2],
    pub mean_iterations: f64,
    pub seconds: f64,
}

impl PointResult {
    fn new(es_n0_db: f64, eb_n0_db: f64) -> PointResult {
        PointResult {
            es_n0_db,
            eb_n0_db,
            frames: 0,
            frame_errors: 0,
            bit_errors: 0,
            info_bits: 0,
            ber: 0.0,
            fer: 0.0,
            ber_ci: [0.0, 1.0],
            fer_ci: [0.0, 1.0],
            mean_iterations: 0.0,
            seconds: 0.0,
        }
    }

    fn update_rates(&mut self) {
        self.ber = self.bit_errors as f64 / self.info_bits.max(1) as f64;
        self.fer = self.frame_errors as f64 / self.frames.max(1) as f64;
        self.ber_ci = wilson(self.bit_errors, self.info_bits);
        self.fer_ci = wilson(self.frame_errors, self.frames);
    }
}

/// 95% Wilson score interval for `k` successes in `n` trials.
pub fn wilson(k: u64, n: u64) -> [f64; 2] {
    if n == 0 {
        return [0.0, 1.0];
    }
    let (k, n, z) = (k as f64, n as f64, 1.959_963_984_540_054);
    let p = k / n;
    let denom = 1.0 + z * z / n;
    let center = (p + z * z / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / denom;
    [(center - half).max(0.0), (center + half).min(1.0)]
}

/// Transmitted frames: information bits and the channel LLRs of their codewords.
pub struct Frames {
    pub info: Vec<u8>,
    pub llr: Vec<f32>,
}

/// Makes frames `first .. first + count` at `es_n0_db`, in parallel over `threads`.
pub fn make_frames(
    code: &Code,
    link: &Link,
    es_n0_db: f64,
    first: u64,
    count: usize,
    threads: usize,
) -> Result<Frames> {
    let encoder = Encoder::new(code)?;
    let channel = Channel::new(link.modulation, link.demapper, es_n0_db)?;
    let interleaver = BitInterleaver::new(code, link.modulation, link.interleaving)?;
    let (n, k) = (code.n(), code.k());
    let mut info = vec![0u8; count * k];
    let mut llr = vec![0f32; count * n];
    let jobs = std::sync::Mutex::new(info.chunks_mut(k).zip(llr.chunks_mut(n)).enumerate());
    std::thread::scope(|s| {
        for _ in 0..threads.clamp(1, count.max(1)) {
            s.spawn(|| {
                let mut word = vec![0u8; n];
                let mut stream = vec![0u8; n];
                let mut soft = vec![0f32; n];
                loop {
                    let Some((i, (info, llr))) =
                        jobs.lock().unwrap_or_else(|p| p.into_inner()).next()
                    else {
                        break;
                    };
                    let mut rng = frame_rng(link.seed, es_n0_db, first + i as u64);
                    for b in info.iter_mut() {
                        *b = rng.random_range(0..2);
                    }
                    encoder
                        .encode(info, &mut word)
                        .expect("lengths are the code's");
                    interleaver.interleave(&word, &mut stream);
                    channel.transmit(&stream, &mut soft, &mut rng);
                    interleaver.deinterleave(&soft, llr);
                }
            });
        }
    });
    Ok(Frames { info, llr })
}

/// The generator of frame `frame` at `es_n0_db` (SplitMix64 over the three keys).
fn frame_rng(seed: u64, es_n0_db: f64, frame: u64) -> ChaCha8Rng {
    let mut x = seed;
    for key in [es_n0_db.to_bits(), frame] {
        x = splitmix(x ^ splitmix(key));
    }
    ChaCha8Rng::seed_from_u64(x)
}

fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// When a point stops: after `min_errors` frame errors or `max_frames` frames.
#[derive(Clone, Copy, Debug)]
pub struct StopRule {
    pub min_errors: u64,
    pub max_frames: u64,
    /// Frames per decoder call.
    pub batch: usize,
}

/// Simulates one point with one decoder. `progress` is called after every batch with the
/// running counts.
pub fn run_point(
    decoder: &mut dyn Decoder,
    link: &Link,
    snr: Snr,
    stop: StopRule,
    threads: usize,
    progress: &mut dyn FnMut(&PointResult),
) -> Result<PointResult> {
    run_point_parallel(&mut [decoder], link, snr, stop, threads, progress)
}

/// Simulates one point with several decoders of one code at once, one worker thread each (one
/// per GPU for `sigpu ldpc simulate --device all`). `threads` CPU threads make the frames,
/// shared among the workers.
///
/// Workers take batches of `stop.batch` frames from a shared counter, so a faster device
/// decodes more of them. The point folds the batches in index order and stops after the same
/// batch a single decoder would have stopped after; batches decoded past it are dropped. As
/// frame f is the same whoever makes it, the counts equal [`run_point`]'s with any one of the
/// decoders, provided they decode alike (the GPU 8-bit decoders match their CPU twin bit for
/// bit). Only `seconds` differs.
pub fn run_point_parallel(
    decoders: &mut [&mut (dyn Decoder + '_)],
    link: &Link,
    snr: Snr,
    stop: StopRule,
    threads: usize,
    progress: &mut dyn FnMut(&PointResult),
) -> Result<PointResult> {
    if stop.batch == 0 || stop.max_frames == 0 {
        return Err(LdpcError::invalid(
            "--max-frames and the batch must be at least 1",
        ));
    }
    let code = match decoders.first() {
        Some(d) => d.code().clone(),
        None => {
            return Err(LdpcError::invalid(
                "a simulation needs at least one decoder",
            ))
        }
    };
    let shape = |c: &Code| (c.name().to_owned(), c.n(), c.m(), c.edges());
    if let Some(other) = decoders.iter().find(|d| shape(d.code()) != shape(&code)) {
        return Err(LdpcError::invalid(format!(
            "all decoders of a simulation must decode one code: {} and {}",
            code.name(),
            other.code().name()
        )));
    }
    let rate = code.rate();
    let es = snr.es_n0_db(link.modulation, rate);
    let eb = es - 10.0 * (rate * link.modulation.bits_per_symbol() as f64).log10();
    let mut point = PointResult::new(es, eb);
    let start = std::time::Instant::now();
    let batches = stop.max_frames.div_ceil(stop.batch as u64);
    let threads_each = (threads / decoders.len()).max(1);
    let next_batch = AtomicU64::new(0);
    let stopped = AtomicBool::new(false);
    let (sender, receiver) = mpsc::channel::<(u64, Result<BatchCounts>)>();
    let mut failure = None;
    std::thread::scope(|s| {
        for decoder in decoders.iter_mut() {
            let sender = sender.clone();
            let (code, next_batch, stopped) = (&code, &next_batch, &stopped);
            s.spawn(move || {
                while !stopped.load(Ordering::Relaxed) {
                    let b = next_batch.fetch_add(1, Ordering::Relaxed);
                    if b >= batches {
                        break;
                    }
                    let first = b * stop.batch as u64;
                    let count = (stop.batch as u64).min(stop.max_frames - first) as usize;
                    // A panicking decoder becomes this batch's error: the fold below then stops
                    // every worker instead of leaving them to run on to max_frames.
                    let counts = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        decode_batch(&mut **decoder, code, link, es, first, count, threads_each)
                    }))
                    .unwrap_or_else(|panic| {
                        let what = panic
                            .downcast_ref::<&str>()
                            .map(|s| s.to_string())
                            .or_else(|| panic.downcast_ref::<String>().cloned())
                            .unwrap_or_default();
                        Err(LdpcError::Invalid(format!(
                            "the decoder of batch {b} panicked: {what}"
                        )))
                    });
                    let failed = counts.is_err();
                    if sender.send((b, counts)).is_err() || failed {
                        break;
                    }
                }
            });
        }
        // Only the workers' senders are left: the loop ends when the last worker does.
        drop(sender);
        let mut done = BTreeMap::new();
        let mut next_fold = 0u64;
        let mut iterations = 0usize;
        // A failed batch counts only when the fold reaches it: one decoded past the stopping
        // batch (which a single decoder would never have run) cannot fail a finished point.
        for (b, counts) in receiver {
            done.insert(b, counts);
            while !stopped.load(Ordering::Relaxed) {
                let Some(counts) = done.remove(&next_fold) else {
                    break;
                };
                next_fold += 1;
                let c = match counts {
                    Ok(c) => c,
                    Err(e) => {
                        stopped.store(true, Ordering::Relaxed);
                        failure = Some(e);
                        break;
                    }
                };
                point.frames += c.frames;
                point.frame_errors += c.frame_errors;
                point.bit_errors += c.bit_errors;
                point.info_bits += c.frames * code.k() as u64;
                iterations += c.iterations;
                point.update_rates();
                point.mean_iterations = iterations as f64 / point.frames as f64;
                point.seconds = start.elapsed().as_secs_f64();
                progress(&point);
                if point.frame_errors >= stop.min_errors || point.frames >= stop.max_frames {
                    stopped.store(true, Ordering::Relaxed);
                }
            }
        }
    });
    match failure {
        Some(e) => Err(e),
        None => Ok(point),
    }
}

/// The counts of one batch of frames.
struct BatchCounts {
    frames: u64,
    frame_errors: u64,
    bit_errors: u64,
    /// As [`DecodeStats::iterations`](crate::DecodeStats) counts them.
    iterations: usize,
}

/// Makes frames `first .. first + count`, decodes them and counts the errors.
fn decode_batch(
    decoder: &mut dyn Decoder,
    code: &Code,
    link: &Link,
    es_n0_db: f64,
    first: u64,
    count: usize,
    threads: usize,
) -> Result<BatchCounts> {
    let (n, k) = (code.n(), code.k());
    let frames = make_frames(code, link, es_n0_db, first, count, threads)?;
    let mut bits = vec![0u8; count * n];
    let stats = decoder.decode(Llrs::F32(&frames.llr), &mut bits)?;
    let mut counts = BatchCounts {
        frames: count as u64,
        frame_errors: 0,
        bit_errors: 0,
        iterations: stats.iterations,
    };
    for (word, info) in bits.chunks(n).zip(frames.info.chunks(k)) {
        let errors = word[..k].iter().zip(info).filter(|(a, b)| a != b).count() as u64;
        counts.bit_errors += errors;
        counts.frame_errors += (errors > 0) as u64;
    }
    Ok(counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_interval() {
        let [lo, hi] = wilson(10, 1000);
        assert!(
            lo < 0.01 && hi > 0.01 && lo > 0.004 && hi < 0.02,
            "{lo} {hi}"
        );
        let [lo, hi] = wilson(0, 1000);
        assert!(lo < 1e-12 && hi > 0.003 && hi < 0.005, "{lo} {hi}");
    }

    /// 8-bit min-sum on DVB-T2 short 1/2, QPSK, at an SNR where about half the frames fail,
    /// in batches of 3 frames, stopping after 8 frame errors: a point that stops mid-way.
    fn parallel_case() -> (Code, crate::DecoderConfig, Link, Snr, StopRule) {
        let config = crate::DecoderConfig {
            algorithm: crate::Algorithm::MinSum,
            schedule: crate::Schedule::Flooding,
            precision: crate::Precision::Fixed8 { scale: 4.0 },
            iterations: 10,
            early_termination: true,
            threads: 1,
        };
        let link = Link {
            modulation: Modulation::Qpsk,
            demapper: Demapper::Exact,
            interleaving: Interleaving::None,
            seed: 3,
        };
        let stop = StopRule {
            min_errors: 8,
            max_frames: 90,
            batch: 3,
        };
        let code = Code::standard("dvbt2-short-1/2").unwrap();
        (code, config, link, Snr::EsN0(1.6), stop)
    }

    #[test]
    fn several_decoders_count_what_one_counts() {
        let (code, config, link, snr, stop) = parallel_case();
        let mut one = crate::decoder::cpu_decoder(&code, config).unwrap();
        let single = run_point(one.as_mut(), &link, snr, stop, 1, &mut |_| {}).unwrap();
        assert!(
            single.frame_errors >= stop.min_errors && single.frames < stop.max_frames,
            "the case should stop on errors before max_frames: {single:?}"
        );
        // Three workers, one of them with two decoder threads, racing for batches.
        let mut decoders: Vec<_> = [1, 2, 1]
            .into_iter()
            .map(|threads| {
                let config = crate::DecoderConfig { threads, ..config };
                crate::decoder::cpu_decoder(&code, config).unwrap()
            })
            .collect();
        let mut refs: Vec<&mut dyn Decoder> = decoders.iter_mut().map(|d| d.as_mut()).collect();
        let mut calls = Vec::new();
        let parallel = run_point_parallel(&mut refs, &link, snr, stop, 3, &mut |p| {
            calls.push(p.frames)
        })
        .unwrap();
        let seconds = PointResult {
            seconds: 0.0,
            ..single.clone()
        };
        assert_eq!(
            PointResult {
                seconds: 0.0,
                ..parallel
            },
            seconds
        );
        // Progress comes once per folded batch, in order.
        let expected: Vec<u64> = (1..=single.frames / 3).map(|b| b * 3).collect();
        assert_eq!(calls, expected);
    }

    /// A decoder that panics on its first batch.
    struct Panicking(Code);
    impl Decoder for Panicking {
        fn describe(&self) -> String {
            "panics".into()
        }
        fn code(&self) -> &Code {
            &self.0
        }
        fn decode(
            &mut self,
            _: crate::decoder::Llrs<'_>,
            _: &mut [u8],
        ) -> Result<crate::decoder::DecodeStats> {
            panic!("test decoder");
        }
    }

    /// A worker whose decoder panics turns into an error naming the batch, and the other
    /// workers stop instead of running on to max_frames.
    #[test]
    fn a_panicking_worker_is_an_error_not_a_crash() {
        let (code, config, link, snr, stop) = parallel_case();
        let mut good = crate::decoder::cpu_decoder(&code, config).unwrap();
        let mut bad = Panicking(code.clone());
        let mut refs: Vec<&mut dyn Decoder> = vec![good.as_mut(), &mut bad];
        let mut folded = 0;
        let e = run_point_parallel(&mut refs, &link, snr, stop, 2, &mut |_| folded += 1)
            .unwrap_err()
            .to_string();
        assert!(e.contains("panicked: test decoder"), "{e}");
    }

    #[test]
    fn parallel_point_stops_at_max_frames_with_a_partial_batch() {
        let (code, config, link, _, _) = parallel_case();
        // A high SNR: no errors, so max_frames (not a multiple of the batch) ends the point.
        let stop = StopRule {
            min_errors: 1,
            max_frames: 7,
            batch: 3,
        };
        let mut a = crate::decoder::cpu_decoder(&code, config).unwrap();
        let mut b = crate::decoder::cpu_decoder(&code, config).unwrap();
        let point = run_point_parallel(
            &mut [a.as_mut(), b.as_mut()],
            &link,
            Snr::EsN0(4.0),
            stop,
            2,
            &mut |_| {},
        )
        .unwrap();
        assert_eq!((point.frames, point.frame_errors), (7, 0));
        assert_eq!(point.info_bits, 7 * code.k() as u64);
    }

    #[test]
    fn parallel_point_refuses_no_decoder_or_mixed_codes() {
        let (code, config, link, snr, stop) = parallel_case();
        let err = run_point_parallel(&mut [], &link, snr, stop, 1, &mut |_| {}).unwrap_err();
        assert!(err.to_string().contains("at least one decoder"), "{err}");
        let other = Code::standard("dvbt2-short-3/4").unwrap();
        let mut a = crate::decoder::cpu_decoder(&code, config).unwrap();
        let mut b = crate::decoder::cpu_decoder(&other, config).unwrap();
        let err = run_point_parallel(
            &mut [a.as_mut(), b.as_mut()],
            &link,
            snr,
            stop,
            1,
            &mut |_| {},
        )
        .unwrap_err();
        assert!(err.to_string().contains("dvbt2-short-3/4"), "{err}");
    }

    #[test]
    fn frames_do_not_depend_on_batching() {
        let code = Code::standard("dvbt2-short-1/2").unwrap();
        let link = Link {
            modulation: Modulation::Qam16,
            demapper: Demapper::Exact,
            interleaving: Interleaving::Dvbt2,
            seed: 5,
        };
        let all = make_frames(&code, &link, 3.0, 0, 4, 2).unwrap();
        let tail = make_frames(&code, &link, 3.0, 2, 2, 1).unwrap();
        assert_eq!(&all.llr[2 * code.n()..], &tail.llr[..]);
        assert_eq!(&all.info[2 * code.k()..], &tail.info[..]);
    }
}
