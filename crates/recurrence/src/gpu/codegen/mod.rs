//! The CUDA C generator: one kernel per signature, element type and launch shape, with the
//! coefficients, the in-thread correction factors and the merge matrices written into the
//! source as constants (what the seed's PLR tool does), and the long factor tables passed in
//! a small constant buffer.
//!
//! The kernel is single-pass: every element is read once and written once (the tail-carry
//! kernel below reads the last 32 × vpt inputs of each chunk a second time, mostly from L2).
//! - Chunks of `threads × vpt` elements are handed out in order by an atomic counter.
//! - Each thread loads `vpt` consecutive elements (16-byte vector loads), applies the map
//!   `(a0, … : 0)` and runs `(1 : b…)` over them from zero.
//! - Threads merge their last k values with warp shuffles (5 doubling steps), then warps merge
//!   through shared memory, using the transfer matrices M_m[r][j] = f_j[m-1-r].
//! - Chunks chain through a decoupled look-back over a 32-chunk window: a chunk posts its
//!   local aggregate, warp 0 folds its predecessors' posts (with powers of the chunk transfer
//!   matrix) back to the nearest full carry. When the factors were truncated inside the chunk,
//!   its carry-out does not depend on its carry-in and it posts the full carry at once, so
//!   decaying filters have no serial chain.
//! - Each thread then adds its carry-in times the factors to its values and stores them.
//!
//! Where the factors vanish within one warp's 32 × vpt values (decaying filters, optimisations
//! on), a chunk's carry-in is exactly the carry-out, from zero, of the previous chunk's last
//! 32 × vpt inputs: the "tail-carry" kernel gives each block one extra warp that recomputes it
//! from the input, and has no look-back, flags or chunk counter, so blocks never wait on one
//! another (on an H100 this took the decaying filters from 74–82% to 99.6% of copy speed).
//!
//! Integer types compute in the unsigned type of their width, so overflow wraps as in two's
//! complement (signed overflow is undefined in C).
//!
//! The fixed device helpers (vector loads and stores, the transpose, the look-back, the carry
//! transfer) are the header `kernels/plr.cuh`, which the generated source includes; what is
//! generated is the part that depends on the filter. Generation runs in phases: [`Plan`]
//! (launch shape, factors, which kernel), the constants buffer, the prelude (defines and the
//! include), the local pass ([`local`]), the filter and final-state kernels ([`kernel`]).

mod kernel;
mod local;

use crate::elem::{DType, Element};
use crate::error::FilterError;
use crate::factors::{mat_mul, Factors, TableKind};
use crate::filter::Filter;
use sigpu_runtime::cuda::KernelSource;
use std::fmt::Write;

/// The header every generated kernel includes: the fixed device helpers.
pub const PLR_HEADER: &str = include_str!("../../../kernels/plr.cuh");
/// The name the generated source includes [`PLR_HEADER`] by.
pub const PLR_HEADER_NAME: &str = "plr.cuh";

/// The launch shape a kernel is generated for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct GpuConfig {
    /// Threads per block (a multiple of 32, at most 1024).
    pub threads: usize,
    /// Consecutive values per thread (a multiple of 16 bytes' worth of elements). 0 (the
    /// default) picks by filter what measured fastest on an H100: 64 bytes per thread where
    /// the factors vanish within a warp's span (the tail-carry kernel, no look-back), else
    /// 128 bytes per thread, so that each look-back covers a larger chunk.
    pub vpt: usize,
    /// Load and store a warp's values with coalesced 16-byte accesses (lane l takes vector
    /// 32q + l) and transpose them through shared memory, instead of each thread reading its
    /// own V values directly (16-byte accesses 64 bytes apart across the warp).
    pub transpose: bool,
    /// Blocks per SM asked of the register allocator (`__launch_bounds__`); 0 leaves it free.
    pub min_blocks: usize,
}

impl Default for GpuConfig {
    fn default() -> Self {
        GpuConfig {
            threads: 256,
            vpt: 0,
            transpose: true,
            min_blocks: 0,
        }
    }
}

impl GpuConfig {
    /// Elements per chunk (one thread block).
    pub fn chunk(&self) -> usize {
        self.threads * self.vpt
    }

    /// The shape actually used for `dtype` and order `k`: vpt rounded up to whole 16-byte
    /// vectors and to at least k (a thread's last k values are its carry-out).
    pub fn normalized(&self, dtype: DType, k: usize) -> Result<GpuConfig, FilterError> {
        if self.threads == 0 || self.threads % 32 != 0 || self.threads > 1024 {
            return Err(FilterError::Config(format!(
                "threads per block must be a multiple of 32 up to 1024, not {}",
                self.threads
            )));
        }
        let per_vector = 16 / dtype.size();
        let vpt = self.vpt.max(k).max(1).div_ceil(per_vector) * per_vector;
        if vpt > 64 {
            return Err(FilterError::Config(format!(
                "{vpt} values per thread is more than the 64 supported"
            )));
        }
        Ok(GpuConfig {
            threads: self.threads,
            vpt,
            transpose: self.transpose,
            min_blocks: self.min_blocks,
        })
    }
}

/// A generated kernel and the constants it is launched with.
#[derive(Clone, Debug)]
pub struct Generated<T> {
    pub source: String,
    /// A file name for NVRTC messages and the kernel cache.
    pub name: String,
    pub config: GpuConfig,
    /// f_j at positions −k…len−1 (table j at j·(len+k)), then T_C^l for l = 0…32, row-major.
    pub constants: Vec<T>,
    /// Factor table length after truncation.
    pub factor_len: usize,
    /// Chunk carry-outs do not depend on carry-ins.
    pub independent: bool,
    /// The factors vanish within a warp's 32 × vpt values: each block recomputes its carry-in
    /// from the previous chunk's last inputs with an extra warp, and there is no look-back.
    pub tail_carry: bool,
}

impl<T> Generated<T> {
    /// Threads per block of the filter kernel (the tail-carry kernel has one warp more).
    pub fn block_threads(&self) -> usize {
        self.config.threads + if self.tail_carry { 32 } else { 0 }
    }
}

impl<T> Generated<T> {
    /// The source as NVRTC compiles it: the generated code with [`PLR_HEADER`] attached.
    pub fn kernel_source(&self) -> KernelSource {
        KernelSource::generated(self.name.clone(), self.source.clone())
            .with_header(PLR_HEADER_NAME, PLR_HEADER)
    }
}

pub const FILTER_KERNEL: &str = "plr_filter";
pub const STATE_KERNEL: &str = "plr_final_state";

/// Generates the kernel for `filter` with launch shape `config`.
pub fn generate<T: Element>(
    filter: &Filter<T>,
    config: GpuConfig,
) -> Result<Generated<T>, FilterError> {
    let plan = Plan::new(filter, config)?;
    let mut s = String::new();
    plan.write_prelude(&mut s);
    local::write_local_pass(&plan, &mut s);
    kernel::write_filter_kernel(&plan, &mut s);
    kernel::write_state_kernel(&plan, &mut s);
    let name = plan.file_name(&s);
    Ok(Generated {
        source: s,
        name,
        config: plan.config,
        constants: plan.constants(),
        factor_len: plan.len,
        independent: plan.independent,
        tail_carry: plan.tail_carry,
    })
}

/// What the generator decides for one filter and launch shape before writing code.
struct Plan<'a, T: Element> {
    filter: &'a Filter<T>,
    ff: &'a [T],
    fb: &'a [T],
    /// Recurrence order and zi / zf values per channel.
    k: usize,
    nstate: usize,
    config: GpuConfig,
    vpt: usize,
    chunk: usize,
    warps: usize,
    optimize: bool,
    /// Correction factors for whole chunks, and their length after truncation.
    factors: Factors<T>,
    len: usize,
    independent: bool,
    need_carry: bool,
    tail_carry: bool,
    /// A prefix sum: order 1, every factor 1 over the whole chunk.
    ones: bool,
}

impl<'a, T: Element> Plan<'a, T> {
    fn new(filter: &'a Filter<T>, config: GpuConfig) -> Result<Self, FilterError> {
        let k = filter.order();
        let auto_vpt = config.vpt == 0;
        let mut config = config.normalized(T::DTYPE, k)?;
        if auto_vpt {
            let small = 64 / T::DTYPE.size();
            let tail = filter.factors_for(config.threads * small).len() + k <= 32 * small;
            config.vpt = if tail { small } else { 128 / T::DTYPE.size() };
            config = config.normalized(T::DTYPE, k)?;
        }
        let chunk = config.chunk();
        let optimize = filter.options().optimize;
        let factors = filter.factors_for(chunk);
        let len = factors.len();
        let need_carry = factors.table_nonzero();
        let ones = optimize && k == 1 && factors.kind(0) == TableKind::Ones && len == chunk;
        Ok(Plan {
            filter,
            ff: filter.feedforward(),
            fb: filter.feedback(),
            k,
            nstate: filter.state_len(),
            config,
            vpt: config.vpt,
            chunk,
            warps: config.threads / 32,
            optimize,
            independent: factors.carry_independent(chunk),
            // The factors vanish within one warp's span: a chunk's carry-in is the carry-out,
            // from zero, of the previous chunk's last 32 * V inputs, which an extra warp
            // recomputes (unless no carry is ever needed: all factors zero).
            tail_carry: need_carry && len + k <= 32 * config.vpt,
            factors,
            len,
            need_carry,
            ones,
        })
    }

    /// Constants buffer: extended factor tables, then powers of the chunk transfer matrix.
    fn constants(&self) -> Vec<T> {
        let k = self.k;
        let mut constants = Vec::with_capacity(k * (self.len + k) + 33 * k * k);
        for j in 0..k {
            for q in -(k as isize)..self.len as isize {
                constants.push(self.factors.at(j, q));
            }
        }
        let t_chunk = self.factors.transfer(self.chunk);
        let mut power: Vec<T> = (0..k * k)
            .map(|i| if i / k == i % k { T::ONE } else { T::ZERO })
            .collect();
        for _ in 0..=32 {
            constants.extend_from_slice(&power);
            power = mat_mul(&power, &t_chunk, k);
        }
        constants
    }

    /// `coef * expr` as C, or nothing for a suppressed zero (1 specialised when optimising).
    fn term(&self, coef: T, expr: &str) -> Option<String> {
        if self.optimize && coef == T::ZERO {
            None
        } else if self.optimize && coef == T::ONE {
            Some(expr.to_owned())
        } else {
            Some(format!("{} * {expr}", coef.c_literal()))
        }
    }

    /// The terms that remain, joined with `+`; nothing when none does.
    fn sum(terms: Vec<Option<String>>) -> Option<String> {
        let terms: Vec<String> = terms.into_iter().flatten().collect();
        (!terms.is_empty()).then(|| terms.join(" + "))
    }

    /// What the kernel computes, in comments; its types and constants; the header.
    fn write_prelude(&self, w: &mut String) {
        let (chunk, vpt, len) = (self.chunk, self.vpt, self.len);
        let (threads, dtype) = (self.config.threads, T::DTYPE);
        let _ = writeln!(
            w,
            "// Generated by sigpu-recurrence: do not edit; regenerate instead."
        );
        let _ = writeln!(w, "// Signature {} in {dtype}:", self.filter.signature());
        let _ = writeln!(w, "//   y[i] = {}", equation(self.ff, self.fb));
        let truncation = if self.optimize {
            format!("truncated to {len} of {chunk} entries")
        } else {
            format!("untruncated ({len} entries), optimisations off")
        };
        let carry = if self.tail_carry {
            ", so a chunk's carry-in is recomputed from the previous chunk's last 32 x V inputs (no look-back)"
        } else if self.independent {
            ", so a chunk's carry-out does not depend on its carry-in and is posted at once"
        } else {
            ""
        };
        let _ = writeln!(
            w,
            "// Chunks of {chunk} = {threads} threads x {vpt} values; factors {truncation}{carry}."
        );
        if !dtype.is_float() {
            let _ = writeln!(
                w,
                "// {dtype} is computed in the unsigned type of its width: overflow wraps."
            );
        }
        let _ = writeln!(w);
        self.write_defines(w);
        let _ = writeln!(w, "\n#include \"{PLR_HEADER_NAME}\"\n");
    }

    fn write_defines(&self, w: &mut String) {
        let ctype = match T::DTYPE {
            DType::F32 => "float",
            DType::F64 => "double",
            DType::I32 => "unsigned int",
            DType::I64 => "unsigned long long",
        };
        let flag = |on: bool| u8::from(on);
        let _ = writeln!(w, "typedef {ctype} T;");
        let _ = writeln!(w, "#define K {}            // recurrence order", self.k);
        let _ = writeln!(
            w,
            "#define NSTATE {}       // zi / zf values per channel",
            self.nstate
        );
        let _ = writeln!(w, "#define V {}           // values per thread", self.vpt);
        let _ = writeln!(w, "#define THREADS {}", self.config.threads);
        let _ = writeln!(w, "#define WARPS {}", self.warps);
        let _ = writeln!(w, "#define CHUNK {}", self.chunk);
        let _ = writeln!(w, "#define FAC_LEN {}     // factor table length", self.len);
        let _ = writeln!(w, "#define FAC_STRIDE (FAC_LEN + K)");
        let _ = writeln!(w, "#define TPOW_OFFSET (K * FAC_STRIDE)");
        let _ = writeln!(
            w,
            "#define Q (V * (int)sizeof(T) / 16)  // 16-byte vectors per thread"
        );
        let _ = writeln!(w, "#define FULL_MASK 0xffffffffu");
        let _ = writeln!(w, "#define STATUS_PARTIAL 1u");
        let _ = writeln!(w, "#define STATUS_FULL 2u");
        let _ = writeln!(
            w,
            "#define PLR_LOOK_BACK {}  // chunks chained by the decoupled look-back",
            flag(!self.tail_carry)
        );
        let _ = writeln!(
            w,
            "#define PLR_TRANSPOSE {}  // warps load and store through shared memory",
            flag(self.config.transpose)
        );
        let _ = writeln!(
            w,
            "#define PLR_ONES {}       // prefix sum: every factor is 1",
            flag(self.ones)
        );
    }

    /// A file name for NVRTC messages and the kernel cache: the shape and a hash of `source`.
    fn file_name(&self, source: &str) -> String {
        let c = self.config;
        format!(
            "plr_{}_k{}_p{}_{}_{}x{}{}{}{}.cu",
            T::DTYPE,
            self.k,
            self.ff.len() - 1,
            short_hash(source),
            c.threads,
            c.vpt,
            if c.transpose { "t" } else { "" },
            match c.min_blocks {
                0 => String::new(),
                b => format!("b{b}"),
            },
            if self.optimize { "" } else { "_noopt" }
        )
    }
}

fn equation<T: Element>(ff: &[T], fb: &[T]) -> String {
    let mut parts: Vec<String> = ff
        .iter()
        .enumerate()
        .map(|(j, a)| format!("{a:?}*x[i-{j}]"))
        .collect();
    parts.extend(
        fb.iter()
            .enumerate()
            .map(|(l, b)| format!("{b:?}*y[i-{}]", l + 1)),
    );
    parts.join(" + ").replace("[i-0]", "[i]")
}

fn map_signature<T: Element>(ff: &[T]) -> String {
    let list: Vec<String> = ff.iter().map(|v| format!("{v:?}")).collect();
    format!("({} : 0)", list.join(", "))
}

fn rec_signature<T: Element>(fb: &[T]) -> String {
    let list: Vec<String> = fb.iter().map(|v| format!("{v:?}")).collect();
    format!("(1 : {})", list.join(", "))
}

/// 8 hex digits of FNV-1a over the source: names differ whenever the code does.
fn short_hash(s: &str) -> String {
    let h = s.bytes().fold(0x811c_9dc5u32, |h, b| {
        (h ^ b as u32).wrapping_mul(0x0100_0193)
    });
    format!("{h:08x}")
}
