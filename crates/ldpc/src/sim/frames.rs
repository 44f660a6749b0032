//! Transmitted frames: random information words, the staircase encoder, the bit interleaver,
//! a DVB-T2 constellation over AWGN and the demapper's LLRs.
//!
//! Frame f at a given SNR draws everything from a counter-based generator keyed by (seed, SNR,
//! f) ([`super::chain`]), so frames are the same whatever the batch size, thread count,
//! device (the GPU frame chain makes the same ones) or rank.

use super::chain::FramePlan;
use crate::channel::{Demapper, Modulation};
use crate::code::Code;
use crate::error::Result;
use crate::interleave::Interleaving;

/// What a simulation point transmits.
#[derive(Clone, Copy, Debug)]
pub struct Link {
    /// The constellation.
    pub modulation: Modulation,
    /// The demapper.
    pub demapper: Demapper,
    /// The bit interleaver between encoder and mapper (and its inverse after the demapper).
    pub interleaving: Interleaving,
    /// Seed of the information bits and the noise.
    pub seed: u64,
}

impl Link {
    /// QPSK with the exact demapper and no bit interleaver, the link of most checks and
    /// examples.
    pub fn qpsk(seed: u64) -> Link {
        Link {
            modulation: Modulation::Qpsk,
            demapper: Demapper::Exact,
            interleaving: Interleaving::None,
            seed,
        }
    }
}

/// Transmitted frames: information bits and the channel LLRs of their codewords.
pub struct Frames {
    /// Information bits, frames × K.
    pub info: Vec<u8>,
    /// Channel LLRs, frames × N.
    pub llr: Vec<f32>,
}

impl Frames {
    /// Frame errors and information-bit errors of `decoded` (hard decisions, N per frame)
    /// against the information words sent.
    pub fn errors(&self, code: &Code, decoded: &[u8]) -> (u64, u64) {
        let [frame_errors, bit_errors, _] = self.error_counts(code, decoded);
        (frame_errors, bit_errors)
    }

    /// Frame errors, bit errors and the sum over frames of each frame's bit errors squared
    /// (the spread a BER interval needs: [`super::point::ber_interval`]).
    pub fn error_counts(&self, code: &Code, decoded: &[u8]) -> [u64; 3] {
        let each = self.errors_each(code, decoded);
        FrameCounts::of_errors(each, 0).totals(usize::MAX)
    }

    /// The information-bit errors of each frame of `decoded` (hard decisions, N per frame).
    pub fn errors_each(&self, code: &Code, decoded: &[u8]) -> Vec<u64> {
        self.errors_each_of(code.n(), code.k(), decoded)
    }

    /// The errors among the first `k` bits of each `n`-bit word of `decoded` against the `k`
    /// information bits of each frame (a 5G NR block: k = K', the decoding code's first bits).
    pub fn errors_each_of(&self, n: usize, k: usize, decoded: &[u8]) -> Vec<u64> {
        (decoded.chunks(n).zip(self.info.chunks(k)))
            .map(|(word, info)| word[..k].iter().zip(info).filter(|(a, b)| a != b).count() as u64)
            .collect()
    }
}

/// Makes frames `first .. first + count` at `es_n0_db`, in parallel over `threads`, with the
/// frame chain's CPU twin ([`FramePlan`]): the frames the GPU chain makes, bit for bit.
pub fn make_frames(
    code: &Code,
    link: &Link,
    es_n0_db: f64,
    first: u64,
    count: usize,
    threads: usize,
) -> Result<Frames> {
    let plan = FramePlan::new(code, link, es_n0_db)?;
    Ok(make_planned_frames(&plan, first, count, threads))
}

/// [`make_frames`] with the point's plan made once.
pub fn make_planned_frames(plan: &FramePlan, first: u64, count: usize, threads: usize) -> Frames {
    let (n, k) = (plan.code.n(), plan.code.k());
    let mut info = vec![0u8; count * k];
    let mut llr = vec![0f32; count * n];
    let jobs = std::sync::Mutex::new(info.chunks_mut(k).zip(llr.chunks_mut(n)).enumerate());
    std::thread::scope(|s| {
        for _ in 0..threads.clamp(1, count.max(1)) {
            s.spawn(|| {
                let mut word = vec![0u8; n];
                let mut stream = vec![0u8; n];
                loop {
                    let Some((i, (info, llr))) =
                        jobs.lock().unwrap_or_else(|p| p.into_inner()).next()
                    else {
                        break;
                    };
                    plan.make_frame(first + i as u64, info, llr, &mut word, &mut stream);
                }
            });
        }
    });
    Frames { info, llr }
}

/// The counts of a batch of decoded frames: each frame's information-bit errors, in frame
/// order, so that a point can stop at the very frame its stopping rule names, wherever the
/// batch boundaries fall ([`super::StopRule`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FrameCounts {
    /// Information-bit errors of each frame, in frame order.
    pub errors: Vec<u64>,
    /// As [`DecodeStats::iterations`](crate::DecodeStats) counts them, over all the frames.
    pub iterations: usize,
}

impl FrameCounts {
    /// The counts of frames whose information bit errors are `errors`, one per frame.
    pub fn of_errors(errors: impl IntoIterator<Item = u64>, iterations: usize) -> FrameCounts {
        FrameCounts {
            errors: errors.into_iter().collect(),
            iterations,
        }
    }

    /// Frames counted.
    pub fn frames(&self) -> u64 {
        self.errors.len() as u64
    }

    /// Frame errors, bit errors and Σ (bit errors per frame)² of the first `frames` frames.
    pub fn totals(&self, frames: usize) -> [u64; 3] {
        let mut t = [0u64; 3];
        for &e in &self.errors[..frames.min(self.errors.len())] {
            t[0] += (e > 0) as u64;
            t[1] += e;
            t[2] = t[2].saturating_add(e * e);
        }
        t
    }
}

impl std::ops::AddAssign for FrameCounts {
    /// The counts of two sets of frames together, `other`'s after these.
    fn add_assign(&mut self, other: FrameCounts) {
        self.errors.extend(other.errors);
        self.iterations += other.iterations;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
