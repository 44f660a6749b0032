//! The host side of the fused cascade that needs no GPU: the coefficients checked and rounded,
//! the correction tables computed exactly (double-double powers of each section's state
//! transition, rounded once), the generated prelude, a CPU emulation of the kernel's block and
//! carry scheme, and serial references (in the element type, as scipy's `sosfilt` runs, and in
//! double-double).
//!
//! The kernel's scheme on the CPU, against the double-double cascade (scipy's
//! `butter(2, 0.1, output='sos')`, one channel of 5,000 samples, f32):
//!
//! ```
//! use sigpu_recurrence::gpu::sos_tables::{
//!     channel_error, emulate, sos_coefficients, sosfilt_extended, SosTables,
//! };
//! use sigpu_recurrence::{DType, SosConfig};
//!
//! let sos = [[0.020083365564211232, 0.040166731128422464, 0.020083365564211232,
//!             1.0, -1.5610180758007182, 0.6413515380575631]];
//! let coefs = sos_coefficients::<f32>(&sos)?;
//! let tables = SosTables::new(coefs.clone(), SosConfig::default().normalized(DType::F32)?);
//! let x: Vec<f32> = (0..5000).map(|i| ((i * 7919) % 101) as f32 / 50.0 - 1.0).collect();
//! let (y, _zf) = emulate(&tables, &x, 1, None);
//! let exact = sosfilt_extended(
//!     &[coefs[0].map(f64::from)],
//!     &x.iter().map(|&v| v as f64).collect::<Vec<_>>(),
//!     1,
//!     None,
//! );
//! assert!(channel_error(&y, &exact.0, 1) < 1e-6);
//! # Ok::<(), sigpu_recurrence::FilterError>(())
//! ```

use crate::elem::{DType, Element};
use crate::error::FilterError;
use std::fmt::Write;

/// The launch shape of the fused cascade.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct SosConfig {
    /// Threads per block (a multiple of 32, at most 1024).
    pub threads: usize,
    /// Consecutive values per thread (whole 16-byte vectors); 0 picks 128 bytes per thread.
    pub vpt: usize,
    /// Resolve every chunk's carries by the look-back even where the cascade decays fast
    /// enough for the tail carry (for tests and measurements).
    pub force_look_back: bool,
    /// Blocks per SM asked of the register allocator (`__launch_bounds__`); 0 leaves it free.
    pub min_blocks: usize,
    /// Consecutive chunks one block filters with the tail-carry kernel (0 or 1: one); after the
    /// first, a chunk's carry-ins are the previous chunk's end states. The look-back kernel
    /// always takes one.
    pub chunks_per_block: usize,
}

impl Default for SosConfig {
    fn default() -> Self {
        // 256 threads × 128 bytes (3 blocks per SM): the fastest of 128–320 threads × 32 f32
        // measured on an H100 (butter(8, 0.1), 2^26 and 2^28 samples).
        SosConfig {
            threads: 256,
            vpt: 0,
            force_look_back: false,
            min_blocks: 0,
            chunks_per_block: 1,
        }
    }
}

/// Sections beyond this are refused: the kernel unrolls every section.
pub const MAX_SECTIONS: usize = 64;

/// Static shared memory a block may use for its staging tile (48 KiB less the rest).
const MAX_TILE_BYTES: usize = 40 * 1024;

impl SosConfig {
    /// Elements per chunk (one thread block).
    pub fn chunk(&self) -> usize {
        self.threads * self.vpt
    }

    /// The shape used for `dtype`: vpt defaulted and rounded up to whole 16-byte vectors.
    pub fn normalized(&self, dtype: DType) -> Result<SosConfig, FilterError> {
        if self.threads == 0 || !self.threads.is_multiple_of(32) || self.threads > 1024 {
            return Err(FilterError::Config(format!(
                "threads per block must be a multiple of 32 up to 1024, not {}",
                self.threads
            )));
        }
        let per_vector = 16 / dtype.size();
        let vpt = match self.vpt {
            0 => 128 / dtype.size(),
            v => v.div_ceil(per_vector) * per_vector,
        };
        if vpt > 64 {
            return Err(FilterError::Config(format!(
                "{vpt} values per thread is more than the 64 supported"
            )));
        }
        if self.threads * vpt * dtype.size() > MAX_TILE_BYTES {
            return Err(FilterError::Config(format!(
                "a chunk of {} threads x {vpt} values of {dtype} needs more than the {} KiB of \
                 shared memory a block stages through",
                self.threads,
                MAX_TILE_BYTES / 1024
            )));
        }
        Ok(SosConfig { vpt, ..*self })
    }
}

/// scipy's sos rows `[b0 b1 b2 a0 a1 a2]`, checked and rounded once to `T`: what every path
/// of the cascade computes with.
pub fn sos_coefficients<T: Element>(sos: &[[f64; 6]]) -> Result<Vec<[T; 6]>, FilterError> {
    if !T::DTYPE.is_float() {
        return Err(FilterError::Coefficients(format!(
            "second-order sections run in f32 or f64, not {}",
            T::DTYPE
        )));
    }
    if sos.is_empty() {
        return Err(FilterError::Coefficients(
            "sos has no sections: scipy's layout is (n_sections, 6), n_sections >= 1".into(),
        ));
    }
    if sos.len() > MAX_SECTIONS {
        return Err(FilterError::Coefficients(format!(
            "sos has {} sections; the GPU cascade takes at most {MAX_SECTIONS}",
            sos.len()
        )));
    }
    let mut out = Vec::with_capacity(sos.len());
    for (r, row) in sos.iter().enumerate() {
        if let Some(c) = row.iter().position(|v| !v.is_finite()) {
            return Err(FilterError::Coefficients(format!(
                "sos[{r}, {c}] = {} is not finite",
                row[c]
            )));
        }
        if row[3] != 1.0 {
            return Err(FilterError::Coefficients(format!(
                "sos[{r}, 3] = {}: a0 must be 1, as scipy.signal.sosfilt requires (divide the \
                 row by it)",
                row[3]
            )));
        }
        let mut t = [T::ZERO; 6];
        for (c, v) in row.iter().enumerate() {
            t[c] = T::from_f64(*v);
            if !t[c].is_finite() {
                return Err(FilterError::Coefficients(format!(
                    "sos[{r}, {c}] = {v} does not fit in {}",
                    T::DTYPE
                )));
            }
        }
        let (a1, a2) = (t[4].to_f64(), t[5].to_f64());
        if !section_stable(a1, a2) {
            return Err(FilterError::Unstable {
                signature: format!("sos[{r}] = {row:?} (in {})", T::DTYPE),
                magnitude: pole_magnitude(a1, a2),
            });
        }
        out.push(t);
    }
    Ok(out)
}

/// Whether both roots of z² + a1 z + a2 lie strictly inside the unit circle: |a2| < 1 and
/// |a1| < 1 + a2, decided exactly for the given doubles.
pub fn section_stable(a1: f64, a2: f64) -> bool {
    if a2.abs() >= 1.0 {
        return false;
    }
    // 1 + a2 = s + e exactly.
    let (s, e) = two_sum(1.0, a2);
    let m = a1.abs();
    if m < 0.5 * s {
        return true;
    }
    if m > 2.0 * s {
        return false;
    }
    // Sterbenz: m - s is exact here.
    m - s < e
}

/// The largest root magnitude of z² + a1 z + a2 (for messages).
fn pole_magnitude(a1: f64, a2: f64) -> f64 {
    let disc = a1 * a1 - 4.0 * a2;
    if disc < 0.0 {
        a2.abs().sqrt()
    } else {
        let r = disc.sqrt();
        ((-a1 + r) / 2.0).abs().max(((-a1 - r) / 2.0).abs())
    }
}

// ---- double-double arithmetic: enough for powers of a 2x2 matrix rounded once to f64 ----

fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Dd(f64, f64);

impl Dd {
    fn from(v: f64) -> Dd {
        Dd(v, 0.0)
    }
    fn add(self, o: Dd) -> Dd {
        let (s, e) = two_sum(self.0, o.0);
        let e = e + self.1 + o.1;
        let (h, l) = two_sum(s, e);
        Dd(h, l)
    }
    fn mul(self, o: Dd) -> Dd {
        let p = self.0 * o.0;
        let e = self.0.mul_add(o.0, -p);
        let e = e + (self.0 * o.1 + self.1 * o.0);
        let (h, l) = two_sum(p, e);
        Dd(h, l)
    }
    fn neg(self) -> Dd {
        Dd(-self.0, -self.1)
    }
    fn value(self) -> f64 {
        self.0 + self.1
    }
}

/// A 2×2 matrix in double-double, row-major.
#[derive(Clone, Copy, Debug)]
struct M2([Dd; 4]);

impl M2 {
    fn identity() -> M2 {
        M2([Dd::from(1.0), Dd::default(), Dd::default(), Dd::from(1.0)])
    }
    /// A section's state transition with no input: [[-a1, 1], [-a2, 0]].
    fn transition(a1: f64, a2: f64) -> M2 {
        M2([
            Dd::from(a1).neg(),
            Dd::from(1.0),
            Dd::from(a2).neg(),
            Dd::default(),
        ])
    }
    fn mul(&self, o: &M2) -> M2 {
        let (a, b) = (&self.0, &o.0);
        M2([
            a[0].mul(b[0]).add(a[1].mul(b[2])),
            a[0].mul(b[1]).add(a[1].mul(b[3])),
            a[2].mul(b[0]).add(a[3].mul(b[2])),
            a[2].mul(b[1]).add(a[3].mul(b[3])),
        ])
    }
    fn pow(&self, mut e: usize) -> M2 {
        let (mut r, mut b) = (M2::identity(), *self);
        while e > 0 {
            if e & 1 == 1 {
                r = r.mul(&b);
            }
            b = b.mul(&b);
            e >>= 1;
        }
        r
    }
    fn values(&self) -> [f64; 4] {
        self.0.map(Dd::value)
    }
}

/// Every table the kernel (and its emulation) uses, for one cascade, element type and shape.
#[derive(Clone, Debug)]
pub struct SosTables<T> {
    pub coefs: Vec<[T; 6]>,
    pub config: SosConfig,
    /// [s][j][i] = (A^i)[0][j], i < V.
    pub f: Vec<[Vec<T>; 2]>,
    /// [s][k] = A^(2^k V), k < 5.
    pub warp_merge: Vec<[[T; 4]; 5]>,
    /// [s][k] = A^(2^k 32 V), k < log2(warps) (at least one entry).
    pub block_merge: Vec<Vec<[T; 4]>>,
    /// [s][w] = A^(w 32 V) in f64.
    pub warp_pow: Vec<Vec<[f64; 4]>>,
    /// [s][l] = A^(l V), l < 32: the device buffer `lane_pow`.
    pub lane_pow: Vec<T>,
    /// [s][l] = A^(l CHUNK), l ≤ 32, in f64: the device buffer `chunk_pow`.
    pub chunk_pow: Vec<f64>,
    /// [s] = A^(32 V) in f64.
    pub warp_step: Vec<[f64; 4]>,
    /// The largest state the whole cascade keeps, after 32 V samples of zero input, from any
    /// unit initial state of any section.
    pub decay: f64,
    /// Each block recomputes its carry-ins from the previous chunk's last 32 V inputs (no
    /// look-back): `decay` is below a thousandth of `T`'s rounding and not forced off.
    pub tail: bool,
}

impl<T: Element> SosTables<T> {
    pub fn new(coefs: Vec<[T; 6]>, config: SosConfig) -> SosTables<T> {
        let (v, warps) = (config.vpt, config.threads / 32);
        let chunk = config.chunk();
        let rnd = |m: &M2| m.values().map(T::from_f64);
        let mut t = SosTables {
            coefs,
            config,
            f: Vec::new(),
            warp_merge: Vec::new(),
            block_merge: Vec::new(),
            warp_pow: Vec::new(),
            lane_pow: Vec::new(),
            chunk_pow: Vec::new(),
            warp_step: Vec::new(),
            decay: 0.0,
            tail: false,
        };
        for c in &t.coefs {
            let a = M2::transition(c[4].to_f64(), c[5].to_f64());
            let mut f = [Vec::with_capacity(v), Vec::with_capacity(v)];
            let mut p = M2::identity();
            for _ in 0..v {
                f[0].push(T::from_f64(p.0[0].value()));
                f[1].push(T::from_f64(p.0[1].value()));
                p = p.mul(&a);
            }
            t.f.push(f);
            let av = a.pow(v);
            t.warp_merge
                .push(std::array::from_fn(|k| rnd(&av.pow(1 << k))));
            let a32 = av.pow(32);
            t.warp_step.push(a32.values());
            let log_warps = scan_steps(warps);
            t.block_merge.push(
                (0..log_warps.max(1))
                    .map(|k| rnd(&a32.pow(1 << k)))
                    .collect(),
            );
            t.warp_pow
                .push((0..warps).map(|w| a32.pow(w).values()).collect());
            for l in 0..32 {
                t.lane_pow.extend(rnd(&av.pow(l)));
            }
            let ac = a.pow(chunk);
            for l in 0..=32 {
                t.chunk_pow.extend(ac.pow(l).values());
            }
        }
        let c64: Vec<[f64; 6]> = t.coefs.iter().map(|r| r.map(|x| x.to_f64())).collect();
        t.decay = cascade_decay(&c64, 32 * v);
        let eps = if T::DTYPE == DType::F32 {
            f32::EPSILON as f64
        } else {
            f64::EPSILON
        };
        t.tail = !config.force_look_back && t.decay < 1e-3 * eps;
        t
    }

    /// Chunks one block filters: `config.chunks_per_block` with the tail carry, else 1.
    pub fn chunks_per_block(&self) -> usize {
        if self.tail {
            self.config.chunks_per_block.max(1)
        } else {
            1
        }
    }

    /// Threads per block: the chunk's, and the tail warp's.
    pub fn block_threads(&self) -> usize {
        self.config.threads + if self.tail { 32 } else { 0 }
    }

    pub fn sections(&self) -> usize {
        self.coefs.len()
    }

    /// The generated prelude: types, shape, the __constant__ tables, then the include of
    /// `sos.cuh`.
    pub fn prelude(&self) -> String {
        let (v, threads) = (self.config.vpt, self.config.threads);
        let warps = threads / 32;
        let s = self.sections();
        let lit = |x: T| x.c_literal();
        let lit64 = |x: f64| x.c_literal();
        let mut w = String::new();
        let _ = writeln!(
            w,
            "// Generated by sigpu-recurrence: do not edit; regenerate instead.\n\
             // scipy sosfilt cascade of {s} section(s) in {}, fused; chunks of {threads} threads x {v} values.",
            T::DTYPE
        );
        for (i, c) in self.coefs.iter().enumerate() {
            let row: Vec<String> = c.iter().map(|x| format!("{x:?}")).collect();
            let _ = writeln!(w, "//   sos[{i}] = [{}]", row.join(", "));
        }
        let ctype = if T::DTYPE == DType::F32 {
            "float"
        } else {
            "double"
        };
        let _ = writeln!(w, "typedef {ctype} T;");
        let _ = writeln!(w, "#define S {s}\n#define V {v}\n#define THREADS {threads}");
        let _ = writeln!(
            w,
            "#define WARPS {warps}\n#define LOG_WARPS {}\n#define CHUNK {}",
            scan_steps(warps),
            threads * v
        );
        let _ = writeln!(w, "#define Q (V * (int)sizeof(T) / 16)");
        let _ = writeln!(
            w,
            "#define SOS_TAIL {}  // carry-ins recomputed by a tail warp (cascade decay {:.1e} over 32 V)\n#define BLOCK_THREADS {}",
            u8::from(self.tail),
            self.decay,
            self.block_threads()
        );
        let _ = writeln!(w, "#define MIN_BLOCKS {}", self.config.min_blocks);
        let _ = writeln!(
            w,
            "#define CPB {}  // chunks per block",
            self.chunks_per_block()
        );
        let rows = |items: Vec<String>| format!("{{{}}}", items.join(", "));
        let mat = |m: &[T; 4]| rows(m.iter().map(|x| lit(*x)).collect());
        let mat64 = |m: &[f64; 4]| rows(m.iter().map(|x| lit64(*x)).collect());
        let _ = writeln!(w, "template <int s> struct SosCoef;");
        for (i, c) in self.coefs.iter().enumerate() {
            let neg = |x: T| x.mul(T::from_f64(-1.0));
            let _ = writeln!(
                w,
                "template <> struct SosCoef<{i}> {{ static constexpr T b0 = {}, b1 = {}, b2 = {}, na1 = {}, na2 = {}; }};",
                lit(c[0]),
                lit(c[1]),
                lit(c[2]),
                lit(neg(c[4])),
                lit(neg(c[5]))
            );
        }
        let a: Vec<String> = self
            .coefs
            .iter()
            .map(|c| rows(c[4..].iter().map(|x| lit(*x)).collect()))
            .collect();
        let _ = writeln!(w, "__constant__ T SOS_A[S][2] = {};", rows(a));
        let f: Vec<String> = self
            .f
            .iter()
            .map(|fs| {
                rows(
                    fs.iter()
                        .map(|t| rows(t.iter().map(|x| lit(*x)).collect()))
                        .collect(),
                )
            })
            .collect();
        let _ = writeln!(w, "__constant__ T SOS_F[S][2][V] = {};", rows(f));
        let wm: Vec<String> = self
            .warp_merge
            .iter()
            .map(|ms| rows(ms.iter().map(mat).collect()))
            .collect();
        let _ = writeln!(w, "__constant__ T SOS_WM[S][5][4] = {};", rows(wm));
        let bm_len = self.block_merge[0].len();
        let bm: Vec<String> = self
            .block_merge
            .iter()
            .map(|ms| rows(ms.iter().map(mat).collect()))
            .collect();
        let _ = writeln!(w, "__constant__ T SOS_BM[S][{bm_len}][4] = {};", rows(bm));
        let wp: Vec<String> = self
            .warp_pow
            .iter()
            .map(|ms| rows(ms.iter().map(mat64).collect()))
            .collect();
        let _ = writeln!(w, "__constant__ double SOS_WP[S][WARPS][4] = {};", rows(wp));
        let w32: Vec<String> = self.warp_step.iter().map(mat64).collect();
        let _ = writeln!(w, "__constant__ double SOS_W32[S][4] = {};", rows(w32));
        let calls: Vec<String> = (0..s).map(|i| format!("SOS_SECTION({i})")).collect();
        let _ = writeln!(w, "#define SOS_SECTIONS {}", calls.join(" "));
        let _ = writeln!(w, "\n#include \"{SOS_HEADER_NAME}\"");
        w
    }
}

/// The largest state (any section) the cascade holds after `w` samples of zero input, from
/// each unit initial state of each section, in f64: how much a chunk's carry-in still matters
/// `w` samples on (0 when it is far below every rounding).
pub fn cascade_decay(coefs: &[[f64; 6]], w: usize) -> f64 {
    let ns = coefs.len();
    let mut worst = 0.0f64;
    for start in 0..2 * ns {
        let mut z = vec![0.0f64; 2 * ns];
        z[start] = 1.0;
        for _ in 0..w {
            let mut u = 0.0;
            for (s, c) in coefs.iter().enumerate() {
                let yv = c[0] * u + z[2 * s];
                z[2 * s] = c[1] * u - c[4] * yv + z[2 * s + 1];
                z[2 * s + 1] = c[2] * u - c[5] * yv;
                u = yv;
            }
        }
        worst = z.iter().fold(worst, |m, v| m.max(v.abs()));
    }
    worst
}

/// Doubling steps of a scan over `warps` lanes: ⌈log2 warps⌉ (any count, not only powers of 2).
pub fn scan_steps(warps: usize) -> usize {
    if warps <= 1 {
        0
    } else {
        ((warps - 1).ilog2() + 1) as usize
    }
}

/// The header the generated prelude includes: the kernel itself.
pub const SOS_HEADER: &str = include_str!("../../kernels/sos.cuh");
/// The name the prelude includes [`SOS_HEADER`] by.
pub const SOS_HEADER_NAME: &str = "sos.cuh";
/// The kernel's name.
pub const SOS_KERNEL: &str = "sos_filter";

/// 8 hex digits of FNV-1a: the generated file's name changes whenever its text does.
pub(crate) fn short_hash(s: &str) -> String {
    let h = s.bytes().fold(0x811c_9dc5u32, |h, b| {
        (h ^ b as u32).wrapping_mul(0x0100_0193)
    });
    format!("{h:08x}")
}

/// `m · (p0, p1)` for a row-major 2×2 matrix.
fn mv<T: Element>(m: &[T; 4], p0: T, p1: T) -> (T, T) {
    (
        m[0].mul(p0).add(m[1].mul(p1)),
        m[2].mul(p0).add(m[3].mul(p1)),
    )
}

/// The kernel's computation on the CPU, step for step in the same arithmetic (the chunk
/// chain serially instead of by look-back, which folds the same values): what the GPU
/// must reproduce up to rounding, and how its scheme is tested without one. `x` holds
/// `channels` channels one after another; zi / zf are [channel][section][2].
pub fn emulate<T: Element>(
    t: &SosTables<T>,
    x: &[T],
    channels: usize,
    zi: Option<&[T]>,
) -> (Vec<T>, Vec<T>) {
    let (v, threads, ns) = (t.config.vpt, t.config.threads, t.sections());
    let warps = threads / 32;
    let chunk = t.config.chunk();
    let n = x.len().checked_div(channels).unwrap_or(0);
    let mut y = x.to_vec();
    let mut zf = vec![T::ZERO; channels * ns * 2];
    for ch in 0..channels {
        let mut carry: Vec<(f64, f64)> = (0..ns)
            .map(|s| match zi {
                Some(z) => (
                    z[(ch * ns + s) * 2].to_f64(),
                    z[(ch * ns + s) * 2 + 1].to_f64(),
                ),
                None => (0.0, 0.0),
            })
            .collect();
        for start in (0..n.max(1)).step_by(chunk).take_while(|&s| s < n) {
            let mut buf: Vec<T> = (0..chunk)
                .map(|i| {
                    if start + i < n {
                        y[ch * n + start + i]
                    } else {
                        T::ZERO
                    }
                })
                .collect();
            let last_chunk = start + chunk >= n;
            for (s, c) in t.coefs.iter().enumerate() {
                let (b0, b1, b2, a1, a2) = (c[0], c[1], c[2], c[4], c[5]);
                let mut agg = vec![(T::ZERO, T::ZERO); threads];
                let mut cap = vec![None; threads];
                for th in 0..threads {
                    let (mut d0, mut d1) = (T::ZERO, T::ZERO);
                    for i in 0..v {
                        let pos = th * v + i;
                        let u = buf[pos];
                        let yv = b0.mul(u).add(d0);
                        d0 = b1
                            .mul(u)
                            .add(T::ZERO.add(a1.mul(yv)).mul(T::from_f64(-1.0)))
                            .add(d1);
                        d1 = b2.mul(u).add(a2.mul(yv).mul(T::from_f64(-1.0)));
                        buf[pos] = yv;
                        if last_chunk && start + pos == n - 1 {
                            cap[th] = Some((i, d0, d1));
                        }
                    }
                    agg[th] = (d0, d1);
                }
                // warp scans
                let mut incl = agg.clone();
                for w in 0..warps {
                    for k in 0..5 {
                        let d = 1 << k;
                        let prev = incl.clone();
                        for lane in d..32 {
                            let (p0, p1) = prev[w * 32 + lane - d];
                            let (q0, q1) = mv(&t.warp_merge[s][k], p0, p1);
                            let (a0, a1) = prev[w * 32 + lane];
                            incl[w * 32 + lane] = (a0.add(q0), a1.add(q1));
                        }
                    }
                }
                // block scan over warps
                let mut wsum: Vec<(T, T)> = (0..warps).map(|w| incl[w * 32 + 31]).collect();
                for k in 0..scan_steps(warps) {
                    let d = 1 << k;
                    let prev = wsum.clone();
                    for w in d..warps {
                        let (q0, q1) = mv(&t.block_merge[s][k], prev[w - d].0, prev[w - d].1);
                        wsum[w] = (prev[w].0.add(q0), prev[w].1.add(q1));
                    }
                }
                let (cin0, cin1) = carry[s];
                let pc = &t.chunk_pow[(s * 33 + 1) * 4..(s * 33 + 2) * 4];
                let g = wsum[warps - 1];
                carry[s] = (
                    g.0.to_f64() + pc[0] * cin0 + pc[1] * cin1,
                    g.1.to_f64() + pc[2] * cin0 + pc[3] * cin1,
                );
                for th in 0..threads {
                    let (w, lane) = (th / 32, th % 32);
                    let wp = &t.warp_pow[s][w];
                    let mut t0 = wp[0] * cin0 + wp[1] * cin1;
                    let mut t1 = wp[2] * cin0 + wp[3] * cin1;
                    if w > 0 {
                        t0 += wsum[w - 1].0.to_f64();
                        t1 += wsum[w - 1].1.to_f64();
                    }
                    let (tw0, tw1) = (T::from_f64(t0), T::from_f64(t1));
                    let (e0, e1) = if lane == 0 {
                        (T::ZERO, T::ZERO)
                    } else {
                        incl[th - 1]
                    };
                    let lp = &t.lane_pow[(s * 32 + lane) * 4..(s * 32 + lane + 1) * 4];
                    let c0 = e0.add(lp[0].mul(tw0)).add(lp[1].mul(tw1));
                    let c1 = e1.add(lp[2].mul(tw0)).add(lp[3].mul(tw1));
                    for i in 0..v {
                        let pos = th * v + i;
                        buf[pos] = buf[pos].add(t.f[s][0][i].mul(c0).add(t.f[s][1][i].mul(c1)));
                    }
                    if let Some((at, z0, z1)) = cap[th] {
                        let (mut q0, mut q1) = (c0.to_f64(), c1.to_f64());
                        for _ in 0..=at {
                            let yv = q0;
                            q0 = -c[4].to_f64() * yv + q1;
                            q1 = -c[5].to_f64() * yv;
                        }
                        zf[(ch * ns + s) * 2] = T::from_f64(z0.to_f64() + q0);
                        zf[(ch * ns + s) * 2 + 1] = T::from_f64(z1.to_f64() + q1);
                    }
                }
            }
            for i in 0..chunk.min(n - start) {
                y[ch * n + start + i] = buf[i];
            }
        }
        if n == 0 {
            if let Some(z) = zi {
                zf[ch * ns * 2..(ch + 1) * ns * 2]
                    .copy_from_slice(&z[ch * ns * 2..(ch + 1) * ns * 2]);
            }
        }
    }
    (y, zf)
}

/// scipy's `sosfilt` loop in `T` (sample by sample through every section, transposed direct
/// form II): the serial run whose error the accuracy contract is measured against. Returns
/// (y, zf) for `channels` channels, zi / zf [channel][section][2].
pub fn sosfilt_serial<T: Element>(
    coefs: &[[T; 6]],
    x: &[T],
    channels: usize,
    zi: Option<&[T]>,
) -> (Vec<T>, Vec<T>) {
    let ns = coefs.len();
    let n = x.len().checked_div(channels).unwrap_or(0);
    let mut y = vec![T::ZERO; x.len()];
    let mut zf = vec![T::ZERO; channels * ns * 2];
    for ch in 0..channels {
        let z = &mut zf[ch * ns * 2..(ch + 1) * ns * 2];
        if let Some(zi) = zi {
            z.copy_from_slice(&zi[ch * ns * 2..(ch + 1) * ns * 2]);
        }
        for i in 0..n {
            let mut u = x[ch * n + i];
            for (s, c) in coefs.iter().enumerate() {
                let yv = c[0].mul(u).add(z[2 * s]);
                let neg = |a: T| a.mul(T::from_f64(-1.0));
                z[2 * s] = c[1].mul(u).add(neg(c[4].mul(yv))).add(z[2 * s + 1]);
                z[2 * s + 1] = c[2].mul(u).add(neg(c[5].mul(yv)));
                u = yv;
            }
            y[ch * n + i] = u;
        }
    }
    (y, zf)
}

/// The same loop in double-double on the given coefficients (as f64): an extended-precision
/// reference. Returns (y, zf) rounded to f64.
pub fn sosfilt_extended(
    coefs: &[[f64; 6]],
    x: &[f64],
    channels: usize,
    zi: Option<&[f64]>,
) -> (Vec<f64>, Vec<f64>) {
    let ns = coefs.len();
    let n = x.len().checked_div(channels).unwrap_or(0);
    let mut y = vec![0.0; x.len()];
    let mut zf = vec![0.0; channels * ns * 2];
    let c: Vec<[Dd; 6]> = coefs.iter().map(|r| r.map(Dd::from)).collect();
    for ch in 0..channels {
        let mut z: Vec<Dd> = (0..ns * 2)
            .map(|k| Dd::from(zi.map_or(0.0, |zi| zi[ch * ns * 2 + k])))
            .collect();
        for i in 0..n {
            let mut u = Dd::from(x[ch * n + i]);
            for (s, c) in c.iter().enumerate() {
                let yv = c[0].mul(u).add(z[2 * s]);
                z[2 * s] = c[1].mul(u).add(c[4].mul(yv).neg()).add(z[2 * s + 1]);
                z[2 * s + 1] = c[2].mul(u).add(c[5].mul(yv).neg());
                u = yv;
            }
            y[ch * n + i] = u.value();
        }
        for (k, v) in z.iter().enumerate() {
            zf[ch * ns * 2 + k] = v.value();
        }
    }
    (y, zf)
}

/// max |got − want| / max |want| over each channel of length `n` (the worst channel); NaN in
/// `got` counts as infinite.
pub fn channel_error<T: Element>(got: &[T], want: &[f64], channels: usize) -> f64 {
    let n = want.len().checked_div(channels).unwrap_or(0);
    (0..channels)
        .map(|c| {
            let w = &want[c * n..(c + 1) * n];
            let scale = w
                .iter()
                .fold(0.0f64, |m, v| m.max(v.abs()))
                .max(f64::MIN_POSITIVE);
            got[c * n..(c + 1) * n]
                .iter()
                .zip(w)
                .map(|(g, w)| {
                    let g = g.to_f64();
                    if g.is_nan() {
                        f64::INFINITY
                    } else {
                        (g - w).abs() / scale
                    }
                })
                .fold(0.0, f64::max)
        })
        .fold(0.0, f64::max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// scipy.signal.butter(8, 0.1, output='sos') and butter(8, 0.005, output='sos').
    pub(crate) const BUTTER8_01: [[f64; 6]; 4] = [
        [
            1.7625537291912854e-07,
            3.525107458382571e-07,
            1.7625537291912854e-07,
            1.0,
            -1.4597062543768673,
            0.5348259849616107,
        ],
        [1.0, 2.0, 1.0, 1.0, -1.5132907658389045, 0.5911680745682053],
        [1.0, 2.0, 1.0, 1.0, -1.6234056976410005, 0.7069497656826822],
        [1.0, 2.0, 1.0, 1.0, -1.7939618452517712, 0.8862831120070135],
    ];
    const BUTTER8_0005: [[f64; 6]; 4] = [
        [
            1.390933448977224e-17,
            2.781866897954448e-17,
            1.390933448977224e-17,
            1.0,
            -1.9694134549270441,
            0.9696564465548368,
        ],
        [1.0, 2.0, 1.0, 1.0, -1.973972869306222, 0.9742164234870525],
        [1.0, 2.0, 1.0, 1.0, -1.982453350239147, 0.9826979507649495],
        [1.0, 2.0, 1.0, 1.0, -1.9936440506040927, 0.993890031869166],
    ];

    fn to64<T: Element>(v: &[T]) -> Vec<f64> {
        v.iter().map(|x| x.to_f64()).collect()
    }

    fn coefs64<T: Element>(c: &[[T; 6]]) -> Vec<[f64; 6]> {
        c.iter().map(|r| r.map(|x| x.to_f64())).collect()
    }

    /// The emulated kernel against the extended reference, within 4x the serial run's error.
    fn emulation_keeps_contract<T: Element>(
        sos: &[[f64; 6]],
        config: SosConfig,
        channels: usize,
        n: usize,
        with_zi: bool,
        seed: u64,
    ) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let coefs = sos_coefficients::<T>(sos).unwrap();
        let config = config.normalized(T::DTYPE).unwrap();
        let t = SosTables::new(coefs.clone(), config);
        let x: Vec<T> = (0..channels * n)
            .map(|_| T::from_f64(rng.random_range(-1.0..1.0)))
            .collect();
        let zi: Option<Vec<T>> = with_zi.then(|| {
            (0..channels * sos.len() * 2)
                .map(|_| T::from_f64(rng.random_range(-0.5..0.5)))
                .collect()
        });
        let (y, zf) = emulate(&t, &x, channels, zi.as_deref());
        let (ys, zfs) = sosfilt_serial(&coefs, &x, channels, zi.as_deref());
        let zi64 = zi.as_deref().map(to64);
        let (yr, zfr) = sosfilt_extended(&coefs64(&coefs), &to64(&x), channels, zi64.as_deref());
        let (err, serial) = (
            channel_error(&y, &yr, channels),
            channel_error(&ys, &yr, channels),
        );
        let floor = 8.0
            * if T::DTYPE == DType::F32 {
                f32::EPSILON as f64
            } else {
                f64::EPSILON
            };
        assert!(
            err <= (4.0 * serial).max(floor),
            "{} n={n}: emulated {err:e}, serial {serial:e}",
            T::DTYPE
        );
        let scale = yr.iter().fold(1e-300f64, |m, v| m.max(v.abs()));
        let zerr = to64(&zf)
            .iter()
            .zip(&zfr)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max)
            / scale;
        let zserial = to64(&zfs)
            .iter()
            .zip(&zfr)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max)
            / scale;
        assert!(
            zerr <= (4.0 * zserial).max(floor),
            "zf {zerr:e} vs serial {zserial:e}"
        );
    }

    const SMALL: SosConfig = SosConfig {
        threads: 64,
        vpt: 8,
        force_look_back: false,
        min_blocks: 0,
        chunks_per_block: 1,
    };

    #[test]
    fn emulated_kernel_matches_the_reference() {
        for (i, n) in [1usize, 2, 7, 511, 512, 513, 3 * 512 + 5, 20_011]
            .into_iter()
            .enumerate()
        {
            emulation_keeps_contract::<f32>(&BUTTER8_01, SMALL, 2, n, true, i as u64);
            emulation_keeps_contract::<f64>(&BUTTER8_01, SMALL, 2, n, i % 2 == 0, 100 + i as u64);
        }
        emulation_keeps_contract::<f32>(&BUTTER8_0005, SMALL, 1, 100_003, true, 7);
        emulation_keeps_contract::<f64>(&BUTTER8_0005, SMALL, 1, 100_003, true, 8);
        emulation_keeps_contract::<f32>(&BUTTER8_01, SosConfig::default(), 1, 70_001, false, 9);
    }

    #[test]
    fn warp_counts_that_are_not_powers_of_two_scan_fully() {
        assert_eq!(
            (1..=10).map(scan_steps).collect::<Vec<_>>(),
            [0, 1, 2, 2, 3, 3, 3, 3, 4, 4]
        );
        // 10 and 3 warps, slow poles: every warp's aggregate reaches the later warps.
        for threads in [320, 96] {
            let config = SosConfig {
                threads,
                vpt: 8,
                ..SosConfig::default()
            };
            emulation_keeps_contract::<f64>(&BUTTER8_0005, config, 1, 40_007, true, 11);
            emulation_keeps_contract::<f32>(&BUTTER8_0005, config, 2, 30_011, false, 12);
        }
    }

    #[test]
    fn tables_hold_exact_powers() {
        let coefs = sos_coefficients::<f64>(&BUTTER8_0005).unwrap();
        let t = SosTables::new(
            coefs.clone(),
            SosConfig::default().normalized(DType::F64).unwrap(),
        );
        // A^(32 CHUNK) from the table vs 32 CHUNK steps of the recurrence in double-double.
        let (a1, a2) = (coefs[3][4], coefs[3][5]);
        let m = M2::transition(a1, a2);
        let mut p = M2::identity();
        for _ in 0..t.config.chunk() {
            p = p.mul(&m);
        }
        let want = p.values();
        let got = &t.chunk_pow[(3 * 33 + 1) * 4..(3 * 33 + 2) * 4];
        for k in 0..4 {
            assert!(
                (got[k] - want[k]).abs() <= 1e-15 * want[k].abs().max(1e-300),
                "{got:?} {want:?}"
            );
        }
    }

    #[test]
    fn stability_is_exact() {
        assert!(section_stable(-1.9936440506040927, 0.993890031869166));
        assert!(!section_stable(
            -2.0,
            1.0 - f64::EPSILON / 2.0 - 1e-17 + 0.0
        ));
        assert!(!section_stable(0.0, 1.0));
        assert!(!section_stable(-1.5, 0.5)); // a root at 1
        assert!(section_stable(-1.5 + 1e-15, 0.5));
        assert!(!section_stable(1.0, 0.0)); // a root at -1
        assert!(section_stable(0.3, -0.69));
        assert!(!section_stable(0.32, -0.69)); // 1 + a2 = 0.31 < |a1|
    }

    #[test]
    fn bad_rows_are_refused_with_their_place() {
        let mut s = BUTTER8_01;
        s[2][3] = 0.5;
        let e = sos_coefficients::<f32>(&s).unwrap_err().to_string();
        assert!(
            e.contains("sos[2, 3] = 0.5") && e.contains("a0 must be 1"),
            "{e}"
        );
        let mut s = BUTTER8_01;
        s[1][4] = f64::NAN;
        let e = sos_coefficients::<f64>(&s).unwrap_err().to_string();
        assert!(e.contains("sos[1, 4]") && e.contains("not finite"), "{e}");
        let e = sos_coefficients::<f32>(&[]).unwrap_err().to_string();
        assert!(e.contains("no sections"), "{e}");
        let e = sos_coefficients::<f32>(&[[1.0, 0.0, 0.0, 1.0, 0.0, 1e300]])
            .unwrap_err()
            .to_string();
        assert!(e.contains("sos[0, 5]") && e.contains("f32"), "{e}");
        let e = sos_coefficients::<f64>(&[[1.0, 0.0, 0.0, 1.0, -2.0, 1.0]])
            .unwrap_err()
            .to_string();
        assert!(e.contains("unstable"), "{e}");
        let e = sos_coefficients::<i32>(&BUTTER8_01)
            .unwrap_err()
            .to_string();
        assert!(e.contains("f32 or f64"), "{e}");
    }

    #[test]
    fn serial_matches_extended_and_halves_chain() {
        // zi/zf round trip: two halves with the carried state equal the whole.
        let coefs = sos_coefficients::<f64>(&BUTTER8_01).unwrap();
        let x: Vec<f64> = (0..1001)
            .map(|i| ((i * 7919) % 101) as f64 / 50.0 - 1.0)
            .collect();
        let (y, zf) = sosfilt_extended(&BUTTER8_01, &x, 1, None);
        let (y1, z1) = sosfilt_extended(&BUTTER8_01, &x[..400], 1, None);
        let (y2, z2) = sosfilt_extended(&BUTTER8_01, &x[400..], 1, Some(&z1));
        // The carried state is rounded to f64 between the halves: equal to that rounding.
        assert!(channel_error(&[y1, y2].concat(), &y, 1) < 1e-15);
        assert!(z2.iter().zip(&zf).all(|(a, b)| (a - b).abs() < 1e-15));
        let (ys, _) = sosfilt_serial(&coefs, &x, 1, None);
        assert!(channel_error(&ys, &y, 1) < 1e-13);
    }
}
