//! 8-bit layered min-sum with saturated 8-bit posteriors and compressed check state, SIMD
//! over 64 codewords — the CPU's fast decoder (`--schedule layered-compact`).
//!
//! The GPU LDPC decoder paper's CPU decoders keep one 8-bit message per edge and codeword plus (layered) a
//! 16-bit posterior per bit: for a 64-codeword group of a normal DVB frame that is ~23 MB,
//! streamed through the caches several times per iteration. This decoder keeps
//! - the posterior P of every bit as a saturated `i8` (±127), and
//! - per check only what its c2v messages are made of: the two smallest corrected magnitudes
//!   (min1, min2), the edge of the smallest (index) and one sign bit per edge,
//!
//! so a normal-frame group holds 4.1 MB of posteriors and 8.3 MB of check state, each read
//! and written once per iteration (≈ 46 MB), and every access is a whole 64-byte line.
//!
//! Addressing follows the DVB structure: checks are visited in [`Code::decoding_order`]
//! (the 360 checks of a circulant one after another) and the staircase parity bits are
//! renumbered so that bit K + j sits at K + (j mod q)·360 + j div q. Then the t-th check of a
//! layer touches the t-th bit of each of its 360-bit groups: every edge slot of consecutive
//! checks walks the posterior array line after line, which the hardware prefetcher follows.
//!
//! Arithmetic (one codeword; the SIMD code does the same in 64 byte lanes, and
//! [`decode_scalar`] is its scalar twin, checked bit for bit by the tests):
//! - P starts as the quantised channel LLR; the check state starts empty (every c2v 0).
//! - Check after check (a true layered schedule: each check sees every earlier update), edge
//!   after edge in ascending (renumbered) column order: old c2v_j = (j = index ? min2 : min1)
//!   with sign bit j; v2c_j = clamp(P_j − old_j, ±127).
//! - min1 ≤ min2 the two smallest |v2c| (the first one met wins ties), index the edge of
//!   min1, corrected by the rule (normalised: ⌊m·k/16⌋, offset: max(m − β, 0)) and capped at
//!   [`C2V_MAX`]; new c2v_j =
//!   (j = index ? min2 : min1) with the sign of the product of the other v2c signs (0 counts
//!   as positive); P_j = clamp(v2c_j + c2v_j, ±127).
//! - Hard decision: P < 0.
//!
//! Saturating P at ±127 loses what lies beyond ±127/scale LLR units; with the default
//! scale 4 that is ±31.75, far past where a bit's decision can still change, and the error
//! rates are measured in docs/ldpc.

// Lane loops are written `for w in 0..L` over fixed-size arrays: the form LLVM vectorises.
#![allow(clippy::needless_range_loop)]

use super::lanes::{decode_groups, Fixed8Setup, GroupDone, Rule8};
use super::{codewords_of, DecodeStats, Decoder, DecoderConfig, Llrs};
use crate::channel::Quantizer;
use crate::code::Code;
use crate::error::{LdpcError, Result};
use sigpu_runtime::host::Isa;

/// Codewords per SIMD group: one 512-bit register of bytes.
pub const LANES: usize = 64;

/// The largest c2v magnitude. A posterior saturated at ±127 no longer equals LLR + Σ c2v, so
/// the extrinsic value P − c2v of a saturated bit is underestimated. Without a cap a bit whose
/// c2v reached 127 gets P − c2v = 0 at its next visit and the check erases its other
/// messages: decoding collapses even without noise. A cap of 63 still drifted away from
/// decoded frames at Es/N0 3 dB on DVB-T2 short 1/2 (P range only twice the message range);
/// 31 (a quarter of P's range, 7.75 LLR units at scale 4) decodes them and keeps the error
/// rates of docs/ldpc.
pub const C2V_MAX: u8 = 31;

/// The largest check degree handled (sign bits of up to 32 edges per check).
pub const MAX_CHECK_DEGREE: usize = 32;

/// The decoder's view of a code: checks in decoding order, columns renumbered.
#[derive(Clone, Debug)]
pub struct CompactLayout {
    /// The renumbered code in decoding order; its `edge_col` is the access list.
    pub code: Code,
    /// `perm[c]`: where the original bit c lives.
    pub perm: Vec<u32>,
    /// Sign-bit bytes per check: ⌈max check degree / 8⌉.
    pub sign_bytes: usize,
}

impl CompactLayout {
    /// The layout of `code` (a DVB staircase code is renumbered; other codes keep their order).
    pub fn new(code: &Code) -> Result<CompactLayout> {
        let degree = code.max_row_degree();
        if degree > MAX_CHECK_DEGREE {
            return Err(LdpcError::invalid(format!(
                "code {} has a check of degree {degree}; the compact layered decoder handles \
                 at most {MAX_CHECK_DEGREE} (use --schedule layered)",
                code.name()
            )));
        }
        let (n, k) = (code.n(), code.k());
        let mut perm: Vec<u32> = (0..n as u32).collect();
        if let Some(q) = code
            .q()
            .filter(|&q| code.is_encodable() && code.m() == 360 * q)
        {
            for j in 0..code.m() {
                perm[k + j] = (k + (j % q) * 360 + j / q) as u32;
            }
        }
        let ordered = code.decoding_order();
        let rows: Vec<Vec<u32>> = (0..ordered.m())
            .map(|r| ordered.row(r).iter().map(|&c| perm[c as usize]).collect())
            .collect();
        let renumbered = Code::from_rows(code.name(), n, k, &rows)?;
        Ok(CompactLayout {
            code: renumbered,
            perm,
            sign_bytes: degree.div_ceil(8).max(1),
        })
    }

    /// 64-byte lines of check state per check. Byte planes (the generic code): min1, min2,
    /// index, sign bytes. AVX-512: min1, min2, then `mask_lines` lines of 64-bit lane masks
    /// (per edge the sign of its last v2c, and in the last slot the sign of their product)
    /// and `mask_lines` lines of "this edge holds min1" masks.
    fn state_lines(&self, simd: Isa) -> usize {
        match simd {
            Isa::Avx512 => 2 + 2 * self.mask_lines(),
            _ => 3 + self.sign_bytes,
        }
    }

    /// Lines of one kind of 64-bit lane mask per check on AVX-512: one per edge and one more.
    fn mask_lines(&self) -> usize {
        (self.code.max_row_degree() + 1).div_ceil(8)
    }
}

/// 8-bit compact layered min-sum on the CPU; see the module documentation.
pub struct CompactDecoder {
    code: Code,
    layout: CompactLayout,
    config: DecoderConfig,
    setup: Fixed8Setup,
}

impl CompactDecoder {
    /// The compact layered decoder of `config` for `code`, on this host's widest instruction
    /// set.
    pub fn new(code: Code, config: DecoderConfig) -> Result<CompactDecoder> {
        let setup = Fixed8Setup::new(
            &config,
            "--schedule layered-compact is an 8-bit decoder: use --precision 8bit",
        )?;
        setup.rule.uniform_only("the layered-compact decoder")?;
        Ok(CompactDecoder {
            layout: CompactLayout::new(&code)?,
            code,
            config,
            setup,
        })
    }

    /// Forces an instruction set (one this CPU has), for tests and benchmarks.
    pub fn with_simd(mut self, simd: Isa) -> Result<Self> {
        self.setup.force(simd)?;
        Ok(self)
    }

    /// The check-node rule in 8-bit arithmetic.
    pub fn rule(&self) -> Rule8 {
        self.setup.rule
    }

    /// The channel LLRs' quantiser.
    pub fn quantizer(&self) -> Quantizer {
        self.setup.quantizer
    }
}

impl Decoder for CompactDecoder {
    fn describe(&self) -> String {
        self.setup.describe(&self.config)
    }

    fn code(&self) -> &Code {
        &self.code
    }

    fn decode(&mut self, llr: Llrs<'_>, bits: &mut [u8]) -> Result<DecodeStats> {
        let count = codewords_of(&self.code, &llr, bits)?;
        let (n, s) = (self.code.n(), self.setup);
        Ok(decode_groups(
            n,
            count,
            self.config.threads,
            bits,
            || Group::new(&self.layout, s.simd),
            |group, g, out| {
                let real = out.len() / n;
                group.load(&self.layout, s.quantizer, llr, g * LANES, real);
                let (its, done) = group.run(&self.layout, s.rule, &self.config, s.simd);
                group.store(&self.layout, out);
                GroupDone {
                    iterations: its,
                    valid: Some(done[..real].iter().filter(|&&d| d != 0).count()),
                }
            },
            |_| 0,
        ))
    }
}

/// Bits per block of the lane transposition in `Group::store`.
const TRANSPOSE: usize = 64;

/// A byte buffer of 64-byte lines, so each bit's or state field's 64 lanes are one line.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line([i8; LANES]);

/// One group's buffers, lane-major.
struct Group {
    /// Posteriors, renumbered bit order.
    post: Vec<Line>,
    /// Check state, `lines` lines per check in decoding order.
    state: Vec<Line>,
    /// `CompactLayout::state_lines` for the instruction set in use.
    lines: usize,
    /// Hard decisions, renumbered bit order.
    hard: Vec<[u8; LANES]>,
}

impl Group {
    fn new(layout: &CompactLayout, simd: Isa) -> Group {
        let n = layout.code.n();
        let lines = layout.state_lines(simd);
        Group {
            post: vec![Line([0; LANES]); n],
            state: vec![Line([0; LANES]); layout.code.m() * lines],
            lines,
            hard: vec![[0; LANES]; n],
        }
    }

    /// Quantises codewords `first .. first + real` into lanes (zeros in the others).
    fn load(
        &mut self,
        layout: &CompactLayout,
        q: Quantizer,
        llr: Llrs<'_>,
        first: usize,
        real: usize,
    ) {
        let n = layout.code.n();
        for line in &mut self.post {
            line.0 = [0; LANES];
        }
        // In blocks of TRANSPOSE bits, like `store`: the block's lines stay in L1 while each
        // codeword's run of the block is read in order.
        for b0 in (0..n).step_by(TRANSPOSE) {
            let b1 = (b0 + TRANSPOSE).min(n);
            for w in 0..real {
                let range = (first + w) * n + b0..(first + w) * n + b1;
                let perm = &layout.perm[b0..b1];
                match llr {
                    Llrs::F32(v) => {
                        for (&b, &l) in perm.iter().zip(&v[range]) {
                            self.post[b as usize].0[w] = q.quantize(l);
                        }
                    }
                    Llrs::I8 { values, scale } => {
                        // Re-quantised only when the input's scale differs from the decoder's.
                        let same = scale == q.scale;
                        for (&b, &l) in perm.iter().zip(&values[range]) {
                            self.post[b as usize].0[w] = if same {
                                l.max(-127)
                            } else {
                                q.quantize(l as f32 / scale)
                            };
                        }
                    }
                }
            }
        }
    }

    /// Writes the hard decisions of the group's real codewords to `out` (codeword-major,
    /// original bit order).
    fn store(&self, layout: &CompactLayout, out: &mut [u8]) {
        let n = layout.code.n();
        // In blocks of TRANSPOSE bits: the block's lines stay in L1 while each codeword's
        // run of the block is written in order.
        for b0 in (0..n).step_by(TRANSPOSE) {
            let b1 = (b0 + TRANSPOSE).min(n);
            for (w, word) in out.chunks_mut(n).enumerate() {
                for b in b0..b1 {
                    word[b] = self.hard[layout.perm[b] as usize][w];
                }
            }
        }
    }

    /// Runs the iterations; returns the iterations run and the lanes found valid (0xFF).
    fn run(
        &mut self,
        layout: &CompactLayout,
        rule: Rule8,
        config: &DecoderConfig,
        simd: Isa,
    ) -> (usize, [u8; LANES]) {
        for line in &mut self.state {
            line.0 = [0; LANES];
        }
        #[cfg(target_arch = "x86_64")]
        {
            #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
            fn avx512(
                g: &mut Group,
                l: &CompactLayout,
                r: Rule8,
                c: &DecoderConfig,
            ) -> (usize, [u8; LANES]) {
                g.iterate::<true>(l, r, c)
            }
            #[target_feature(enable = "avx2")]
            fn avx2(
                g: &mut Group,
                l: &CompactLayout,
                r: Rule8,
                c: &DecoderConfig,
            ) -> (usize, [u8; LANES]) {
                g.iterate::<false>(l, r, c)
            }
            // SAFETY: `best_simd(&CpuArch::host())` / `with_simd` only choose sets this CPU
            // has (the AVX-512 one needs avx512f, bw and vl).
            match simd {
                Isa::Avx512 => unsafe { avx512(self, layout, rule, config) },
                Isa::Avx2 | Isa::Avx2Fma => unsafe { avx2(self, layout, rule, config) },
                Isa::Sse41 | Isa::Scalar => self.iterate::<false>(layout, rule, config),
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = simd;
            self.iterate::<false>(layout, rule, config)
        }
    }

    /// `AVX512`: use the mask-register check (only inside the AVX-512 wrapper of `run`).
    #[inline(always)]
    fn iterate<const AVX512: bool>(
        &mut self,
        layout: &CompactLayout,
        rule: Rule8,
        config: &DecoderConfig,
    ) -> (usize, [u8; LANES]) {
        let code = &layout.code;
        let lines = self.lines;
        let mask_lines = layout.mask_lines();
        assert_eq!(self.post.len(), code.n());
        let mut scratch = [[0i8; LANES]; MAX_CHECK_DEGREE];
        let mut done = [0u8; LANES];
        let mut ran = config.iterations;
        let cancel = sigpu_runtime::cancel::Cancel::current();
        for it in 1..=config.iterations {
            if cancel.is_cancelled() {
                break;
            }
            for r in 0..code.m() {
                if r + PREFETCH_CHECKS < code.m() {
                    let ahead = r + PREFETCH_CHECKS;
                    for &c in code.row(ahead) {
                        prefetch(self.post[c as usize].0.as_ptr());
                    }
                    for line in &self.state[ahead * lines..(ahead + 1) * lines] {
                        prefetch(line.0.as_ptr());
                    }
                }
                let cols = code.row(r);
                let state = &mut self.state[r * lines..(r + 1) * lines];
                // A constant degree lets LLVM unroll the edge loops and fold the per-edge
                // index and bit constants (DVB rate 1/2 checks have degree 7).
                let (post, v2c) = (&mut self.post, &mut scratch);
                #[cfg(target_arch = "x86_64")]
                if AVX512 {
                    let sb = mask_lines;
                    // SAFETY: AVX512 is only set inside `run`'s AVX-512 wrapper; every
                    // column of the code is < n = post.len() (`Code::from_rows` checks it),
                    // and `state` has 2 + 2·mask_lines lines with mask_lines·8 > degree.
                    unsafe {
                        match cols.len() {
                            4 => avx512::check::<4>(rule, &cols[..4], post, state, sb),
                            5 => avx512::check::<5>(rule, &cols[..5], post, state, sb),
                            6 => avx512::check::<6>(rule, &cols[..6], post, state, sb),
                            7 => avx512::check::<7>(rule, &cols[..7], post, state, sb),
                            8 => avx512::check::<8>(rule, &cols[..8], post, state, sb),
                            14 => avx512::check::<14>(rule, &cols[..14], post, state, sb),
                            9..=16 => avx512::check::<16>(rule, cols, post, state, sb),
                            17..=24 => avx512::check::<24>(rule, cols, post, state, sb),
                            _ => avx512::check::<MAX_CHECK_DEGREE>(rule, cols, post, state, sb),
                        }
                    }
                    continue;
                }
                match cols.len() {
                    4 => check::<LANES>(rule, &cols[..4], post, state, v2c),
                    5 => check::<LANES>(rule, &cols[..5], post, state, v2c),
                    6 => check::<LANES>(rule, &cols[..6], post, state, v2c),
                    7 => check::<LANES>(rule, &cols[..7], post, state, v2c),
                    8 => check::<LANES>(rule, &cols[..8], post, state, v2c),
                    _ => check::<LANES>(rule, cols, post, state, v2c),
                }
            }
            if config.early_termination || it == config.iterations {
                for (h, p) in self.hard.iter_mut().zip(&self.post) {
                    for w in 0..LANES {
                        h[w] = (h[w] & done[w]) | ((p.0[w] < 0) as u8 & !done[w]);
                    }
                }
                if config.early_termination && it < config.iterations {
                    mark_valid(code, &self.hard, &mut done);
                    if done.iter().all(|&d| d != 0) {
                        ran = it;
                        break;
                    }
                }
            }
        }
        mark_valid(code, &self.hard, &mut done);
        (ran, done)
    }
}

/// Checks ahead of the current one whose posterior and state lines are prefetched: without it
/// the first read of each posterior line (≈ 7 streams at once, more than the hardware
/// prefetcher follows) stalled the decoder for ~40% of its time.
const PREFETCH_CHECKS: usize = 4;

/// Asks for the cache line at `p` ahead of its use (a hint; no effect on results).
#[inline(always)]
fn prefetch(p: *const i8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching never faults, whatever the address.
    unsafe {
        std::arch::x86_64::_mm_prefetch(p, std::arch::x86_64::_MM_HINT_T0)
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Marks lanes whose hard decision satisfies every check (0xFF).
fn mark_valid(code: &Code, hard: &[[u8; LANES]], done: &mut [u8; LANES]) {
    let mut failed = [0u8; LANES];
    for r in 0..code.m() {
        let mut parity = [0u8; LANES];
        for &c in code.row(r) {
            let h = &hard[c as usize];
            for w in 0..LANES {
                parity[w] ^= h[w];
            }
        }
        for w in 0..LANES {
            failed[w] |= parity[w];
        }
    }
    for w in 0..LANES {
        done[w] |= ((failed[w] == 0) as u8).wrapping_neg();
    }
}

/// One check in L lanes: reads its old c2v from `state`, updates P of its columns, writes
/// the new state. Branch-free lane loops so they compile to byte-wide SIMD.
#[inline(always)]
fn check<const L: usize>(
    rule: Rule8,
    cols: &[u32],
    post: &mut [Line],
    state: &mut [Line],
    v2c: &mut [[i8; L]; MAX_CHECK_DEGREE],
) {
    let (head, signs) = state.split_at_mut(3);
    let old1: [u8; L] = std::array::from_fn(|w| head[0].0[w] as u8);
    let old2: [u8; L] = std::array::from_fn(|w| head[1].0[w] as u8);
    let old_at: [u8; L] = std::array::from_fn(|w| head[2].0[w] as u8);
    let mut min1 = [127u8; L];
    let mut min2 = [127u8; L];
    let mut at = [0u8; L];
    let mut parity = [0u8; L];
    // The sign byte of edges j..j+8, shifted left once per edge so that edge j's bit is
    // always the top one (bit 7 − j mod 8 holds edge j): no per-edge variable shift.
    let mut bits = [0u8; L];
    for (j, &c) in cols.iter().enumerate() {
        let p = &post[c as usize].0;
        if j % 8 == 0 {
            let plane = &signs[j / 8].0;
            for w in 0..L {
                bits[w] = plane[w] as u8;
            }
        }
        let t = &mut v2c[j];
        for w in 0..L {
            let here = ((old_at[w] == j as u8) as u8).wrapping_neg();
            let mag = (old1[w] ^ ((old1[w] ^ old2[w]) & here)) as i8;
            // 0 or −1.
            let neg = (bits[w] as i8) >> 7;
            bits[w] = bits[w].wrapping_add(bits[w]);
            let old = (mag ^ neg).wrapping_sub(neg);
            let x = p[w].saturating_sub(old).max(-127);
            t[w] = x;
            let a = x.unsigned_abs();
            // min2 = min(min2, max(min1, a)): no select on the minima, so LLVM keeps them
            // in registers (the select form went through a masked store to the stack and a
            // reload each edge, a store-forwarding stall).
            at[w] = if a < min1[w] { j as u8 } else { at[w] };
            min2[w] = min2[w].min(min1[w].max(a));
            min1[w] = min1[w].min(a);
            parity[w] ^= x as u8;
        }
    }
    // The lanes' correction (the plain and adaptive rules are refused by `CompactDecoder::new`).
    rule.correct(&mut min1, &mut min2);
    for w in 0..L {
        min1[w] = min1[w].min(C2V_MAX);
        min2[w] = min2[w].min(C2V_MAX);
    }
    // Sign bits are gathered in a register and written a byte plane at a time.
    let mut acc = [0u8; L];
    let degree = cols.len();
    for (j, &c) in cols.iter().enumerate() {
        let p = &mut post[c as usize].0;
        let bit = 0x80u8 >> (j % 8);
        let t = &v2c[j];
        for w in 0..L {
            let here = ((at[w] == j as u8) as u8).wrapping_neg();
            let mag = (min1[w] ^ ((min1[w] ^ min2[w]) & here)) as i8;
            // 0 or −1: the sign of the product of the other edges' v2c signs.
            let s = ((parity[w] ^ t[w] as u8) as i8) >> 7;
            let c2v = (mag ^ s).wrapping_sub(s);
            p[w] = t[w].saturating_add(c2v).max(-127);
            acc[w] |= bit & s as u8;
        }
        if j % 8 == 7 || j + 1 == degree {
            let plane = &mut signs[j / 8].0;
            for w in 0..L {
                plane[w] = acc[w] as i8;
                acc[w] = 0;
            }
        }
    }
    for w in 0..L {
        head[0].0[w] = min1[w] as i8;
        head[1].0[w] = min2[w] as i8;
        head[2].0[w] = at[w] as i8;
    }
}

/// The check on AVX-512 mask registers. Same arithmetic as [`check`], reorganised:
/// - each edge's 64 sign bits (of its last v2c) and its "holds min1" bits are one 64-bit lane
///   mask each in the state, read and written whole (a mask load or store per edge, no
///   byte-plane shifts);
/// - the second pass writes P = sign(v2c)·sat(|v2c| + s·m) with s the sign of the product of
///   all v2c signs and m the edge's corrected magnitude: the same value as
///   clamp(v2c + c2v, ±127), since c2v = s·sign(v2c)·m, |v2c| ≤ 127 and m ≤ [`C2V_MAX`];
///   the state keeps sign(v2c) per edge and s per check (their xor is the c2v sign), so
///   the first pass signs min1 and min2 by s once per check and flips by sign(v2c) per edge.
#[cfg(target_arch = "x86_64")]
mod avx512 {
    use super::{Line, Rule8, C2V_MAX};
    use std::arch::x86_64::*;

    /// One check (degree `cols.len()` ≤ D) over 64 lanes; `state` holds min1, min2, then
    /// `sb` lines of v2c sign masks (one u64 per edge; the last one holds s) and `sb` lines
    /// of min1-edge masks (one u64 per edge).
    ///
    /// # Safety
    /// The CPU has AVX-512 F and BW; every column is < `post.len()`; `state` has
    /// 2 + 2·`sb` lines; `cols.len()` ≤ D and < 8·`sb`.
    #[target_feature(enable = "avx512f,avx512bw")]
    #[inline]
    pub(super) unsafe fn check<const D: usize>(
        rule: Rule8,
        cols: &[u32],
        post: &mut [Line],
        state: &mut [Line],
        sb: usize,
    ) {
        let degree = cols.len();
        debug_assert!(degree <= D && degree < 8 * sb && state.len() == 2 + 2 * sb);
        // SAFETY: the caller's contract (see above); lines are 64-byte aligned.
        unsafe {
            let base = state.as_mut_ptr();
            let signs = base.add(2) as *mut u64;
            let here = base.add(2 + sb) as *mut u64;
            let pp = post.as_mut_ptr();
            let zero = _mm512_setzero_si512();
            // The last slot of the sign masks: the sign s of the product of all v2c signs.
            let odd = signs.add(8 * sb - 1);
            let k_odd_old = *odd;
            let old1 = _mm512_load_si512(base as *const _);
            let old1 = _mm512_mask_sub_epi8(old1, k_odd_old, zero, old1);
            let old2 = _mm512_load_si512(base.add(1) as *const _);
            let old2 = _mm512_mask_sub_epi8(old2, k_odd_old, zero, old2);
            let floor = _mm512_set1_epi8(-127);
            let mut min1 = _mm512_set1_epi8(127);
            let mut min2 = min1;
            let mut at = zero;
            let mut parity = zero;
            let mut v2c = [zero; D];
            let mut mag = [zero; D];
            for j in 0..degree {
                let p = _mm512_load_si512(pp.add(*cols.get_unchecked(j) as usize) as *const _);
                let old = _mm512_mask_blend_epi8(*here.add(j), old1, old2);
                let k_neg = *signs.add(j);
                // P − old c2v, old c2v = s·m negated where the edge's last v2c was negative.
                let x = _mm512_mask_adds_epi8(_mm512_subs_epi8(p, old), k_neg, p, old);
                let x = _mm512_max_epi8(x, floor);
                let a = _mm512_abs_epi8(x);
                at = _mm512_mask_mov_epi8(
                    at,
                    _mm512_cmplt_epu8_mask(a, min1),
                    _mm512_set1_epi8(j as i8),
                );
                min2 = _mm512_min_epu8(min2, _mm512_max_epu8(min1, a));
                min1 = _mm512_min_epu8(min1, a);
                parity = _mm512_xor_si512(parity, x);
                v2c[j] = x;
                mag[j] = a;
            }
            match rule {
                // Refused by `CompactDecoder::new`.
                Rule8::Plain | Rule8::Adaptive { .. } | Rule8::LambdaMin { .. } => {}
                Rule8::Normalized(k) => {
                    let k = _mm512_set1_epi16(k as i16);
                    let scale = |m: __m512i| {
                        // ⌊m·k/16⌋ on 16-bit halves (m ≤ 127, k ≤ 16: no overflow).
                        let lo = _mm512_srli_epi16::<4>(_mm512_mullo_epi16(
                            _mm512_and_si512(m, _mm512_set1_epi16(0xFF)),
                            k,
                        ));
                        let hi = _mm512_srli_epi16::<4>(_mm512_mullo_epi16(
                            _mm512_srli_epi16::<8>(m),
                            k,
                        ));
                        _mm512_or_si512(lo, _mm512_slli_epi16::<8>(hi))
                    };
                    min1 = scale(min1);
                    min2 = scale(min2);
                }
                Rule8::Offset(b) => {
                    let b = _mm512_set1_epi8(b as i8);
                    min1 = _mm512_subs_epu8(min1, b);
                    min2 = _mm512_subs_epu8(min2, b);
                }
            }
            let cap = _mm512_set1_epi8(C2V_MAX as i8);
            min1 = _mm512_min_epu8(min1, cap);
            min2 = _mm512_min_epu8(min2, cap);
            _mm512_store_si512(base as *mut _, min1);
            _mm512_store_si512(base.add(1) as *mut _, min2);
            // s·min1 and s·min2 (s: the sign of the product of all v2c signs).
            let k_odd = _mm512_movepi8_mask(parity);
            let s1 = _mm512_mask_sub_epi8(min1, k_odd, zero, min1);
            let s2 = _mm512_mask_sub_epi8(min2, k_odd, zero, min2);
            *odd = k_odd;
            for j in 0..degree {
                let k_here = _mm512_cmpeq_epi8_mask(at, _mm512_set1_epi8(j as i8));
                *here.add(j) = k_here;
                let k_neg = _mm512_movepi8_mask(v2c[j]);
                *signs.add(j) = k_neg;
                let u = _mm512_adds_epi8(mag[j], _mm512_mask_blend_epi8(k_here, s1, s2));
                let p = _mm512_mask_sub_epi8(u, k_neg, zero, u);
                _mm512_store_si512(pp.add(*cols.get_unchecked(j) as usize) as *mut _, p);
            }
        }
    }
}

/// The scalar twin: decodes one codeword (`llr` already quantised, original bit order) with
/// exactly the arithmetic of the SIMD decoder, for `iterations` iterations without early
/// termination; returns the hard decisions in original bit order.
pub fn decode_scalar(
    layout: &CompactLayout,
    rule: Rule8,
    llr: &[i8],
    iterations: usize,
) -> Vec<u8> {
    let code = &layout.code;
    let mut post = vec![0i8; code.n()];
    for (b, &l) in llr.iter().enumerate() {
        post[layout.perm[b] as usize] = l.max(-127);
    }
    // (min1, min2, index, c2v sign bits) per check.
    let mut state = vec![(0u8, 0u8, 0usize, 0u32); code.m()];
    // A uniform rule: the adaptive and λ-min ones are refused by `CompactDecoder::new` and left as
    // plain min-sum here.
    let correct = |m: u8| match rule {
        Rule8::Plain | Rule8::Adaptive { .. } | Rule8::LambdaMin { .. } => m,
        Rule8::Normalized(k) => ((m as u16 * k as u16) >> 4) as u8,
        Rule8::Offset(b) => m.saturating_sub(b),
    };
    let clamp = |x: i16| x.clamp(-127, 127) as i8;
    for _ in 0..iterations {
        for (r, st) in state.iter_mut().enumerate() {
            let cols = code.row(r);
            let (m1, m2, idx, sg) = *st;
            let v: Vec<i8> = cols
                .iter()
                .enumerate()
                .map(|(j, &c)| {
                    let mag = if j == idx { m2 } else { m1 } as i16;
                    let old = if sg >> j & 1 == 1 { -mag } else { mag };
                    clamp(post[c as usize] as i16 - old)
                })
                .collect();
            let (mut n1, mut n2, mut at) = (127u8, 127u8, 0usize);
            for (j, &x) in v.iter().enumerate() {
                let a = x.unsigned_abs();
                if a < n1 {
                    n2 = n1;
                    n1 = a;
                    at = j;
                } else if a < n2 {
                    n2 = a;
                }
            }
            let negatives = v.iter().filter(|&&x| x < 0).count();
            let (n1, n2) = (correct(n1).min(C2V_MAX), correct(n2).min(C2V_MAX));
            let mut signs = 0u32;
            for (j, &c) in cols.iter().enumerate() {
                let mag = if j == at { n2 } else { n1 } as i16;
                let negative = (negatives - (v[j] < 0) as usize) % 2 == 1;
                let c2v = if negative { -mag } else { mag };
                signs |= (negative as u32) << j;
                post[c as usize] = clamp(v[j] as i16 + c2v);
            }
            *st = (n1, n2, at, signs);
        }
    }
    (0..code.n())
        .map(|b| (post[layout.perm[b] as usize] < 0) as u8)
        .collect()
}
