//! One simulation point spread over several decoders of one code, one worker thread each (one
//! per GPU for `sigpu ldpc simulate --device all`).
//!
//! Workers take batches of `stop.batch` frames from a shared counter, so a faster device
//! decodes more of them. The point folds the batches' frames in index order and stops at the
//! frame the stopping rule names (the one that brings the frame errors to `min_errors`, or
//! frame `max_frames`), whatever batch it falls in; frames decoded past it are dropped. As
//! frame f is the same whoever makes it, the counts equal one decoder's for any batch size,
//! thread count or number of decoders, provided the decoders decode alike (the GPU 8-bit
//! decoders match their CPU twin bit for bit). Only `seconds` differs, and with early
//! termination `mean_iterations` (a batch that the stop cuts counts its share of the batch's
//! iterations).
//!
//! [`run_point_ranks`] spreads a point over processes (MPI ranks, [`Ranks`]), each with its
//! own decoders, in rounds: in round k the run's S decoders (all ranks together) take batches
//! kS .. kS + S, rank r the ones at its offset (the decoders of the ranks before it), one per
//! decoder; every rank's per-frame counts are gathered by every rank, and every rank folds
//! them in index order with the same [`Fold`] as above. So every rank reaches the same
//! stopping frame at the same round, and the counts equal one process's for any number of
//! ranks.

use super::chain::FramePlan;
use super::frames::{make_planned_frames, FrameCounts as BatchCounts, Frames, Link};
use super::point::{PointResult, StopRule};
use crate::channel::Snr;
use crate::code::Code;
use crate::decoder::{Decoder, Llrs};
use crate::error::{LdpcError, Result};
use crate::nr::sim::NrSweep;
use sigpu_runtime::ranks::{RankFailure, Ranks};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;

/// What a point's frames are made of.
#[derive(Clone, Copy, Debug)]
pub enum Source<'a> {
    /// The code's staircase encoder and a DVB-T2 link: the frame chain ([`FramePlan`]).
    Link(&'a Link),
    /// A 5G NR code block over a TS 38.211 link ([`NrSweep::frames`]); the decoders run
    /// [`NrSweep::decoding_code`].
    Nr(&'a NrSweep),
}

impl<'a> From<&'a Link> for Source<'a> {
    fn from(link: &'a Link) -> Source<'a> {
        Source::Link(link)
    }
}

impl<'a> From<&'a NrSweep> for Source<'a> {
    fn from(nr: &'a NrSweep) -> Source<'a> {
        Source::Nr(nr)
    }
}

/// The frames of a point, whoever makes them.
enum Plan<'a> {
    Chain(FramePlan<'a>),
    Nr { sweep: &'a NrSweep, es_n0_db: f64 },
}

/// Simulates one point with several decoders of one code at once; see the module
/// documentation. `threads` CPU threads make the frames, shared among the workers; `progress`
/// is called after every folded batch with the running counts.
pub fn run_point_parallel<'s>(
    decoders: &mut [&mut (dyn Decoder + '_)],
    link: impl Into<Source<'s>>,
    snr: Snr,
    stop: StopRule,
    threads: usize,
    progress: &mut dyn FnMut(&PointResult),
) -> Result<PointResult> {
    let code = common_code(decoders, stop)?;
    let (work, eb) = Work::new(&code, link.into(), snr, stop, threads, decoders.len())?;
    let es = work.es_n0_db;
    let mut fold = Fold::new(PointResult::new(es, eb), work.sizes, stop);
    let (sender, receiver) = mpsc::channel::<(u64, Result<BatchCounts>)>();
    std::thread::scope(|s| {
        for decoder in decoders.iter_mut() {
            let (sender, work) = (sender.clone(), &work);
            s.spawn(move || work.run(&mut **decoder, &sender));
        }
        // Only the workers' senders are left: the loop ends when the last worker does.
        drop(sender);
        for (b, counts) in receiver {
            fold.add(b, counts, &work.stopped, progress);
        }
    });
    fold.finish()
}

/// Words of one batch's record in a round before its frames' bit errors (one word each, up
/// to the batch size): status ([`ABSENT`], [`DONE`] or [`FAILED`]), frames, iterations.
const HEAD: usize = 3;
const ABSENT: u64 = 0;
const DONE: u64 = 1;
const FAILED: u64 = 2;

/// Simulates one point over `ranks`, each rank with its own `decoders` (of one code) and
/// `threads` CPU threads making frames; see the module documentation. Collective: every rank
/// calls it with the same link, SNR and stop rule, and every rank returns the same counts (or
/// the same error: a batch that failed on one rank fails the point on all, naming the rank).
/// `progress` is called on every rank after every folded batch. On one rank it is
/// [`run_point_parallel`].
pub fn run_point_ranks<'s>(
    ranks: &dyn Ranks,
    decoders: &mut [&mut (dyn Decoder + '_)],
    link: impl Into<Source<'s>>,
    snr: Snr,
    stop: StopRule,
    threads: usize,
    progress: &mut dyn FnMut(&PointResult),
) -> Result<PointResult> {
    let link = link.into();
    if ranks.size() == 1 {
        return run_point_parallel(decoders, link, snr, stop, threads, progress);
    }
    let code = LdpcError::agree(ranks, common_code(decoders, stop))?;
    let work = Work::new(&code, link, snr, stop, threads, decoders.len());
    let (work, eb) = LdpcError::agree(ranks, work)?;
    let es = work.es_n0_db;
    // Decoders per rank: the round's layout.
    let per_rank = ranks.all_gather(&[decoders.len() as u64]);
    let widest = per_rank.iter().copied().max().unwrap_or(1) as usize;
    let round_size: u64 = per_rank.iter().sum();
    let offsets: Vec<u64> = (per_rank.iter())
        .scan(0, |at, &n| {
            *at += n;
            Some(*at - n)
        })
        .collect();
    let mut fold = Fold::new(PointResult::new(es, eb), work.sizes, stop);
    let record = HEAD + stop.batch;
    for first in (0..work.batches).step_by(round_size as usize) {
        let mine: Vec<u64> = (0..decoders.len() as u64)
            .map(|i| first + offsets[ranks.rank()] + i)
            .filter(|&b| b < work.batches)
            .collect();
        let results = work.decode_each(decoders, &mine);
        let mut words = vec![0u64; widest * record];
        for (words, result) in words.chunks_mut(record).zip(&results) {
            match result {
                Ok(c) => {
                    words[..HEAD].copy_from_slice(&[DONE, c.frames(), c.iterations as u64]);
                    words[HEAD..HEAD + c.errors.len()].copy_from_slice(&c.errors);
                }
                Err(_) => words[0] = FAILED,
            }
        }
        let all = ranks.all_gather(&words);
        // Batches that failed, and on which rank.
        let mut failed = BTreeMap::new();
        for (rank, records) in all.chunks(widest * record).enumerate() {
            for (i, r) in records.chunks(record).enumerate() {
                let b = first + offsets[rank] + i as u64;
                let counts = match r[0] {
                    DONE => Ok(BatchCounts {
                        errors: r[HEAD..HEAD + (r[1] as usize).min(stop.batch)].to_vec(),
                        iterations: r[2] as usize,
                    }),
                    ABSENT => continue,
                    _ => {
                        failed.insert(b, rank);
                        Err(LdpcError::invalid(""))
                    }
                };
                fold.add(b, counts, &work.stopped, progress);
            }
        }
        if fold.failure.is_some() {
            // The fold stopped at the first failed batch: the smallest one failed. Its rank
            // tells every rank what went wrong.
            let (&b, &rank) = failed.iter().next().expect("a failed batch was folded");
            let message = match mine.iter().position(|&m| m == b) {
                Some(i) if rank == ranks.rank() => match &results[i] {
                    Err(e) => sigpu_runtime::ranks::error_chain(e),
                    Ok(_) => String::new(),
                },
                _ => String::new(),
            };
            let text = ranks.broadcast(rank, message.as_bytes());
            return Err(LdpcError::Ranks(RankFailure {
                rank,
                size: ranks.size(),
                message: format!("batch {b}: {}", String::from_utf8_lossy(&text)),
            }));
        }
        if work.stopped.load(Ordering::Relaxed) {
            break;
        }
    }
    fold.finish()
}

/// The code every decoder decodes, once the stop rule and the decoders are found usable.
fn common_code(decoders: &[&mut (dyn Decoder + '_)], stop: StopRule) -> Result<Code> {
    if stop.batch == 0 || stop.max_frames == 0 {
        return Err(LdpcError::invalid(
            "--max-frames and the batch must be at least 1",
        ));
    }
    let Some(first) = decoders.first() else {
        return Err(LdpcError::invalid(
            "a simulation needs at least one decoder",
        ));
    };
    let code = first.code().clone();
    let shape = |c: &Code| (c.name().to_owned(), c.n(), c.m(), c.edges());
    if let Some(other) = decoders.iter().find(|d| shape(d.code()) != shape(&code)) {
        return Err(LdpcError::invalid(format!(
            "all decoders of a simulation must decode one code: {} and {}",
            code.name(),
            other.code().name()
        )));
    }
    Ok(code)
}

/// What the workers share: the point's parameters and the batch counter.
struct Work<'a> {
    code: &'a Code,
    /// The point's frames, whoever makes them.
    plan: Plan<'a>,
    es_n0_db: f64,
    /// Information bits and coded bits per frame, as the point counts them.
    sizes: (u64, u64),
    stop: StopRule,
    /// CPU threads each worker makes its frames with.
    threads_each: usize,
    batches: u64,
    next_batch: AtomicU64,
    stopped: AtomicBool,
    /// The caller's cancellation token, polled before each batch.
    cancel: sigpu_runtime::cancel::Cancel,
}

impl<'a> Work<'a> {
    /// The point's work for `decoders` workers sharing `threads` frame-making threads, and its
    /// Eb/N0 (dB).
    fn new(
        code: &'a Code,
        source: Source<'a>,
        snr: Snr,
        stop: StopRule,
        threads: usize,
        decoders: usize,
    ) -> Result<(Self, f64)> {
        let (rate, bits_per_symbol, sizes) = match source {
            Source::Link(link) => (
                code.rate(),
                link.modulation.bits_per_symbol(),
                (code.k() as u64, code.n() as u64),
            ),
            Source::Nr(nr) => {
                nr.check()?;
                let sizes = (nr.code.k() as u64, nr.code.n() as u64);
                (nr.rate(), nr.link.modulation.qm(), sizes)
            }
        };
        let es = match snr {
            Snr::EsN0(db) => db,
            Snr::EbN0(db) => db + 10.0 * (rate * bits_per_symbol as f64).log10(),
        };
        let eb = es - 10.0 * (rate * bits_per_symbol as f64).log10();
        let plan = match source {
            Source::Link(link) => Plan::Chain(FramePlan::new(code, link, es)?),
            Source::Nr(sweep) => {
                crate::channel::check_es_n0(es)?;
                Plan::Nr {
                    sweep,
                    es_n0_db: es,
                }
            }
        };
        let work = Work {
            code,
            plan,
            es_n0_db: es,
            sizes,
            stop,
            threads_each: (threads / decoders.max(1)).max(1),
            batches: stop.max_frames.div_ceil(stop.batch as u64),
            next_batch: AtomicU64::new(0),
            stopped: AtomicBool::new(false),
            cancel: sigpu_runtime::cancel::Cancel::current(),
        };
        Ok((work, eb))
    }

    /// One worker: batches until the point stops, the batches run out or one fails.
    fn run(&self, decoder: &mut dyn Decoder, sender: &mpsc::Sender<(u64, Result<BatchCounts>)>) {
        while !self.stopped.load(Ordering::Relaxed) {
            let b = self.next_batch.fetch_add(1, Ordering::Relaxed);
            if b >= self.batches {
                break;
            }
            let counts = self.batch(decoder, b);
            let failed = counts.is_err();
            if sender.send((b, counts)).is_err() || failed {
                break;
            }
        }
    }

    /// Batch `batches[i]` on decoder i, all at once (at most one batch per decoder).
    fn decode_each(
        &self,
        decoders: &mut [&mut (dyn Decoder + '_)],
        batches: &[u64],
    ) -> Vec<Result<BatchCounts>> {
        std::thread::scope(|s| {
            let handles: Vec<_> = (decoders.iter_mut().zip(batches))
                .map(|(decoder, &b)| s.spawn(move || self.batch(&mut **decoder, b)))
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    // `batch` catches a decoder's panic; anything else is a bug here.
                    h.join()
                        .unwrap_or_else(|_| Err(LdpcError::invalid("a worker panicked")))
                })
                .collect()
        })
    }

    /// Makes and decodes batch `b`: on the decoder's device when it has a frame chain
    /// ([`Decoder::simulate_frames`]), else with frames made here. A panicking decoder
    /// becomes this batch's error: the fold then stops every worker instead of leaving them to
    /// run on to max_frames.
    fn batch(&self, decoder: &mut dyn Decoder, b: u64) -> Result<BatchCounts> {
        // A cancelled batch fails the point, so no partial point is kept or written.
        self.cancel.check()?;
        let first = b * self.stop.batch as u64;
        let count = (self.stop.batch as u64).min(self.stop.max_frames - first) as usize;
        let counts = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            // The decoders poll the token between groups and iterations.
            self.cancel.scope(|| match &self.plan {
                Plan::Chain(plan) => {
                    if let Some(counts) = decoder.simulate_frames(plan, first, count) {
                        return counts;
                    }
                    let frames = make_planned_frames(plan, first, count, self.threads_each);
                    decode_frames(decoder, self.code, self.code.k(), &frames)
                }
                Plan::Nr { sweep, es_n0_db } => {
                    let (n, k) = (self.code.n(), sweep.code.k());
                    let frames = sweep.frames(*es_n0_db, first, count, n, self.threads_each)?;
                    decode_frames(decoder, self.code, k, &frames)
                }
            })
        }));
        // Cut short, the counts are partial: never folded.
        self.cancel.check()?;
        counts.unwrap_or_else(|panic| {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            Err(LdpcError::Invalid(format!(
                "the decoder of batch {b} panicked: {what}"
            )))
        })
    }
}

/// Decodes `frames` and counts the errors among the first `k` bits of each word.
fn decode_frames(
    decoder: &mut dyn Decoder,
    code: &Code,
    k: usize,
    frames: &Frames,
) -> Result<BatchCounts> {
    let mut bits = vec![0u8; frames.llr.len()];
    let stats = decoder.decode(Llrs::F32(&frames.llr), &mut bits)?;
    Ok(BatchCounts::of_errors(
        frames.errors_each_of(code.n(), k, &bits),
        stats.iterations,
    ))
}

/// Batches folded into the point in index order.
struct Fold {
    point: PointResult,
    k: u64,
    n: u64,
    stop: StopRule,
    start: std::time::Instant,
    /// Batches decoded ahead of the next one to fold.
    done: BTreeMap<u64, Result<BatchCounts>>,
    next: u64,
    iterations: usize,
    failure: Option<LdpcError>,
}

impl Fold {
    /// `sizes`: information and coded bits per frame.
    fn new(point: PointResult, sizes: (u64, u64), stop: StopRule) -> Fold {
        Fold {
            point,
            k: sizes.0,
            n: sizes.1,
            stop,
            start: std::time::Instant::now(),
            done: BTreeMap::new(),
            next: 0,
            iterations: 0,
            failure: None,
        }
    }

    /// Takes batch `b` and folds every batch now in order, frame by frame: the point stops
    /// at the frame that brings its frame errors to `min_errors` or its frames to
    /// `max_frames`, and the rest of that batch is dropped (its iterations counted in
    /// proportion to the frames kept). A failed batch counts only when the fold reaches it:
    /// one decoded past the stopping frame (which a single decoder would never have run)
    /// cannot fail a finished point.
    fn add(
        &mut self,
        b: u64,
        counts: Result<BatchCounts>,
        stopped: &AtomicBool,
        progress: &mut dyn FnMut(&PointResult),
    ) {
        self.done.insert(b, counts);
        while !stopped.load(Ordering::Relaxed) {
            let Some(counts) = self.done.remove(&self.next) else {
                break;
            };
            self.next += 1;
            let c = match counts {
                Ok(c) => c,
                Err(e) => {
                    stopped.store(true, Ordering::Relaxed);
                    self.failure = Some(e);
                    break;
                }
            };
            let p = &mut self.point;
            // The frames of this batch up to the stopping one.
            let (mut kept, mut failed) = (0usize, p.frame_errors);
            let mut stop = false;
            for &e in &c.errors {
                kept += 1;
                failed += (e > 0) as u64;
                if failed >= self.stop.min_errors || p.frames + kept as u64 >= self.stop.max_frames
                {
                    stop = true;
                    break;
                }
            }
            let [frame_errors, bit_errors, bit_errors_sq] = c.totals(kept);
            p.frames += kept as u64;
            p.frame_errors += frame_errors;
            p.bit_errors += bit_errors;
            p.bit_errors_sq = p.bit_errors_sq.saturating_add(bit_errors_sq);
            p.info_bits += kept as u64 * self.k;
            self.iterations += (c.iterations as u128 * kept as u128)
                .checked_div(c.errors.len() as u128)
                .unwrap_or(0) as usize;
            p.update_rates();
            p.mean_iterations = self.iterations as f64 / p.frames.max(1) as f64;
            p.seconds = self.start.elapsed().as_secs_f64();
            p.update_throughput(Some(self.n));
            progress(p);
            if stop {
                stopped.store(true, Ordering::Relaxed);
            }
        }
    }

    fn finish(self) -> Result<PointResult> {
        match self.failure {
            Some(e) => Err(e),
            None => Ok(self.point),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::channel::{Demapper, Modulation};
    use crate::interleave::Interleaving;

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
    fn mean_iterations_is_per_frame_on_every_cpu_decoder() {
        // A batch of 8 frames at 10 iterations without early termination: 10 per frame,
        // whether the decoder counts codeword by codeword (float) or in SIMD groups (8-bit,
        // which once reported 10 / 8).
        let (code, config, link, snr, _) = parallel_case();
        let stop = StopRule {
            min_errors: u64::MAX,
            max_frames: 16,
            batch: 8,
        };
        for precision in [
            crate::Precision::Fixed8 { scale: 4.0 },
            crate::Precision::Float,
        ] {
            let config = crate::DecoderConfig {
                early_termination: false,
                precision,
                ..config
            };
            let mut d = crate::decoder::cpu_decoder(&code, config).unwrap();
            let p =
                run_point_parallel(&mut [d.as_mut()], &link, snr, stop, 1, &mut |_| {}).unwrap();
            assert_eq!((p.frames, p.mean_iterations), (16, 10.0), "{precision:?}");
        }
    }

    #[test]
    fn several_decoders_count_what_one_counts() {
        let (code, config, link, snr, stop) = parallel_case();
        let mut one = crate::decoder::cpu_decoder(&code, config).unwrap();
        let single =
            run_point_parallel(&mut [one.as_mut()], &link, snr, stop, 1, &mut |_| {}).unwrap();
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
        assert_eq!(parallel.untimed(), single.untimed());
        // Progress comes once per folded batch, in order, the last one cut at the stop.
        let mut expected: Vec<u64> = (1..single.frames.div_ceil(3)).map(|b| b * 3).collect();
        expected.push(single.frames);
        assert_eq!(calls, expected);
    }

    /// The stop falls on the frame that brings the errors to `min_errors`, whatever the batch,
    /// the decoder's threads, the frame-making threads or the ranks: the same seed gives the
    /// same counts on any machine (the default batch grows with the threads).
    #[test]
    fn the_stop_falls_on_the_same_frame_for_any_batch_threads_and_ranks() {
        let (code, config, link, snr, stop) = parallel_case();
        let counts = |p: &PointResult| (p.frames, p.frame_errors, p.bit_errors, p.bit_errors_sq);
        let point = |batch: usize, threads: usize| {
            let config = crate::DecoderConfig { threads, ..config };
            let mut d = crate::decoder::cpu_decoder(&code, config).unwrap();
            let stop = StopRule { batch, ..stop };
            let p = run_point_parallel(&mut [d.as_mut()], &link, snr, stop, threads, &mut |_| {});
            p.unwrap()
        };
        let want = point(1, 1);
        assert_eq!(want.frame_errors, stop.min_errors, "{want:?}");
        assert!(
            want.frames % 64 != 0 && want.frames < stop.max_frames,
            "{want:?}"
        );
        for (batch, threads) in [(3, 1), (8, 2), (64, 1), (128, 2), (5, 3)] {
            let got = point(batch, threads);
            assert_eq!(
                counts(&got),
                counts(&want),
                "batch {batch}, {threads} threads"
            );
        }
        for size in [2, 3] {
            let (code, link) = (&code, &link);
            let points = sigpu_runtime::ranks::on_threads(size, |ranks| {
                let mut d = crate::decoder::cpu_decoder(code, config).unwrap();
                let stop = StopRule { batch: 64, ..stop };
                run_point_ranks(ranks, &mut [d.as_mut()], link, snr, stop, 1, &mut |_| {})
            });
            for p in points {
                assert_eq!(counts(&p.unwrap()), counts(&want), "{size} ranks");
            }
        }
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

    /// The point of `parallel_case` on `size` thread-ranks, rank r with r + 1 decoders (the
    /// round layout differs from rank to rank), seconds zeroed.
    fn on_ranks(size: usize, stop: StopRule, fail_on: Option<usize>) -> Vec<Result<PointResult>> {
        let (code, config, link, snr, _) = parallel_case();
        sigpu_runtime::ranks::on_threads(size, |ranks| {
            let mut decoders: Vec<Box<dyn Decoder>> = (0..=ranks.rank())
                .map(|_| crate::decoder::cpu_decoder(&code, config).unwrap())
                .collect();
            if fail_on == Some(ranks.rank()) {
                decoders[0] = Box::new(Panicking(code.clone()));
            }
            let mut refs: Vec<&mut dyn Decoder> = decoders.iter_mut().map(|d| d.as_mut()).collect();
            run_point_ranks(ranks, &mut refs, &link, snr, stop, 1, &mut |_| {}).map(|p| p.untimed())
        })
    }

    #[test]
    fn ranks_count_what_one_process_counts() {
        let (code, config, link, snr, stop) = parallel_case();
        let mut one = crate::decoder::cpu_decoder(&code, config).unwrap();
        let single =
            run_point_parallel(&mut [one.as_mut()], &link, snr, stop, 1, &mut |_| {}).unwrap();
        let single = single.untimed();
        // Stopping on errors mid-way, and at max_frames with a partial last batch.
        let at_max = StopRule {
            min_errors: u64::MAX,
            max_frames: 17,
            ..stop
        };
        let mut one = crate::decoder::cpu_decoder(&code, config).unwrap();
        let full =
            run_point_parallel(&mut [one.as_mut()], &link, snr, at_max, 1, &mut |_| {}).unwrap();
        assert_eq!(full.frames, 17);
        for size in [1, 2, 3] {
            for point in on_ranks(size, stop, None) {
                assert_eq!(point.unwrap(), single, "{size} ranks");
            }
            for point in on_ranks(size, at_max, None) {
                let point = point.unwrap();
                assert_eq!((point.frames, point.frame_errors), (17, full.frame_errors));
                assert_eq!(point.bit_errors_sq, full.bit_errors_sq, "{size} ranks");
            }
        }
    }

    #[test]
    fn a_batch_failing_on_one_rank_fails_the_point_on_every_rank() {
        let (.., stop) = parallel_case();
        for result in on_ranks(3, stop, Some(1)) {
            let e = result.unwrap_err().to_string();
            // Rank 1's first decoder takes batch 1 of the first round.
            assert!(e.starts_with("rank 1 of 3: batch 1: "), "{e}");
            assert!(e.contains("panicked: test decoder"), "{e}");
        }
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
}
