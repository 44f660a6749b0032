//! s_b and d_b on the GPU: tables uploaded as buffers (Horner) or textures (order 1 and 2),
//! kernels from `kernels/lns.cu`, certification over every input, and self-checks.

use crate::certify::{certify_results, Certificate, Which};
use crate::format::Format;
use crate::method::Method;
use crate::tables::{Func, Reader, Tables};
use crate::AddSub;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sigpu_runtime::cuda::cudarc::driver::{DeviceRepr, PushKernelArg};
use sigpu_runtime::cuda::{
    grid_1d, Check, CheckReport, Coordinates, DeviceBuffer, Error, Filter, Gpu, KernelSource,
    Result, Texture, TextureDesc, Tolerance,
};

/// The LNS kernels (`kernels/lns.cu`).
pub fn kernels() -> KernelSource {
    KernelSource::embedded("lns.cu", include_str!("../kernels/lns.cu"))
}

/// Table geometry as the kernels take it (`struct Geo` in lns.cu).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Geo {
    f: i32,
    shift: i32,
    far_segments: i32,
    near_shift: i32,
    log2m_bits: i32,
    z0: i32,
    log_bits: i32,
}

// SAFETY: a plain #[repr(C)] struct of i32s, laid out as `struct Geo` in lns.cu.
unsafe impl DeviceRepr for Geo {}

/// Where a method's tables live on the device: owned here so they outlive every launch that
/// uses their handles.
#[derive(Default)]
struct Storage {
    _buffers: Vec<DeviceBuffer<f32>>,
    _textures: Vec<Texture<f32>>,
}

/// One method for one format, ready to run on a GPU.
pub struct GpuMethod {
    pub method: Method,
    pub format: Format,
    /// The tables the CPU twin reads (table methods only).
    pub tables: Option<Tables>,
    geo: Geo,
    handles: [u64; 4],
    _storage: Storage,
}

const FUNCS: [Func; 4] = [Func::Sb, Func::DbFar, Func::H, Func::Log2M];

impl GpuMethod {
    pub fn new(gpu: &Gpu, method: Method, format: Format) -> Result<GpuMethod> {
        // The kernels keep codes in 32-bit integers, segment offsets included.
        if format.essential_zero_code() < -(1i64 << 30) {
            return Err(Error::Invalid(format!(
                "{format}: the GPU kernels take formats with F ≤ 28"
            )));
        }
        let tables = method
            .tables(format)
            .transpose()
            .map_err(|e| Error::Invalid(e.to_string()))?;
        let mut geo = Geo {
            f: format.frac_bits as i32,
            z0: format.essential_zero_code() as i32,
            log_bits: format.log_bits() as i32,
            ..Geo::default()
        };
        let (handles, storage) = match &tables {
            None => ([0; 4], Storage::default()),
            Some(t) => {
                let g = &t.geometry;
                geo.shift = g.shift as i32;
                geo.far_segments = g.far_segments as i32;
                geo.near_shift = g.near_shift as i32;
                geo.log2m_bits = g.log2m_bits as i32;
                upload(gpu, t)?
            }
        };
        Ok(GpuMethod {
            method,
            format,
            tables,
            geo,
            handles,
            _storage: storage,
        })
    }

    /// Table handles as the kernels take them (device pointers or texture objects).
    pub(crate) fn handles(&self) -> [u64; 4] {
        self.handles
    }

    pub(crate) fn geo(&self) -> &Geo {
        &self.geo
    }

    /// The method's codes for inputs start .. start + n.
    pub fn eval(&self, gpu: &Gpu, func: Which, start: i64, n: usize) -> Result<Vec<i64>> {
        let name = format!(
            "lns_{}_{}",
            if func == Which::Sb { "sb" } else { "db" },
            self.method
        );
        let f = gpu.function(&kernels(), &name)?;
        let n32 =
            i32::try_from(n).map_err(|_| Error::Invalid(format!("{n} inputs in one launch")))?;
        let mut out = gpu.alloc_poisoned::<i32>(n)?;
        let [t0, t1, t2, t3] = self.handles;
        let mut launch = gpu.stream().launch_builder(&f);
        launch
            .arg(&self.geo)
            .arg(&t0)
            .arg(&t1)
            .arg(&t2)
            .arg(&t3)
            .arg(&start)
            .arg(&n32)
            .arg(&mut out);
        // SAFETY: arguments match LNS_KERNEL's signature; `out` holds n elements; the tables
        // behind the handles live as long as `self`.
        unsafe { launch.launch(grid_1d(n, 256)) }
            .map_err(|e| Error::Invalid(format!("launching {name}: {e}")))?;
        Ok(gpu.download(&out)?.into_iter().map(i64::from).collect())
    }

    /// out[i] = a[i] + b[i] on LNS words, on the device (grid-stride, streaming loads). Words
    /// are `u32`, or `u16` for formats of at most 16 bits (lns16), which halves the traffic.
    pub fn add<W: LnsWord>(
        &self,
        gpu: &Gpu,
        a: &DeviceBuffer<W>,
        b: &DeviceBuffer<W>,
        out: &mut DeviceBuffer<W>,
    ) -> Result<()> {
        self.add_sub(gpu, a, b, out, false)
    }

    /// out[i] = a[i] − b[i] on LNS words, on the device.
    pub fn sub<W: LnsWord>(
        &self,
        gpu: &Gpu,
        a: &DeviceBuffer<W>,
        b: &DeviceBuffer<W>,
        out: &mut DeviceBuffer<W>,
    ) -> Result<()> {
        self.add_sub(gpu, a, b, out, true)
    }

    fn add_sub<W: LnsWord>(
        &self,
        gpu: &Gpu,
        a: &DeviceBuffer<W>,
        b: &DeviceBuffer<W>,
        out: &mut DeviceBuffer<W>,
        negate_b: bool,
    ) -> Result<()> {
        let n = same_lengths("add/sub", a, b, out)?;
        if self.format.word_bits() > W::BITS {
            return Err(Error::Invalid(format!(
                "{} words hold {}-bit {} values: use u32 words",
                W::NAME,
                self.format.word_bits(),
                self.format
            )));
        }
        let name = format!("lns_add_{}{}", self.method, W::SUFFIX);
        let f = gpu.function(&kernels(), &name)?;
        let n64 = n as u64;
        let negate = negate_b as i32;
        let [t0, t1, t2, t3] = self.handles;
        let mut launch = gpu.stream().launch_builder(&f);
        launch
            .arg(&self.geo)
            .arg(&t0)
            .arg(&t1)
            .arg(&t2)
            .arg(&t3)
            .arg(a)
            .arg(b)
            .arg(out)
            .arg(&n64)
            .arg(&negate);
        // SAFETY: arguments match LNS_ADD_KERNEL's entry for W; all three buffers hold n words;
        // the tables behind the handles live as long as `self`.
        unsafe { launch.launch(streaming_config(gpu, n)) }
            .map(drop)
            .map_err(|e| Error::Invalid(format!("launching {name}: {e}")))
    }

    /// Evaluates every input of the format on the GPU and certifies the results.
    pub fn certify(&self, gpu: &Gpu, func: Which, progress: &dyn Fn(u64)) -> Result<Certificate> {
        let inputs = func.inputs(self.format);
        let (start, end) = (*inputs.start(), *inputs.end());
        let mut results = Vec::with_capacity((end - start + 1) as usize);
        let chunk = 1i64 << 25;
        let mut at = start;
        while at <= end {
            let n = chunk.min(end - at + 1);
            results.extend(self.eval(gpu, func, at, n as usize)?);
            progress(n as u64);
            at += n;
        }
        let device = format!("{} ({})", gpu.info().name, gpu.arch());
        Ok(certify_results(
            self.format,
            func,
            &self.method.to_string(),
            &device,
            &results,
        ))
    }
}

/// out[i] = a[i] · b[i] on LNS words of `format`, exact (as [`Format::mul`]).
pub fn mul(
    gpu: &Gpu,
    format: Format,
    a: &DeviceBuffer<u32>,
    b: &DeviceBuffer<u32>,
    out: &mut DeviceBuffer<u32>,
) -> Result<()> {
    mul_div(gpu, format, a, b, out, false)
}

/// out[i] = a[i] / b[i] on LNS words of `format`, exact (as [`Format::div`]).
pub fn div(
    gpu: &Gpu,
    format: Format,
    a: &DeviceBuffer<u32>,
    b: &DeviceBuffer<u32>,
    out: &mut DeviceBuffer<u32>,
) -> Result<()> {
    mul_div(gpu, format, a, b, out, true)
}

fn mul_div(
    gpu: &Gpu,
    format: Format,
    a: &DeviceBuffer<u32>,
    b: &DeviceBuffer<u32>,
    out: &mut DeviceBuffer<u32>,
    div: bool,
) -> Result<()> {
    let n = same_lengths("mul/div", a, b, out)?;
    let geo = Geo {
        f: format.frac_bits as i32,
        log_bits: format.log_bits() as i32,
        ..Geo::default()
    };
    let f = gpu.function(&kernels(), "lns_mul_div_words")?;
    let (n64, op) = (n as u64, div as i32);
    let mut launch = gpu.stream().launch_builder(&f);
    launch.arg(&geo).arg(a).arg(b).arg(out).arg(&n64).arg(&op);
    // SAFETY: arguments match lns_mul_div_words; all three buffers hold n words.
    unsafe { launch.launch(streaming_config(gpu, n)) }
        .map(drop)
        .map_err(|e| Error::Invalid(format!("launching lns_mul_div_words: {e}")))
}

/// Device word types of LNS arrays: `u32` for every format, `u16` for formats of ≤ 16 bits.
pub trait LnsWord: sigpu_runtime::cuda::Plain + sealed::Sealed {
    const BITS: u32;
    const NAME: &'static str;
    /// Kernel name suffix.
    const SUFFIX: &'static str;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for u32 {}
    impl Sealed for u16 {}
}

impl LnsWord for u32 {
    const BITS: u32 = 32;
    const NAME: &'static str = "u32";
    const SUFFIX: &'static str = "";
}

impl LnsWord for u16 {
    const BITS: u32 = 16;
    const NAME: &'static str = "u16";
    const SUFFIX: &'static str = "_u16";
}

/// The common length of two inputs and an output, or an error naming the op.
fn same_lengths<W>(
    op: &str,
    a: &DeviceBuffer<W>,
    b: &DeviceBuffer<W>,
    out: &DeviceBuffer<W>,
) -> Result<usize> {
    let n = a.len();
    if b.len() != n || out.len() != n {
        return Err(Error::Invalid(format!(
            "LNS {op}: lengths {n}, {} and {} differ",
            b.len(),
            out.len()
        )));
    }
    Ok(n)
}

/// Grid-stride launch for element-wise kernels: enough blocks to fill the SMs, no more.
fn streaming_config(gpu: &Gpu, n: usize) -> sigpu_runtime::cuda::cudarc::driver::LaunchConfig {
    let blocks = (n.div_ceil(256) as u32).clamp(1, gpu.info().sms * 32);
    sigpu_runtime::cuda::cudarc::driver::LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// Uploads a table set: coefficient buffers for Horner, textures for the texture readers.
fn upload(gpu: &Gpu, t: &Tables) -> Result<([u64; 4], Storage)> {
    use sigpu_runtime::cuda::cudarc::driver::DevicePtr;
    let mut handles = [0u64; 4];
    match t.reader {
        Reader::Horner(_) => {
            let bufs = FUNCS
                .iter()
                .map(|&f| gpu.upload(&t.fit(f).coeffs))
                .collect::<Result<Vec<_>>>()?;
            for (h, b) in handles.iter_mut().zip(&bufs) {
                let (ptr, _sync) = b.device_ptr(gpu.stream());
                *h = ptr;
            }
            Ok((
                handles,
                Storage {
                    _buffers: bufs,
                    ..Storage::default()
                },
            ))
        }
        Reader::Texture1 | Reader::Texture2 => {
            let desc = TextureDesc {
                filter: Filter::Linear,
                coords: Coordinates::Unnormalized,
            };
            let texs = FUNCS
                .iter()
                .map(|&f| {
                    let texels = t.texels(f);
                    if t.reader == Reader::Texture1 {
                        Texture::new_1d(gpu, texels, desc)
                    } else {
                        Texture::new_2d(gpu, texels, texels.len() / 2, 2, desc)
                    }
                })
                .collect::<Result<Vec<_>>>()?;
            for (h, tex) in handles.iter_mut().zip(&texs) {
                *h = tex.handle();
            }
            Ok((
                handles,
                Storage {
                    _textures: texs,
                    ..Storage::default()
                },
            ))
        }
    }
}

/// GPU method vs its CPU twin on random windows of inputs: Horner tables and f64 must match
/// bit for bit; texture methods within 1 code (the filter's weights are modelled exactly, its
/// final rounding is not: on the H100 0.7% of fetches come out one f32 ulp above the exactly
/// rounded weighted sum, see docs/texture-filtering.md); libdevice f32 within 1 code and the
/// SFUs within 2 codes of the f64 reference.
fn check_method(gpu: &Gpu, seed: u64, format: Format, method: Method) -> Result<CheckReport> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let m = GpuMethod::new(gpu, method, format)?;
    let twin: Box<dyn AddSub> = match method
        .cpu(format)
        .map_err(|e| Error::Invalid(e.to_string()))?
    {
        Some(t) => t,
        None => Method::F64
            .cpu(format)
            .map_err(|e| Error::Invalid(e.to_string()))?
            .expect("f64 runs on the CPU"),
    };
    let tol = match method {
        Method::Accurate | Method::Tex1 | Method::Tex2 => 1,
        Method::Sfu => 2,
        _ => 0,
    };
    let (mut elements, mut mismatches, mut max_error, mut note) =
        (0usize, 0usize, 0i64, String::new());
    for func in [Which::Sb, Which::Db] {
        let inputs = func.inputs(format);
        for window in 0..16 {
            let n = 4096i64.min(inputs.end() - inputs.start() + 1);
            // Always include both ends of the domain, then random windows.
            let start = match window {
                0 => *inputs.start(),
                1 => inputs.end() - n + 1,
                _ => rng.random_range(*inputs.start()..=inputs.end() - n + 1),
            };
            let got = m.eval(gpu, func, start, n as usize)?;
            for (i, g) in got.iter().enumerate() {
                let z = start + i as i64;
                let want = func.eval(&twin, z);
                let err = (g - want).abs();
                max_error = max_error.max(err);
                if err > tol {
                    if mismatches == 0 {
                        note = format!("first mismatch: {func:?} at z = {z}: got {g}, want {want}");
                    }
                    mismatches += 1;
                }
                elements += 1;
            }
        }
    }
    Ok(CheckReport {
        elements,
        mismatches,
        max_error: max_error as f64,
        tolerance: Tolerance {
            abs: tol as f64,
            rel: 0.0,
        },
        note,
    })
}

/// GPU element-wise add of random words (specials included) vs `Format::add` with the CPU
/// twin: table methods bit for bit; formula methods within the certificate's codes.
fn check_add(gpu: &Gpu, seed: u64, format: Format, method: Method) -> Result<CheckReport> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let m = GpuMethod::new(gpu, method, format)?;
    let twin = method
        .cpu(format)
        .map_err(|e| Error::Invalid(e.to_string()))?;
    let twin: Box<dyn AddSub> = match twin {
        Some(t) => t,
        None => Method::F64
            .cpu(format)
            .map_err(|e| Error::Invalid(e.to_string()))?
            .expect("f64 runs on the CPU"),
    };
    let n = (1 << 20) + rng.random_range(0..1000);
    let specials = [
        format.zero(),
        format.nan(),
        format.encode(crate::Class::Inf { negative: false }),
    ];
    let word = |rng: &mut ChaCha8Rng| -> u32 {
        if rng.random_range(0..64) == 0 {
            return specials[rng.random_range(0..specials.len())];
        }
        // Magnitudes within 2^±12 of each other, so most sums need s_b or d_b.
        let log = rng.random_range(-(12i64 << format.frac_bits)..(12i64 << format.frac_bits));
        format.encode(crate::Class::Finite {
            negative: rng.random(),
            log,
        })
    };
    let a: Vec<u32> = (0..n).map(|_| word(&mut rng)).collect();
    let mut b: Vec<u32> = (0..n).map(|_| word(&mut rng)).collect();
    // Exact cancellations: x + (−x) must give zero.
    for i in (0..n).step_by(97) {
        b[i] = format.neg(a[i]);
    }
    let (da, db) = (gpu.upload(&a)?, gpu.upload(&b)?);
    let mut out = gpu.alloc_poisoned::<u32>(n)?;
    let tol = match method {
        Method::Accurate | Method::Tex1 | Method::Tex2 => 1,
        Method::Sfu => 2,
        _ => 0,
    };
    let (mut mismatches, mut max_error, mut note) = (0usize, 0i64, String::new());
    // add and sub through the method, then the exact mul and div (no tolerance).
    for op in ["+", "-", "*", "/"] {
        gpu.poison(&mut out)?;
        match op {
            "+" => m.add(gpu, &da, &db, &mut out)?,
            "-" => m.sub(gpu, &da, &db, &mut out)?,
            "*" => mul(gpu, format, &da, &db, &mut out)?,
            _ => div(gpu, format, &da, &db, &mut out)?,
        }
        let got = gpu.download(&out)?;
        let op_tol = if op == "+" || op == "-" { tol } else { 0 };
        for i in 0..n {
            let want = match op {
                "+" => format.add(&twin, a[i], b[i]),
                "-" => format.sub(&twin, a[i], b[i]),
                "*" => format.mul(a[i], b[i]),
                _ => format.div(a[i], b[i]),
            };
            let err = match (format.decode(got[i]), format.decode(want)) {
                (
                    crate::Class::Finite {
                        negative: p,
                        log: x,
                    },
                    crate::Class::Finite {
                        negative: q,
                        log: y,
                    },
                ) if p == q => (x - y).abs(),
                (g, w) if g == w => 0,
                _ => i64::MAX,
            };
            max_error = max_error.max(err);
            if err > op_tol {
                if mismatches == 0 {
                    note = format!(
                        "first mismatch at [{i}]: {:#x} {op} {:#x} gave {:#x}, want {want:#x}",
                        a[i], b[i], got[i]
                    );
                }
                mismatches += 1;
            }
        }
    }
    // u16 words (formats of ≤ 16 bits): the same sums as the u32 kernel, bit for bit.
    let mut elements = 4 * n;
    if format.word_bits() <= 16 {
        let narrow = |v: &[u32]| v.iter().map(|&w| w as u16).collect::<Vec<u16>>();
        let (a16, b16) = (gpu.upload(&narrow(&a))?, gpu.upload(&narrow(&b))?);
        let mut out16 = gpu.alloc_poisoned::<u16>(n)?;
        for negate in [false, true] {
            gpu.poison(&mut out)?;
            if negate {
                m.sub(gpu, &a16, &b16, &mut out16)?;
                m.sub(gpu, &da, &db, &mut out)?;
            } else {
                m.add(gpu, &a16, &b16, &mut out16)?;
                m.add(gpu, &da, &db, &mut out)?;
            }
            let (got16, got32) = (gpu.download(&out16)?, gpu.download(&out)?);
            for i in 0..n {
                elements += 1;
                if got16[i] as u32 != got32[i] {
                    if mismatches == 0 {
                        note = format!(
                            "u16 words at [{i}]: {:#x} vs the u32 kernel's {:#x}",
                            got16[i], got32[i]
                        );
                    }
                    mismatches += 1;
                }
            }
        }
    }
    Ok(CheckReport {
        elements,
        mismatches,
        max_error: max_error as f64,
        tolerance: Tolerance {
            abs: tol as f64,
            rel: 0.0,
        },
        note,
    })
}

macro_rules! lns_checks {
    ($(($name:literal, $format:expr, $method:expr)),* $(,)?) => {
        vec![$(Check {
            name: $name,
            about: "s_b and d_b codes vs the CPU twin on random input windows",
            run: |gpu, seed| check_method(gpu, seed, $format, $method),
        }),*]
    };
}

/// The LNS self-checks for `sigpu check`.
pub fn checks() -> Vec<Check> {
    let mut checks = lns_checks![
        ("lns/lns16_f64", Format::LNS16, Method::F64),
        ("lns/lns16_accurate", Format::LNS16, Method::Accurate),
        ("lns/lns16_sfu", Format::LNS16, Method::Sfu),
        ("lns/lns16_horner2", Format::LNS16, Method::Horner(2)),
        ("lns/lns16_horner3", Format::LNS16, Method::Horner(3)),
        ("lns/lns16_horner4", Format::LNS16, Method::Horner(4)),
        ("lns/lns16_horner5", Format::LNS16, Method::Horner(5)),
        ("lns/lns16_tex1", Format::LNS16, Method::Tex1),
        ("lns/lns16_tex2", Format::LNS16, Method::Tex2),
        ("lns/lns32_f64", Format::LNS32, Method::F64),
        ("lns/lns32_horner3", Format::LNS32, Method::Horner(3)),
        ("lns/lns32_tex1", Format::LNS32, Method::Tex1),
        ("lns/lns32_tex2", Format::LNS32, Method::Tex2),
    ];
    checks.extend([
        Check {
            name: "lns/add_lns16_sfu",
            about: "element-wise LNS add, sub, mul, div of random words (specials, cancellations) vs Format",
            run: |gpu, seed| check_add(gpu, seed, Format::LNS16, Method::Sfu),
        },
        Check {
            name: "lns/add_lns16_tex2",
            about: "element-wise LNS add, sub, mul, div of random words (specials, cancellations) vs Format",
            run: |gpu, seed| check_add(gpu, seed, Format::LNS16, Method::Tex2),
        },
        Check {
            name: "lns/add_lns32_f64",
            about: "element-wise LNS add, sub, mul, div of random words (specials, cancellations) vs Format",
            run: |gpu, seed| check_add(gpu, seed, Format::LNS32, Method::F64),
        },
        Check {
            name: "lns/add_lns32_horner3",
            about: "element-wise LNS add, sub, mul, div of random words (specials, cancellations) vs Format",
            run: |gpu, seed| check_add(gpu, seed, Format::LNS32, Method::Horner(3)),
        },
    ]);
    checks.extend(crate::gpu_fused::checks());
    checks.extend(crate::fig3_gpu::checks());
    checks.extend(crate::hmm::gpu::checks());
    checks
}
