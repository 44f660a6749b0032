//! CLNS on the GPU: S_b tables as a 2-D float2 texture (and the same texels in a buffer for
//! the FMA reader), kernels from `kernels/clns.cu`, GPU certificates ([`GpuClns`]); the
//! element-wise ops and the batched FFT ([`ops`], [`fft`]); the self-checks ([`checks`]).

mod checks;
mod fft;
mod lattice;
mod ops;
mod pairs;

pub use checks::checks;
pub use lattice::SfuLatticeCertificate;
pub use pairs::random_pairs;

use crate::certify::{certify_results, Certificate, Inputs};
use crate::error::{ClnsError, Result};
use crate::format::ClnsFormat;
use crate::sb::{pow2_poly, Geometry, Method, Sb, SbTable};
use sigpu_runtime::cuda::cudarc::driver::DeviceRepr;
use sigpu_runtime::cuda::{
    grid_1d, Coordinates, DeviceBuffer, Filter, Gpu, KernelSource, KernelValue, Texture,
    TextureDesc,
};

/// The CLNS kernels (`kernels/clns.cu`).
pub fn kernels() -> KernelSource {
    KernelSource::embedded("clns.cu", include_str!("../../kernels/clns.cu"))
}

/// `struct ClnsGeo` of clns.cu: the format and table geometry every kernel takes by value.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct ClnsGeo {
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
unsafe impl DeviceRepr for ClnsGeo {}
impl KernelValue for ClnsGeo {}

/// CUDA's `float2` by value (a `[f32; 2]` cannot be a kernel value: both types are foreign).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Float2(pub [f32; 2]);

// SAFETY: #[repr(C)] of two f32, as CUDA's float2.
unsafe impl DeviceRepr for Float2 {}
impl KernelValue for Float2 {}

/// CUDA's `uint2` by value.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Uint2(pub [u32; 2]);

// SAFETY: #[repr(C)] of two u32, as CUDA's uint2.
unsafe impl DeviceRepr for Uint2 {}
impl KernelValue for Uint2 {}

/// A format's S_b table on one device: texture and buffer of the same texels. Every kernel
/// of this object runs on the device it was built on.
pub struct GpuClns {
    /// The format the table serves.
    pub format: ClnsFormat,
    /// The table's size and near region.
    pub geometry: Geometry,
    /// The CPU twin's table (texture reader; the FMA twin reads the same texels).
    pub table: SbTable,
    geo: ClnsGeo,
    texture: Texture<[f32; 2]>,
    buffer: DeviceBuffer<[f32; 2]>,
    gpu: Gpu,
}

impl GpuClns {
    /// Builds the format's S_b table and loads it on `gpu` as a texture and a buffer. Fails when
    /// the log code needs more than 31 bits (the kernels hold it in an i32).
    pub fn new(gpu: &Gpu, format: ClnsFormat, geometry: Geometry) -> Result<GpuClns> {
        if format.log.log_bits() > 31 || geometry.z_min < i32::MIN as i64 / 2 {
            return Err(ClnsError::LogBits {
                format: format.to_string(),
            });
        }
        let table = SbTable::new(format, geometry, crate::Reader::Texture)?;
        let geo = geo(format, geometry)?;
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
            gpu: gpu.clone(),
        })
    }

    /// The device the table lives on and the kernels run on.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// The kernels' first argument: format and table geometry (for kernels of one's own that
    /// include the CLNS device code, e.g. the lab's benchmarks).
    pub fn geo(&self) -> &ClnsGeo {
        &self.geo
    }

    /// The texture object's handle (`unsigned long long tex` of the kernels).
    pub fn texture_handle(&self) -> u64 {
        self.texture.handle()
    }

    /// The table's texels in device memory (`const float2* table`, the FMA reader's).
    pub fn texels(&self) -> &DeviceBuffer<[f32; 2]> {
        &self.buffer
    }

    /// The CPU twin of `method` for this table (None for GPU-only methods).
    pub fn twin(&self, method: Method) -> Result<Option<Box<dyn Sb>>> {
        Ok(method.cpu(self.format, self.geometry)?)
    }

    /// S_b by `method` (not Blend) at every input: (Re code, Im angle).
    pub fn sb(&self, method: Method, inputs: &Inputs) -> Result<Vec<(i64, u32)>> {
        let gpu = &self.gpu;
        if method == Method::Blend {
            return Err(ClnsError::NoKernel {
                what: "S_b of the blend".into(),
                why: "evaluate tex and fma separately",
            });
        }
        self.check_method(method)?;
        let kernel = gpu.kernel(&kernels(), &format!("clns_sb_{method}"))?;
        let tex = self.texture_handle();
        let mut all = Vec::with_capacity(inputs.len());
        for (zs, ts) in inputs
            .z()
            .chunks(1 << 24)
            .zip(inputs.theta().chunks(1 << 24))
        {
            // `Inputs` holds as many angles as codes, every code within an i32.
            let z: Vec<i32> = zs.iter().map(|&z| z as i32).collect();
            let (dz, dt) = (gpu.upload(&z)?, gpu.upload(ts)?);
            let n = z.len() as i32;
            let mut out = gpu.alloc_poisoned::<[i32; 2]>(z.len())?;
            gpu.launch(&kernel)
                .arg(&self.geo)
                .arg(&tex)
                .buf(&self.buffer)
                .buf(&dz)
                .buf(&dt)
                .arg(&n)
                .buf_mut(&mut out)
                .run(grid_1d(z.len(), 256))?;
            all.extend(
                gpu.download(&out)?
                    .into_iter()
                    .map(|[re, im]| (re as i64, im as u32)),
            );
        }
        Ok(all)
    }

    /// Certifies `method` on the GPU over `inputs`.
    pub fn certify(&self, method: Method, inputs: &Inputs) -> Result<Certificate> {
        let got = self.sb(method, inputs)?;
        let device = format!("{} ({})", self.gpu.info().name, self.gpu.arch());
        Ok(certify_results(
            self.format,
            &method.to_string(),
            &device,
            inputs,
            &got,
        )?)
    }
}

impl GpuClns {
    /// Refuses a method this object's format is outside of: the SFU kernels convert codes by
    /// the 1.5·2^23 magic (exact for codes below 2^22) and their MUFU errors (~2^-22) leave
    /// no margin beyond ~16 bits per part.
    pub(crate) fn check_method(&self, method: Method) -> Result<()> {
        if !method.serves(self.format) {
            return Err(ClnsError::NoKernel {
                what: format!("S_b by sfu in {}", self.format),
                why: "the SFU method takes ≤ 16 log fraction bits, ≤ 5 integer bits and ≤ 20 angle bits",
            });
        }
        Ok(())
    }
}

/// The kernels' geometry for `format`'s table `geometry`.
fn geo(format: ClnsFormat, geometry: Geometry) -> Result<ClnsGeo> {
    let pow2 = pow2_poly()?;
    let mut c = [0.0f32; 6];
    c.copy_from_slice(&pow2.coeffs);
    let (near_z_rad, near_phi_rad) = geometry.near_radians(format);
    Ok(ClnsGeo {
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
    })
}
