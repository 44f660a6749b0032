//! CLNS on the GPU: S_b tables as a 2-D float2 texture (and the same texels in a buffer for
//! the FMA reader), kernels from `kernels/clns.cu`, GPU certificates, and self-checks.

use crate::certify::{certify_results, Certificate, Inputs};
use crate::format::{Clns, ClnsFormat};
use crate::radian::ClnsF32;
use crate::sb::{pow2_poly, Geometry, Method, Sb, SbF64, SbTable};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sigpu_runtime::cuda::cudarc::driver::{DeviceRepr, LaunchConfig, PushKernelArg};
use sigpu_runtime::cuda::{
    grid_1d, Check, CheckReport, Coordinates, DeviceBuffer, Error, Filter, Gpu, KernelSource,
    Result, Texture, TextureDesc, Tolerance,
};

/// The CLNS kernels (`kernels/clns.cu`).
pub fn kernels() -> KernelSource {
    KernelSource::embedded("clns.cu", include_str!("../kernels/clns.cu"))
}

/// `struct ClnsGeo` of clns.cu.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Geo {
    f: i32,
    p: i32,
    log_bits: i32,
    z_min: i32,
    near_z: i32,
    near_phi: u32,
    p_cl: i32,
    p_theta: i32,
    r_scale: f32,
    theta_scale: f32,
    c: [f32; 6],
    theta_scale_rad: f32,
    near_z_rad: f32,
    near_phi_rad: f32,
}

// SAFETY: #[repr(C)] of 4-byte scalars, laid out as `struct ClnsGeo` in clns.cu.
unsafe impl DeviceRepr for Geo {}

fn invalid(e: impl std::fmt::Display) -> Error {
    Error::Invalid(e.to_string())
}

/// A format's S_b table on one device: texture and buffer of the same texels.
pub struct GpuClns {
    pub format: ClnsFormat,
    pub geometry: Geometry,
    /// The CPU twin's table (texture reader; the FMA twin reads the same texels).
    pub table: SbTable,
    geo: Geo,
    texture: Texture<[f32; 2]>,
    buffer: DeviceBuffer<[f32; 2]>,
}

impl GpuClns {
    pub fn new(gpu: &Gpu, format: ClnsFormat, geometry: Geometry) -> Result<GpuClns> {
        if format.log.log_bits() > 31 || geometry.z_min < i32::MIN as i64 / 2 {
            return Err(invalid(format!(
                "{format}: the kernels take log codes of ≤ 31 bits"
            )));
        }
        let table = SbTable::new(format, geometry, crate::Reader::Texture).map_err(invalid)?;
        let pow2 = pow2_poly().map_err(invalid)?;
        let mut c = [0.0f32; 6];
        c.copy_from_slice(&pow2.coeffs);
        let (near_z_rad, near_phi_rad) = geometry.near_radians(format);
        let geo = Geo {
            f: format.frac_bits() as i32,
            p: format.angle_bits as i32,
            log_bits: format.log.log_bits() as i32,
            z_min: geometry.z_min as i32,
            near_z: geometry.near_z as i32,
            near_phi: geometry.near_phi,
            p_cl: geometry.p_cl as i32,
            p_theta: geometry.p_theta as i32,
            r_scale: geometry.r_scale(),
            theta_scale: geometry.theta_scale(),
            c,
            theta_scale_rad: geometry.theta_scale_radians(),
            near_z_rad,
            near_phi_rad,
        };
        let desc = TextureDesc {
            filter: Filter::Linear,
            coords: Coordinates::Unnormalized,
        };
        let g = &table.grid;
        let texture = Texture::new_2d(gpu, &g.texels, g.nx, g.ny, desc)?;
        let buffer = gpu.upload(&g.texels)?;
        Ok(GpuClns {
            format,
            geometry,
            table,
            geo,
            texture,
            buffer,
        })
    }

    pub(crate) fn geo(&self) -> &Geo {
        &self.geo
    }

    pub(crate) fn tex(&self) -> u64 {
        self.texture.handle()
    }

    pub(crate) fn buffer(&self) -> &DeviceBuffer<[f32; 2]> {
        &self.buffer
    }

    /// The CPU twin of `method` for this table (None for GPU-only methods).
    pub fn twin(&self, method: Method) -> Result<Option<Box<dyn Sb>>> {
        method.cpu(self.format, self.geometry).map_err(invalid)
    }

    /// S_b by `method` (not Blend) at every input: (Re code, Im angle).
    pub fn sb(&self, gpu: &Gpu, method: Method, inputs: &Inputs) -> Result<Vec<(i64, u32)>> {
        if method == Method::Blend {
            return Err(invalid("S_b of the blend: evaluate tex and fma separately"));
        }
        let name = format!("clns_sb_{method}");
        let f = gpu.function(&kernels(), &name)?;
        let mut all = Vec::with_capacity(inputs.len());
        for (zs, ts) in inputs
            .z()
            .chunks(1 << 24)
            .zip(inputs.theta().chunks(1 << 24))
        {
            let z: Vec<i32> = zs.iter().map(|&z| z as i32).collect();
            let (dz, dt) = (gpu.upload(&z)?, gpu.upload(ts)?);
            let n = z.len() as i32;
            let mut out = gpu.alloc_poisoned::<[i32; 2]>(z.len())?;
            let tex = self.tex();
            let mut l = gpu.stream().launch_builder(&f);
            l.arg(&self.geo)
                .arg(&tex)
                .arg(&self.buffer)
                .arg(&dz)
                .arg(&dt)
                .arg(&n)
                .arg(&mut out);
            // SAFETY: matches CLNS_SB_KERNEL's signature; z, theta and out hold n elements
            // (`Inputs` holds as many angles as codes, every code within an i32).
            unsafe { l.launch(grid_1d(z.len(), 256)) }
                .map_err(|e| invalid(format!("{name}: {e}")))?;
            all.extend(
                gpu.download(&out)?
                    .into_iter()
                    .map(|[re, im]| (re as i64, im as u32)),
            );
        }
        Ok(all)
    }

    /// Certifies `method` on the GPU over `inputs`.
    pub fn certify(&self, gpu: &Gpu, method: Method, inputs: &Inputs) -> Result<Certificate> {
        let got = self.sb(gpu, method, inputs)?;
        let device = format!("{} ({})", gpu.info().name, gpu.arch());
        certify_results(self.format, &method.to_string(), &device, inputs, &got).map_err(invalid)
    }

    /// out = a + b element-wise, S_b by `method` (Blend: half the warps on each reader).
    pub fn add(
        &self,
        gpu: &Gpu,
        method: Method,
        a: &DeviceBuffer<[u32; 2]>,
        b: &DeviceBuffer<[u32; 2]>,
        out: &mut DeviceBuffer<[u32; 2]>,
    ) -> Result<()> {
        let n = same_lengths("CLNS add", a, b, out)?;
        let name = format!("clns_add_{method}");
        let f = gpu.function(&kernels(), &name)?;
        let tex = self.tex();
        let mut l = gpu.stream().launch_builder(&f);
        l.arg(&self.geo)
            .arg(&tex)
            .arg(&self.buffer)
            .arg(a)
            .arg(b)
            .arg(out)
            .arg(&n);
        let lambda = 4i32;
        if method == Method::Blend {
            l.arg(&lambda);
        }
        // SAFETY: matches CLNS_ADD_KERNEL / clns_add_blend; all buffers hold n values.
        unsafe { l.launch(stream_config(gpu, n)) }
            .map(drop)
            .map_err(|e| invalid(format!("{name}: {e}")))
    }

    /// out = a · b element-wise.
    pub fn mul(
        &self,
        gpu: &Gpu,
        a: &DeviceBuffer<[u32; 2]>,
        b: &DeviceBuffer<[u32; 2]>,
        out: &mut DeviceBuffer<[u32; 2]>,
    ) -> Result<()> {
        let n = same_lengths("CLNS mul", a, b, out)?;
        let f = gpu.function(&kernels(), "clns_mul_kernel")?;
        let mut l = gpu.stream().launch_builder(&f);
        l.arg(&self.geo).arg(a).arg(b).arg(out).arg(&n);
        // SAFETY: matches clns_mul_kernel; all buffers hold n values.
        unsafe { l.launch(stream_config(gpu, n)) }
            .map(drop)
            .map_err(|e| invalid(format!("clns_mul_kernel: {e}")))
    }

    /// out = a · b element-wise by the finite fast path (`ClnsFormat::mul_finite`: the caller
    /// promises finite operands and in-range products).
    pub fn mul_finite(
        &self,
        gpu: &Gpu,
        a: &DeviceBuffer<[u32; 2]>,
        b: &DeviceBuffer<[u32; 2]>,
        out: &mut DeviceBuffer<[u32; 2]>,
    ) -> Result<()> {
        elementwise(gpu, "CLNS mul_finite", "clns_mul_finite_kernel", a, b, out)
    }

    /// out = a ± b element-wise in the f32-radian variant ([`ClnsF32`] as `[log, angle]`),
    /// S_b by `method` (f64, accurate, tex or fma) from this object's table.
    pub fn add_f32(
        &self,
        gpu: &Gpu,
        method: Method,
        a: &DeviceBuffer<[f32; 2]>,
        b: &DeviceBuffer<[f32; 2]>,
        out: &mut DeviceBuffer<[f32; 2]>,
        negate: bool,
    ) -> Result<()> {
        let n = same_lengths("CLNS-f32 add", a, b, out)?;
        if method == Method::Blend {
            return Err(invalid(
                "CLNS-f32 add: no blend kernel (f64, accurate, tex, fma)",
            ));
        }
        let name = format!("clnsf_add_{method}");
        let f = gpu.function(&kernels(), &name)?;
        let (tex, negate) = (self.tex(), negate as i32);
        let mut l = gpu.stream().launch_builder(&f);
        l.arg(&self.geo)
            .arg(&tex)
            .arg(&self.buffer)
            .arg(a)
            .arg(b)
            .arg(out)
            .arg(&n)
            .arg(&negate);
        // SAFETY: matches CLNSF_ADD_KERNEL; all buffers hold n values.
        unsafe { l.launch(stream_config(gpu, n)) }
            .map(drop)
            .map_err(|e| invalid(format!("{name}: {e}")))
    }

    /// out = a · b element-wise in the f32-radian variant.
    pub fn mul_f32(
        &self,
        gpu: &Gpu,
        a: &DeviceBuffer<[f32; 2]>,
        b: &DeviceBuffer<[f32; 2]>,
        out: &mut DeviceBuffer<[f32; 2]>,
    ) -> Result<()> {
        elementwise(gpu, "CLNS-f32 mul", "clnsf_mul_kernel", a, b, out)
    }
}

impl GpuClns {
    /// In-place forward FFTs of length `n` (2..=4096) over `data` (batch = len / n), S_b by
    /// `method` (not Blend): one block per transform, in shared memory.
    pub fn fft(
        &self,
        gpu: &Gpu,
        method: Method,
        data: &mut DeviceBuffer<[u32; 2]>,
        n: usize,
    ) -> Result<()> {
        if !n.is_power_of_two()
            || !(2..=4096).contains(&n)
            || data.len() % n != 0
            || data.is_empty()
        {
            return Err(invalid(format!(
                "GPU FFT of size {n} over {} values: sizes are powers of two 2..=4096 dividing the data",
                data.len()
            )));
        }
        if n.trailing_zeros() > self.format.angle_bits || method == Method::Blend {
            return Err(invalid(format!(
                "GPU FFT of size {n} by {method} in {}",
                self.format
            )));
        }
        // One block per transform: the batch is the grid, at most 2^31 − 1 blocks.
        let batch = u32::try_from(data.len() / n)
            .ok()
            .filter(|&b| b <= i32::MAX as u32)
            .ok_or_else(|| {
                invalid(format!(
                    "GPU FFT: {} transforms of {n} in one launch (at most 2^31 − 1)",
                    data.len() / n
                ))
            })?;
        let name = format!("clns_fft_{method}");
        let f = gpu.function(&kernels(), &name)?;
        let log2n = n.trailing_zeros() as i32;
        let tex = self.tex();
        let config = LaunchConfig {
            grid_dim: (batch, 1, 1),
            block_dim: ((n / 2).min(512) as u32, 1, 1),
            shared_mem_bytes: (n * 8) as u32,
        };
        let mut l = gpu.stream().launch_builder(&f);
        l.arg(&self.geo)
            .arg(&tex)
            .arg(&self.buffer)
            .arg(data)
            .arg(&log2n);
        // SAFETY: matches CLNS_FFT_KERNEL; one block per transform of n values in `data`,
        // n·8 bytes of shared memory for it.
        unsafe { l.launch(config) }
            .map(drop)
            .map_err(|e| invalid(format!("{name}: {e}")))
    }
}

fn same_lengths<T>(
    what: &str,
    a: &DeviceBuffer<T>,
    b: &DeviceBuffer<T>,
    out: &DeviceBuffer<T>,
) -> Result<u64> {
    if a.len() != b.len() || out.len() != a.len() {
        return Err(invalid(format!(
            "{what}: lengths {}, {} and {} differ",
            a.len(),
            b.len(),
            out.len()
        )));
    }
    Ok(a.len() as u64)
}

/// Launches a kernel `name(const T* a, const T* b, T* out, unsigned long long n)` over
/// equal-length buffers (the element-wise ops that need no table or geometry).
fn elementwise<T>(
    gpu: &Gpu,
    what: &str,
    name: &str,
    a: &DeviceBuffer<T>,
    b: &DeviceBuffer<T>,
    out: &mut DeviceBuffer<T>,
) -> Result<()> {
    let n = same_lengths(what, a, b, out)?;
    let f = gpu.function(&kernels(), name)?;
    let mut l = gpu.stream().launch_builder(&f);
    l.arg(a).arg(b).arg(out).arg(&n);
    // SAFETY: every caller names a kernel of the signature above; all buffers hold n values.
    unsafe { l.launch(stream_config(gpu, n)) }
        .map(drop)
        .map_err(|e| invalid(format!("{name}: {e}")))
}

fn stream_config(gpu: &Gpu, n: u64) -> LaunchConfig {
    LaunchConfig {
        grid_dim: ((n.div_ceil(256) as u32).clamp(1, gpu.info().sms * 32), 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// Random CLNS values: magnitudes within 2^±6, uniform angles; 1 in 64 special; every 97th b
/// the negation of a (exact cancellation); every 89th b equal in magnitude with a nearly
/// opposite angle (the near region).
pub fn random_pairs(format: ClnsFormat, n: usize, seed: u64) -> (Vec<Clns>, Vec<Clns>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let specials = [format.zero(), format.nan(), format.inf()];
    let shift = format.angle_shift();
    let value = |rng: &mut ChaCha8Rng| -> Clns {
        if rng.random_range(0..64) == 0 {
            return specials[rng.random_range(0..specials.len())];
        }
        let span = 6i64 << format.frac_bits();
        Clns {
            log: rng.random_range(-span..=span) as i32,
            angle: (rng.random::<u32>() >> shift) << shift,
        }
    };
    let a: Vec<Clns> = (0..n).map(|_| value(&mut rng)).collect();
    let mut b: Vec<Clns> = (0..n).map(|_| value(&mut rng)).collect();
    for i in 0..n {
        if i % 97 == 0 {
            b[i] = format.neg(a[i]);
        } else if i % 89 == 0 {
            let wiggle = (rng.random_range(-64i32..=64) as u32) << shift;
            b[i] = Clns {
                log: a[i].log - rng.random_range(0..4),
                angle: a[i]
                    .angle
                    .wrapping_add(crate::HALF_TURN)
                    .wrapping_add(wiggle),
            };
        }
    }
    (a, b)
}

/// Codes of two CLNS results apart: max of |Δlog| and |Δangle| in angle ulps; ∞ on a class
/// mismatch.
fn distance(format: ClnsFormat, x: Clns, y: Clns) -> f64 {
    use crate::Class::*;
    match (format.class(x), format.class(y)) {
        (Finite { log: a, angle: p }, Finite { log: b, angle: q }) => {
            let da = (p.wrapping_sub(q) as i32).unsigned_abs() >> format.angle_shift();
            ((a - b).abs() as f64).max(da as f64)
        }
        (c, d) if c == d => 0.0,
        _ => f64::INFINITY,
    }
}

/// GPU S_b vs its CPU twin on the certificate's inputs (strided): tables within 1 code (the
/// filter's final rounding and the f32 near region are not bit-exact), f64 exactly, f32
/// libdevice within 1 code of the f64 reference.
fn check_sb(gpu: &Gpu, seed: u64, method: Method) -> Result<CheckReport> {
    let format = ClnsFormat::CLNS16;
    let g = GpuClns::new(gpu, format, Geometry::default_for(format))?;
    let inputs = Inputs::standard(format, 37, 200_000, seed);
    let got = g.sb(gpu, method, &inputs)?;
    let twin: Box<dyn Sb> = match g.twin(method)? {
        Some(t) => t,
        None => Box::new(SbF64(format)),
    };
    let tol = if method == Method::F64 { 0.0 } else { 1.0 };
    let results: Vec<(Clns, Clns)> = (0..inputs.len())
        .map(|i| {
            let (re, im) = got[i];
            let (wr, wi) = twin.sb(inputs.z()[i], inputs.theta()[i]);
            (
                Clns {
                    log: re as i32,
                    angle: im,
                },
                Clns {
                    log: wr as i32,
                    angle: wi,
                },
            )
        })
        .collect();
    Ok(report(format, &results, tol))
}

/// GPU element-wise add (and mul) of random pairs vs `ClnsFormat::add` (`mul`) with the twin.
fn check_op(gpu: &Gpu, seed: u64, method: Option<Method>) -> Result<CheckReport> {
    let format = ClnsFormat::CLNS16;
    let g = GpuClns::new(gpu, format, Geometry::default_for(format))?;
    let n = (1 << 20) + (seed % 1000) as usize;
    let (a, b) = random_pairs(format, n, seed);
    let pairs = |v: &[Clns]| v.iter().map(|x| x.to_pair()).collect::<Vec<_>>();
    let (da, db) = (gpu.upload(&pairs(&a))?, gpu.upload(&pairs(&b))?);
    let mut out = gpu.alloc_poisoned::<[u32; 2]>(n)?;
    let (want, tol): (Vec<Clns>, f64) = match method {
        None => {
            g.mul(gpu, &da, &db, &mut out)?;
            ((0..n).map(|i| format.mul(a[i], b[i])).collect(), 0.0)
        }
        Some(m) => {
            g.add(gpu, m, &da, &db, &mut out)?;
            let twin: Box<dyn Sb> =
                match g.twin(if m == Method::Blend { Method::Tex } else { m })? {
                    Some(t) => t,
                    None => Box::new(SbF64(format)),
                };
            // Blend warps read either table: the FMA and texture twins differ by ≤ 1 code more.
            let tol = match m {
                Method::F64 => 0.0,
                Method::Blend => 2.0,
                _ => 1.0,
            };
            ((0..n).map(|i| format.add(&twin, a[i], b[i])).collect(), tol)
        }
    };
    let got: Vec<Clns> = gpu
        .download(&out)?
        .into_iter()
        .map(Clns::from_pair)
        .collect();
    let results: Vec<(Clns, Clns)> = got.into_iter().zip(want).collect();
    Ok(report(format, &results, tol))
}

/// GPU finite-fast-path multiply of finite pairs (products in range) vs `ClnsFormat::mul`:
/// exact, which also checks that the fast path equals the full multiply under its contract.
fn check_mul_finite(gpu: &Gpu, seed: u64) -> Result<CheckReport> {
    let format = ClnsFormat::CLNS16;
    let g = GpuClns::new(gpu, format, Geometry::default_for(format))?;
    let n = (1 << 20) + (seed % 1000) as usize;
    let (a, b) = random_pairs(format, 4 * n, seed);
    let finite = |x: &Clns| matches!(format.class(*x), crate::Class::Finite { .. });
    let pairs: Vec<(Clns, Clns)> = a
        .into_iter()
        .zip(b)
        .filter(|(x, y)| finite(x) && finite(y))
        .take(n)
        .collect();
    let up = |pick: fn(&(Clns, Clns)) -> Clns| -> Result<DeviceBuffer<[u32; 2]>> {
        gpu.upload(&pairs.iter().map(|p| pick(p).to_pair()).collect::<Vec<_>>())
    };
    let (da, db) = (up(|p| p.0)?, up(|p| p.1)?);
    let mut out = gpu.alloc_poisoned::<[u32; 2]>(pairs.len())?;
    g.mul_finite(gpu, &da, &db, &mut out)?;
    let results: Vec<(Clns, Clns)> = gpu
        .download(&out)?
        .into_iter()
        .map(Clns::from_pair)
        .zip(pairs.iter().map(|&(x, y)| format.mul(x, y)))
        .collect();
    Ok(report(format, &results, 0.0))
}

/// The f32-radian variant on the GPU vs its CPU twin: mul bit for bit (None), add and
/// subtract by `method` (S_b rounded to f32; the twin of `accurate` is f64) within a relative
/// distance: 3e-6 for FP64 (the two libms may round S_b to neighbouring f32: one ulp of a log
/// near −23 next to Z = −1 is 1.9e-6, 1.3e-6 relative), 3e-5 for the f32 and table methods
/// (few-ulp f32 libdevice differences there, the filter's last rounding; 25× below the
/// table's own 8e-4), on random pairs with specials, cancellations and near-region pairs.
fn check_f32(gpu: &Gpu, seed: u64, method: Option<Method>) -> Result<CheckReport> {
    let format = ClnsFormat::CLNS16;
    let g = GpuClns::new(gpu, format, Geometry::default_for(format))?;
    let n = (1 << 20) + (seed % 1000) as usize;
    let (a, b) = random_pairs(format, n, seed);
    let conv = |v: &[Clns]| -> Vec<ClnsF32> {
        v.iter()
            .map(|&x| ClnsF32::from_complex(format.to_complex(x)))
            .collect()
    };
    let (a, b) = (conv(&a), conv(&b));
    let pairs = |v: &[ClnsF32]| v.iter().map(|x| x.to_pair()).collect::<Vec<_>>();
    let (da, db) = (gpu.upload(&pairs(&a))?, gpu.upload(&pairs(&b))?);
    let mut out = gpu.alloc_poisoned::<[f32; 2]>(n)?;
    let mut results: Vec<(ClnsF32, ClnsF32)> = Vec::with_capacity(2 * n);
    let mut run = |want: Vec<ClnsF32>, out: &DeviceBuffer<[f32; 2]>| -> Result<()> {
        let got = gpu.download(out)?.into_iter().map(ClnsF32::from_pair);
        results.extend(got.zip(want));
        Ok(())
    };
    let tol = match method {
        None => {
            g.mul_f32(gpu, &da, &db, &mut out)?;
            run((0..n).map(|i| a[i] * b[i]).collect(), &out)?;
            0.0
        }
        Some(m) => {
            let twin = crate::radian::evaluator(
                if m == Method::Accurate {
                    Method::F64
                } else {
                    m
                },
                format,
                g.geometry,
            )
            .map_err(invalid)?
            .ok_or_else(|| invalid(format!("CLNS-f32 add by {m}: no CPU twin")))?;
            for negate in [false, true] {
                g.add_f32(gpu, m, &da, &db, &mut out, negate)?;
                let want = (0..n)
                    .map(|i| {
                        if negate {
                            a[i].sub(&twin, b[i])
                        } else {
                            a[i].add(&twin, b[i])
                        }
                    })
                    .collect();
                run(want, &out)?;
            }
            if m == Method::F64 {
                3e-6
            } else {
                3e-5
            }
        }
    };
    let (mut mismatches, mut max_error, mut note) = (0usize, 0.0f64, String::new());
    for (i, &(got, want)) in results.iter().enumerate() {
        // Bit for bit where a tolerance of 0 is asked (NaN payloads aside).
        let d = if tol == 0.0 && got.is_finite() && got != want {
            f64::INFINITY
        } else {
            crate::radian::distance(got, want)
        };
        max_error = max_error.max(d);
        if d > tol {
            if mismatches == 0 {
                note = format!("first mismatch at [{i}]: got {got:?}, want {want:?}");
            }
            mismatches += 1;
        }
    }
    Ok(CheckReport {
        elements: results.len(),
        mismatches,
        max_error,
        tolerance: Tolerance { abs: 0.0, rel: tol },
        note,
    })
}

fn report(format: ClnsFormat, results: &[(Clns, Clns)], tol: f64) -> CheckReport {
    let (mut mismatches, mut max_error, mut note) = (0usize, 0.0f64, String::new());
    for (i, &(got, want)) in results.iter().enumerate() {
        let d = distance(format, got, want);
        max_error = max_error.max(d);
        if d > tol {
            if mismatches == 0 {
                note = format!("first mismatch at [{i}]: got {got:?}, want {want:?}");
            }
            mismatches += 1;
        }
    }
    CheckReport {
        elements: results.len(),
        mismatches,
        max_error,
        tolerance: Tolerance { abs: tol, rel: 0.0 },
        note,
    }
}

/// GPU FFT (N = 1024, batch 64, texture S_b) vs the CPU twin: per-add differences of ≤ 1 code
/// propagate, so the outputs are compared as an SNR between the two (must exceed 60 dB, with
/// the twin itself at ~69 dB against f64), and the f64-method FFT must match codes exactly
/// in at least 99.9% of outputs.
fn check_fft(gpu: &Gpu, seed: u64) -> Result<CheckReport> {
    use crate::fft::{clns_fft, random_input, snr_db};
    let format = ClnsFormat::CLNS16;
    let g = GpuClns::new(gpu, format, Geometry::default_for(format))?;
    let n = 1024;
    let x = random_input(n, 64, seed);
    let input: Vec<Clns> = x.iter().map(|&c| format.from_complex(c)).collect();
    let mut worst = f64::INFINITY;
    let mut note = String::new();
    let mut mismatches = 0;
    for method in [Method::Tex, Method::F64] {
        let mut d = gpu.upload(&input.iter().map(|c| c.to_pair()).collect::<Vec<_>>())?;
        g.fft(gpu, method, &mut d, n)?;
        let got: Vec<Clns> = gpu.download(&d)?.into_iter().map(Clns::from_pair).collect();
        let mut want = input.clone();
        let twin = g.twin(method)?.expect("tex and f64 have CPU twins");
        clns_fft(format, &twin, &mut want, n).map_err(invalid)?;
        let c = |v: &[Clns]| v.iter().map(|&v| format.to_complex(v)).collect::<Vec<_>>();
        let snr = snr_db(&c(&got), &c(&want));
        let same = got.iter().zip(&want).filter(|(a, b)| a == b).count() as f64 / got.len() as f64;
        note += &format!(
            "{method}: GPU vs twin {snr:.1} dB, {:.3}% identical; ",
            100.0 * same
        );
        let ok = if method == Method::F64 {
            same >= 0.999
        } else {
            snr >= 60.0
        };
        if !ok {
            mismatches += 1;
        }
        worst = worst.min(snr);
    }
    Ok(CheckReport {
        elements: 2 * 64 * n,
        mismatches,
        // As a relative RMS difference: 60 dB is 1e-3.
        max_error: 10f64.powf(-worst / 20.0),
        tolerance: Tolerance {
            abs: 1e-3,
            rel: 0.0,
        },
        note,
    })
}

/// The CLNS self-checks for `sigpu check`.
pub fn checks() -> Vec<Check> {
    vec![
        Check {
            name: "clns/sb_f64",
            about: "S_b in FP64 vs the CPU f64 twin, certificate inputs (codes exact)",
            run: |gpu, seed| check_sb(gpu, seed, Method::F64),
        },
        Check {
            name: "clns/sb_accurate",
            about: "S_b in f32 libdevice vs the f64 reference (≤ 1 code)",
            run: |gpu, seed| check_sb(gpu, seed, Method::Accurate),
        },
        Check {
            name: "clns/sb_tex",
            about: "S_b by the bilinear float2 texture vs the H100 filter model (≤ 1 code)",
            run: |gpu, seed| check_sb(gpu, seed, Method::Tex),
        },
        Check {
            name: "clns/sb_fma",
            about: "S_b by FMA lerps of the same table vs its f32 twin (≤ 1 code: near region)",
            run: |gpu, seed| check_sb(gpu, seed, Method::Fma),
        },
        Check {
            name: "clns/mul",
            about:
                "element-wise CLNS multiply of random pairs (specials) vs ClnsFormat::mul, exact",
            run: |gpu, seed| check_op(gpu, seed, None),
        },
        Check {
            name: "clns/add_f64",
            about:
                "element-wise CLNS add (specials, cancellations, near region) vs ClnsFormat::add",
            run: |gpu, seed| check_op(gpu, seed, Some(Method::F64)),
        },
        Check {
            name: "clns/add_tex",
            about: "element-wise CLNS add, texture S_b, vs ClnsFormat::add with the filter model",
            run: |gpu, seed| check_op(gpu, seed, Some(Method::Tex)),
        },
        Check {
            name: "clns/add_fma",
            about: "element-wise CLNS add, FMA-table S_b, vs ClnsFormat::add with its twin",
            run: |gpu, seed| check_op(gpu, seed, Some(Method::Fma)),
        },
        Check {
            name: "clns/fft_1024",
            about:
                "batched CLNS FFT (tex and f64 S_b) vs the CPU twin: SNR between them, exact codes",
            run: check_fft,
        },
        Check {
            name: "clns/mul_finite",
            about: "CLNS multiply, finite fast path (no class/range tests), finite pairs: exact",
            run: check_mul_finite,
        },
        Check {
            name: "clns/f32_mul",
            about: "f32-radian CLNS (the seed's) multiply vs ClnsF32::mul, bit for bit",
            run: |gpu, seed| check_f32(gpu, seed, None),
        },
        Check {
            name: "clns/f32_add_f64",
            about: "f32-radian CLNS add and sub, FP64 S_b, vs the f64 twin (rel. 3e-6)",
            run: |gpu, seed| check_f32(gpu, seed, Some(Method::F64)),
        },
        Check {
            name: "clns/f32_add_accurate",
            about: "f32-radian CLNS add and sub, f32 libdevice S_b, vs the f64 twin (rel. 3e-5)",
            run: |gpu, seed| check_f32(gpu, seed, Some(Method::Accurate)),
        },
        Check {
            name: "clns/f32_add_tex",
            about: "f32-radian CLNS add and sub, texture S_b, vs the filter model (rel. 3e-5)",
            run: |gpu, seed| check_f32(gpu, seed, Some(Method::Tex)),
        },
        Check {
            name: "clns/f32_add_fma",
            about: "f32-radian CLNS add and sub, FMA-table S_b, vs its twin (rel. 3e-5)",
            run: |gpu, seed| check_f32(gpu, seed, Some(Method::Fma)),
        },
        Check {
            name: "clns/add_blend",
            about: "element-wise CLNS add, warps split tex/fma, vs the texture twin (≤ 2 codes)",
            run: |gpu, seed| check_op(gpu, seed, Some(Method::Blend)),
        },
    ]
}
