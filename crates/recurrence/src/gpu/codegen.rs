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

use crate::elem::{DType, Element};
use crate::factors::{mat_mul, Factors, TableKind};
use crate::filter::Filter;
use std::fmt::Write;

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
    pub fn normalized(&self, dtype: DType, k: usize) -> Result<GpuConfig, String> {
        if self.threads == 0 || self.threads % 32 != 0 || self.threads > 1024 {
            return Err(format!(
                "threads per block must be a multiple of 32 up to 1024, not {}",
                self.threads
            ));
        }
        let per_vector = 16 / dtype.size();
        let vpt = self.vpt.max(k).max(1).div_ceil(per_vector) * per_vector;
        if vpt > 64 {
            return Err(format!(
                "{vpt} values per thread is more than the 64 supported"
            ));
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

pub const FILTER_KERNEL: &str = "plr_filter";
pub const STATE_KERNEL: &str = "plr_final_state";

/// Generates the kernel for `filter` with launch shape `config`.
pub fn generate<T: Element>(filter: &Filter<T>, config: GpuConfig) -> Result<Generated<T>, String> {
    let k = filter.order();
    let auto_vpt = config.vpt == 0;
    let mut config = config.normalized(T::DTYPE, k)?;
    if auto_vpt {
        let small = 64 / T::DTYPE.size();
        let tail = filter.factors_for(config.threads * small).len() + k <= 32 * small;
        config.vpt = if tail { small } else { 128 / T::DTYPE.size() };
        config = config.normalized(T::DTYPE, k)?;
    }
    let (threads, vpt) = (config.threads, config.vpt);
    let chunk = config.chunk();
    let warps = threads / 32;
    let optimize = filter.options().optimize;
    let factors = filter.factors_for(chunk);
    let len = factors.len();
    let independent = factors.carry_independent(chunk);
    let need_carry = factors.table_nonzero();
    // The factors vanish within one warp's span: a chunk's carry-in is the carry-out, from
    // zero, of the previous chunk's last 32 * V inputs, which an extra warp recomputes
    // (unless no carry is ever needed: all factors zero).
    let tail_carry = need_carry && len + k <= 32 * vpt;
    let ones = optimize && k == 1 && factors.kind(0) == TableKind::Ones && len == chunk;
    let ff = filter.feedforward();
    let fb = filter.feedback();
    let nstate = filter.state_len();

    // Constants buffer: extended factor tables, then powers of the chunk transfer matrix.
    let mut constants = Vec::with_capacity(k * (len + k) + 33 * k * k);
    for j in 0..k {
        for q in -(k as isize)..len as isize {
            constants.push(factors.at(j, q));
        }
    }
    let t_chunk = factors.transfer(chunk);
    let mut power: Vec<T> = (0..k * k)
        .map(|i| if i / k == i % k { T::ONE } else { T::ZERO })
        .collect();
    for _ in 0..=32 {
        constants.extend_from_slice(&power);
        power = mat_mul(&power, &t_chunk, k);
    }

    let lit = |v: T| v.c_literal();
    let term = |coef: T, expr: &str| -> Option<String> {
        if optimize && coef == T::ZERO {
            None
        } else if optimize && coef == T::ONE {
            Some(expr.to_owned())
        } else {
            Some(format!("{} * {expr}", lit(coef)))
        }
    };
    let sum = |terms: Vec<Option<String>>| -> Option<String> {
        let terms: Vec<String> = terms.into_iter().flatten().collect();
        (!terms.is_empty()).then(|| terms.join(" + "))
    };

    let mut s = String::new();
    let dtype = T::DTYPE;
    let w = &mut s;
    // ---- header -------------------------------------------------------------------------
    let _ = writeln!(
        w,
        "// Generated by sigpu-recurrence: do not edit; regenerate instead."
    );
    let _ = writeln!(w, "// Signature {} in {dtype}:", filter.signature());
    let _ = writeln!(w, "//   y[i] = {}", equation(ff, fb));
    let _ = writeln!(
        w,
        "// Chunks of {chunk} = {threads} threads x {vpt} values; factors {}{}.",
        if optimize {
            format!("truncated to {len} of {chunk} entries")
        } else {
            format!("untruncated ({len} entries), optimisations off")
        },
        if tail_carry {
            ", so a chunk's carry-in is recomputed from the previous chunk's last 32 x V inputs (no look-back)"
        } else if independent {
            ", so a chunk's carry-out does not depend on its carry-in and is posted at once"
        } else {
            ""
        }
    );
    if !dtype.is_float() {
        let _ = writeln!(
            w,
            "// {dtype} is computed in the unsigned type of its width: overflow wraps."
        );
    }
    let ctype = match dtype {
        DType::F32 => "float",
        DType::F64 => "double",
        DType::I32 => "unsigned int",
        DType::I64 => "unsigned long long",
    };
    let _ = writeln!(w);
    let _ = writeln!(w, "typedef {ctype} T;");
    let _ = writeln!(w, "#define K {k}            // recurrence order");
    let _ = writeln!(
        w,
        "#define NSTATE {nstate}       // zi / zf values per channel"
    );
    let _ = writeln!(w, "#define V {vpt}           // values per thread");
    let _ = writeln!(w, "#define THREADS {threads}");
    let _ = writeln!(w, "#define WARPS {warps}");
    let _ = writeln!(w, "#define CHUNK {chunk}");
    let _ = writeln!(w, "#define FAC_LEN {len}     // factor table length");
    let _ = writeln!(w, "#define FAC_STRIDE (FAC_LEN + K)");
    let _ = writeln!(w, "#define TPOW_OFFSET (K * FAC_STRIDE)");
    let _ = writeln!(
        w,
        "#define Q (V * (int)sizeof(T) / 16)  // 16-byte vectors per thread"
    );
    let _ = writeln!(w, "#define FULL_MASK 0xffffffffu");
    let _ = writeln!(w, "#define STATUS_PARTIAL 1u");
    let _ = writeln!(w, "#define STATUS_FULL 2u");
    let _ = writeln!(w);
    w.push_str(HELPERS);
    if !tail_carry {
        w.push_str(POST_HELPER);
    }
    if config.transpose {
        w.push_str(TRANSPOSE_HELPERS);
    }
    // add_transfer: out[r] += sum_j f_j[m-1-r] * c[j]
    let _ = writeln!(
        w,
        "// out[r] += sum_j f_j[m-1-r] * c[j]: what the K carries before a segment of m elements\n\
         // add to its last K values."
    );
    let _ = writeln!(
        w,
        "__device__ __forceinline__ void add_transfer(const T* __restrict__ consts, long long m, const T* c, T* out) {{"
    );
    if ones {
        let _ = writeln!(w, "    out[0] += c[0];  // prefix sum: every factor is 1");
    } else {
        let _ = writeln!(
            w,
            "    if (m - K >= FAC_LEN) return;  // truncated: no effect"
        );
        let _ = writeln!(w, "    #pragma unroll");
        let _ = writeln!(w, "    for (int r = 0; r < K; ++r) {{");
        let _ = writeln!(w, "        #pragma unroll");
        let _ = writeln!(
            w,
            "        for (int j = 0; j < K; ++j) out[r] += factor(consts, j, (int)(m - 1 - r)) * c[j];"
        );
        let _ = writeln!(w, "    }}");
    }
    let _ = writeln!(w, "}}\n");

    // ---- look-back ----------------------------------------------------------------------
    if !tail_carry {
        w.push_str(LOOK_BACK_HEAD);
        if !ones {
            w.push_str(LOOK_BACK_SCALE_INIT);
        }
        w.push_str(LOOK_BACK_LOOP);
        if ones {
            let _ = writeln!(
                w,
                "        T part[K] = {{val[0]}};  // T_C^l = 1 for a prefix sum"
            );
        } else {
            w.push_str(LOOK_BACK_POWER);
        }
        w.push_str(LOOK_BACK_REDUCE);
        if ones {
            let _ = writeln!(w, "        carry[0] += part[0];");
            let _ = writeln!(w, "        if (stop < 32) break;");
        } else {
            w.push_str(LOOK_BACK_SCALE);
        }
        let _ = writeln!(w, "        base -= 32;\n    }}\n}}\n");
    }

    // ---- the local pass: load, map, recurrence from zero, warp merges ---------------------
    let _ = writeln!(
        w,
        "// One warp's 32*V values from wseg on (V per thread, from seg on) through the map and the\n\
         // recurrence from zero: v holds the thread's values, a its carry-out merged over the lanes\n\
         // before it (lane 31: the warp's carry-out), e the carry into the thread from those lanes.\n\
         __device__ __forceinline__ void local_pass(const T* __restrict__ xc, long long n, long long seg,\n    \
         long long wseg, bool vec_ok, uint4* tile, int lane, const T* __restrict__ zi, int has_zi,\n    \
         long long ch, T* v, T* a, T* e)\n{{"
    );
    if config.transpose {
        let _ = writeln!(w, "    load_warp(xc, n, seg, wseg, vec_ok, tile, lane, v);");
    } else {
        let _ = writeln!(w, "    load_segment(xc, n, seg, vec_ok, v);");
    }
    // Map.
    let p = ff.len() - 1;
    let identity_map = optimize && p == 0 && ff[0] == T::ONE;
    if identity_map {
        let _ = writeln!(w, "    // map (1 : 0): nothing to do");
    } else {
        let _ = writeln!(
            w,
            "    // map {}: t[i] = sum_j a_j x[i-j], from the last value down",
            map_signature(ff)
        );
        if p > 0 {
            let _ = writeln!(w, "    T h[{p}];  // x[seg-1], x[seg-2], ...");
            let _ = writeln!(w, "    #pragma unroll");
            let _ = writeln!(
                w,
                "    for (int j = 0; j < {p}; ++j) h[j] = (seg - 1 - j >= 0 && seg - 1 - j < n) ? xc[seg - 1 - j] : (T)0;"
            );
        }
        for i in (0..vpt).rev() {
            let terms = ff
                .iter()
                .enumerate()
                .map(|(j, &a)| {
                    let src = if i >= j {
                        format!("v[{}]", i - j)
                    } else {
                        format!("h[{}]", j - i - 1)
                    };
                    term(a, &src)
                })
                .collect();
            let _ = writeln!(
                w,
                "    v[{i}] = {};",
                sum(terms).unwrap_or_else(|| "(T)0".into())
            );
        }
    }
    if nstate > 0 {
        let _ = writeln!(w, "    // initial state: zi[ch][i] belongs to element i");
        let _ = writeln!(w, "    if (has_zi && seg < NSTATE) {{");
        let _ = writeln!(w, "        #pragma unroll");
        let _ = writeln!(
            w,
            "        for (int i = 0; i < V; ++i) if (seg + i < NSTATE) v[i] += zi[ch * NSTATE + seg + i];"
        );
        let _ = writeln!(w, "    }}");
    }
    // Local recurrence.
    let _ = writeln!(
        w,
        "    // recurrence {} over this thread's values, from zero",
        rec_signature(fb)
    );
    for i in 1..vpt {
        let terms = fb
            .iter()
            .enumerate()
            .filter(|(l, _)| *l < i)
            .map(|(l, &b)| term(b, &format!("v[{}]", i - 1 - l)))
            .collect();
        if let Some(e) = sum(terms) {
            let _ = writeln!(w, "    v[{i}] += {e};");
        }
    }
    let _ = writeln!(w, "    #pragma unroll");
    let _ = writeln!(w, "    for (int r = 0; r < K; ++r) a[r] = v[V - 1 - r];");
    // Warp merges.
    let _ = writeln!(
        w,
        "    // warp: 5 doubling merges, a <- a + M(d*V) * (a of lane - d)"
    );
    let mut d = 1;
    while d < 32 {
        emit_merge(w, &factors, "a", d, d * vpt, optimize, "lane");
        d *= 2;
    }
    w.push_str(LOCAL_PASS_TAIL);

    // ---- the kernel ---------------------------------------------------------------------
    // The tail-carry kernel has an extra warp (WARPS) that recomputes the carry-in.
    let block = if tail_carry {
        "THREADS + 32"
    } else {
        "THREADS"
    };
    let bounds = match config.min_blocks {
        0 => block.to_owned(),
        b => format!("{block}, {b}"),
    };
    // The tail-carry kernel has no look-back: no flags, carries, counters or epoch.
    let lookback_params = if tail_carry {
        ""
    } else {
        ",\n    unsigned int* flags, T* aggs, T* incls, unsigned int* counters, unsigned int epoch"
    };
    let _ = writeln!(
        w,
        "extern \"C\" __global__ void __launch_bounds__({bounds}) {FILTER_KERNEL}(\n    \
         const T* __restrict__ x, T* __restrict__ y, long long n, long long chunks_per_channel,\n    \
         const T* __restrict__ zi, int has_zi, const T* __restrict__ consts{lookback_params})\n{{"
    );
    let tile = |warps: &str| {
        if config.transpose {
            format!(
                "    __shared__ uint4 s_tile[{warps}][32 * Q];  // a warp's values in transit\n"
            )
        } else {
            String::new()
        }
    };
    let tile_arg = if config.transpose {
        "s_tile[warp]"
    } else {
        "nullptr"
    };
    if tail_carry {
        w.push_str(
            &TAIL_KERNEL_HEAD
                .replace("TILE_DECL", &tile("WARPS + 1"))
                .replace("TILE_ARG", tile_arg),
        );
    } else {
        w.push_str(
            &KERNEL_PROLOGUE
                .replace("TILE_DECL", &tile("WARPS"))
                .replace("TILE_ARG", tile_arg),
        );
        w.push_str(KERNEL_BLOCK_HEAD);
        let mut d = 1;
        while d < warps {
            emit_merge(w, &factors, "wv", d, d * 32 * vpt, optimize, "lane");
            d *= 2;
        }
        w.push_str(KERNEL_BLOCK_TAIL_1);
        if independent {
            let _ = writeln!(
                w,
                "        // the carry-out does not depend on the carry-in: post it as full at once\n        \
                 if (lane == 0) post(flags, incls, g, chunk_agg, STATUS_FULL, epoch);"
            );
        } else {
            let _ = writeln!(
                w,
                "        if (lane == 0) post(flags, ci == 0 ? incls : aggs, g, chunk_agg, ci == 0 ? STATUS_FULL : STATUS_PARTIAL, epoch);"
            );
        }
        if need_carry {
            let _ = writeln!(
                w,
                "        if (ci > 0) look_back(flags, aggs, incls, consts, g, ch * chunks_per_channel, epoch, lane, carry);"
            );
        } else {
            let _ = writeln!(
                w,
                "        // every factor is zero: no carry is ever needed"
            );
        }
        if !independent {
            let _ = writeln!(w, "        if (ci > 0) {{");
            let _ = writeln!(w, "            T incl[K];");
            let _ = writeln!(w, "            #pragma unroll");
            let _ = writeln!(
                w,
                "            for (int r = 0; r < K; ++r) incl[r] = chunk_agg[r];"
            );
            let _ = writeln!(w, "            add_transfer(consts, CHUNK, carry, incl);");
            let _ = writeln!(
                w,
                "            if (lane == 0) post(flags, incls, g, incl, STATUS_FULL, epoch);"
            );
            let _ = writeln!(w, "        }}");
        }
        w.push_str(KERNEL_BLOCK_TAIL_2);
    }
    w.push_str(CARRY_IN);
    // Correction with the in-thread factors.
    let _ = writeln!(w, "    // v[i] += sum_j c[j] * f_j[i]");
    for i in 0..vpt {
        let terms = (0..k)
            .map(|j| term(factors.at(j, i as isize), &format!("c[{j}]")))
            .collect();
        if let Some(e) = sum(terms) {
            let _ = writeln!(w, "    v[{i}] += {e};");
        }
    }
    if config.transpose {
        let _ = writeln!(
            w,
            "    store_warp(yc, n, seg, wseg, vec_ok, s_tile[warp], lane, v);\n}}\n"
        );
    } else {
        let _ = writeln!(w, "    store_segment(yc, n, seg, vec_ok, v);\n}}\n");
    }

    // ---- final state ----------------------------------------------------------------------
    let a_list: Vec<String> = (0..=nstate)
        .map(|m| lit(ff.get(m).copied().unwrap_or(T::ZERO)))
        .collect();
    let b_list: Vec<String> = (0..=nstate)
        .map(|m| {
            lit(if m == 0 {
                T::ZERO
            } else {
                fb.get(m - 1).copied().unwrap_or(T::ZERO)
            })
        })
        .collect();
    let _ = writeln!(
        w,
        "// zf[ch][i] = zi[ch][n+i] (while n+i < NSTATE) + sum_{{m>i}} a_m x[n+i-m] + b_m y[n+i-m]\n\
         extern \"C\" __global__ void {STATE_KERNEL}(const T* __restrict__ x, const T* __restrict__ y,\n    \
         long long n, int channels, const T* __restrict__ zi, int has_zi, T* __restrict__ zf)\n{{"
    );
    if nstate == 0 {
        let _ = writeln!(w, "    // no state: nothing to compute\n}}");
    } else {
        let _ = writeln!(w, "    const T A[NSTATE + 1] = {{{}}};", a_list.join(", "));
        let _ = writeln!(w, "    const T B[NSTATE + 1] = {{{}}};", b_list.join(", "));
        w.push_str(STATE_BODY);
    }

    let name = format!(
        "plr_{}_k{k}_p{p}_{}_{threads}x{vpt}{}{}{}.cu",
        dtype,
        short_hash(&s),
        if config.transpose { "t" } else { "" },
        match config.min_blocks {
            0 => String::new(),
            b => format!("b{b}"),
        },
        if optimize { "" } else { "_noopt" }
    );
    Ok(Generated {
        source: s,
        name,
        config,
        constants,
        factor_len: len,
        independent,
        tail_carry,
    })
}

/// One doubling merge step: lanes ≥ d add M(m)·(value of lane − d) to their `var`.
fn emit_merge<T: Element>(
    w: &mut String,
    factors: &Factors<T>,
    var: &str,
    d: usize,
    m: usize,
    optimize: bool,
    lane: &str,
) {
    let k = factors.order();
    let mat = factors.transfer(m);
    if optimize && mat.iter().all(|&v| v == T::ZERO) {
        let _ = writeln!(
            w,
            "    // d = {d}: every factor at distance {m} is zero, nothing to merge"
        );
        return;
    }
    let _ = writeln!(w, "    {{  // d = {d}: segments of {m} values");
    let _ = writeln!(w, "        T o[K];");
    let _ = writeln!(w, "        #pragma unroll");
    let _ = writeln!(
        w,
        "        for (int r = 0; r < K; ++r) o[r] = __shfl_up_sync(FULL_MASK, {var}[r], {d});"
    );
    let _ = writeln!(w, "        if ({lane} >= {d}) {{");
    let mut lines = Vec::new();
    for r in 0..k {
        let terms: Vec<String> = (0..k)
            .filter_map(|j| {
                let c = mat[r * k + j];
                if optimize && c == T::ZERO {
                    None
                } else if optimize && c == T::ONE {
                    Some(format!("o[{j}]"))
                } else {
                    Some(format!("{} * o[{j}]", c.c_literal()))
                }
            })
            .collect();
        if !terms.is_empty() {
            lines.push(format!("            {var}[{r}] += {};", terms.join(" + ")));
        }
    }
    for l in lines {
        let _ = writeln!(w, "{l}");
    }
    let _ = writeln!(w, "        }}\n    }}");
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

const HELPERS: &str = r#"// f_j at chunk position q >= -K: the weight of carry j (the value j+1 places before the
// chunk) in element q; 1 where the carry itself stands, 0 past the truncated table.
__device__ __forceinline__ T factor(const T* __restrict__ consts, int j, int q) {
    return q < FAC_LEN ? consts[j * FAC_STRIDE + K + q] : (T)0;
}

// V consecutive values from seg on; zero past n. 16-byte loads where aligned and whole.
__device__ __forceinline__ void load_segment(const T* __restrict__ src, long long n, long long seg, bool vec_ok, T* v) {
    if (vec_ok && seg + V <= n) {
        const uint4* p = reinterpret_cast<const uint4*>(src + seg);
        #pragma unroll
        for (int q = 0; q < V * (int)sizeof(T) / 16; ++q) reinterpret_cast<uint4*>(v)[q] = p[q];
    } else {
        #pragma unroll
        for (int i = 0; i < V; ++i) v[i] = seg + i < n ? src[seg + i] : (T)0;
    }
}

__device__ __forceinline__ void store_segment(T* __restrict__ dst, long long n, long long seg, bool vec_ok, const T* v) {
    if (vec_ok && seg + V <= n) {
        uint4* p = reinterpret_cast<uint4*>(dst + seg);
        #pragma unroll
        for (int q = 0; q < V * (int)sizeof(T) / 16; ++q) p[q] = reinterpret_cast<const uint4*>(v)[q];
    } else {
        #pragma unroll
        for (int i = 0; i < V; ++i) if (seg + i < n) dst[seg + i] = v[i];
    }
}

"#;

const POST_HELPER: &str = r#"// Publishes K values of chunk g with a status; the flag is written after the values are
// visible device-wide. Flags carry the launch's epoch, so stale flags never match.
__device__ __forceinline__ void post(unsigned int* flags, T* values, long long g, const T* v,
                                     unsigned int status, unsigned int epoch) {
    #pragma unroll
    for (int r = 0; r < K; ++r) __stcg(&values[g * K + r], v[r]);
    __threadfence();
    atomicExch(&flags[g], (epoch << 2) | status);
}

"#;

const TRANSPOSE_HELPERS: &str = r#"// Slot of 16-byte vector idx in a warp's staging tile, swizzled so that both the striped
// (32q + lane) and the blocked (Q*lane + q) patterns are free of bank conflicts.
__device__ __forceinline__ int slot(int idx) { return idx ^ ((idx >> 3) & 7); }

// A warp's 32*V values from wseg on, read with coalesced 16-byte loads (lane l takes vectors
// 32q + l), handed to their threads (V consecutive values each) through shared memory.
__device__ __forceinline__ void load_warp(const T* __restrict__ src, long long n, long long seg, long long wseg,
                                          bool vec_ok, uint4* tile, int lane, T* v) {
    if (vec_ok && wseg + 32 * V <= n) {
        const uint4* p = reinterpret_cast<const uint4*>(src + wseg);
        uint4 r[Q];
        #pragma unroll
        for (int q = 0; q < Q; ++q) r[q] = p[32 * q + lane];
        #pragma unroll
        for (int q = 0; q < Q; ++q) tile[slot(32 * q + lane)] = r[q];
        __syncwarp();
        #pragma unroll
        for (int q = 0; q < Q; ++q) reinterpret_cast<uint4*>(v)[q] = tile[slot(Q * lane + q)];
        __syncwarp();
    } else {
        load_segment(src, n, seg, false, v);
    }
}

__device__ __forceinline__ void store_warp(T* __restrict__ dst, long long n, long long seg, long long wseg,
                                           bool vec_ok, uint4* tile, int lane, const T* v) {
    if (vec_ok && wseg + 32 * V <= n) {
        #pragma unroll
        for (int q = 0; q < Q; ++q) tile[slot(Q * lane + q)] = reinterpret_cast<const uint4*>(v)[q];
        __syncwarp();
        uint4* p = reinterpret_cast<uint4*>(dst + wseg);
        #pragma unroll
        for (int q = 0; q < Q; ++q) p[32 * q + lane] = tile[slot(32 * q + lane)];
    } else {
        store_segment(dst, n, seg, false, v);
    }
}

"#;

const LOOK_BACK_HEAD: &str = r#"// Decoupled look-back by one warp: lane l inspects chunk g-1-l. Once every lane's chunk has
// posted, the nearest full carry and the partial aggregates after it are folded:
// carry = sum_l T_C^l * value(g-1-l), T_C being the chunk transfer matrix. Chunks before the
// channel's first count as full with zero carry. No full carry in the window: step 32 back.
__device__ __forceinline__ void look_back(const unsigned int* flags, const T* aggs, const T* incls,
                          const T* __restrict__ consts, long long g, long long first,
                          unsigned int epoch, int lane, T* carry) {
    #pragma unroll
    for (int r = 0; r < K; ++r) carry[r] = (T)0;
"#;

const LOOK_BACK_SCALE_INIT: &str = r#"    T scale[K * K];  // T_C^(32 w) for window w
    #pragma unroll
    for (int i = 0; i < K * K; ++i) scale[i] = (i / K == i % K) ? (T)1 : (T)0;
"#;

const LOOK_BACK_LOOP: &str = r#"    long long base = g - 1;
    while (true) {
        const long long idx = base - lane;
        const bool inside = idx >= first;
        unsigned int f = (epoch << 2) | STATUS_FULL;
        do {
            if (inside) f = *((volatile const unsigned int*)&flags[idx]);
        } while (__any_sync(FULL_MASK, (f >> 2) != epoch));
        const unsigned int fulls = __ballot_sync(FULL_MASK, (f & 3u) == STATUS_FULL);
        const int stop = fulls ? __ffs(fulls) - 1 : 32;
        T val[K];
        #pragma unroll
        for (int r = 0; r < K; ++r) val[r] = (T)0;
        if (inside && lane <= stop) {
            const T* src = lane == stop ? incls : aggs;
            #pragma unroll
            for (int r = 0; r < K; ++r) val[r] = __ldcg(&src[idx * K + r]);
        }
"#;

const LOOK_BACK_POWER: &str = r#"        T part[K];  // T_C^lane * val
        const T* pw = consts + TPOW_OFFSET + lane * K * K;
        #pragma unroll
        for (int r = 0; r < K; ++r) {
            part[r] = (T)0;
            #pragma unroll
            for (int j = 0; j < K; ++j) part[r] += pw[r * K + j] * val[j];
        }
"#;

const LOOK_BACK_REDUCE: &str = r#"        #pragma unroll
        for (int off = 16; off > 0; off >>= 1) {
            #pragma unroll
            for (int r = 0; r < K; ++r) part[r] += __shfl_xor_sync(FULL_MASK, part[r], off);
        }
"#;

const LOOK_BACK_SCALE: &str = r#"        #pragma unroll
        for (int r = 0; r < K; ++r) {
            #pragma unroll
            for (int j = 0; j < K; ++j) carry[r] += scale[r * K + j] * part[j];
        }
        if (stop < 32) break;
        const T* p32 = consts + TPOW_OFFSET + 32 * K * K;
        T next[K * K];
        #pragma unroll
        for (int r = 0; r < K; ++r) {
            #pragma unroll
            for (int c = 0; c < K; ++c) {
                T acc = (T)0;
                #pragma unroll
                for (int i = 0; i < K; ++i) acc += scale[r * K + i] * p32[i * K + c];
                next[r * K + c] = acc;
            }
        }
        #pragma unroll
        for (int i = 0; i < K * K; ++i) scale[i] = next[i];
"#;

const LOCAL_PASS_TAIL: &str = r#"    #pragma unroll
    for (int r = 0; r < K; ++r) {
        e[r] = __shfl_up_sync(FULL_MASK, a[r], 1);
        if (lane == 0) e[r] = (T)0;
    }
}

"#;

const KERNEL_PROLOGUE: &str = r#"    __shared__ long long s_chunk;
    __shared__ T s_warp[WARPS * K];  // warp aggregates, then inclusive warp prefixes
    __shared__ T s_carry[K];         // the chunk's carry-in
TILE_DECL    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (threadIdx.x == 0) {
        // Chunks in start order, so a chunk only ever waits on chunks already running.
        const unsigned int g = atomicAdd(&counters[epoch & 1], 1u);
        if (g == 0) counters[(epoch + 1) & 1] = 0;  // the next launch's counter
        s_chunk = g;
    }
    __syncthreads();
    const long long g = s_chunk;
    const long long ch = g / chunks_per_channel;
    const long long ci = g - ch * chunks_per_channel;
    const T* xc = x + ch * n;
    T* yc = y + ch * n;
    const long long wseg = ci * CHUNK + (long long)warp * 32 * V;
    const long long seg = wseg + (long long)lane * V;
    const bool vec_ok = ((ch * n) % (16 / (long long)sizeof(T))) == 0;
    __align__(16) T v[V];
    T a[K], e[K];
    local_pass(xc, n, seg, wseg, vec_ok, TILE_ARG, lane, zi, has_zi, ch, v, a, e);
"#;

const TAIL_KERNEL_HEAD: &str = r#"    // Block b filters chunk b. Warps 0..WARPS-1 take its values; warp WARPS runs the same local
    // pass over the previous chunk's last 32*V inputs, whose carry-out from zero is this chunk's
    // carry-in (the factors vanish within 32*V values). Chunks never wait on one another.
    __shared__ T s_warp[WARPS * K];  // warp carry-outs (= inclusive prefixes: no block merge)
    __shared__ T s_carry[K];         // the chunk's carry-in
TILE_DECL    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const bool tail = warp == WARPS;
    const long long g = blockIdx.x;
    const long long ch = g / chunks_per_channel;
    const long long ci = g - ch * chunks_per_channel;
    const T* xc = x + ch * n;
    T* yc = y + ch * n;
    const long long wseg = ci * CHUNK + (tail ? -32LL * V : (long long)warp * 32 * V);
    const long long seg = wseg + (long long)lane * V;
    const bool vec_ok = ((ch * n) % (16 / (long long)sizeof(T))) == 0;
    __align__(16) T v[V];
    T a[K], e[K];
    if (!tail || ci > 0) local_pass(xc, n, seg, wseg, vec_ok, TILE_ARG, lane, zi, has_zi, ch, v, a, e);
    if (lane == 31) {
        #pragma unroll
        for (int r = 0; r < K; ++r) {
            if (!tail) s_warp[warp * K + r] = a[r];
            else s_carry[r] = ci > 0 ? a[r] : (T)0;
        }
    }
    __syncthreads();
    if (tail) return;
"#;

const KERNEL_BLOCK_HEAD: &str = r#"    if (lane == 31) {
        #pragma unroll
        for (int r = 0; r < K; ++r) s_warp[warp * K + r] = a[r];
    }
    __syncthreads();
    if (warp == 0) {
        // block: doubling merges over the warp aggregates, a lane per warp
        T wv[K];
        #pragma unroll
        for (int r = 0; r < K; ++r) wv[r] = lane < WARPS ? s_warp[lane * K + r] : (T)0;
"#;

const KERNEL_BLOCK_TAIL_1: &str = r#"        if (lane < WARPS) {
            #pragma unroll
            for (int r = 0; r < K; ++r) s_warp[lane * K + r] = wv[r];
        }
        T chunk_agg[K], carry[K];
        #pragma unroll
        for (int r = 0; r < K; ++r) {
            chunk_agg[r] = __shfl_sync(FULL_MASK, wv[r], WARPS - 1);
            carry[r] = (T)0;
        }
"#;

const KERNEL_BLOCK_TAIL_2: &str = r#"        if (lane == 0) {
            #pragma unroll
            for (int r = 0; r < K; ++r) s_carry[r] = carry[r];
        }
    }
    __syncthreads();
"#;

const CARRY_IN: &str = r#"    // carry into this warp: the warps before it, plus the chunk's carry-in through them
    T tw[K], cin[K];
    #pragma unroll
    for (int r = 0; r < K; ++r) {
        tw[r] = warp > 0 ? s_warp[(warp - 1) * K + r] : (T)0;
        cin[r] = s_carry[r];
    }
    add_transfer(consts, (long long)warp * 32 * V, cin, tw);
    // carry into this thread
    T c[K];
    #pragma unroll
    for (int r = 0; r < K; ++r) c[r] = e[r];
    add_transfer(consts, (long long)lane * V, tw, c);
"#;

const STATE_BODY: &str = r#"    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= (long long)channels * NSTATE) return;
    const long long ch = t / NSTATE;
    const int i = (int)(t - ch * NSTATE);
    const T* xc = x + ch * n;
    const T* yc = y + ch * n;
    T v = (has_zi && n + i < NSTATE) ? zi[ch * NSTATE + n + i] : (T)0;
    for (int m = i + 1; m <= NSTATE; ++m) {
        const long long at = n + i - m;
        if (at >= 0) v += A[m] * xc[at] + B[m] * yc[at];
    }
    zf[t] = v;
}
"#;
