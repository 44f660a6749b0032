//! The 8-bit layered min-sum of [`super::Fixed8Decoder`] on a lifted 5G NR code, one codeword
//! at a time with the lifting as the SIMD dimension.
//!
//! A block row of the base graph is Z checks that share no bit (every circulant is a
//! permutation), so updating them together gives exactly the check-by-check layered schedule
//! the 8-bit decoder runs on an NR code (its checks in natural order, each a layer). The Z
//! checks are taken 64 at a time (a chunk: one AVX-512 register of `i8`); check t of block row
//! i meets bit (t + V) mod Z of block column j, so the posteriors a chunk needs from column j
//! are a window of the column starting at (64u + V) mod Z — one or two runs of the column
//! (it wraps once at most), read and written with masked loads and stores.
//!
//! The arithmetic is the 8-bit decoder's, operation for operation, so decoded bits and
//! iteration counts are equal (`tests/nr_qc.rs`): the posterior P of every bit is `i16`
//! (LLR + Σ c2v, exact), each edge keeps its c2v as `i8`, v2c = clamp(P − c2v, ±127), the two
//! smallest |v2c| (the first wins ties), the product of signs (0 counts as positive), the
//! normalised (min·k/16 rounded down), offset (min − β, not below 0) or adaptive offset
//! ([`super::Rule8::correct`]) correction, and
//! P ← P − old c2v + new c2v. Early termination checks the syndrome of P's signs after each
//! iteration. Unlike the 8-bit decoder, which stops a 64-codeword group when all of its words
//! check, each codeword here stops on its own, and its iteration count is its own.
//!
//! The kernels: AVX-512 (BW) intrinsics in [`super::qc_avx512`]; a portable one (lane loops
//! over 64-element arrays) compiled for AVX2 and for the baseline. All three agree bit for bit.

#![allow(clippy::needless_range_loop)]

use super::aligned::Aligned;
use super::lambda_min::{Drops, Minima3};
use super::lanes::{Fixed8Setup, Rule8};
use super::{codewords_of, worker_threads, DecodeStats, Decoder, DecoderConfig, Llrs, Schedule};
use crate::channel::Quantizer;
use crate::code::Code;
use crate::error::{LdpcError, Result};
use crate::nr::lifted::lifted_rows;
use sigpu_runtime::host::Isa;
use std::sync::Mutex;

/// Checks per chunk: one 512-bit register of `i8`.
pub(super) const CHUNK: usize = 64;

/// The most circulants a block row may have (BG1's core rows have 19).
pub(super) const MAX_ROW_DEGREE: usize = 32;

/// Where chunk u of an edge finds its posteriors: lanes `0 .. n1` at `p[off1 + i]`, lanes
/// `n1 .. n1 + n2` at `p[off2 + i]` (the window's wrap), the rest unused (a last chunk of a Z
/// that is not a multiple of 64). `k1` and `k2` are those lanes as bit masks.
#[derive(Clone, Copy, Debug)]
pub(super) struct Window {
    pub k1: u64,
    pub k2: u64,
    pub off1: u32,
    pub off2: u32,
    pub n1: u8,
    pub n2: u8,
}

/// The quasi-cyclic structure of a lifted code, as the kernels walk it.
#[derive(Clone, Debug)]
pub(super) struct QcTables {
    /// Lifting size.
    pub z: usize,
    /// Chunks per block row: ⌈Z / 64⌉.
    pub chunks: usize,
    /// Block columns.
    pub cols: usize,
    /// `i16` elements between the starts of two block columns' posteriors.
    pub stride: usize,
    /// Elements before block column 0 (so every lane address of a masked access, used or
    /// not, lies inside the buffer).
    pub front: usize,
    /// Edges (circulants) of block row i: `row_start[i] .. row_start[i + 1]`.
    pub row_start: Vec<usize>,
    /// Per edge and chunk (edge-major): its window.
    pub windows: Vec<Window>,
    /// The largest number of circulants in a block row.
    pub max_degree: usize,
    /// A known bit's first posterior (|LLR| ≥ [`super::KNOWN_LLR`]), as `Fixed8Decoder`'s.
    pub known: i16,
}

/// The base graph, Z and block rows of `code`, which must be a lifted NR code (whole or cut to
/// its first block rows) exactly as [`lifted_rows`] builds it: the structure the quasi-cyclic
/// decoders (this one and the GPU's) walk.
pub(crate) fn lifted_structure(code: &Code) -> Result<(crate::nr::BaseGraph, usize, usize)> {
    let Some((graph, z)) = code.lifted() else {
        return Err(LdpcError::invalid(format!(
            "{}: the quasi-cyclic decoders take lifted 5G NR codes only",
            code.name()
        )));
    };
    let rows = code.m() / z;
    let same = lifted_rows(graph, z, rows)?;
    if same.n() != code.n()
        || same.row_start() != code.row_start()
        || same.edge_col() != code.edge_col()
    {
        return Err(LdpcError::invalid(format!(
            "{}: not the lifted code of {graph} at Z = {z} (its checks were reordered)",
            code.name()
        )));
    }
    Ok((graph, z, rows))
}

impl QcTables {
    /// The tables of `code`, which must be a lifted NR code (whole or cut to its first block
    /// rows) exactly as [`lifted_rows`] builds it.
    fn new(code: &Code) -> Result<QcTables> {
        let (graph, z, rows) = lifted_structure(code)?;
        let chunks = z.div_ceil(CHUNK);
        let stride = chunks * CHUNK + CHUNK;
        let front = chunks * CHUNK;
        let cols = code.n() / z;
        let ils = crate::nr::lifting::set_index(z).expect("a lifted code has a valid Z");
        let mut row_start = vec![0];
        let mut windows = Vec::new();
        let mut max_degree = 0;
        for i in 0..rows {
            let entries: Vec<_> = graph
                .matrix()
                .entries
                .iter()
                .filter(|e| e.row as usize == i)
                .collect();
            max_degree = max_degree.max(entries.len());
            if entries.len() > MAX_ROW_DEGREE {
                return Err(LdpcError::invalid(format!(
                    "{}: block row {i} has {} circulants, the quasi-cyclic decoder takes at \
                     most {MAX_ROW_DEGREE}",
                    code.name(),
                    entries.len()
                )));
            }
            for e in entries {
                let (c, v) = (e.col as usize, e.shift[ils] as usize % z);
                let base = front + c * stride;
                for u in 0..chunks {
                    let lanes = CHUNK.min(z - u * CHUNK);
                    let o = (u * CHUNK + v) % z;
                    let n1 = lanes.min(z - o);
                    let mask = |n: usize| if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
                    windows.push(Window {
                        k1: mask(n1),
                        k2: mask(lanes) & !mask(n1),
                        off1: (base + o) as u32,
                        off2: (base + o - z) as u32,
                        n1: n1 as u8,
                        n2: (lanes - n1) as u8,
                    });
                }
            }
            row_start.push(windows.len() / chunks);
        }
        Ok(QcTables {
            known: (i16::MAX as usize - 127 * code.max_col_degree()) as i16,
            z,
            chunks,
            cols,
            stride,
            front,
            row_start,
            windows,
            max_degree,
        })
    }

    /// Edges (circulants) in all block rows.
    pub fn edges(&self) -> usize {
        *self
            .row_start
            .last()
            .expect("one entry per block row and one more")
    }

    /// Block rows.
    pub fn rows(&self) -> usize {
        self.row_start.len() - 1
    }
}

/// One codeword's buffers.
pub(super) struct State {
    /// Posteriors, block column c at `front + c · stride`.
    pub p: Aligned<i16>,
    /// c2v per edge, chunk and lane: `c2v[(e · chunks + u) · 64 + lane]`.
    pub c2v: Aligned<i8>,
    /// One chunk's P − old c2v per edge of the block row being updated.
    pub diff: Aligned<i16>,
    /// One chunk's v2c per edge of the block row being updated.
    pub v2c: Aligned<i8>,
}

impl State {
    fn new(t: &QcTables) -> State {
        State {
            p: Aligned::zeros(t.front + t.cols * t.stride + CHUNK),
            c2v: Aligned::zeros(t.edges() * t.chunks * CHUNK),
            diff: Aligned::zeros(t.max_degree * CHUNK),
            v2c: Aligned::zeros(t.max_degree * CHUNK),
        }
    }

    /// Channel LLRs of one codeword quantised as the 8-bit decoder does, as the first
    /// posteriors; every c2v 0. Inlined into each instruction set's decoding function, so
    /// the rounding compiles to one instruction rather than a library call.
    #[inline(always)]
    pub(super) fn load(&mut self, t: &QcTables, input: Input<'_>) {
        let Input { llr, q, word } = input;
        let n = t.cols * t.z;
        let range = word * n..(word + 1) * n;
        for c in 0..t.cols {
            let col = &mut self.p[t.front + c * t.stride..][..t.z];
            let bits = range.start + c * t.z..range.start + (c + 1) * t.z;
            match llr {
                Llrs::F32(v) => {
                    for (p, &l) in col.iter_mut().zip(&v[bits]) {
                        *p = match l {
                            l if l >= super::KNOWN_LLR => t.known,
                            l if l <= -super::KNOWN_LLR => -t.known,
                            l => q.quantize(l) as i16,
                        };
                    }
                }
                // Re-quantised only when the input's scale differs from the decoder's.
                Llrs::I8 { values, scale } if scale == q.scale => {
                    for (p, &l) in col.iter_mut().zip(&values[bits]) {
                        *p = l.max(-127) as i16;
                    }
                }
                Llrs::I8 { values, scale } => {
                    for (p, &l) in col.iter_mut().zip(&values[bits]) {
                        *p = q.quantize(l as f32 / scale) as i16;
                    }
                }
            }
        }
        self.c2v.fill(0);
    }

    /// Hard decisions (P < 0) of every bit, codeword order. Inlined into each instruction
    /// set's decoding function, as `load` is.
    #[inline(always)]
    fn store(&self, t: &QcTables, out: &mut [u8]) {
        for c in 0..t.cols {
            let col = &self.p[t.front + c * t.stride..][..t.z];
            for (o, &p) in out[c * t.z..(c + 1) * t.z].iter_mut().zip(col) {
                *o = (p < 0) as u8;
            }
        }
    }
}

/// The quasi-cyclic 8-bit layered decoder; see the module documentation.
pub struct QcDecoder {
    code: Code,
    config: DecoderConfig,
    setup: Fixed8Setup,
    tables: QcTables,
    /// One codeword's buffers per worker thread, kept between calls.
    states: Vec<State>,
}

impl QcDecoder {
    /// The decoder of `config` (8-bit, layered) for `code`, a lifted 5G NR code, on this
    /// host's widest instruction set.
    pub fn new(code: Code, config: DecoderConfig) -> Result<QcDecoder> {
        let setup = Fixed8Setup::new(
            &config,
            "the quasi-cyclic decoder is 8-bit: --precision 8bit",
        )?;
        if config.schedule != Schedule::Layered {
            return Err(LdpcError::invalid(format!(
                "the quasi-cyclic decoder runs the layered schedule, not {}",
                config.schedule
            )));
        }
        let tables = QcTables::new(&code)?;
        Ok(QcDecoder {
            code,
            config,
            setup,
            tables,
            states: Vec::new(),
        })
    }

    /// Whether `code` and `config` are what this decoder runs: a lifted NR code, the 8-bit
    /// layered schedule.
    pub fn applies(code: &Code, config: &DecoderConfig) -> bool {
        code.lifted().is_some()
            && config.schedule == Schedule::Layered
            && matches!(config.precision, super::Precision::Fixed8 { .. })
    }

    /// Forces an instruction set (one this CPU has), for tests and benchmarks.
    pub fn with_simd(mut self, simd: Isa) -> Result<Self> {
        self.setup.force(simd)?;
        Ok(self)
    }

    /// The instruction set the kernels run in.
    pub fn simd(&self) -> Isa {
        self.setup.simd
    }
}

impl Decoder for QcDecoder {
    fn describe(&self) -> String {
        format!(
            "{} (cpu, quasi-cyclic, {})",
            self.config.describe(),
            self.setup.simd.name()
        )
    }

    fn code(&self) -> &Code {
        &self.code
    }

    fn decode(&mut self, llr: Llrs<'_>, bits: &mut [u8]) -> Result<DecodeStats> {
        let count = codewords_of(&self.code, &llr, bits)?;
        let n = self.code.n();
        let threads = worker_threads(self.config.threads).min(count.max(1));
        let QcDecoder {
            config,
            setup,
            tables,
            states,
            ..
        } = self;
        // Buffers kept from earlier calls: a call of a few codewords would otherwise spend a
        // good part of its time allocating and zeroing them.
        while states.len() < threads {
            states.push(State::new(tables));
        }
        let totals = Mutex::new((0usize, 0usize));
        let outputs = Mutex::new(bits.chunks_mut(n.max(1)).enumerate());
        let cancel = sigpu_runtime::cancel::Cancel::current();
        let (t, s, config) = (&*tables, *setup, &*config);
        let work = |state: &mut State| {
            cancel.scope(|| {
                let (mut iterations, mut valid) = (0, 0);
                loop {
                    if cancel.is_cancelled() {
                        break;
                    }
                    let Some((w, out)) = outputs.lock().unwrap_or_else(|p| p.into_inner()).next()
                    else {
                        break;
                    };
                    let input = Input {
                        llr,
                        q: s.quantizer,
                        word: w,
                    };
                    let (its, ok) = run_word(t, state, input, out, s.rule, config, s.simd);
                    iterations += its;
                    valid += ok as usize;
                }
                let mut totals = totals.lock().unwrap_or_else(|p| p.into_inner());
                totals.0 += iterations;
                totals.1 += valid;
            })
        };
        if threads == 1 {
            // One worker runs on the calling thread: no thread to start per call.
            work(&mut states[0]);
        } else {
            std::thread::scope(|scope| {
                for state in &mut states[..threads] {
                    scope.spawn(|| work(state));
                }
            });
        }
        let (iterations, valid) = totals.into_inner().unwrap_or_else(|p| p.into_inner());
        Ok(DecodeStats {
            codewords: count,
            valid,
            iterations,
            batches: count,
        })
    }
}

/// One codeword of a decode call's input.
#[derive(Clone, Copy)]
pub(super) struct Input<'a> {
    pub llr: Llrs<'a>,
    pub q: Quantizer,
    pub word: usize,
}

/// What a kernel does: one block row's update, and the syndrome of P's signs.
pub(super) trait Kernel {
    /// Updates block row `row` (all its chunks).
    fn row(t: &QcTables, st: &mut State, row: usize, rule: Rule8);
    /// Whether the hard decisions (P < 0) satisfy every check.
    fn checks(t: &QcTables, st: &State) -> bool;
}

/// Loads and decodes one codeword and writes its hard decisions to `out`: (iterations run,
/// whether the final decision checks).
#[inline(always)]
pub(super) fn iterate<K: Kernel>(
    t: &QcTables,
    st: &mut State,
    input: Input<'_>,
    out: &mut [u8],
    rule: Rule8,
    iterations: usize,
    early: bool,
) -> (usize, bool) {
    st.load(t, input);
    let cancel = sigpu_runtime::cancel::Cancel::current();
    for it in 1..=iterations {
        if cancel.is_cancelled() {
            break;
        }
        for row in 0..t.rows() {
            K::row(t, st, row, rule);
        }
        if early && it < iterations && K::checks(t, st) {
            st.store(t, out);
            return (it, true);
        }
    }
    let valid = K::checks(t, st);
    st.store(t, out);
    (iterations, valid)
}

fn run_word(
    t: &QcTables,
    st: &mut State,
    input: Input<'_>,
    out: &mut [u8],
    rule: Rule8,
    config: &DecoderConfig,
    simd: Isa,
) -> (usize, bool) {
    let (its, early) = (config.iterations, config.early_termination);
    #[cfg(target_arch = "x86_64")]
    {
        /// The portable kernel compiled for one instruction set.
        macro_rules! portable_for {
            ($feature:literal) => {{
                #[target_feature(enable = $feature)]
                fn run(
                    t: &QcTables,
                    st: &mut State,
                    input: Input<'_>,
                    out: &mut [u8],
                    rule: Rule8,
                    its: usize,
                    early: bool,
                ) -> (usize, bool) {
                    iterate::<Portable>(t, st, input, out, rule, its, early)
                }
                run
            }};
        }
        // SAFETY: `Fixed8Setup` only chooses sets this CPU has.
        match simd {
            Isa::Avx512 => unsafe { super::qc_avx512::run(t, st, input, out, rule, its, early) },
            Isa::Avx2 | Isa::Avx2Fma => unsafe {
                portable_for!("avx2")(t, st, input, out, rule, its, early)
            },
            Isa::Sse41 => unsafe { portable_for!("sse4.1")(t, st, input, out, rule, its, early) },
            Isa::Scalar => iterate::<Portable>(t, st, input, out, rule, its, early),
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = simd;
        iterate::<Portable>(t, st, input, out, rule, its, early)
    }
}

/// The portable kernel: lane loops over 64-element arrays (vectorised by the compiler for the
/// instruction set it is compiled for).
pub(super) struct Portable;

impl Portable {
    /// Chunk lanes of window `w` from P.
    #[inline(always)]
    fn gather(p: &[i16], w: Window) -> [i16; CHUNK] {
        let mut out = [0i16; CHUNK];
        let (n1, n2) = (w.n1 as usize, w.n2 as usize);
        out[..n1].copy_from_slice(&p[w.off1 as usize..][..n1]);
        out[n1..n1 + n2].copy_from_slice(&p[w.off2 as usize + n1..][..n2]);
        out
    }

    /// [`Kernel::row`] for the λ-min rule ([`super::lambda_min`]), the same arithmetic as
    /// the 8-bit decoder's.
    #[inline(always)]
    fn row_lambda(t: &QcTables, st: &mut State, row: usize, beta: u8, drops: &Drops) {
        let (first, last) = (t.row_start[row], t.row_start[row + 1]);
        for u in 0..t.chunks {
            let mut minima = Minima3::<CHUNK>::new();
            let mut sign = [0u8; CHUNK];
            for (j, e) in (first..last).enumerate() {
                let p = Self::gather(&st.p, t.windows[e * t.chunks + u]);
                let old: &[i8; CHUNK] = st.c2v[(e * t.chunks + u) * CHUNK..][..CHUNK]
                    .try_into()
                    .unwrap();
                let diff: &mut [i16; CHUNK] =
                    (&mut st.diff[j * CHUNK..][..CHUNK]).try_into().unwrap();
                let v2c: &mut [i8; CHUNK] = (&mut st.v2c[j * CHUNK..][..CHUNK]).try_into().unwrap();
                let mut a = [0u8; CHUNK];
                for w in 0..CHUNK {
                    diff[w] = p[w].wrapping_sub(old[w] as i16);
                    v2c[w] = diff[w].clamp(-127, 127) as i8;
                    a[w] = v2c[w].unsigned_abs();
                    sign[w] ^= v2c[w] as u8;
                }
                minima.push(j as u8, &a);
            }
            let c = minima.finish(beta, drops);
            for (j, e) in (first..last).enumerate() {
                let diff: &[i16; CHUNK] = st.diff[j * CHUNK..][..CHUNK].try_into().unwrap();
                let v2c: &[i8; CHUNK] = st.v2c[j * CHUNK..][..CHUNK].try_into().unwrap();
                let new: &mut [i8; CHUNK] = (&mut st.c2v[(e * t.chunks + u) * CHUNK..][..CHUNK])
                    .try_into()
                    .unwrap();
                let mag = c.magnitude(j as u8);
                let mut p = [0i16; CHUNK];
                for w in 0..CHUNK {
                    let s = ((sign[w] ^ v2c[w] as u8) as i8) >> 7;
                    new[w] = (mag[w] as i8 ^ s).wrapping_sub(s);
                    p[w] = diff[w].wrapping_add(new[w] as i16);
                }
                Self::scatter(&mut st.p, t.windows[e * t.chunks + u], &p);
            }
        }
    }

    /// Writes the chunk's used lanes back through window `w`.
    #[inline(always)]
    fn scatter(p: &mut [i16], w: Window, v: &[i16; CHUNK]) {
        let (n1, n2) = (w.n1 as usize, w.n2 as usize);
        p[w.off1 as usize..][..n1].copy_from_slice(&v[..n1]);
        p[w.off2 as usize + n1..][..n2].copy_from_slice(&v[n1..n1 + n2]);
    }
}

impl Kernel for Portable {
    #[inline(always)]
    fn row(t: &QcTables, st: &mut State, row: usize, rule: Rule8) {
        if let Rule8::LambdaMin { beta, drops } = rule {
            return Self::row_lambda(t, st, row, beta, &drops);
        }
        let (first, last) = (t.row_start[row], t.row_start[row + 1]);
        for u in 0..t.chunks {
            let mut min1 = [127u8; CHUNK];
            let mut min2 = [127u8; CHUNK];
            let mut at = [u8::MAX; CHUNK];
            let mut sign = [0u8; CHUNK];
            for (j, e) in (first..last).enumerate() {
                let p = Self::gather(&st.p, t.windows[e * t.chunks + u]);
                let old: &[i8; CHUNK] = st.c2v[(e * t.chunks + u) * CHUNK..][..CHUNK]
                    .try_into()
                    .unwrap();
                let diff: &mut [i16; CHUNK] =
                    (&mut st.diff[j * CHUNK..][..CHUNK]).try_into().unwrap();
                let v2c: &mut [i8; CHUNK] = (&mut st.v2c[j * CHUNK..][..CHUNK]).try_into().unwrap();
                for w in 0..CHUNK {
                    diff[w] = p[w].wrapping_sub(old[w] as i16);
                    let x = diff[w].clamp(-127, 127) as i8;
                    v2c[w] = x;
                    let a = x.unsigned_abs();
                    let below1 = a < min1[w];
                    min2[w] = if below1 { min1[w] } else { min2[w].min(a) };
                    min1[w] = min1[w].min(a);
                    at[w] = if below1 { j as u8 } else { at[w] };
                    sign[w] ^= x as u8;
                }
            }
            rule.correct(&mut min1, &mut min2);
            for (j, e) in (first..last).enumerate() {
                let diff: &[i16; CHUNK] = st.diff[j * CHUNK..][..CHUNK].try_into().unwrap();
                let v2c: &[i8; CHUNK] = st.v2c[j * CHUNK..][..CHUNK].try_into().unwrap();
                let new: &mut [i8; CHUNK] = (&mut st.c2v[(e * t.chunks + u) * CHUNK..][..CHUNK])
                    .try_into()
                    .unwrap();
                let mut p = [0i16; CHUNK];
                for w in 0..CHUNK {
                    let here = ((at[w] == j as u8) as u8).wrapping_neg();
                    let mag = (min1[w] ^ ((min1[w] ^ min2[w]) & here)) as i8;
                    let s = ((sign[w] ^ v2c[w] as u8) as i8) >> 7;
                    new[w] = (mag ^ s).wrapping_sub(s);
                    p[w] = diff[w].wrapping_add(new[w] as i16);
                }
                Self::scatter(&mut st.p, t.windows[e * t.chunks + u], &p);
            }
        }
    }

    #[inline(always)]
    fn checks(t: &QcTables, st: &State) -> bool {
        for row in 0..t.rows() {
            for u in 0..t.chunks {
                let mut parity = [0u8; CHUNK];
                for e in t.row_start[row]..t.row_start[row + 1] {
                    let p = Self::gather(&st.p, t.windows[e * t.chunks + u]);
                    for w in 0..CHUNK {
                        parity[w] ^= (p[w] < 0) as u8;
                    }
                }
                let lanes = CHUNK.min(t.z - u * CHUNK);
                if parity[..lanes].iter().any(|&x| x != 0) {
                    return false;
                }
            }
        }
        true
    }
}
