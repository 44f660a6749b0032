//! The generator's first phases: what it decides for one filter and launch shape ([`Plan`]),
//! the constants buffer, and the prelude every generated source opens with (the filter in
//! comments, types and constants as defines, the switches and the include of `plr.cuh`).

use super::config::GpuConfig;
use super::short_hash;
use crate::elem::{DType, Element};
use crate::error::FilterError;
use crate::factors::{mat_mul, Factors, TableKind};
use crate::filter::Filter;
use std::fmt::Write;

/// The header every generated kernel includes: the fixed device helpers.
pub const PLR_HEADER: &str = include_str!("../../../kernels/plr.cuh");
/// The name the generated source includes [`PLR_HEADER`] by.
pub const PLR_HEADER_NAME: &str = "plr.cuh";
/// Shared memory one block may opt in to on sm_90 (227 KiB).
pub const MAX_DYNAMIC_SHARED: usize = 232_448;

/// What the generator decides for one filter and launch shape before writing code.
pub(super) struct Plan<'a, T: Element> {
    pub(super) filter: &'a Filter<T>,
    pub(super) ff: &'a [T],
    pub(super) fb: &'a [T],
    /// Recurrence order and zi / zf values per channel.
    pub(super) k: usize,
    pub(super) nstate: usize,
    pub(super) config: GpuConfig,
    pub(super) vpt: usize,
    pub(super) chunk: usize,
    pub(super) warps: usize,
    pub(super) optimize: bool,
    /// Correction factors for whole chunks, and their length after truncation.
    pub(super) factors: Factors<T>,
    pub(super) len: usize,
    pub(super) independent: bool,
    pub(super) need_carry: bool,
    pub(super) tail_carry: bool,
    /// A prefix sum: order 1, every factor 1 over the whole chunk.
    pub(super) ones: bool,
}

impl<'a, T: Element> Plan<'a, T> {
    pub(super) fn new(filter: &'a Filter<T>, config: GpuConfig) -> Result<Self, FilterError> {
        let k = filter.order();
        let auto_vpt = config.vpt == 0;
        let auto_threads = config.threads == 0;
        let requested = GpuConfig {
            threads: if auto_threads { 256 } else { config.threads },
            ..config
        };
        let mut config = requested.normalized(T::DTYPE, k)?;
        if auto_vpt {
            let small = 64 / T::DTYPE.size();
            let tail = filter.factors_for(config.threads * small).len() + k <= 32 * small;
            config.vpt = if tail { small } else { 128 / T::DTYPE.size() };
            config = config.normalized(T::DTYPE, k)?;
        }
        let optimize = filter.options().optimize;
        let is_ones = |factors: &Factors<T>, chunk: usize| {
            optimize && k == 1 && factors.kind(0) == TableKind::Ones && factors.len() == chunk
        };
        // Prefix sums (the look-back kernel, every factor 1) run fastest with 512 threads per
        // block and a look-back warp on an H100 (338 G elements/s against 307 for 256 threads
        // without the warp, i32 and f32 at 2^28).
        if auto_threads && is_ones(&filter.factors_for(config.chunk()), config.chunk()) {
            config.threads = 512;
        }
        let chunk = config.chunk();
        let factors = filter.factors_for(chunk);
        let len = factors.len();
        let need_carry = factors.table_nonzero();
        let ones = is_ones(&factors, chunk);
        // The factors vanish within one warp's span: a chunk's carry-in is the carry-out,
        // from zero, of the previous chunk's last 32 * V inputs, which an extra warp
        // recomputes (unless no carry is ever needed: all factors zero).
        let tail_carry = need_carry && len + k <= 32 * config.vpt;
        config.lookback_warp =
            config.lookback_warp && !tail_carry && need_carry && config.threads + 32 <= 1024;
        let plan = Plan {
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
            tail_carry,
            factors,
            len,
            need_carry,
            ones,
        };
        let tile = plan.dynamic_shared_bytes();
        if tile > MAX_DYNAMIC_SHARED {
            return Err(FilterError::Config(format!(
                "{} threads x {} values of {} bytes need {tile} bytes of shared memory, more \
                 than the {MAX_DYNAMIC_SHARED} a block can have",
                config.threads,
                config.vpt,
                T::DTYPE.size()
            )));
        }
        Ok(plan)
    }

    /// Dynamic shared memory of the filter kernel: the look-back kernel's transpose tiles
    /// (the tail-carry kernel declares its own statically).
    pub(super) fn dynamic_shared_bytes(&self) -> usize {
        if self.tail_carry || !self.config.transpose {
            0
        } else {
            self.chunk * T::DTYPE.size()
        }
    }

    /// Constants buffer: extended factor tables, then powers of the chunk transfer matrix.
    pub(super) fn constants(&self) -> Vec<T> {
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
    pub(super) fn term(&self, coef: T, expr: &str) -> Option<String> {
        if self.optimize && coef == T::ZERO {
            None
        } else if self.optimize && coef == T::ONE {
            Some(expr.to_owned())
        } else {
            Some(format!("{} * {expr}", coef.c_literal()))
        }
    }

    /// The terms that remain, joined with `+`; nothing when none does.
    pub(super) fn sum(terms: Vec<Option<String>>) -> Option<String> {
        let terms: Vec<String> = terms.into_iter().flatten().collect();
        (!terms.is_empty()).then(|| terms.join(" + "))
    }

    /// What the kernel computes, in comments; its types and constants; the header.
    pub(super) fn write_prelude(&self, w: &mut String) {
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
        let _ = writeln!(
            w,
            "#define PLR_LOOK_BACK_WARP {}  // an extra warp looks back from the block's start",
            flag(self.config.lookback_warp)
        );
        let _ = writeln!(
            w,
            "#define PLR_COMPENSATED {}  // the thread's recurrence rounds each value once",
            flag(T::DTYPE == DType::F64)
        );
    }

    /// A file name for NVRTC messages and the kernel cache: the shape and a hash of `source`.
    pub(super) fn file_name(&self, source: &str) -> String {
        let c = self.config;
        format!(
            "plr_{}_k{}_p{}_{}_{}x{}{}{}{}{}.cu",
            T::DTYPE,
            self.k,
            self.ff.len() - 1,
            short_hash(source),
            c.threads,
            c.vpt,
            if c.transpose { "t" } else { "" },
            if c.lookback_warp { "w" } else { "" },
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

pub(super) fn map_signature<T: Element>(ff: &[T]) -> String {
    let list: Vec<String> = ff.iter().map(|v| format!("{v:?}")).collect();
    format!("({} : 0)", list.join(", "))
}

pub(super) fn rec_signature<T: Element>(fb: &[T]) -> String {
    let list: Vec<String> = fb.iter().map(|v| format!("{v:?}")).collect();
    format!("(1 : {})", list.join(", "))
}
