//! The generator's first phases: what it decides for one filter and launch shape ([`Plan`]),
//! the constants buffer, and the prelude every generated source opens with (the filter in
//! comments, types and constants as defines, the switches and the include of `plr.cuh`).

use super::config::GpuConfig;
use super::short_hash;
use super::KernelLayout;
use crate::elem::{DType, Element};
use crate::error::FilterError;
use crate::factors::{mat_mul, Factors, TableKind};
use crate::filter::Filter;
use sigpu_runtime::cuda::tuning::{PlrPolicy, ScanTile};
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
    /// How the values lie in memory: pairs of interleaved channels, backwards.
    pub(super) layout: KernelLayout,
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
    pub(super) fn new(
        filter: &'a Filter<T>,
        config: GpuConfig,
        policy: &PlrPolicy,
        layout: KernelLayout,
    ) -> Result<Self, FilterError> {
        let k = filter.order();
        if layout.pairs && !T::DTYPE.is_float() {
            return Err(FilterError::Config(format!(
                "interleaved channel pairs are floating-point (complex) data, not {}",
                T::DTYPE
            )));
        }
        let mut config = resolve_shape(filter, config, policy)?;
        let chunk = config.chunk();
        let factors = filter.factors_for(chunk);
        let len = factors.len();
        let need_carry = factors.table_nonzero();
        let optimize = filter.options().optimize;
        let ones = is_ones(filter, &factors, chunk);
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
            layout,
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
                plan.value_size()
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
            self.chunk * self.value_size()
        }
    }

    /// Bytes of one value: an element, or a pair of them.
    pub(super) fn value_size(&self) -> usize {
        T::DTYPE.size() * if self.layout.pairs { 2 } else { 1 }
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
        let _ = writeln!(
            w,
            "typedef {ctype} S;            // an element, a coefficient"
        );
        let _ = writeln!(
            w,
            "#define PLR_PAIRS {}     // a value holds two interleaved channels",
            flag(self.layout.pairs)
        );
        let _ = writeln!(
            w,
            "#define PLR_REVERSED {}  // channels are read and written backwards in time",
            flag(self.layout.reversed)
        );
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
            "plr_{}{}{}_k{}_p{}_{}_{}x{}{}{}{}{}.cu",
            T::DTYPE,
            if self.layout.pairs { "_pairs" } else { "" },
            if self.layout.reversed { "_rev" } else { "" },
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

/// Whether `factors` (for chunks of `chunk`) make a prefix sum: order 1, every factor 1 over
/// the whole chunk, optimisations on.
fn is_ones<T: Element>(filter: &Filter<T>, factors: &Factors<T>, chunk: usize) -> bool {
    filter.options().optimize
        && filter.order() == 1
        && factors.kind(0) == TableKind::Ones
        && factors.len() == chunk
}

/// The launch shape for `filter`: what `config` fixes, the rest (threads 0, vpt 0) from the
/// tile of `policy` for the kernel the filter gets. The tail-carry tile decides whether the
/// filter's factors vanish within a warp's span; a prefix sum takes the prefix-sum tile's
/// threads (and values, when they are left to pick too). A tile's blocks per SM apply when it
/// picked both threads and values and `config` asks for none.
pub fn resolve_shape<T: Element>(
    filter: &Filter<T>,
    config: GpuConfig,
    policy: &PlrPolicy,
) -> Result<GpuConfig, FilterError> {
    let (k, dtype) = (filter.order(), T::DTYPE);
    let (auto_vpt, auto_threads) = (config.vpt == 0, config.threads == 0);
    // What the caller fixed is checked before it sizes anything.
    GpuConfig {
        threads: if auto_threads { 32 } else { config.threads },
        ..config
    }
    .normalized(dtype, k)?;
    let tail_tile = policy.tail_carry;
    // Whether the factors vanish within one warp's 32 x `values`, at `threads` per block.
    let decays = |threads: usize, values: usize| {
        filter.factors_for(threads * values).len() + k <= 32 * values
    };
    let mut tile: Option<ScanTile> = None;
    let mut config = match (auto_threads, auto_vpt) {
        (true, true) => {
            let chosen = match decays(tail_tile.threads as usize, tail_tile.values(dtype.size())) {
                true => tail_tile,
                false => policy.look_back,
            };
            tile = Some(chosen);
            with_tile(config, &chosen, dtype.size())
        }
        (true, false) => {
            let chosen = match decays(tail_tile.threads as usize, config.vpt) {
                true => tail_tile,
                false => policy.look_back,
            };
            GpuConfig {
                threads: chosen.threads as usize,
                ..config
            }
        }
        (false, true) => {
            let small = tail_tile.values(dtype.size());
            let chosen = match decays(config.threads, small) {
                true => tail_tile,
                false => policy.look_back,
            };
            GpuConfig {
                vpt: chosen.values(dtype.size()),
                ..config
            }
        }
        (false, false) => config,
    }
    .normalized(dtype, k)?;
    // Prefix sums run their own tile (on an H100: 512 threads with a look-back warp, 338 G
    // elements/s against 307 for 256 threads without it, i32 and f32 at 2^28).
    if auto_threads && is_ones(filter, &filter.factors_for(config.chunk()), config.chunk()) {
        let prefix = policy.prefix_sum;
        config.threads = prefix.threads as usize;
        if auto_vpt {
            config.vpt = prefix.values(dtype.size());
            tile = Some(prefix);
        }
        config = config.normalized(dtype, k)?;
    }
    if let (Some(tile), 0) = (tile, config.min_blocks) {
        config.min_blocks = tile.min_blocks as usize;
    }
    Ok(config)
}

/// `config` with `tile`'s threads and values per thread for elements of `size` bytes.
fn with_tile(config: GpuConfig, tile: &ScanTile, size: usize) -> GpuConfig {
    GpuConfig {
        threads: tile.threads as usize,
        vpt: tile.values(size),
        ..config
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filter::FilterOptions;
    use crate::with_dtype;

    /// The shape the generator picked before launch policies existed (constants of an H100).
    fn constants_of_the_h100<T: Element>(filter: &Filter<T>, config: GpuConfig) -> GpuConfig {
        let k = filter.order();
        let (auto_vpt, auto_threads) = (config.vpt == 0, config.threads == 0);
        let requested = GpuConfig {
            threads: if auto_threads { 256 } else { config.threads },
            ..config
        };
        let mut config = requested.normalized(T::DTYPE, k).unwrap();
        if auto_vpt {
            let small = 64 / T::DTYPE.size();
            let tail = filter.factors_for(config.threads * small).len() + k <= 32 * small;
            config.vpt = if tail { small } else { 128 / T::DTYPE.size() };
            config = config.normalized(T::DTYPE, k).unwrap();
        }
        if auto_threads && is_ones(filter, &filter.factors_for(config.chunk()), config.chunk()) {
            config.threads = 512;
        }
        config
    }

    #[test]
    fn the_default_policy_picks_the_shapes_of_the_constants_it_replaced() {
        let sigs = [
            "(0.2 : 0.8)",
            "(0.9, -0.9 : 0.8)",
            "(0.81, -1.62, 0.81 : 1.6, -0.64)",
            "(0.001 : 0.999)",
            "(1 : 1)",
            "(1 : 0, 1)",
            "(1 : 2, -1)",
            "(1, 2, 3 : 0)",
            "(0.5 : 0.5, 0.2, 0.1, 0.05)",
        ];
        let shapes = [(0, 0), (32, 0), (512, 0), (0, 8), (0, 16), (128, 4)];
        let mut cases = 0;
        for sig in sigs {
            for dtype in [DType::F32, DType::F64, DType::I32, DType::I64] {
                for optimize in [true, false] {
                    for (threads, vpt) in shapes {
                        let options = FilterOptions {
                            optimize,
                            ..FilterOptions::default()
                        };
                        with_dtype!(dtype, T => {
                            let Ok(filter) = Filter::<T>::parse(sig, options) else { continue };
                            let config = GpuConfig { threads, vpt, ..GpuConfig::default() };
                            let old = constants_of_the_h100(&filter, config);
                            let new = resolve_shape(&filter, config, &PlrPolicy::default()).unwrap();
                            assert_eq!(new, old, "{sig} {dtype} opt={optimize} {threads}x{vpt}");
                            cases += 1;
                        })
                    }
                }
            }
        }
        assert!(cases > 200, "{cases}");
    }

    #[test]
    fn each_kind_of_filter_takes_its_own_tile() {
        let tile = |threads, bytes_per_thread, min_blocks| ScanTile {
            threads,
            bytes_per_thread,
            min_blocks,
        };
        let policy = PlrPolicy {
            tail_carry: tile(128, 64, 6),
            look_back: tile(384, 64, 2),
            prefix_sum: tile(768, 256, 1),
        };
        let shape = |sig: &str, dtype: DType| {
            with_dtype!(dtype, T => {
                let filter = Filter::<T>::parse(sig, FilterOptions::default()).unwrap();
                let c = resolve_shape(&filter, GpuConfig::default(), &policy).unwrap();
                (c.threads, c.vpt * dtype.size(), c.min_blocks)
            })
        };
        assert_eq!(shape("(0.2 : 0.8)", DType::F32), (128, 64, 6));
        assert_eq!(shape("(1 : 2, -1)", DType::I32), (384, 64, 2));
        assert_eq!(shape("(1 : 1)", DType::I32), (768, 256, 1));
        assert_eq!(shape("(1 : 1)", DType::F64), (768, 256, 1));
        // What the caller fixes stays: threads and values, and blocks per SM.
        let filter = Filter::<f32>::parse("(0.2 : 0.8)", FilterOptions::default()).unwrap();
        let fixed = GpuConfig {
            threads: 64,
            vpt: 0,
            min_blocks: 3,
            ..GpuConfig::default()
        };
        let c = resolve_shape(&filter, fixed, &policy).unwrap();
        assert_eq!((c.threads, c.vpt, c.min_blocks), (64, 16, 3));
        // A caller's shape out of range is refused before it sizes any table.
        let huge = GpuConfig {
            threads: 0,
            vpt: 1 << 40,
            ..GpuConfig::default()
        };
        assert!(resolve_shape(&filter, huge, &policy).is_err());
    }
}
