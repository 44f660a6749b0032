//! Transmitted frames: random information words, the staircase encoder, the bit interleaver,
//! a DVB-T2 constellation over AWGN and the demapper's LLRs.
//!
//! Frame f at a given SNR draws everything from its own generator, seeded by (seed, SNR, f),
//! so frames are the same whatever the batch size, thread count or device.

use crate::channel::{Channel, Demapper, Modulation};
use crate::code::Code;
use crate::encode::Encoder;
use crate::error::Result;
use crate::interleave::{BitInterleaver, Interleaving};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// What a simulation point transmits.
#[derive(Clone, Copy, Debug)]
pub struct Link {
    pub modulation: Modulation,
    pub demapper: Demapper,
    /// The bit interleaver between encoder and mapper (and its inverse after the demapper).
    pub interleaving: Interleaving,
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
    pub info: Vec<u8>,
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
