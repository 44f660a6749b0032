//! A line-by-line Rust rendering of `kernels/ldpc_nr_layered8.cu` over the very tables the host
//! uploads ([`NrBatchLayout`]), thread by thread with the barriers as loop boundaries. Tested
//! against the CPU quasi-cyclic decoder without a GPU, it catches layout and indexing mistakes
//! (offsets, groups of small Z, known-bit masks, the shift arithmetic, per-codeword early
//! termination) before the kernel ever runs.

use super::nr_layout::{NrBatchLayout, NR_THREADS};

/// Runs every block of `l` as the kernel does: (packed hard decisions, iterations and
/// validity per slot).
pub(super) fn emulate(
    l: &NrBatchLayout,
    iterations: u32,
    early: bool,
    mode: u32,
    param: u32,
) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
    let mut hard = vec![u32::MAX; l.hard_len];
    let mut its_out = vec![u32::MAX; l.word_count()];
    let mut valid_out = vec![u32::MAX; l.word_count()];
    let mut state = vec![u64::MAX; l.state_len];
    let correct = |m: i32| match mode {
        1 => (m * param as i32) >> 4,
        2 => (m - param as i32).max(0),
        _ => m,
    };
    for b in 0..l.block_count() {
        let blk = &l.blocks[4 * b..4 * b + 4];
        let (code, count, first) = (blk[0] as usize, blk[1] as usize, blk[2] as usize);
        let c = &l.codes[8 * code..8 * code + 8];
        let (z, rows, n, hw) = (c[0] as usize, c[1] as usize, c[2] as usize, c[3] as usize);
        let known = c[4] as u16 as i16;
        let g_s = &l.graph[c[5] as usize..(c[5] + c[6]) as usize];
        let edges = &g_s[rows + 1..];
        let group = (NR_THREADS / z).max(1);
        let mut ps = vec![0i16; group * n];
        let slot = |g: usize| &l.words[4 * (first + g)..4 * (first + g) + 4];
        for g in 0..count {
            let w = slot(g);
            let (lloff, hoff, stoff) = (w[0] as usize, w[1] as usize, w[2] as usize);
            for v in 0..n {
                let x = l.llr[lloff + v] as i32;
                let k = (l.known[hoff + v / 32] >> (v % 32)) & 1 == 1;
                ps[g * n + v] = if k {
                    if x > 0 {
                        known
                    } else {
                        -known
                    }
                } else {
                    x.max(-127) as i16
                };
            }
            state[stoff..stoff + rows * z].fill(0);
        }
        let syndrome_ok = |p: &[i16], lane: usize| {
            (0..rows).all(|r| {
                let mut parity = false;
                for &e in &edges[g_s[r] as usize..g_s[r + 1] as usize] {
                    let idx = (lane + (e & 0xffff) as usize) % z;
                    parity ^= p[(e >> 16) as usize + idx] < 0;
                }
                !parity
            })
        };
        let mut done = vec![false; count];
        let mut its = vec![iterations; count];
        for it in 1..=iterations {
            for r in 0..rows {
                for g in (0..count).filter(|&g| !done[g]) {
                    let stoff = slot(g)[2] as usize;
                    let p = &mut ps[g * n..(g + 1) * n];
                    for lane in 0..z {
                        let st = &mut state[stoff + r * z + lane];
                        let row = &edges[g_s[r] as usize..g_s[r + 1] as usize];
                        let s = *st;
                        let (m1, m2, am) = (
                            (s & 0xff) as i32,
                            ((s >> 8) & 0xff) as i32,
                            ((s >> 16) & 0xff) as usize,
                        );
                        let signs = (s >> 32) as u32;
                        let (mut min1, mut min2, mut at) = (127i32, 127i32, 255usize);
                        let mut sgn = 0u32;
                        let mut diff = [0i32; 19];
                        let mut bit = [0usize; 19];
                        for (j, &e) in row.iter().enumerate() {
                            let mut idx = lane + (e & 0xffff) as usize;
                            if idx >= z {
                                idx -= z;
                            }
                            bit[j] = (e >> 16) as usize + idx;
                            let mag = if j == am { m2 } else { m1 };
                            let old = if (signs >> j) & 1 == 1 { -mag } else { mag };
                            let df = (p[bit[j]] as i32 - old) as i16;
                            diff[j] = df as i32;
                            let x = (df as i32).clamp(-127, 127);
                            let a = x.abs();
                            let below = a < min1;
                            min2 = if below { min1 } else { min2.min(a) };
                            min1 = min1.min(a);
                            at = if below { j } else { at };
                            sgn ^= (x < 0) as u32;
                        }
                        min1 = correct(min1);
                        min2 = correct(min2);
                        let mut out_signs = 0u32;
                        for j in 0..row.len() {
                            let neg = sgn ^ (diff[j] < 0) as u32;
                            let mag = if j == at { min2 } else { min1 };
                            out_signs |= neg << j;
                            p[bit[j]] = (diff[j] + if neg == 1 { -mag } else { mag }) as i16;
                        }
                        *st = min1 as u64
                            | (min2 as u64) << 8
                            | ((at & 0xff) as u64) << 16
                            | (out_signs as u64) << 32;
                    }
                }
            }
            if early && it < iterations {
                for g in 0..count {
                    let p = &ps[g * n..(g + 1) * n];
                    if !done[g] && (0..z).all(|lane| syndrome_ok(p, lane)) {
                        done[g] = true;
                        its[g] = it;
                    }
                }
                if done.iter().all(|&d| d) {
                    break;
                }
            }
        }
        for g in 0..count {
            let p = &ps[g * n..(g + 1) * n];
            let hoff = slot(g)[1] as usize;
            for wi in 0..hw {
                let mut bits = 0u32;
                for b in 0..32 {
                    let v = wi * 32 + b;
                    if v < n && p[v] < 0 {
                        bits |= 1 << b;
                    }
                }
                hard[hoff + wi] = bits;
            }
            its_out[first + g] = its[g];
            valid_out[first + g] = (0..z).all(|lane| syndrome_ok(p, lane)) as u32;
        }
    }
    (hard, its_out, valid_out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::channel::Quantizer;
    use crate::decoder::{Algorithm, DecoderConfig, Llrs, Precision, Rule8, Schedule};
    use crate::gpu::nr::WordResult;
    use crate::gpu::nr_checks::{mixed_batch, nr_cpu_twin, nr_noisy_words};
    use crate::gpu::nr_layout::{NrCodeTable, WordInput};
    use crate::nr::NrCode;

    /// The emulated kernel on `blocks` (code index, LLRs) against the CPU twin word by word.
    fn agree(codes: &[crate::code::Code], words: &[(usize, &[f32])], c: DecoderConfig) {
        let Precision::Fixed8 { scale } = c.precision else {
            unreachable!()
        };
        let (mode, param) = Rule8::new(c.algorithm, scale)
            .unwrap()
            .kernel_args()
            .unwrap();
        let tables: Vec<_> = codes.iter().map(|c| NrCodeTable::new(c).unwrap()).collect();
        let inputs: Vec<_> = (words.iter())
            .map(|&(code, l)| WordInput {
                code,
                llr: Llrs::F32(l),
            })
            .collect();
        let l = NrBatchLayout::new(&tables, &inputs, Quantizer::new(scale).unwrap()).unwrap();
        let (hard, its, valid) = emulate(&l, c.iterations as u32, c.early_termination, mode, param);
        for (i, &(code, llr)) in words.iter().enumerate() {
            let (want, r) = nr_cpu_twin(&codes[code], c, llr).unwrap();
            let mut got = vec![0u8; llr.len()];
            l.unpack(&hard, i, &mut got);
            assert_eq!(got, want, "word {i}: bits");
            let slot = l.slot_word.iter().position(|&w| w == i).unwrap();
            let res = WordResult {
                iterations: its[slot],
                valid: valid[slot] == 1,
            };
            assert_eq!(res, r[0], "word {i}: result");
        }
    }

    fn config(rule: &str, early: bool) -> DecoderConfig {
        DecoderConfig {
            algorithm: Algorithm::parse(rule).unwrap(),
            schedule: Schedule::Layered,
            precision: Precision::Fixed8 { scale: 8.0 },
            iterations: 6,
            early_termination: early,
            threads: 1,
        }
    }

    #[test]
    fn the_emulated_kernel_equals_the_cpu_twin_at_small_liftings_with_known_bits() {
        // Z = 2 (many codewords per block) and Z = 15 of both graphs, with filler bits.
        for (k, n, rv, count) in [(12, 36, 0, 40), (88, 264, 2, 30), (330, 440, 0, 5)] {
            let nr = NrCode::new(k, n, None).unwrap();
            let es = 10.0 * (2.0 * nr.rate()).log10() + 1.0;
            let (code, llr) = nr_noisy_words(&nr, &[rv], es, count, 3).unwrap();
            let words: Vec<_> = llr.chunks(code.n()).map(|w| (0, w)).collect();
            for (rule, early) in [("oms:0.5", true), ("nms:0.75", false)] {
                agree(std::slice::from_ref(&code), &words, config(rule, early));
            }
        }
    }

    #[test]
    fn the_emulated_kernel_equals_the_cpu_twin_on_a_mixed_batch() {
        let batch = mixed_batch(1, 9, 1.0).unwrap();
        let codes: Vec<_> = batch.iter().map(|(c, _)| c.clone()).collect();
        let words: Vec<_> = batch
            .iter()
            .enumerate()
            .map(|(i, (_, l))| (i, &l[..]))
            .collect();
        agree(&codes, &words, config("oms:0.5", true));
    }
}
