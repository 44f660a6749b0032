//! The GPU LDPC decoder paper's 8-bit min-sum on the CPU, SIMD over codewords.
//!
//! Codewords are decoded in groups of [`LANES`]; a group's messages are stored edge by edge
//! with the group's codewords contiguous (`msg[e·LANES + w]`), the CPU form of the GPU LDPC decoder paper's
//! coalesced layout, so every inner loop runs over the lanes and the compiler turns it into
//! AVX-512, AVX2 or SSE4.1 code — one version of each, chosen at run time. Threads take whole
//! groups: codewords are independent, so a group runs all its iterations without waiting for
//! the others (the GPU LDPC decoder paper split each half-iteration's rows over threads instead, with a barrier
//! between them).
//!
//! The arithmetic is the GPU LDPC decoder paper's GPU variant, which the GPU kernels reproduce bit for bit:
//! - VN: s = LLR + Σ c2v in 16 bits; each v2c = clamp(s − c2v, −127, 127); hard decision
//!   s < 0 (the VN-with-hard-decision pass).
//! - CN: the two smallest |v2c| (the first one met wins ties), the product of signs (0 counts
//!   as positive); each c2v is the other minimum with the sign of the product of the others.
//!   Normalised: min·k/16 rounded down; offset: min − β, not below 0.
//! - Flooding: messages start as the channel LLRs; each iteration is CN then VN.
//! - Layered: layer after layer ([`Code::layers`]: a DVB code's 360-check circulants), each
//!   check v2c = clamp(P − c2v, ±127), then P += new c2v − old c2v (P in 16 bits, always
//!   LLR + Σ c2v). The checks of a layer all read P as it was when the layer began and their
//!   changes are summed afterwards, so the GPU can update a layer's checks at once; in a layer
//!   whose checks share no bit that equals check-by-check updating, which is how it runs here.
//! - Known bits: an f32 input LLR of magnitude ≥ [`KNOWN_LLR`] (a 5G NR filler bit, given
//!   [`crate::nr::FILLER_LLR`]) starts the layered posterior P at ±(32767 − 127·d_max)
//!   instead of the saturated ±127, so that no sum of c2v messages can flip or weaken it: its
//!   v2c stays ±127, as a float decoder's stays near ±∞. Saturated at ±127 (about 16 LLR
//!   units at scale 8), a filler bit that a few wrong c2v messages outvote turned into an
//!   unknown bit and cost the BG2 codes with filler bits decoding margin.
//! - Early termination: after each iteration a codeword whose hard decision satisfies every
//!   check keeps that decision; the group stops when all its codewords have one.

// Lane loops are written `for w in 0..L` over fixed-size arrays: the form LLVM vectorises.
#![allow(clippy::needless_range_loop, clippy::manual_memcpy)]

use super::lambda_min::{Drops, Minima3};
use super::lanes::{decode_groups, Fixed8Setup, GroupDone, Rule8, LANES};
use super::{codewords_of, count_valid, DecodeStats, Decoder, DecoderConfig, Llrs, Schedule};
use crate::channel::Quantizer;
use crate::code::{Code, Layer};
use crate::error::{LdpcError, Result};
use sigpu_runtime::host::Isa;

/// The f32 input LLR magnitude from which the 8-bit layered decoder takes a bit as known
/// (module documentation): e^−1000 is no channel's error probability.
pub const KNOWN_LLR: f32 = 1.0e3;

/// 8-bit min-sum on the CPU; see the module documentation.
pub struct Fixed8Decoder {
    code: Code,
    /// `code` with its checks in decoding order ([`Code::decoding_order`]).
    order: Code,
    /// The layers of `order` (layered schedule).
    layers: Vec<Layer>,
    config: DecoderConfig,
    setup: Fixed8Setup,
    /// The layered posterior's start for a known bit: P ± 127 per edge stays within i16.
    known: i16,
}

impl Fixed8Decoder {
    /// The decoder of `config` (8-bit, flooding or layered) for `code`, on this host's widest
    /// instruction set.
    pub fn new(code: Code, config: DecoderConfig) -> Result<Fixed8Decoder> {
        let setup = Fixed8Setup::new(&config, "the 8-bit decoder needs --precision 8bit")?;
        if config.schedule == Schedule::LayeredCompact {
            return Err(LdpcError::invalid(
                "--schedule layered-compact runs in the compact decoder (cpu_decoder picks it)",
            ));
        }
        let degree = code.max_row_degree().max(code.max_col_degree());
        if degree > 254 {
            return Err(LdpcError::invalid(format!(
                "code {} has a node of degree {degree}; the 8-bit decoders handle at most 254",
                code.name()
            )));
        }
        let known = (i16::MAX as usize - 127 * code.max_col_degree()) as i16;
        Ok(Fixed8Decoder {
            known,
            layers: code.decoding_order().layers(),
            order: code.decoding_order(),
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

    /// The instruction set the lane loops run in.
    pub fn simd(&self) -> Isa {
        self.setup.simd
    }
}

impl Decoder for Fixed8Decoder {
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
            || Group::new(&self.order, &self.layers),
            |group, g, out| {
                group.load(&self.code, s.quantizer, self.known, llr, g * LANES, count);
                let its = group.run(&self.order, &self.layers, s.rule, &self.config, s.simd);
                group.store(n, out);
                GroupDone {
                    iterations: its,
                    valid: None,
                }
            },
            |bits| count_valid(&self.code, bits),
        ))
    }
}

/// One group's buffers, lane-major.
struct Group {
    llr: Vec<i8>,
    /// Layered: each bit's starting posterior (its LLR, or ± the known value).
    start: Vec<i16>,
    /// Flooding: v2c / c2v per edge; layered: c2v per edge.
    msg: Lines,
    /// Layered only: 16-bit posterior per bit.
    post: Vec<i16>,
    hard: Vec<u8>,
    /// One column's or row's messages.
    scratch: Vec<i8>,
    /// Layered: the new c2v of a layer whose checks share bits, until all its checks have
    /// read P.
    layer_msg: Vec<i8>,
}

impl Group {
    fn new(code: &Code, layers: &[Layer]) -> Group {
        let degree = code.max_row_degree().max(code.max_col_degree());
        let layer_edges = layers
            .iter()
            .filter(|l| l.conflict)
            .map(|l| (code.row_start()[l.rows.end] - code.row_start()[l.rows.start]) as usize)
            .max()
            .unwrap_or(0);
        Group {
            llr: vec![0; code.n() * LANES],
            start: vec![0; code.n() * LANES],
            msg: Lines::zeroed(code.edges() * LANES),
            post: Vec::new(),
            hard: vec![0; code.n() * LANES],
            scratch: vec![0; degree * LANES],
            layer_msg: vec![0; layer_edges * LANES],
        }
    }

    /// Quantises codewords `first ..` (up to LANES of them, zeros past `count`) into lanes;
    /// bits of |LLR| ≥ [`KNOWN_LLR`] start the layered posterior at ±`known`.
    fn load(
        &mut self,
        code: &Code,
        q: Quantizer,
        known: i16,
        llr: Llrs<'_>,
        first: usize,
        count: usize,
    ) {
        let n = code.n();
        self.llr.fill(0);
        self.start.fill(0);
        for w in 0..LANES.min(count - first) {
            let range = (first + w) * n..(first + w + 1) * n;
            match llr {
                Llrs::F32(v) => {
                    for (b, &l) in v[range].iter().enumerate() {
                        let x = q.quantize(l);
                        self.llr[b * LANES + w] = x;
                        self.start[b * LANES + w] = if l.abs() >= KNOWN_LLR {
                            if l > 0.0 {
                                known
                            } else {
                                -known
                            }
                        } else {
                            x as i16
                        };
                    }
                }
                Llrs::I8 { values, scale } => {
                    // Re-quantise only when the input's scale differs from the decoder's.
                    let same = scale == q.scale;
                    for (b, &l) in values[range].iter().enumerate() {
                        let x = if same {
                            l.max(-127)
                        } else {
                            q.quantize(l as f32 / scale)
                        };
                        self.llr[b * LANES + w] = x;
                        self.start[b * LANES + w] = x as i16;
                    }
                }
            }
        }
    }

    /// Writes the hard decisions of the group's real codewords to `out` (codeword-major).
    fn store(&self, n: usize, out: &mut [u8]) {
        for (w, word) in out.chunks_mut(n).enumerate() {
            for (b, bit) in word.iter_mut().enumerate() {
                *bit = self.hard[b * LANES + w];
            }
        }
    }

    fn run(
        &mut self,
        code: &Code,
        layers: &[Layer],
        rule: Rule8,
        config: &DecoderConfig,
        simd: Isa,
    ) -> usize {
        let mut job = Job {
            code,
            layers,
            rule,
            iterations: config.iterations,
            early: config.early_termination,
            group: self,
        };
        match config.schedule {
            Schedule::Flooding => simd_dispatch!(simd, job, flooding),
            // `new` sends layered-compact to `CompactDecoder`.
            Schedule::Layered | Schedule::LayeredCompact => simd_dispatch!(simd, job, layered),
        }
    }
}

/// A byte buffer aligned to 64-byte cache lines, so each edge's LANES messages are one line.
struct Lines(Vec<Line>);

#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line([i8; 64]);

impl Lines {
    fn zeroed(bytes: usize) -> Lines {
        Lines(vec![Line([0; 64]); bytes.div_ceil(64)])
    }
}

impl std::ops::Deref for Lines {
    type Target = [i8];
    fn deref(&self) -> &[i8] {
        // SAFETY: `Line` is 64 plain bytes with no padding.
        unsafe { std::slice::from_raw_parts(self.0.as_ptr().cast(), self.0.len() * 64) }
    }
}

impl std::ops::DerefMut for Lines {
    fn deref_mut(&mut self) -> &mut [i8] {
        // SAFETY: as in `deref`, and the borrow is unique.
        unsafe { std::slice::from_raw_parts_mut(self.0.as_mut_ptr().cast(), self.0.len() * 64) }
    }
}

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

/// Columns ahead of the VN pass whose messages are prefetched: a column's edges are scattered
/// over the message array, which the hardware prefetcher cannot follow.
const PREFETCH_COLUMNS: usize = 6;

/// Calls `$job.$method::<LANES>()` compiled for the chosen instruction set.
macro_rules! simd_dispatch {
    ($simd:expr, $job:ident, $method:ident) => {{
        #[cfg(target_arch = "x86_64")]
        {
            #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
            fn avx512(job: &mut Job<'_>) -> usize {
                job.$method::<LANES>()
            }
            #[target_feature(enable = "avx2")]
            fn avx2(job: &mut Job<'_>) -> usize {
                job.$method::<LANES>()
            }
            #[target_feature(enable = "sse4.1")]
            fn sse41(job: &mut Job<'_>) -> usize {
                job.$method::<LANES>()
            }
            // SAFETY: `best_simd(&CpuArch::host())` / `with_simd` only choose sets this CPU has.
            match $simd {
                Isa::Avx512 => unsafe { avx512(&mut $job) },
                Isa::Avx2 | Isa::Avx2Fma => unsafe { avx2(&mut $job) },
                Isa::Sse41 => unsafe { sse41(&mut $job) },
                Isa::Scalar => $job.$method::<LANES>(),
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = $simd;
            $job.$method::<LANES>()
        }
    }};
}
use simd_dispatch;

/// One group's decoding run.
struct Job<'a> {
    code: &'a Code,
    layers: &'a [Layer],
    rule: Rule8,
    iterations: usize,
    early: bool,
    group: &'a mut Group,
}

impl Job<'_> {
    #[inline(always)]
    fn flooding<const L: usize>(&mut self) -> usize {
        let code = self.code;
        let g = &mut *self.group;
        for (e, &c) in code.edge_col().iter().enumerate() {
            let c = c as usize;
            g.msg[e * L..(e + 1) * L].copy_from_slice(&g.llr[c * L..(c + 1) * L]);
        }
        let mut done = [0u8; L];
        let cancel = sigpu_runtime::cancel::Cancel::current();
        for it in 1..=self.iterations {
            if cancel.is_cancelled() {
                break;
            }
            for r in 0..code.m() {
                let (a, b) = (
                    code.row_start()[r] as usize,
                    code.row_start()[r + 1] as usize,
                );
                check_node::<L>(self.rule, &mut g.msg[a * L..b * L]);
            }
            let harden = self.early || it == self.iterations;
            let (col_start, col_edges) = (code.col_start(), code.col_edges());
            for v in 0..code.n() {
                if let Some(ahead) = col_start.get(v + PREFETCH_COLUMNS + 1) {
                    let first = col_start[v + PREFETCH_COLUMNS] as usize;
                    for &e in &col_edges[first..*ahead as usize] {
                        prefetch(g.msg[e as usize * L..].as_ptr());
                    }
                }
                let edges = &col_edges[col_start[v] as usize..col_start[v + 1] as usize];
                let llr: &[i8; L] = g.llr[v * L..(v + 1) * L].try_into().unwrap();
                let sum = variable_node::<L>(llr, edges, &mut g.msg, &mut g.scratch);
                if harden {
                    let hard: &mut [u8; L] = (&mut g.hard[v * L..(v + 1) * L]).try_into().unwrap();
                    mark_hard::<L>(hard, &sum, &done);
                }
            }
            if self.early && it < self.iterations && all_valid::<L>(code, &g.hard, &mut done) {
                return it;
            }
        }
        self.iterations
    }

    #[inline(always)]
    fn layered<const L: usize>(&mut self) -> usize {
        let code = self.code;
        let g = &mut *self.group;
        g.msg.fill(0);
        g.post.clear();
        g.post.extend_from_slice(&g.start);
        let mut done = [0u8; L];
        let cancel = sigpu_runtime::cancel::Cancel::current();
        for it in 1..=self.iterations {
            if cancel.is_cancelled() {
                break;
            }
            for layer in self.layers {
                if layer.conflict {
                    layered_shared::<L>(code, layer, self.rule, g);
                    continue;
                }
                for r in layer.rows.clone() {
                    layered_row::<L>(code, r, self.rule, g);
                }
            }
            if self.early || it == self.iterations {
                for (h, p) in g.hard.chunks_exact_mut(L).zip(g.post.chunks_exact(L)) {
                    mark_hard::<L>(h.try_into().unwrap(), p.try_into().unwrap(), &done);
                }
            }
            if self.early && it < self.iterations && all_valid::<L>(code, &g.hard, &mut done) {
                return it;
            }
        }
        self.iterations
    }
}

/// Hard decisions of one bit in `L` codewords from its posteriors `post`: codewords already
/// found valid (`done` lanes 0xff) keep theirs.
#[inline(always)]
fn mark_hard<const L: usize>(hard: &mut [u8; L], post: &[i16; L], done: &[u8; L]) {
    for w in 0..L {
        hard[w] = (hard[w] & done[w]) | ((post[w] < 0) as u8 & !done[w]);
    }
}

/// One check of the layered schedule, updating P at once (its layer's checks share no bit).
#[inline(always)]
fn layered_row<const L: usize>(code: &Code, r: usize, rule: Rule8, g: &mut Group) {
    let (a, b) = (
        code.row_start()[r] as usize,
        code.row_start()[r + 1] as usize,
    );
    let cols = &code.edge_col()[a..b];
    let row = &mut g.scratch[..(b - a) * L];
    layered_v2c::<L>(cols, &g.post, &g.msg[a * L..b * L], row);
    check_node::<L>(rule, row);
    for (j, &c) in cols.iter().enumerate() {
        let p: &mut [i16; L] = (&mut g.post[c as usize * L..][..L]).try_into().unwrap();
        let old: &mut [i8; L] = (&mut g.msg[(a + j) * L..][..L]).try_into().unwrap();
        let new: &[i8; L] = row[j * L..][..L].try_into().unwrap();
        // P stays start + Σ c2v exactly (|P| ≤ 127·(1 + degree) fits 16 bits, and a known
        // bit's ±(32767 − 127·d_max) too);
        // only the CN's input is clamped, or saturation would erase the LLR.
        for w in 0..L {
            p[w] += new[w] as i16 - old[w] as i16;
            old[w] = new[w];
        }
    }
}

/// A layer whose checks share bits: every check reads P first, then the changes are summed.
#[inline(always)]
fn layered_shared<const L: usize>(code: &Code, layer: &Layer, rule: Rule8, g: &mut Group) {
    let first = code.row_start()[layer.rows.start] as usize;
    let last = code.row_start()[layer.rows.end] as usize;
    for r in layer.rows.clone() {
        let (a, b) = (
            code.row_start()[r] as usize,
            code.row_start()[r + 1] as usize,
        );
        let row = &mut g.layer_msg[(a - first) * L..(b - first) * L];
        layered_v2c::<L>(&code.edge_col()[a..b], &g.post, &g.msg[a * L..b * L], row);
        check_node::<L>(rule, row);
    }
    for (e, &c) in code.edge_col()[first..last].iter().enumerate() {
        let p: &mut [i16; L] = (&mut g.post[c as usize * L..][..L]).try_into().unwrap();
        let old: &mut [i8; L] = (&mut g.msg[(first + e) * L..][..L]).try_into().unwrap();
        let new: &[i8; L] = g.layer_msg[e * L..][..L].try_into().unwrap();
        for w in 0..L {
            p[w] += new[w] as i16 - old[w] as i16;
            old[w] = new[w];
        }
    }
}

/// A check's v2c = clamp(P − old c2v, ±127) for its columns `cols`.
#[inline(always)]
fn layered_v2c<const L: usize>(cols: &[u32], post: &[i16], old: &[i8], out: &mut [i8]) {
    for (j, &c) in cols.iter().enumerate() {
        let p: &[i16; L] = post[c as usize * L..][..L].try_into().unwrap();
        let o: &[i8; L] = old[j * L..][..L].try_into().unwrap();
        let t: &mut [i8; L] = (&mut out[j * L..][..L]).try_into().unwrap();
        for w in 0..L {
            t[w] = (p[w] - o[w] as i16).clamp(-127, 127) as i8;
        }
    }
}

/// The CN pass for one check: `msg` holds its edges' v2c for L codewords, replaced by c2v.
/// Written as branch-free lane loops so they compile to byte-wide SIMD.
#[inline(always)]
fn check_node<const L: usize>(rule: Rule8, msg: &mut [i8]) {
    if let Rule8::LambdaMin { beta, drops } = rule {
        return check_node_lambda::<L>(beta, &drops, msg);
    }
    let mut min1 = [127u8; L];
    let mut min2 = [127u8; L];
    let mut at = [u8::MAX; L];
    let mut sign = [0u8; L];
    for (j, x) in msg.chunks_exact(L).enumerate() {
        let x: &[i8; L] = x.try_into().unwrap();
        for w in 0..L {
            let a = x[w].unsigned_abs();
            let below1 = a < min1[w];
            min2[w] = if below1 { min1[w] } else { min2[w].min(a) };
            min1[w] = min1[w].min(a);
            at[w] = if below1 { j as u8 } else { at[w] };
            sign[w] ^= x[w] as u8;
        }
    }
    rule.correct(&mut min1, &mut min2);
    for (j, x) in msg.chunks_exact_mut(L).enumerate() {
        let x: &mut [i8; L] = x.try_into().unwrap();
        for w in 0..L {
            // Bit-select rather than `if`, which LLVM turned into a byte gather.
            let here = ((at[w] == j as u8) as u8).wrapping_neg();
            let mag = (min1[w] ^ ((min1[w] ^ min2[w]) & here)) as i8;
            // 0 or −1: the sign of the product of the other edges' signs.
            let s = ((sign[w] ^ x[w] as u8) as i8) >> 7;
            x[w] = (mag ^ s).wrapping_sub(s);
        }
    }
}

/// [`check_node`] for the λ-min rule ([`super::lambda_min`]).
#[inline(always)]
fn check_node_lambda<const L: usize>(beta: u8, drops: &Drops, msg: &mut [i8]) {
    let mut minima = Minima3::<L>::new();
    let mut sign = [0u8; L];
    for (j, x) in msg.chunks_exact(L).enumerate() {
        let x: &[i8; L] = x.try_into().unwrap();
        minima.push(j as u8, &x.map(i8::unsigned_abs));
        for w in 0..L {
            sign[w] ^= x[w] as u8;
        }
    }
    let c = minima.finish(beta, drops);
    for (j, x) in msg.chunks_exact_mut(L).enumerate() {
        let x: &mut [i8; L] = x.try_into().unwrap();
        let mag = c.magnitude(j as u8);
        for w in 0..L {
            let s = ((sign[w] ^ x[w] as u8) as i8) >> 7;
            x[w] = (mag[w] as i8 ^ s).wrapping_sub(s);
        }
    }
}

/// The VN pass for one bit: its edges' c2v become v2c; returns the 16-bit posterior.
#[inline(always)]
fn variable_node<const L: usize>(
    llr: &[i8; L],
    edges: &[u32],
    msg: &mut [i8],
    scratch: &mut [i8],
) -> [i16; L] {
    let mut sum = [0i16; L];
    for w in 0..L {
        sum[w] = llr[w] as i16;
    }
    // Copied to the (L1-resident) scratch so the second pass does not read `msg` again.
    for (j, &e) in edges.iter().enumerate() {
        let src: &[i8; L] = msg[e as usize * L..][..L].try_into().unwrap();
        let keep: &mut [i8; L] = (&mut scratch[j * L..][..L]).try_into().unwrap();
        for w in 0..L {
            keep[w] = src[w];
            sum[w] += src[w] as i16;
        }
    }
    for (j, &e) in edges.iter().enumerate() {
        let dst: &mut [i8; L] = (&mut msg[e as usize * L..][..L]).try_into().unwrap();
        let keep: &[i8; L] = scratch[j * L..][..L].try_into().unwrap();
        for w in 0..L {
            dst[w] = (sum[w] - keep[w] as i16).clamp(-127, 127) as i8;
        }
    }
    sum
}

/// Marks lanes whose hard decision satisfies every check as done (0xFF); true when all are.
#[inline(always)]
fn all_valid<const L: usize>(code: &Code, hard: &[u8], done: &mut [u8; L]) -> bool {
    let mut failed = [0u8; L];
    for r in 0..code.m() {
        let mut parity = [0u8; L];
        for &c in code.row(r) {
            let h: &[u8; L] = hard[c as usize * L..][..L].try_into().unwrap();
            for w in 0..L {
                parity[w] ^= h[w];
            }
        }
        for w in 0..L {
            failed[w] |= parity[w];
        }
    }
    for w in 0..L {
        done[w] |= ((failed[w] == 0) as u8).wrapping_neg();
    }
    done.iter().all(|&d| d != 0)
}
