//! Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC 2011): a
//! counter-based generator, integer operations only, so the CPU and a GPU thread give the same
//! words for the same (key, counter). `kernels/ldpc_chain.cu` holds the same function.
//!
//! The frame chain keys it by (seed, SNR, frame) ([`frame_key`]) and counts within the frame
//! with the counter: word 2 names the stream (information bits or noise), words 0–1 the index
//! within it. So any frame, and any symbol of a frame, is made without the ones before it.

const M0: u32 = 0xD251_1F53;
const M1: u32 = 0xCD9E_8D57;
const W0: u32 = 0x9E37_79B9;
const W1: u32 = 0xBB67_AE85;

/// The four words of Philox4x32 with 10 rounds for `counter` under `key`.
pub fn philox4x32_10(counter: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    let [mut c0, mut c1, mut c2, mut c3] = counter;
    let [mut k0, mut k1] = key;
    for round in 0..10 {
        if round > 0 {
            k0 = k0.wrapping_add(W0);
            k1 = k1.wrapping_add(W1);
        }
        let p0 = M0 as u64 * c0 as u64;
        let p1 = M1 as u64 * c2 as u64;
        let (hi0, lo0) = ((p0 >> 32) as u32, p0 as u32);
        let (hi1, lo1) = ((p1 >> 32) as u32, p1 as u32);
        [c0, c1, c2, c3] = [hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0];
    }
    [c0, c1, c2, c3]
}

/// Stream of the information bits: counter i gives bits 128i … 128i + 127 (word w bit b is
/// bit 128i + 32w + b).
pub const STREAM_INFO: u32 = 0;
/// Stream of the noise: counter s gives the two Gaussian samples of symbol s.
pub const STREAM_NOISE: u32 = 1;

/// The words of `stream` at `index` under `key`.
pub fn draw(key: [u32; 2], stream: u32, index: u64) -> [u32; 4] {
    philox4x32_10([index as u32, (index >> 32) as u32, stream, 0], key)
}

/// The key of frame `frame` at `es_n0_db` of a run seeded `seed`: SplitMix64 over the three
/// (the mixing the host generator was seeded with before the frame chain).
pub fn frame_key(seed: u64, es_n0_db: f64, frame: u64) -> [u32; 2] {
    let mut x = seed;
    for key in [es_n0_db.to_bits(), frame] {
        x = splitmix(x ^ splitmix(key));
    }
    [x as u32, (x >> 32) as u32]
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
    fn philox_matches_the_random123_known_answers() {
        // Random123's kat_vectors, philox4x32 with 10 rounds.
        assert_eq!(
            philox4x32_10([0; 4], [0; 2]),
            [0x6627_e8d5, 0xe169_c58d, 0xbc57_ac4c, 0x9b00_dbd8]
        );
        assert_eq!(
            philox4x32_10([u32::MAX; 4], [u32::MAX; 2]),
            [0x408f_276d, 0x41c8_3b0e, 0xa20b_c7c6, 0x6d54_51fd]
        );
        assert_eq!(
            philox4x32_10(
                [0x243f_6a88, 0x85a3_08d3, 0x1319_8a2e, 0x0370_7344],
                [0xa409_3822, 0x299f_31d0]
            ),
            [0xd16c_fe09, 0x94fd_cceb, 0x5001_e420, 0x2412_6ea1]
        );
    }

    #[test]
    fn words_are_uniform_and_streams_differ() {
        // Bit frequencies over 4 · 2¹⁶ words: each bit set 50% ± 0.5% (12 σ).
        let key = frame_key(1, 2.5, 7);
        let mut ones = [0u32; 32];
        for i in 0..1u64 << 16 {
            for w in draw(key, STREAM_INFO, i) {
                for (b, o) in ones.iter_mut().enumerate() {
                    *o += (w >> b) & 1;
                }
            }
        }
        let n = 4.0 * 65536.0;
        for o in ones {
            assert!((o as f64 / n - 0.5).abs() < 0.005, "{o}");
        }
        assert_ne!(draw(key, STREAM_INFO, 0), draw(key, STREAM_NOISE, 0));
        assert_ne!(frame_key(1, 2.5, 7), frame_key(1, 2.5, 8));
        assert_ne!(frame_key(1, 2.5, 7), frame_key(1, 2.6, 7));
    }
}
