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
        let (n, k) = (code.n(), code.k());
        let [mut frame_errors, mut bit_errors, mut squares] = [0u64; 3];
        for (word, info) in decoded.chunks(n).zip(self.info.chunks(k)) {
            let errors = word[..k].iter().zip(info).filter(|(a, b)| a != b).count() as u64;
            bit_errors += errors;
            squares += errors * errors;
            frame_errors += (errors > 0) as u64;
        }
        [frame_errors, bit_errors, squares]
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

/// The counts of a batch of decoded frames.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameCounts {
    /// Frames counted.
    pub frames: u64,
    /// Frames with an information-bit error.
    pub frame_errors: u64,
    /// Information-bit errors.
    pub bit_errors: u64,
    /// Σ over frames of (the frame's bit errors)².
    pub bit_errors_sq: u64,
    /// As [`DecodeStats::iterations`](crate::DecodeStats) counts them.
    pub iterations: usize,
}

impl FrameCounts {
    /// The counts of frames whose information bit errors are `errors`, one per frame.
    pub fn of_errors(errors: impl IntoIterator<Item = u64>, iterations: usize) -> FrameCounts {
        let mut c = FrameCounts {
            iterations,
            ..FrameCounts::default()
        };
        for e in errors {
            c.frames += 1;
            c.bit_errors += e;
            c.bit_errors_sq += e * e;
            c.frame_errors += (e > 0) as u64;
        }
        c
    }
}

impl std::ops::AddAssign for FrameCounts {
    /// The counts of two sets of frames together.
    fn add_assign(&mut self, other: FrameCounts) {
        self.frames += other.frames;
        self.frame_errors += other.frame_errors;
        self.bit_errors += other.bit_errors;
        self.bit_errors_sq += other.bit_errors_sq;
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
