//! A Rust rendering of `kernels/ldpc_nr_layered8.cu` (and of the packed kernel's row update)
//! over the very tables the host uploads ([`NrBatchLayout`]), thread by thread with the
//! barriers as loop boundaries, value for value (the byte-scaled addresses, the keyed
//! minima, the state's fields; not the kernel's choice of instructions). Tested
//! against the CPU quasi-cyclic decoder without a GPU, it catches layout and indexing mistakes
//! (offsets, groups of small Z, known-bit masks, the shift arithmetic, per-codeword early
//! termination) before the kernel ever runs.

use super::nr_layout::{NrBatchLayout, NrKernel};

/// Runs every block of `l` as the kernel does: (packed hard decisions, iterations and
/// validity per slot).
pub(super) fn emulate(
    l: &NrBatchLayout,
    kernel: NrKernel,
    iterations: u32,
    early: bool,
    mode: u32,
    param: u32,
) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
    let mut hard = vec![u32::MAX; l.hard_len];
    let mut its_out = vec![u32::MAX; l.word_count()];
    let mut valid_out = vec![u32::MAX; l.word_count()];
    let mut state = vec![u64::MAX; l.state_len];
    for b in 0..l.block_count() {
        let blk = &l.blocks[4 * b..4 * b + 4];
        let (code, count, first) = (blk[0] as usize, blk[1] as usize, blk[2] as usize);
        let c = &l.codes[8 * code..8 * code + 8];
        let (z, rows, n, hw) = (c[0] as usize, c[1] as usize, c[2] as usize, c[3] as usize);
        let known = c[4] as u16 as i16;
        let g_s = &l.graph[c[5] as usize..(c[5] + c[6]) as usize];
        let edges = &g_s[rows + 1..];
        let mut ps = vec![0i16; count * n];
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
        // The one-lane kernel's `nr_syndrome_ok_lane` (byte addresses, the parity as the sign
        // of the XOR of the posteriors) and the packed kernel's `nr_syndrome_ok` per lane.
        let syndrome_ok = |p: &[i16], lane: usize| {
            (0..rows).all(|r| {
                let row = &edges[g_s[r] as usize..g_s[r + 1] as usize];
                match kernel {
                    NrKernel::Lanes => {
                        let bytes = p.len() * 2;
                        let parity = row.iter().fold(0i32, |acc, &e| {
                            let at = edge_byte(e, z, lane);
                            assert!(
                                at < bytes && at.is_multiple_of(2),
                                "bit byte {at} of {bytes}"
                            );
                            acc ^ i32::from(p[at / 2])
                        });
                        parity >= 0
                    }
                    NrKernel::Pairs => {
                        let mut parity = false;
                        for &e in row {
                            let idx = (lane + (e & 0xffff) as usize) % z;
                            parity ^= p[(e >> 16) as usize + idx] < 0;
                        }
                        !parity
                    }
                }
            })
        };
        let mut done = vec![false; count];
        let mut its = vec![iterations; count];
        for it in 1..=iterations {
            for r in 0..rows {
                for g in (0..count).filter(|&g| !done[g]) {
                    let stoff = slot(g)[2] as usize;
                    let p = &mut ps[g * n..(g + 1) * n];
                    let row = &edges[g_s[r] as usize..g_s[r + 1] as usize];
                    let st = &mut state[stoff + r * z..stoff + (r + 1) * z];
                    match kernel {
                        NrKernel::Lanes => {
                            for (lane, s) in st.iter_mut().enumerate() {
                                row_lane(p, s, row, z, lane, mode, param);
                            }
                        }
                        NrKernel::Pairs => {
                            for a in (0..z).step_by(2) {
                                row_pair(p, st, row, z, a, mode, param);
                            }
                        }
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

/// `ldpc_nr_qc.cuh`'s `NrEdge` of the circulant `e` (`column · Z << 16 | shift`), and the byte
/// check `lane` meets there: col + min(2·lane + sh, 2·lane + sh − 2Z), unsigned.
fn edge_byte(e: u32, z: usize, lane: usize) -> usize {
    let (col, sh) = (2 * (e >> 16), 2 * (e & 0xffff));
    let x = 2 * lane as u32 + sh;
    (col + x.min(x.wrapping_sub(2 * z as u32))) as usize
}

/// A minimum corrected by the rule (`nr_correct`; the kernel's branch-free `nr_correct2`
/// gives the same).
fn correct(m: i32, mode: u32, param: u32) -> i32 {
    match mode {
        1 => (m * param as i32) >> 4,
        2 => (m - param as i32).max(0),
        _ => m,
    }
}

/// A check state's fields: min1, min2, argmin, signs.
fn unpack_state(s: u64) -> (i32, i32, usize, u32) {
    (
        (s & 0xff) as i32,
        ((s >> 8) & 0xff) as i32,
        ((s >> 16) & 0xff) as usize,
        (s >> 32) as u32,
    )
}

/// `ldpc_nr_qc.cuh`'s `nr_row_update` (`nr_row_edges` / `nr_row_any`, which compute the
/// same): check `lane` of one block row, the two smallest magnitudes kept as keys
/// |diff| · 32 + j.
fn row_lane(
    p: &mut [i16],
    st: &mut u64,
    row: &[u32],
    z: usize,
    lane: usize,
    mode: u32,
    param: u32,
) {
    let (m1, m2, am, signs) = unpack_state(*st);
    let (mut k1, mut k2) = (127u32 << 5 | 31, 127u32 << 5 | 31);
    let mut sgn = 0i32;
    let mut diff = [0i32; 19];
    let mut bit = [0usize; 19];
    for (j, &e) in row.iter().enumerate() {
        bit[j] = edge_byte(e, z, lane) / 2;
        let mag = if j == am { m2 } else { m1 };
        let pv = p[bit[j]] as i32;
        let full = if (signs >> j) & 1 == 1 {
            pv + mag
        } else {
            pv - mag
        };
        let df = full as i16 as i32;
        diff[j] = df;
        let key = df.unsigned_abs() << 5 | j as u32;
        k2 = k2.min(k1.max(key));
        k1 = k1.min(key);
        sgn ^= df;
    }
    let min1 = correct((k1 >> 5) as i32, mode, param);
    let min2 = correct((k2 >> 5) as i32, mode, param);
    let at = (k1 & 31) as usize;
    let mut out_signs = 0u32;
    for j in 0..row.len() {
        let s = (sgn ^ diff[j]) >> 31;
        let mag = if j == at { min2 } else { min1 };
        out_signs |= (s as u32) & (1 << j);
        p[bit[j]] = (diff[j] + ((mag ^ s) - s)) as i16;
    }
    *st = min1 as u64 | (min2 as u64) << 8 | (at as u64) << 16 | (out_signs as u64) << 32;
}

/// `ldpc_nr_qc.cuh`'s `nr_row_update_pair` computes, lane by lane, what this does: check
/// `lane` of one block row with the two smallest clamped magnitudes found by comparison (the
/// argmin 255 while no magnitude is below 127).
fn row_lane_compared(
    p: &mut [i16],
    st: &mut u64,
    row: &[u32],
    z: usize,
    lane: usize,
    mode: u32,
    param: u32,
) {
    let (m1, m2, am, signs) = unpack_state(*st);
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
    min1 = correct(min1, mode, param);
    min2 = correct(min2, mode, param);
    let mut out_signs = 0u32;
    for j in 0..row.len() {
        let neg = sgn ^ (diff[j] < 0) as u32;
        let mag = if j == at { min2 } else { min1 };
        out_signs |= neg << j;
        p[bit[j]] = (diff[j] + if neg == 1 { -mag } else { mag }) as i16;
    }
    *st = min1 as u64 | (min2 as u64) << 8 | ((at & 0xff) as u64) << 16 | (out_signs as u64) << 32;
}

/// CUDA's SIMD-in-word intrinsics on two 16-bit halves, as the PTX manual defines them.
mod v2 {
    fn halves(x: u32) -> [u16; 2] {
        [x as u16, (x >> 16) as u16]
    }
    fn join(h: [u16; 2]) -> u32 {
        h[0] as u32 | (h[1] as u32) << 16
    }
    fn map2(a: u32, b: u32, f: impl Fn(u16, u16) -> u16) -> u32 {
        let (a, b) = (halves(a), halves(b));
        join([f(a[0], b[0]), f(a[1], b[1])])
    }
    pub fn add(a: u32, b: u32) -> u32 {
        map2(a, b, u16::wrapping_add)
    }
    pub fn sub(a: u32, b: u32) -> u32 {
        map2(a, b, u16::wrapping_sub)
    }
    pub fn mins(a: u32, b: u32) -> u32 {
        map2(a, b, |x, y| (x as i16).min(y as i16) as u16)
    }
    pub fn maxs(a: u32, b: u32) -> u32 {
        map2(a, b, |x, y| (x as i16).max(y as i16) as u16)
    }
    pub fn minu(a: u32, b: u32) -> u32 {
        map2(a, b, u16::min)
    }
    pub fn abs(a: u32) -> u32 {
        map2(a, 0, |x, _| (x as i16).wrapping_abs() as u16)
    }
    pub fn cmpeq(a: u32, b: u32) -> u32 {
        map2(a, b, |x, y| if x == y { 0xffff } else { 0 })
    }
    pub fn cmpgtu(a: u32, b: u32) -> u32 {
        map2(a, b, |x, y| if x > y { 0xffff } else { 0 })
    }
    pub fn subus(a: u32, b: u32) -> u32 {
        map2(a, b, u16::saturating_sub)
    }
}

/// `ldpc_nr_layered8x2.cu`'s `nr_row_update_pair`: lanes a and a + 1 (when below Z) of one
/// block row, packed, operation for operation.
fn row_pair(p: &mut [i16], st: &mut [u64], row: &[u32], z: usize, a: usize, mode: u32, param: u32) {
    let has_b = a + 1 < z;
    let (s0, s1) = (st[a], if has_b { st[a + 1] } else { 0 });
    let (lo0, lo1) = (s0 as u32, s1 as u32);
    let m1 = (lo0 & 0xff) | (lo1 & 0xff) << 16;
    let m2 = (lo0 >> 8 & 0xff) | (lo1 >> 8 & 0xff) << 16;
    let am = (lo0 >> 16 & 0xff) | (lo1 >> 16 & 0xff) << 16;
    let (sg0, sg1) = ((s0 >> 32) as u32, (s1 >> 32) as u32);
    let mut diff = [0u32; 19];
    let (mut ia, mut ib) = ([0usize; 19], [0usize; 19]);
    let (mut min1, mut min2, mut at, mut sgn) =
        (0x007f_007fu32, 0x007f_007fu32, 0x00ff_00ffu32, 0u32);
    for (j, &e) in row.iter().enumerate() {
        let base = (e >> 16) as usize;
        let mut i = a + (e & 0xffff) as usize;
        if i >= z {
            i -= z;
        }
        let i2 = if i + 1 == z { 0 } else { i + 1 };
        ia[j] = base + i;
        ib[j] = base + i2;
        let pa = p[ia[j]] as u16 as u32;
        let pb = if has_b { p[ib[j]] as u16 as u32 } else { 0 };
        let pp = pa | pb << 16;
        let jj = j as u32 * 0x0001_0001;
        let eq = v2::cmpeq(am, jj);
        let mag = (m2 & eq) | (m1 & !eq);
        let nm = (((sg0 >> j) & 1) * 0x0000_ffff) | (((sg1 >> j) & 1) * 0xffff_0000);
        let old = v2::sub(mag ^ nm, nm);
        let df = v2::sub(pp, old);
        diff[j] = df;
        let x = v2::maxs(v2::mins(df, 0x007f_007f), 0xff81_ff81);
        let ax = v2::abs(x);
        let below = v2::cmpgtu(min1, ax);
        min2 = (min1 & below) | (v2::minu(min2, ax) & !below);
        min1 = v2::minu(min1, ax);
        at = (jj & below) | (at & !below);
        sgn ^= df & 0x8000_8000;
    }
    if mode == 1 {
        min1 = (min1.wrapping_mul(param) >> 4) & 0x007f_007f;
        min2 = (min2.wrapping_mul(param) >> 4) & 0x007f_007f;
    } else if mode == 2 {
        min1 = v2::subus(min1, param * 0x0001_0001);
        min2 = v2::subus(min2, param * 0x0001_0001);
    }
    let (mut out0, mut out1) = (0u32, 0u32);
    for j in 0..row.len() {
        let jj = j as u32 * 0x0001_0001;
        let eq = v2::cmpeq(at, jj);
        let mag = (min2 & eq) | (min1 & !eq);
        let t = (sgn ^ diff[j]) & 0x8000_8000;
        let nm = (t >> 15).wrapping_mul(0xffff);
        let np = v2::add(diff[j], v2::sub(mag ^ nm, nm));
        out0 |= (t >> 15 & 1) << j;
        out1 |= (t >> 31) << j;
        p[ia[j]] = (np & 0xffff) as u16 as i16;
        if has_b {
            p[ib[j]] = (np >> 16) as u16 as i16;
        }
    }
    st[a] = (min1 & 0xff) as u64
        | ((min2 & 0xff) as u64) << 8
        | ((at & 0xff) as u64) << 16
        | (out0 as u64) << 32;
    if has_b {
        st[a + 1] = (min1 >> 16) as u64
            | ((min2 >> 16) as u64) << 8
            | ((at >> 16) as u64) << 16
            | (out1 as u64) << 32;
    }
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
    fn agree(
        codes: &[crate::code::Code],
        words: &[(usize, &[f32])],
        c: DecoderConfig,
        kernel: NrKernel,
    ) {
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
        let q = Quantizer::new(scale).unwrap();
        let l = NrBatchLayout::new(&tables, &inputs, q, kernel).unwrap();
        let (hard, its, valid) = emulate(
            &l,
            kernel,
            c.iterations as u32,
            c.early_termination,
            mode,
            param,
        );
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
            for (rule, early) in [("oms:0.5", true), ("nms:0.75", false), ("minsum", true)] {
                for kernel in [NrKernel::Lanes, NrKernel::Pairs] {
                    agree(
                        std::slice::from_ref(&code),
                        &words,
                        config(rule, early),
                        kernel,
                    );
                }
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
        for kernel in [NrKernel::Lanes, NrKernel::Pairs] {
            agree(&codes, &words, config("oms:0.5", true), kernel);
        }
    }

    /// A random block row of degree 1 to 19 at lifting `z`, posteriors over its columns (the
    /// whole i16 range, so that sums wrap), check states and a rule.
    struct RowCase {
        z: usize,
        row: Vec<u32>,
        p: Vec<i16>,
        st: Vec<u64>,
        mode: u32,
        param: u32,
    }

    fn random_row(rng: &mut rand_chacha::ChaCha8Rng, case: usize) -> RowCase {
        use rand::Rng;
        let z = [2usize, 3, 15, 16, 27, 384][case % 6];
        let d = rng.random_range(1..=19usize);
        let mut cols: Vec<usize> = (0..30).collect();
        for i in 0..d {
            let k = rng.random_range(i..30);
            cols.swap(i, k);
        }
        let row: Vec<u32> = (0..d)
            .map(|j| ((cols[j] * z) as u32) << 16 | rng.random_range(0..z) as u32)
            .collect();
        let p: Vec<i16> = (0..30 * z)
            .map(|_| match rng.random_range(0..4) {
                0 => rng.random(),
                1 => rng.random_range(-3000..3000),
                _ => rng.random_range(-140..140),
            })
            .collect();
        let st: Vec<u64> = (0..z)
            .map(|_| {
                let m1 = rng.random_range(0..128u64);
                let m2 = rng.random_range(m1..128);
                let at = if rng.random_bool(0.1) {
                    255
                } else {
                    rng.random_range(0..d as u64)
                };
                let signs = rng.random::<u32>() as u64 & ((1 << d) - 1);
                m1 | m2 << 8 | at << 16 | signs << 32
            })
            .collect();
        let (mode, param) = match case % 3 {
            0 => (0, 0),
            1 => (1, rng.random_range(1..=16)),
            _ => (2, rng.random_range(0..=127)),
        };
        RowCase {
            z,
            row,
            p,
            st,
            mode,
            param,
        }
    }

    /// The packed row update against two one-lane updates on random posteriors (the whole
    /// i16 range: wrapping), random check states and rows, odd and even Z, every rule.
    #[test]
    fn the_packed_row_update_equals_two_one_lane_updates() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for case in 0..3000 {
            let RowCase {
                z,
                row,
                p,
                st,
                mode,
                param,
            } = random_row(&mut rng, case);
            let (mut pl, mut sl) = (p.clone(), st.clone());
            let (mut pp, mut sp) = (p, st);
            let a = 2 * rng.random_range(0..z.div_ceil(2));
            row_lane_compared(&mut pl, &mut sl[a], &row, z, a, mode, param);
            if a + 1 < z {
                row_lane_compared(&mut pl, &mut sl[a + 1], &row, z, a + 1, mode, param);
            }
            row_pair(&mut pp, &mut sp, &row, z, a, mode, param);
            assert_eq!(sp, sl, "case {case}: states");
            assert!(pp == pl, "case {case}: posteriors");
        }
    }

    /// The keyed one-lane update (byte-scaled addresses, minima as |diff| · 32 + j) against
    /// the compared one on random rows: the same posteriors and the same state, except the
    /// argmin where the compared update found no magnitude below 127 (then both minima are
    /// 127 and the argmin changes no message).
    #[test]
    fn the_keyed_row_update_equals_the_compared_one() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let mut saturated = 0;
        for case in 0..3000 {
            let RowCase {
                z,
                row,
                p,
                st,
                mode,
                param,
            } = random_row(&mut rng, case);
            let lane = rng.random_range(0..z);
            let (mut pk, mut sk) = (p.clone(), st[lane]);
            let (mut pc, mut sc) = (p, st[lane]);
            row_lane(&mut pk, &mut sk, &row, z, lane, mode, param);
            row_lane_compared(&mut pc, &mut sc, &row, z, lane, mode, param);
            assert!(pk == pc, "case {case}: posteriors");
            let at_field = 0xffu64 << 16;
            if (sc >> 16) & 0xff == 255 {
                saturated += 1;
                assert_eq!(sk & 0xff, (sk >> 8) & 0xff, "case {case}: minima");
                assert_eq!(sk & !at_field, sc & !at_field, "case {case}: state");
            } else {
                assert_eq!(sk, sc, "case {case}: state");
            }
        }
        assert!(saturated > 10, "the saturated case ran {saturated} times");
    }
}
