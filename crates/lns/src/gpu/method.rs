//! One s_b/d_b method for one format on a GPU: its tables uploaded, its kernels launched.

use super::{kernels, Geo, LnsWord};
use crate::certify::{part_of_results, Certificate, Part, Which};
use crate::error::LnsError;
use crate::f32split::{F32Split, LOG2M_BITS};
use crate::format::Format;
use crate::method::{Method, TEXLUT_MAX_TEXELS};
use crate::tables::{Func, Reader, Tables};
use sigpu_runtime::cuda::cudarc::driver::DevicePtr;
use sigpu_runtime::cuda::{
    equal_lengths, grid_1d, Coordinates, DeviceBuffer, DeviceSlice, DeviceSliceMut, Filter, Gpu,
    Launch, Texture, TextureDesc,
};
use sigpu_runtime::GpuTarget;

/// A public element-wise op of [`GpuMethod`] over `add_sub`: `negate_b` says whether b is
/// subtracted.
macro_rules! add_sub_op {
    ($(#[$doc:meta])* $name:ident, $negate_b:literal) => {
        $(#[$doc])*
        pub fn $name<W: LnsWord>(
            &self,
            a: &DeviceBuffer<W>,
            b: &DeviceBuffer<W>,
            out: &mut DeviceBuffer<W>,
        ) -> Result<(), LnsError> {
            self.add_sub([a, b], out, $negate_b)
        }
    };
}

/// Where a method's tables live on the device: owned here so they outlive every launch that
/// uses their handles.
#[derive(Default)]
struct Storage {
    _buffers: Vec<DeviceBuffer<f32>>,
    _words: Vec<DeviceBuffer<u32>>,
    _textures: Vec<Texture<f32>>,
}

/// One method for one format, ready to run on the GPU it was built on (its tables live there,
/// and every launch goes there).
pub struct GpuMethod {
    /// The method the kernels run.
    pub method: Method,
    /// The format they evaluate.
    pub format: Format,
    /// The tables the CPU twin reads (table methods only).
    pub tables: Option<Tables>,
    geo: Geo,
    /// Table handles as the kernels take them (device pointers or texture objects).
    handles: [u64; 4],
    _storage: Storage,
    gpu: Gpu,
}

const FUNCS: [Func; 4] = [Func::Sb, Func::DbFar, Func::H, Func::Log2M];

impl GpuMethod {
    /// Builds `method`'s tables for `format` (table methods, f32split, texlut; the others have
    /// none) and uploads them. Errors: [`LnsError::Unsupported`] for a format the kernels cannot
    /// take (F > 28, or f32split's and texlut's own limits, see [`Method::takes`]),
    /// [`LnsError::Fit`] when a table fit fails, [`LnsError::Gpu`] from the upload.
    pub fn new(gpu: &Gpu, method: Method, format: Format) -> Result<GpuMethod, LnsError> {
        // The kernels keep codes in 32-bit integers, segment offsets included.
        if format.essential_zero_code() < -(1i64 << 30) {
            return Err(LnsError::Unsupported(format!(
                "{format}: the GPU kernels take formats with F ≤ 28"
            )));
        }
        let tables = method.tables(format).transpose()?;
        let mut geo = Geo {
            f: format.frac_bits as i32,
            z0: format.essential_zero_code() as i32,
            log_bits: format.log_bits() as i32,
            ..Geo::default()
        };
        let (handles, storage) = match &tables {
            None if method == Method::F32Split => {
                let split = F32Split::new(format)?;
                geo.shift = split.shift as i32;
                geo.far_segments = split.far_segments as i32;
                geo.near_shift = split.shift as i32;
                geo.log2m_bits = LOG2M_BITS as i32;
                upload_words(gpu, &split.tables)?
            }
            None if method == Method::TexLut => {
                if !method.takes(format) {
                    return Err(LnsError::Unsupported(format!(
                        "texlut takes formats of at most {TEXLUT_MAX_TEXELS} inputs, not {format}"
                    )));
                }
                upload_luts(gpu, format)?
            }
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
            gpu: gpu.clone(),
        })
    }

    /// The device the method runs on.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// Pushes the method's tables as every lns.cu kernel that reads them takes them —
    /// `Geo g, t0, t1, t2, t3` — onto `launch`, for the kernel's further arguments to follow.
    pub fn table_args<'a, 'l>(&'a self, launch: &'l mut Launch<'a>) -> &'l mut Launch<'a> {
        launch.arg(&self.geo);
        for handle in &self.handles {
            launch.arg(handle);
        }
        launch
    }

    /// The method's codes for inputs start .. start + n.
    pub fn eval(&self, func: Which, start: i64, n: usize) -> Result<Vec<i64>, LnsError> {
        let gpu = &self.gpu;
        let which = if func == Which::Sb { "sb" } else { "db" };
        let kernel = gpu.kernel(&kernels(), &format!("lns_{which}_{}", self.method))?;
        let n32 =
            i32::try_from(n).map_err(|_| LnsError::Invalid(format!("{n} inputs in one launch")))?;
        let mut out = gpu.alloc_poisoned::<i32>(n)?;
        self.table_args(&mut gpu.launch(&kernel))
            .arg(&start)
            .arg(&n32)
            .buf_mut(&mut out)
            .run(grid_1d(n, 256))?;
        Ok(gpu.download(&out)?.into_iter().map(i64::from).collect())
    }

    add_sub_op!(
        /// out[i] = a[i] + b[i] on LNS words, on the device (grid-stride, streaming loads, the
        /// device's streaming policy).
        /// Words are `u32`, or `u16` for formats of at most 16 bits (lns16), which halves the
        /// traffic.
        add,
        false
    );
    add_sub_op!(
        /// out[i] = a[i] − b[i] on LNS words, on the device.
        sub,
        true
    );

    fn add_sub<W: LnsWord>(
        &self,
        [a, b]: [&DeviceBuffer<W>; 2],
        out: &mut DeviceBuffer<W>,
        negate_b: bool,
    ) -> Result<(), LnsError> {
        let gpu = &self.gpu;
        let n = equal_lengths("LNS add/sub", &[a.len(), b.len(), out.len()])?;
        self.check_word::<W>()?;
        let name = format!("lns_add_{}{}", self.method, W::SUFFIX);
        let (source, config) = super::streaming(gpu, n);
        let kernel = gpu.kernel(&source, &name)?;
        let (n64, negate) = (n as u64, negate_b as i32);
        self.table_args(&mut gpu.launch(&kernel))
            .buf(a)
            .buf(b)
            .buf_mut(out)
            .arg(&n64)
            .arg(&negate)
            .run(config)?;
        Ok(())
    }

    /// out[i] = a[i] + b[i] (− b[i] when `negate_b`) on device views — the caller's tensors or
    /// sigpu's buffers — enqueued on `target`'s stream without waiting: the kernels of
    /// [`GpuMethod::add`].
    pub fn add_sub_on<W: LnsWord>(
        &self,
        target: &GpuTarget,
        a: &DeviceSlice<'_, W>,
        b: &DeviceSlice<'_, W>,
        out: &mut DeviceSliceMut<'_, W>,
        negate_b: bool,
    ) -> Result<(), LnsError> {
        let gpu = &self.gpu;
        let n = equal_lengths("LNS add/sub", &[a.len(), b.len(), out.len()])?;
        self.check_word::<W>()?;
        if n == 0 {
            return Ok(());
        }
        let name = format!("lns_add_{}{}", self.method, W::SUFFIX);
        let (source, config) = super::streaming(gpu, n);
        let kernel = gpu.kernel(&source, &name)?;
        let (n64, negate) = (n as u64, negate_b as i32);
        let mut launch = target.launch(&kernel);
        self.table_args(&mut launch)
            .slice(a)
            .slice(b)
            .slice_mut(out)
            .arg(&n64)
            .arg(&negate)
            .run(config)?;
        Ok(())
    }

    fn check_word<W: LnsWord>(&self) -> Result<(), LnsError> {
        super::words::check_word::<W>(self.format)
    }

    /// Evaluates every input of the format on the GPU and certifies the results.
    pub fn certify(&self, func: Which, progress: &dyn Fn(u64)) -> Result<Certificate, LnsError> {
        let part = self.certify_part(func, func.inputs(self.format), progress)?;
        let device = format!("{} ({})", self.gpu.info().name, self.gpu.arch());
        Ok(part.certificate(self.format, func, &self.method.to_string(), &device))
    }

    /// [`GpuMethod::certify`] over the inputs `inputs` alone (a sub-range of
    /// `func.inputs(format)`, possibly empty), as a [`Part`] to merge with the others'.
    pub fn certify_part(
        &self,
        func: Which,
        inputs: std::ops::RangeInclusive<i64>,
        progress: &dyn Fn(u64),
    ) -> Result<Part, LnsError> {
        let (start, end) = (*inputs.start(), *inputs.end());
        let mut results = Vec::with_capacity((end - start + 1).max(0) as usize);
        let chunk = 1i64 << 25;
        let mut at = start;
        while at <= end {
            let n = chunk.min(end - at + 1);
            results.extend(self.eval(func, at, n as usize)?);
            progress(n as u64);
            at += n;
        }
        Ok(part_of_results(self.format, func, start, &results))
    }
}

/// Uploads texlut's two tables (s_b, d_b) as point-sampled textures.
fn upload_luts(gpu: &Gpu, format: Format) -> Result<([u64; 4], Storage), LnsError> {
    let mut handles = [0u64; 4];
    let mut storage = Storage::default();
    let desc = TextureDesc {
        filter: Filter::Point,
        coords: Coordinates::Unnormalized,
    };
    for (h, db) in handles.iter_mut().zip([false, true]) {
        let tex = Texture::new_1d(gpu, &super::lut::texels(format, db), desc)?;
        *h = tex.handle();
        storage._textures.push(tex);
    }
    Ok((handles, storage))
}

/// Two methods run side by side on one device: warps with (global warp index mod 8) < λ on
/// `a`, the others on `b` (the `lns_blend_*` kernels of lns.cu). Each result is its method's,
/// so a blend of faithful methods is faithful.
pub struct GpuBlend<'m> {
    /// The method of warps with (global warp index mod 8) < λ.
    pub a: &'m GpuMethod,
    /// The method of the other warps.
    pub b: &'m GpuMethod,
    /// The kernels' suffix, `A_B` (e.g. `texlut_sfu`).
    pub name: String,
}

impl<'m> GpuBlend<'m> {
    /// The blend of `a` and `b`, built for one format on one device; lns.cu has kernels for
    /// texlut + SFU.
    pub fn new(a: &'m GpuMethod, b: &'m GpuMethod) -> Result<GpuBlend<'m>, LnsError> {
        if a.format != b.format {
            return Err(LnsError::Invalid(format!(
                "a blend of {} and {}",
                a.format, b.format
            )));
        }
        if a.gpu.ordinal() != b.gpu.ordinal() {
            return Err(LnsError::Invalid(format!(
                "a blend of {} on cuda:{} and {} on cuda:{}: build both on one device",
                a.method,
                a.gpu.ordinal(),
                b.method,
                b.gpu.ordinal()
            )));
        }
        let name = format!("{}_{}", a.method, b.method);
        if name != "texlut_sfu" {
            return Err(LnsError::Unsupported(format!(
                "no blend kernels for {name}"
            )));
        }
        Ok(GpuBlend { a, b, name })
    }

    /// The codes for inputs start .. start + n at partition `lambda` (0..=8).
    pub fn eval(
        &self,
        func: Which,
        lambda: i32,
        start: i64,
        n: usize,
    ) -> Result<Vec<i64>, LnsError> {
        let gpu = &self.a.gpu;
        let kernel = gpu.kernel(&kernels(), &format!("lns_blend_eval_{}", self.name))?;
        let n32 =
            i32::try_from(n).map_err(|_| LnsError::Invalid(format!("{n} inputs in one launch")))?;
        let db = i32::from(func == Which::Db);
        let mut out = gpu.alloc_poisoned::<i32>(n)?;
        let mut launch = gpu.launch(&kernel);
        self.a.table_args(&mut launch);
        self.b
            .table_args(&mut launch)
            .arg(&lambda)
            .arg(&db)
            .arg(&start)
            .arg(&n32)
            .buf_mut(&mut out)
            .run(grid_1d(n, 256))?;
        Ok(gpu.download(&out)?.into_iter().map(i64::from).collect())
    }
}

/// Uploads [`F32Split`]'s four tables of segment records as word buffers.
fn upload_words(gpu: &Gpu, tables: &[Vec<u32>; 4]) -> Result<([u64; 4], Storage), LnsError> {
    let mut handles = [0u64; 4];
    let mut storage = Storage::default();
    for (h, table) in handles.iter_mut().zip(tables) {
        let buf = gpu.upload(table)?;
        *h = {
            let (ptr, _sync) = buf.device_ptr(gpu.stream());
            ptr
        };
        storage._words.push(buf);
    }
    Ok((handles, storage))
}

/// Uploads a table set: coefficient buffers for Horner, textures for the texture readers.
fn upload(gpu: &Gpu, t: &Tables) -> Result<([u64; 4], Storage), LnsError> {
    let mut handles = [0u64; 4];
    let mut storage = Storage::default();
    match t.reader {
        Reader::Horner(_) => {
            for (h, &f) in handles.iter_mut().zip(&FUNCS) {
                let buf = gpu.upload(&t.fit(f).coeffs)?;
                *h = {
                    let (ptr, _sync) = buf.device_ptr(gpu.stream());
                    ptr
                };
                storage._buffers.push(buf);
            }
        }
        Reader::Texture1 | Reader::Texture2 => {
            let desc = TextureDesc {
                filter: Filter::Linear,
                coords: Coordinates::Unnormalized,
            };
            for (h, &f) in handles.iter_mut().zip(&FUNCS) {
                let texels = t.texels(f);
                let tex = if t.reader == Reader::Texture1 {
                    Texture::new_1d(gpu, texels, desc)?
                } else {
                    Texture::new_2d(gpu, texels, texels.len() / 2, 2, desc)?
                };
                *h = tex.handle();
                storage._textures.push(tex);
            }
        }
    }
    Ok((handles, storage))
}
