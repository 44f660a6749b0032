//! The systematic linear-time encoder of a lifted NR code (§5.3.2), from the structure of the
//! base graph rather than a dense inverse:
//!
//! 1. λ_i = Σ_j P^{V_ij} c_j over the K_b information block columns, for the four core rows.
//! 2. The core's first parity column has three entries, two with equal shifts; the four core
//!    rows summed cancel every other parity block, leaving P^s p_0 = Σ λ_i, so p_0 = P^{−s} Σ λ_i.
//! 3. The dual diagonal then gives p_1, p_2, p_3 row after row (core rows 0, 1, 2).
//! 4. Each extension row r ≥ 4 holds one new parity block (identity), the sum of its row.
//!
//! Bits are packed 64 to a word, each Z-bit block stored twice in a row (2Z bits), so the
//! cyclic shift P^s x (bit t of the result is bit (t + s) mod Z of x) is a window read at s.

use super::base_graph::{BaseGraph, BaseMatrix};
use super::lifting::set_index;
use crate::error::{LdpcError, Result};
use sigpu_runtime::host::{CpuArch, Isa};

/// Words of a Z-bit block (Z ≤ 384).
const W: usize = 6;
/// Words of a doubled block (2Z bits) plus one word of zeros for the window reads.
const W2: usize = 2 * W + 1;

type Block = [u64; W];
type Doubled = [u64; W2];

/// Block columns of the larger graph (BG1).
const MAX_COLS: usize = 68;

/// One base-graph entry as the encoder reads it: block column, and the window of shift s in
/// the doubled block, word s / 64 and bit s % 64.
#[derive(Clone, Copy, Debug)]
struct Tap {
    col: usize,
    word: usize,
    bit: u32,
}

/// The encoder of one lifted code (base graph and Z).
#[derive(Clone, Debug)]
pub struct LiftedEncoder {
    graph: BaseGraph,
    z: usize,
    /// Per block row, its entries as (block column, shift mod Z).
    rows: Vec<Vec<(usize, usize)>>,
    /// The shift s of the core's first parity column that is not cancelled.
    core_shift: usize,
    /// `rows` as window positions.
    taps: Vec<Vec<Tap>>,
    /// Words of a Z-bit block, ⌈Z / 64⌉.
    words: usize,
    /// The bits of the last word that lie within Z.
    last: u64,
    /// Byte packing and unpacking: AVX-512 or portable.
    simd: Isa,
}

impl LiftedEncoder {
    /// The encoder of `graph` lifted by `z`.
    pub fn new(graph: BaseGraph, z: usize) -> Result<LiftedEncoder> {
        let ils = set_index(z)
            .ok_or_else(|| LdpcError::invalid(format!("Z = {z} is not a 5G NR lifting size")))?;
        let base: &BaseMatrix = graph.matrix();
        let mut rows = vec![Vec::new(); base.rows];
        for e in &base.entries {
            rows[e.row as usize].push((e.col as usize, e.shift[ils] as usize % z));
        }
        let kb = graph.info_cols();
        let s: Vec<usize> = (0..4)
            .filter_map(|r| rows[r].iter().find(|e| e.0 == kb).map(|e| e.1))
            .collect();
        // Of the three shifts two are equal (checked when the table is parsed); the third
        // is what remains. Equal shifts mod Z are what cancel, so compare them mod Z.
        let core_shift = if s[0] == s[1] {
            s[2]
        } else if s[0] == s[2] {
            s[1]
        } else if s[1] == s[2] {
            s[0]
        } else {
            return Err(LdpcError::invalid(format!(
                "{graph} at Z = {z}: the core's first parity column has shifts {s:?}, no two equal"
            )));
        };
        let taps = rows
            .iter()
            .map(|r| {
                r.iter()
                    .map(|&(col, s)| Tap {
                        col,
                        word: s / 64,
                        bit: (s % 64) as u32,
                    })
                    .collect()
            })
            .collect();
        let words = z.div_ceil(64);
        let last = match z % 64 {
            0 => u64::MAX,
            r => (1u64 << r) - 1,
        };
        let simd = if Isa::Avx512.runs_on(&CpuArch::host()) {
            Isa::Avx512
        } else {
            Isa::Scalar
        };
        Ok(LiftedEncoder {
            graph,
            z,
            rows,
            core_shift,
            taps,
            words,
            last,
            simd,
        })
    }

    /// The base graph.
    pub fn graph(&self) -> BaseGraph {
        self.graph
    }
    /// The lifting size.
    pub fn z(&self) -> usize {
        self.z
    }
    /// Information bits K (22 Z or 10 Z, filler included).
    pub fn k(&self) -> usize {
        self.graph.info_cols() * self.z
    }
    /// Codeword bits (68 Z or 52 Z, punctured included).
    pub fn n(&self) -> usize {
        self.graph.block_cols() * self.z
    }

    /// Packs and unpacks bytes without AVX-512 (for tests and benchmarks).
    pub fn portable(mut self) -> Self {
        self.simd = Isa::Scalar;
        self
    }

    /// Writes the codeword of `info` (K bits, one per byte, 0 or 1; filler bits given as 0)
    /// into `codeword` (68 Z or 52 Z bits): `info`, then the parity bits.
    pub fn encode(&self, info: &[u8], codeword: &mut [u8]) -> Result<()> {
        let (k, n, z) = (self.k(), self.n(), self.z);
        if info.len() != k || codeword.len() != n {
            return Err(LdpcError::invalid(format!(
                "encoding {} Z = {z}: need {k} information bits and room for {n} code bits, got {} and {}",
                self.graph,
                info.len(),
                codeword.len()
            )));
        }
        let cols = self.graph.block_cols();
        let kb = self.graph.info_cols();
        let mut dbl = [[0u64; W2]; MAX_COLS];
        for j in 0..kb {
            let mut b = [0u64; W];
            self.pack(&info[j * z..(j + 1) * z], &mut b);
            dbl[j] = double(&b, z);
        }
        let mut total = [0u64; W];
        for r in 0..4 {
            self.row_sum(&dbl, r, kb, &mut total);
        }
        // p0 = P^{−s} Σλ: bit u of p0 is bit (u − s) mod Z of Σλ, the window at Z − s.
        let back = (z - self.core_shift) % z;
        let mut p0 = [0u64; W];
        xor_window(
            &mut p0,
            &double(&total, z),
            back / 64,
            (back % 64) as u32,
            self.words,
            self.last,
        );
        dbl[kb] = double(&p0, z);
        // Core rows 0, 1, 2 give p1, p2, p3: p_{r+1} = λ_r + (p0 term) + p_r (p_r absent for r = 0).
        for r in 0..3 {
            let mut p = [0u64; W];
            self.row_sum(&dbl, r, kb + 1 + r, &mut p);
            dbl[kb + 1 + r] = double(&p, z);
        }
        for r in 4..self.rows.len() {
            let mut p = [0u64; W];
            self.row_sum(&dbl, r, kb + 4, &mut p);
            dbl[kb + r] = double(&p, z);
        }
        codeword[..k].copy_from_slice(info);
        for j in kb..cols {
            self.unpack(&dbl[j], &mut codeword[j * z..(j + 1) * z]);
        }
        Ok(())
    }

    /// XORs into `acc` the windows of row `r`'s entries in block columns below `upto`.
    #[inline]
    fn row_sum(&self, dbl: &[Doubled; MAX_COLS], r: usize, upto: usize, acc: &mut Block) {
        if self.z == 64 * W {
            // Z = 384, the largest lifting and the common one: six whole words, a loop the
            // compiler unrolls and nothing past Z to clear.
            for t in &self.taps[r] {
                if t.col < upto {
                    xor_window_whole(acc, &dbl[t.col], t.word, t.bit);
                }
            }
            return;
        }
        for t in &self.taps[r] {
            if t.col < upto {
                xor_window(acc, &dbl[t.col], t.word, t.bit, self.words, self.last);
            }
        }
    }

    fn pack(&self, bits: &[u8], out: &mut Block) {
        #[cfg(target_arch = "x86_64")]
        if self.simd == Isa::Avx512 {
            // SAFETY: `simd` is AVX-512 only where the CPU runs it.
            return unsafe { pack_avx512(bits, out) };
        }
        *out = pack(bits);
    }

    fn unpack(&self, d: &Doubled, out: &mut [u8]) {
        #[cfg(target_arch = "x86_64")]
        if self.simd == Isa::Avx512 {
            // SAFETY: as in `pack`.
            return unsafe { unpack_avx512(d, out) };
        }
        unpack(d, out)
    }
}

#[cfg(test)]
fn xor(acc: &mut Block, x: &Block) {
    for (a, b) in acc.iter_mut().zip(x) {
        *a ^= b;
    }
}

/// Eight 0/1 bytes to eight bits (bit i = byte i): each byte's bit lands at 56 + i of the
/// product and no two partial products share a bit, so nothing carries.
const GATHER: u64 = 0x0102_0408_1020_4080;
/// Byte i of a replicated byte keeps bit i.
const SPREAD: u64 = 0x8040_2010_0804_0201;

fn pack(bits: &[u8]) -> Block {
    let mut b = [0u64; W];
    let whole = bits.len() / 8 * 8;
    for (i, c) in bits[..whole].chunks_exact(8).enumerate() {
        let v = u64::from_le_bytes(c.try_into().expect("8 bytes")) & 0x0101_0101_0101_0101;
        b[i / 8] |= (v.wrapping_mul(GATHER) >> 56) << (8 * (i % 8));
    }
    for (i, &bit) in bits.iter().enumerate().skip(whole) {
        b[i / 64] |= u64::from(bit & 1) << (i % 64);
    }
    b
}

fn unpack(d: &Doubled, out: &mut [u8]) {
    let whole = out.len() / 8 * 8;
    for (i, c) in out[..whole].chunks_exact_mut(8).enumerate() {
        let byte = (d[i / 8] >> (8 * (i % 8))) & 0xFF;
        let hit = byte.wrapping_mul(0x0101_0101_0101_0101) & SPREAD;
        let ones = ((hit + 0x7F7F_7F7F_7F7F_7F7F) >> 7) & 0x0101_0101_0101_0101;
        c.copy_from_slice(&ones.to_le_bytes());
    }
    for (i, o) in out.iter_mut().enumerate().skip(whole) {
        *o = ((d[i / 64] >> (i % 64)) & 1) as u8;
    }
}

/// The block written twice in a row: bits 0 … Z − 1 and again Z … 2Z − 1.
fn double(x: &Block, z: usize) -> Doubled {
    let mut d = [0u64; W2];
    d[..W].copy_from_slice(x);
    if z == 64 * W {
        // Z = 384: the second copy starts on a word, a plain copy.
        d[W..2 * W].copy_from_slice(x);
        return d;
    }
    let (q, r) = (z / 64, z % 64);
    for (w, &v) in x.iter().enumerate() {
        d[w + q] |= v << r;
        if r != 0 {
            d[w + q + 1] |= v >> (64 - r);
        }
    }
    d
}

/// Bits s … s + Z − 1 of a doubled block: P^s x.
#[cfg(test)]
fn window(d: &Doubled, s: usize, z: usize) -> Block {
    let (q, r) = (s / 64, s % 64);
    let mut out = [0u64; W];
    for (w, o) in out.iter_mut().enumerate() {
        *o = if r == 0 {
            d[q + w]
        } else {
            (d[q + w] >> r) | (d[q + w + 1] << (64 - r))
        };
    }
    // Clear what lies beyond Z.
    for (w, o) in out.iter_mut().enumerate() {
        let lo = w * 64;
        if lo >= z {
            *o = 0;
        } else if z - lo < 64 {
            *o &= (1u64 << (z - lo)) - 1;
        }
    }
    out
}

/// XORs into `acc` bits s … s + Z − 1 of the doubled block `d` (s = 64·`word` + `bit`): the
/// `words` words of a Z-bit block, the last one cut to `last`.
#[inline(always)]
fn xor_window(acc: &mut Block, d: &Doubled, word: usize, bit: u32, words: usize, last: u64) {
    let src = &d[word..word + W + 1];
    if bit == 0 {
        for w in 0..words {
            acc[w] ^= src[w];
        }
    } else {
        for w in 0..words {
            acc[w] ^= (src[w] >> bit) | (src[w + 1] << (64 - bit));
        }
    }
    // Bits past Z of the last word came from the doubled block's next copy: clear them.
    let top = src[words - 1] >> bit
        | if bit == 0 {
            0
        } else {
            src[words] << (64 - bit)
        };
    acc[words - 1] ^= top & !last;
}

/// [`xor_window`] for Z = 64·W: all W words whole.
#[inline(always)]
fn xor_window_whole(acc: &mut Block, d: &Doubled, word: usize, bit: u32) {
    let src: &[u64; W + 1] = d[word..word + W + 1].try_into().expect("W + 1 words");
    if bit == 0 {
        for w in 0..W {
            acc[w] ^= src[w];
        }
    } else {
        for w in 0..W {
            acc[w] ^= (src[w] >> bit) | (src[w + 1] << (64 - bit));
        }
    }
}

/// `pack` with AVX-512 BW: one byte compare per 64 bits.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn pack_avx512(bits: &[u8], out: &mut Block) {
    use std::arch::x86_64::*;
    *out = [0; W];
    let one = _mm512_set1_epi8(1);
    for (w, chunk) in bits.chunks(64).enumerate() {
        let k = if chunk.len() == 64 {
            u64::MAX
        } else {
            (1u64 << chunk.len()) - 1
        };
        // SAFETY: the masked load reads only the chunk's bytes.
        let v = unsafe { _mm512_maskz_loadu_epi8(k, chunk.as_ptr().cast()) };
        out[w] = _mm512_test_epi8_mask(v, one);
    }
}

/// `unpack` with AVX-512 BW: one masked move per 64 bits.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn unpack_avx512(d: &Doubled, out: &mut [u8]) {
    use std::arch::x86_64::*;
    let one = _mm512_set1_epi8(1);
    for (w, chunk) in out.chunks_mut(64).enumerate() {
        let k = if chunk.len() == 64 {
            u64::MAX
        } else {
            (1u64 << chunk.len()) - 1
        };
        // SAFETY: the masked store writes only the chunk's bytes.
        unsafe {
            _mm512_mask_storeu_epi8(
                chunk.as_mut_ptr().cast(),
                k,
                _mm512_maskz_mov_epi8(d[w], one),
            )
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl LiftedEncoder {
        /// The encoder as first written (a `Vec` of blocks, a window and a mask per entry, bytes
        /// packed 8 at a time): the reference the tests hold [`LiftedEncoder::encode`] to.
        #[cfg(test)]
        fn encode_reference(&self, info: &[u8], codeword: &mut [u8]) -> Result<()> {
            let (k, n, z) = (self.k(), self.n(), self.z);
            if info.len() != k || codeword.len() != n {
                return Err(LdpcError::invalid(format!(
                "encoding {} Z = {z}: need {k} information bits and room for {n} code bits, got {} and {}",
                self.graph,
                info.len(),
                codeword.len()
            )));
            }
            let cols = self.graph.block_cols();
            let kb = self.graph.info_cols();
            let mut dbl: Vec<Doubled> = vec![[0; W2]; cols];
            for j in 0..kb {
                dbl[j] = double(&pack(&info[j * z..(j + 1) * z]), z);
            }
            let row_sum = |dbl: &[Doubled], r: usize, upto: usize| -> Block {
                let mut acc = [0u64; W];
                for &(c, s) in &self.rows[r] {
                    if c < upto {
                        xor(&mut acc, &window(&dbl[c], s, z));
                    }
                }
                acc
            };
            let lambda: Vec<Block> = (0..4).map(|r| row_sum(&dbl, r, kb)).collect();
            let mut total = lambda[0];
            for l in &lambda[1..] {
                xor(&mut total, l);
            }
            // p0 = P^{−s} Σλ: bit u of p0 is bit (u − s) mod Z of Σλ, the window at Z − s.
            let p0 = window(&double(&total, z), (z - self.core_shift) % z, z);
            dbl[kb] = double(&p0, z);
            // Core rows 0, 1, 2 give p1, p2, p3: p_{r+1} = λ_r + (p0 term) + p_r (p_r absent for r = 0).
            for r in 0..3 {
                let p = row_sum(&dbl, r, kb + 1 + r);
                dbl[kb + 1 + r] = double(&p, z);
            }
            for r in 4..self.rows.len() {
                let p = row_sum(&dbl, r, kb + 4);
                dbl[kb + r] = double(&p, z);
            }
            codeword[..k].copy_from_slice(info);
            for j in kb..cols {
                unpack(&dbl[j], &mut codeword[j * z..(j + 1) * z]);
            }
            Ok(())
        }
    }

    /// Every Z of both graphs, random words: the encoder equals the one it replaced, bit for
    /// bit, with AVX-512 packing (where the CPU has it) and without.
    #[test]
    fn equals_the_reference_encoder_for_every_z() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        for graph in [BaseGraph::Bg1, BaseGraph::Bg2] {
            for (z, _) in crate::nr::lifting::lifting_sizes() {
                let enc = LiftedEncoder::new(graph, z).unwrap();
                let info: Vec<u8> = (0..enc.k())
                    .map(|_| {
                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        (seed >> 63) as u8
                    })
                    .collect();
                let mut want = vec![0u8; enc.n()];
                enc.encode_reference(&info, &mut want).unwrap();
                for e in [enc.clone(), enc.clone().portable()] {
                    let mut got = vec![0u8; enc.n()];
                    e.encode(&info, &mut got).unwrap();
                    assert!(got == want, "{graph} Z = {z} ({})", e.simd.name());
                }
            }
        }
    }
}
