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

/// Simulates one point. `progress` is called after every batch with the running counts.
pub fn run_point(
    decoder: &mut dyn Decoder,
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
    let code = decoder.code().clone();
    let rate = code.rate();
    let es = snr.es_n0_db(link.modulation, rate);
    let eb = es - 10.0 * (rate * link.modulation.bits_per_symbol() as f64).log10();
    let mut point = PointResult::new(es, eb);
    let start = std::time::Instant::now();
    let (n, k) = (code.n(), code.k());
    let mut bits = Vec::new();
    let mut iterations = 0usize;
    while point.frame_errors < stop.min_errors && point.frames < stop.max_frames {
        let count = (stop.batch as u64).min(stop.max_frames - point.frames) as usize;
        let frames = make_frames(&code, link, es, point.frames, count, threads)?;
        bits.resize(count * n, 0);
        let stats = decoder.decode(Llrs::F32(&frames.llr), &mut bits)?;
        iterations += stats.iterations;
        for (word, info) in bits.chunks(n).zip(frames.info.chunks(k)) {
            let errors = word[..k].iter().zip(info).filter(|(a, b)| a != b).count() as u64;
            point.bit_errors += errors;
            point.frame_errors += (errors > 0) as u64;
        }
        point.frames += count as u64;
        point.info_bits += (count * k) as u64;
        point.update_rates();
        point.mean_iterations = iterations as f64 / point.frames as f64;
        point.seconds = start.elapsed().as_secs_f64();
        progress(&point);
    }
    Ok(point)
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
