//! The compact layered 8-bit min-sum on a CUDA GPU (`kernels/ldpc_compact8.cu`): the CPU's
//! [`CompactDecoder`](crate::decoder::CompactDecoder) arithmetic (saturated 8-bit posteriors,
//! check state kept as min1, min2, argmin and signs, c2v capped at
//! [`C2V_MAX`](crate::decoder::C2V_MAX)), bit for bit equal to its scalar twin
//! [`compact_decode_scalar`](crate::decoder::compact_decode_scalar) (`sigpu check`).
//!
//! One block decodes 4 codewords (one byte lane each of a 32-bit word) through every layer
//! and iteration in one launch; thread t updates check t of each 360-check layer, whose
//! columns follow the code's circulants (slot tables built here). A block per SM (the
//! posteriors take 227 KB of shared memory), so a batch of 4·132 = 528 codewords fills an
//! H100 once; the batch size is a parameter ([`CompactGpuDecoder::with_batch`]).
//! Early termination is not implemented: the kernel always runs the configured iterations.

use super::batch::{alloc_pinned, check_batch_llrs, fill_input, time_enqueue};
use crate::channel::Quantizer;
use crate::code::Code;
use crate::decoder::{
    codewords_of, count_valid, CompactDecoder, CompactLayout, DecodeStats, Decoder, DecoderConfig,
    Llrs, Rule8, Schedule,
};
use crate::error::{LdpcError, Result};
use sigpu_runtime::cuda::cudarc::driver::sys::CUfunction_attribute_enum;
use sigpu_runtime::cuda::cudarc::driver::{LaunchConfig, PinnedHostSlice};
use sigpu_runtime::cuda::{DeviceBuffer, DriverContext, Gpu, Kernel, KernelSource, Timing};

/// Circulant size of the DVB codes the kernel handles.
const Z: usize = 360;
/// Shared memory a block may use on the GPUs this targets (sm_90: 227 KB).
const SHARED_LIMIT: usize = 227 * 1024;
/// Codewords per block: the byte lanes of a 32-bit word.
const PER_BLOCK: usize = 4;
/// Threads per block: the 360 checks of a layer, rounded up to warps.
const THREADS: u32 = 384;
/// The default batch: one block on each of an H100's 132 SMs.
pub const COMPACT_BATCH: usize = 4 * 132;
/// `miss` value of a slot that every check of its layer has.
const SLOT_NONE: u32 = 0xffff;
/// `miss` value of a padding slot (no edge).
const SLOT_EMPTY: u32 = 0xfffe;

/// The kernel's view of a code in [`CompactLayout`] order: per layer `degree` slots, slot k
/// joining check t to bit `g·360 + (t + s) mod 360` (`slots[l·degree + k] = g | s << 16`),
/// the check lacking it (`miss`: a check t, [`SLOT_NONE`] or [`SLOT_EMPTY`]), and the rounds
/// of layers whose checks share bits (`depth[l·360 + t]`, `rounds[l]`).
#[derive(Clone, Debug, PartialEq)]
pub struct SlotTables {
    /// Circulants per layer (slots).
    pub degree: usize,
    /// Layers.
    pub layers: usize,
    /// Per layer and slot: the circulant's 360-bit group and shift.
    pub slots: Vec<u32>,
    /// Per layer and slot: the check the circulant misses (the staircase corner), or none.
    pub miss: Vec<u32>,
    /// Per check: its round within its layer (checks sharing bits run in order).
    pub depth: Vec<u8>,
    /// Per layer: its number of rounds.
    pub rounds: Vec<u32>,
}

impl SlotTables {
    /// The tables of `layout`, or why the kernel cannot decode it (not quasi-cyclic with
    /// Z = 360 in decoding order, more than 8 circulants per layer, a slot missing in more
    /// than one check).
    pub fn new(layout: &CompactLayout) -> Result<SlotTables> {
        let code = &layout.code;
        let (n, m) = (code.n(), code.m());
        let refuse = |why: &str| {
            Err(LdpcError::invalid(format!(
                "code {}: the GPU compact decoder needs a DVB code (360-bit circulants): {why}",
                code.name()
            )))
        };
        if m % Z != 0 || n % Z != 0 {
            return refuse("N and M must be multiples of 360");
        }
        let (layers, groups) = (m / Z, n / Z);
        // Slots per layer: each group as many times as one check of the layer joins it.
        let mut layer_slots = Vec::with_capacity(layers);
        for l in 0..layers {
            let mut most = vec![0usize; groups];
            for t in 0..Z {
                let mut here = vec![0usize; groups];
                for &c in code.row(l * Z + t) {
                    here[c as usize / Z] += 1;
                }
                for (a, b) in most.iter_mut().zip(&here) {
                    *a = (*a).max(*b);
                }
            }
            let slots: Vec<usize> = (0..groups)
                .flat_map(|g| std::iter::repeat_n(g, most[g]))
                .collect();
            layer_slots.push(slots);
        }
        let degree = layer_slots.iter().map(Vec::len).max().unwrap_or(0);
        if !(1..=8).contains(&degree) {
            return refuse(&format!("{degree} circulants in a layer (at most 8)"));
        }
        let mut slots = vec![0u32; layers * degree];
        let mut miss = vec![SLOT_EMPTY; layers * degree];
        for (l, groups_of) in layer_slots.iter().enumerate() {
            for (k, &g) in groups_of.iter().enumerate() {
                // The occ-th circulant of group g in this layer: the occ-th smallest shift.
                let occ = groups_of[..k].iter().filter(|&&h| h == g).count();
                let (mut shift, mut lacking) = (None, SLOT_NONE);
                for t in 0..Z {
                    let mut shifts: Vec<usize> = code
                        .row(l * Z + t)
                        .iter()
                        .filter(|&&c| c as usize / Z == g)
                        .map(|&c| (c as usize % Z + Z - t) % Z)
                        .collect();
                    shifts.sort_unstable();
                    match shifts.get(occ) {
                        None if lacking == SLOT_NONE => lacking = t as u32,
                        None => return refuse("a circulant misses more than one check"),
                        Some(&s) if shift.is_none_or(|x| x == s) => shift = Some(s),
                        Some(_) => return refuse("a layer is not made of circulants"),
                    }
                }
                let Some(s) = shift else {
                    return refuse("an empty circulant");
                };
                slots[l * degree + k] = (g | s << 16) as u32;
                miss[l * degree + k] = lacking;
            }
        }
        // Rounds: a check's depth is one more than the deepest earlier check of its layer
        // that shares a bit with it.
        let mut depth = vec![0u8; m];
        let mut rounds = vec![1u32; layers];
        let mut owner = vec![-1i32; n];
        for l in 0..layers {
            let mut deepest = 0;
            for t in 0..Z {
                let cols = code.row(l * Z + t);
                let d = cols
                    .iter()
                    .map(|&c| owner[c as usize] + 1)
                    .max()
                    .unwrap_or(0);
                for &c in cols {
                    owner[c as usize] = owner[c as usize].max(d);
                }
                if d > 255 {
                    return refuse("more than 256 rounds in a layer");
                }
                depth[l * Z + t] = d as u8;
                deepest = deepest.max(d);
            }
            for t in 0..Z {
                for &c in code.row(l * Z + t) {
                    owner[c as usize] = -1;
                }
            }
            rounds[l] = deepest as u32 + 1;
        }
        Ok(SlotTables {
            degree,
            layers,
            slots,
            miss,
            depth,
            rounds,
        })
    }

    /// Decodes quantised LLRs (`post`, renumbered bit order) as the kernel does: layer after
    /// layer, round after round, the checks of a round from the slot tables. With tables
    /// from [`SlotTables::new`] this equals the twin's check-by-check order (tested), which
    /// is what makes the kernel's parallel rounds exact.
    pub fn decode_rounds(&self, rule: Rule8, post: &mut [i8], iterations: usize) {
        let c2v_max = crate::decoder::C2V_MAX;
        let correct = |m: u8| {
            // A uniform rule, as `CompactDecoder::new` keeps (the adaptive and λ-min ones: plain here).
            match rule {
                Rule8::Plain | Rule8::Adaptive { .. } | Rule8::LambdaMin { .. } => m,
                Rule8::Normalized(k) => ((m as u16 * k as u16) >> 4) as u8,
                Rule8::Offset(b) => m.saturating_sub(b),
            }
            .min(c2v_max)
        };
        let clamp = |x: i16| x.clamp(-127, 127) as i8;
        // (min1, min2, slot of min1, sign bit per slot) per check.
        let mut state = vec![(0u8, 0u8, 0usize, 0u32); self.layers * Z];
        for _ in 0..iterations {
            for l in 0..self.layers {
                for r in 0..self.rounds[l] {
                    for t in (0..Z).filter(|&t| self.depth[l * Z + t] as u32 == r) {
                        let cols: Vec<Option<usize>> = (0..self.degree)
                            .map(|k| {
                                let (gs, lack) = (
                                    self.slots[l * self.degree + k],
                                    self.miss[l * self.degree + k],
                                );
                                let (g, s) = ((gs & 0xffff) as usize, (gs >> 16) as usize);
                                (lack != SLOT_EMPTY && lack != t as u32)
                                    .then_some(g * Z + (t + s) % Z)
                            })
                            .collect();
                        let (m1, m2, at, sg) = state[l * Z + t];
                        let mut v = [0i8; 8];
                        let (mut n1, mut n2, mut nat, mut negatives) = (127u8, 127u8, 0usize, 0);
                        for (k, c) in cols.iter().enumerate() {
                            let Some(c) = *c else { continue };
                            let mag = if k == at { m2 } else { m1 } as i16;
                            let old = if sg >> k & 1 == 1 { -mag } else { mag };
                            v[k] = clamp(post[c] as i16 - old);
                            let a = v[k].unsigned_abs();
                            if a < n1 {
                                n2 = n1;
                                n1 = a;
                                nat = k;
                            } else if a < n2 {
                                n2 = a;
                            }
                            negatives += (v[k] < 0) as usize;
                        }
                        let (n1, n2) = (correct(n1), correct(n2));
                        let mut signs = 0u32;
                        for (k, c) in cols.iter().enumerate() {
                            let Some(c) = *c else { continue };
                            let mag = if k == nat { n2 } else { n1 } as i16;
                            let negative = (negatives - (v[k] < 0) as usize) % 2 == 1;
                            signs |= (negative as u32) << k;
                            post[c] = clamp(v[k] as i16 + if negative { -mag } else { mag });
                        }
                        state[l * Z + t] = (n1, n2, nat, signs);
                    }
                }
            }
        }
    }
}

/// Compact layered 8-bit min-sum on one GPU; see the module documentation.
pub struct CompactGpuDecoder {
    gpu: Gpu,
    code: Code,
    config: DecoderConfig,
    rule: Rule8,
    quantizer: Quantizer,
    batch: usize,
    kernel: Kernel,
    layers: u32,
    renumbered: bool,
    shared_groups: u32,
    slots: DeviceBuffer<u32>,
    miss: DeviceBuffer<u32>,
    depth: DeviceBuffer<u8>,
    rounds: DeviceBuffer<u32>,
    input: DeviceBuffer<i8>,
    global_p: DeviceBuffer<u32>,
    state: DeviceBuffer<u32>,
    hard: DeviceBuffer<u32>,
    host_input: PinnedHostSlice<i8>,
    host_hard: PinnedHostSlice<u32>,
}

impl CompactGpuDecoder {
    /// The decoder with the default batch ([`COMPACT_BATCH`] codewords).
    pub fn new(gpu: &Gpu, code: Code, config: DecoderConfig) -> Result<CompactGpuDecoder> {
        Self::with_batch(gpu, code, config, COMPACT_BATCH)
    }

    /// The decoder with `batch` codewords per launch (a multiple of 4; fewer blocks than SMs
    /// lowers the latency of a batch, not the time per codeword of a full one).
    pub fn with_batch(
        gpu: &Gpu,
        code: Code,
        config: DecoderConfig,
        batch: usize,
    ) -> Result<CompactGpuDecoder> {
        if config.schedule != Schedule::LayeredCompact {
            return Err(LdpcError::invalid(
                "CompactGpuDecoder runs the layered-compact schedule",
            ));
        }
        if config.early_termination {
            return Err(LdpcError::invalid(
                "the GPU layered-compact decoder runs every iteration: use --no-early-termination",
            ));
        }
        if batch == 0 || !batch.is_multiple_of(PER_BLOCK) {
            return Err(LdpcError::invalid(format!(
                "the GPU layered-compact batch must be a positive multiple of 4 codewords, not {batch}"
            )));
        }
        // The CPU decoder validates the configuration and the code's check degrees.
        let twin = CompactDecoder::new(code.clone(), config)?;
        let layout = CompactLayout::new(&code)?;
        let tables = SlotTables::new(&layout)?;
        let (n, m) = (code.n(), code.m());
        let groups = n / Z;
        let shared_groups = groups.min(SHARED_LIMIT / (Z * 4));
        let renumbered = layout
            .perm
            .iter()
            .enumerate()
            .any(|(i, &p)| p as usize != i);
        let src = KernelSource::embedded(
            "ldpc_compact8.cu",
            include_str!("../../kernels/ldpc_compact8.cu"),
        );
        let kernel = gpu.kernel(&src, &format!("ldpc_compact_{}", tables.degree.max(4)))?;
        let shared = shared_groups * Z * 4;
        kernel
            .function()
            .set_attribute(
                CUfunction_attribute_enum::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                shared as i32,
            )
            .context("allocating shared memory for the posteriors")?;
        let (slots, miss) = pad_slots(&tables);
        let blocks = batch / PER_BLOCK;
        let words = n.div_ceil(32);
        Ok(CompactGpuDecoder {
            gpu: gpu.clone(),
            rule: twin.rule(),
            quantizer: twin.quantizer(),
            batch,
            kernel,
            layers: tables.layers as u32,
            renumbered,
            shared_groups: shared_groups as u32,
            slots: gpu.upload(&slots)?,
            miss: gpu.upload(&miss)?,
            depth: gpu.upload(&tables.depth)?,
            rounds: gpu.upload(&tables.rounds)?,
            input: gpu.alloc_poisoned(batch * n)?,
            global_p: gpu.alloc_poisoned((blocks * (groups - shared_groups) * Z).max(1))?,
            state: gpu.alloc_poisoned(blocks * m * 4)?,
            hard: gpu.alloc_poisoned(batch * words)?,
            host_input: alloc_pinned(gpu, batch * n)?,
            host_hard: alloc_pinned(gpu, batch * words)?,
            code,
            config,
        })
    }

    /// Codewords per batch.
    pub fn batch(&self) -> usize {
        self.batch
    }

    /// Queues the upload (with `transfers`), the kernel for `count` codewords and the download.
    fn enqueue(&mut self, transfers: bool, count: usize) -> Result<()> {
        let stream = self.gpu.stream();
        let n = self.code.n();
        if transfers {
            stream
                .memcpy_htod(&self.host_input, &mut self.input)
                .context("uploading LLRs")?;
        }
        let (mode, param) = self.rule.kernel_args()?;
        let iterations = self.config.iterations as u32;
        let (count32, n32, k32) = (count as u32, n as u32, self.code.k() as u32);
        let q = if self.renumbered {
            self.code.m() as u32 / Z as u32
        } else {
            0
        };
        let cfg = LaunchConfig {
            grid_dim: (count.div_ceil(PER_BLOCK) as u32, 1, 1),
            block_dim: (THREADS, 1, 1),
            shared_mem_bytes: self.shared_groups * (Z as u32) * 4,
        };
        // Buffers hold `batch` codewords (blocks of 4) and count ≤ batch.
        self.gpu
            .launch(&self.kernel)
            .buf(&self.input)
            .arg(&count32)
            .buf(&self.slots)
            .buf(&self.miss)
            .buf(&self.depth)
            .buf(&self.rounds)
            .arg(&self.layers)
            .arg(&n32)
            .arg(&k32)
            .arg(&q)
            .arg(&self.shared_groups)
            .buf_mut(&mut self.global_p)
            .buf_mut(&mut self.state)
            .buf_mut(&mut self.hard)
            .arg(&iterations)
            .arg(&mode)
            .arg(&param)
            .run(cfg)?;
        if transfers {
            stream
                .memcpy_dtoh(&self.hard, &mut self.host_hard)
                .context("downloading hard decisions")?;
        }
        Ok(())
    }

    /// Batch latency: LLR upload from pinned memory (with `transfers`), the kernel, the
    /// hard-decision download, for a full batch of `llr` (batch × N 8-bit LLRs).
    pub fn time_batch(
        &mut self,
        llr: &[i8],
        transfers: bool,
        warmup: usize,
        runs: usize,
    ) -> Result<Timing> {
        let n = self.code.n();
        check_batch_llrs(llr.len(), self.batch, n)?;
        let q = self.quantizer;
        let input = Llrs::I8 {
            values: llr,
            scale: q.scale,
        };
        fill_input(&mut self.host_input, q, input, n, (0, self.batch), false)?;
        self.enqueue(true, self.batch)?;
        let batch = self.batch;
        // A handle of its own: the closure below borrows the decoder mutably.
        let gpu = self.gpu.clone();
        time_enqueue(&gpu, (warmup, runs), || self.enqueue(transfers, batch))
    }
}

/// Slot tables padded to the kernel instance's degree (at least 4).
fn pad_slots(t: &SlotTables) -> (Vec<u32>, Vec<u32>) {
    let d = t.degree.max(4);
    let mut slots = vec![0u32; t.layers * d];
    let mut miss = vec![SLOT_EMPTY; t.layers * d];
    for l in 0..t.layers {
        slots[l * d..l * d + t.degree].copy_from_slice(&t.slots[l * t.degree..(l + 1) * t.degree]);
        miss[l * d..l * d + t.degree].copy_from_slice(&t.miss[l * t.degree..(l + 1) * t.degree]);
    }
    (slots, miss)
}

impl Decoder for CompactGpuDecoder {
    fn describe(&self) -> String {
        format!(
            "{} ({}, {} codewords per batch, compact layered kernel, 4 codewords per thread)",
            self.config.describe(),
            self.gpu.info().name,
            self.batch
        )
    }

    fn code(&self) -> &Code {
        &self.code
    }

    fn decode(&mut self, llr: Llrs<'_>, bits: &mut [u8]) -> Result<DecodeStats> {
        let count = codewords_of(&self.code, &llr, bits)?;
        // The decoder may run on another thread than the one that made it.
        self.gpu
            .context()
            .bind_to_thread()
            .context("making the decoder's CUDA context current")?;
        let n = self.code.n();
        let words = n.div_ceil(32);
        for (b, out) in bits.chunks_mut(self.batch * n).enumerate() {
            let real = out.len() / n;
            fill_input(
                &mut self.host_input,
                self.quantizer,
                llr,
                n,
                (b * self.batch, real),
                false,
            )?;
            self.enqueue(true, real)?;
            self.gpu.synchronize()?;
            let hard = self.host_hard.as_slice().context("pinned output")?;
            for (c, word) in out.chunks_mut(n).enumerate() {
                let h = &hard[c * words..(c + 1) * words];
                for (v, bit) in word.iter_mut().enumerate() {
                    *bit = ((h[v / 32] >> (v % 32)) & 1) as u8;
                }
            }
        }
        Ok(DecodeStats {
            codewords: count,
            valid: count_valid(&self.code, bits),
            iterations: count * self.config.iterations,
            batches: count.div_ceil(self.batch),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decoder::compact_decode_scalar;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// The kernel's order (rounds of slot tables) equals the twin's check-by-check order.
    fn rounds_equal_twin(name: &str, rule: Rule8, iterations: usize) {
        let code = Code::standard(name).unwrap();
        let layout = CompactLayout::new(&code).unwrap();
        let tables = SlotTables::new(&layout).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for _ in 0..2 {
            // Channel-like LLRs: mostly positive (all-zero word), some flipped.
            let llr: Vec<i8> = (0..code.n())
                .map(|_| (rng.random_range(-40i16..90).clamp(-128, 127)) as i8)
                .collect();
            let want = compact_decode_scalar(&layout, rule, &llr, iterations);
            let mut post = vec![0i8; code.n()];
            for (b, &l) in llr.iter().enumerate() {
                post[layout.perm[b] as usize] = l.max(-127);
            }
            tables.decode_rounds(rule, &mut post, iterations);
            let got: Vec<u8> = (0..code.n())
                .map(|b| (post[layout.perm[b] as usize] < 0) as u8)
                .collect();
            assert_eq!(got, want, "{name}");
        }
    }

    #[test]
    fn slot_rounds_match_the_twin_on_normal_1_2() {
        // 8 of its 90 layers have checks that share bits.
        let code = Code::standard("dvbt2-normal-1/2").unwrap();
        let tables = SlotTables::new(&CompactLayout::new(&code).unwrap()).unwrap();
        assert_eq!(tables.degree, 7);
        assert_eq!(tables.rounds.iter().filter(|&&r| r > 1).count(), 8);
        rounds_equal_twin("dvbt2-normal-1/2", Rule8::Offset(1), 3);
    }

    #[test]
    fn slot_rounds_match_the_twin_on_short_codes() {
        rounds_equal_twin("dvbt2-short-1/2", Rule8::Normalized(14), 4);
        rounds_equal_twin("dvbt2-short-1/4", Rule8::Plain, 4);
    }

    #[test]
    fn codes_beyond_eight_circulants_per_layer_are_refused() {
        let code = Code::standard("dvbt2-normal-5/6").unwrap();
        assert!(SlotTables::new(&CompactLayout::new(&code).unwrap()).is_err());
    }
}
