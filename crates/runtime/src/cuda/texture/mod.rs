//! Texture objects over CUDA arrays: the texture unit's filtering (linear interpolation with
//! 8-bit fractional weights) as a function evaluator, owned safely.
//!
//! cudarc has no texture wrapper, so this drives the driver API directly. A [`Texture`] owns
//! its CUDA array and texture object and destroys both on drop; kernels receive
//! [`Texture::handle`] as an `unsigned long long` (`cudaTextureObject_t`) and read it with
//! `tex1D<T>` / `tex2D<T>`. Addressing is always clamp: coordinates outside the table read the
//! edge texels, which is what function tables want.

pub mod model;

use super::error::{DriverContext, Error, Result};
use super::gpu::Gpu;
use cudarc::driver::{sys, CudaContext};
use std::marker::PhantomData;
use std::sync::Arc;

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for [f32; 2] {}
    impl Sealed for [f32; 4] {}
}

/// A texel type: `f32`, `[f32; 2]` (CUDA `float2`) or `[f32; 4]` (CUDA `float4`).
pub trait Texel: sealed::Sealed + Copy + Send + Sync + 'static {
    /// Values per texel: 1, 2 or 4.
    const CHANNELS: u32;
    /// The texel's values, `CHANNELS` of them.
    fn channels(&self) -> &[f32];
    /// Builds a texel from `CHANNELS` values.
    fn from_channels(c: &[f32]) -> Self;
}
impl Texel for f32 {
    const CHANNELS: u32 = 1;
    fn channels(&self) -> &[f32] {
        std::slice::from_ref(self)
    }
    fn from_channels(c: &[f32]) -> Self {
        c[0]
    }
}
impl Texel for [f32; 2] {
    const CHANNELS: u32 = 2;
    fn channels(&self) -> &[f32] {
        self
    }
    fn from_channels(c: &[f32]) -> Self {
        [c[0], c[1]]
    }
}
impl Texel for [f32; 4] {
    const CHANNELS: u32 = 4;
    fn channels(&self) -> &[f32] {
        self
    }
    fn from_channels(c: &[f32]) -> Self {
        [c[0], c[1], c[2], c[3]]
    }
}

/// How a texture fetch between texels is answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Filter {
    /// Nearest texel.
    Point,
    /// Linear (1-D) or bilinear (2-D) interpolation with weights quantised to 1/256.
    Linear,
}

/// How a fetch's coordinates map onto texels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coordinates {
    /// Texel `i` covers `[i, i + 1)`; its centre is `i + 0.5`.
    Unnormalized,
    /// The whole table spans `[0, 1)`.
    Normalized,
}

/// How a texture is sampled; its CPU model ([`emulate_linear_filter_1d`](super::emulate_linear_filter_1d)) follows the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextureDesc {
    /// Point or (bi)linear fetches.
    pub filter: Filter,
    /// Texel or normalised coordinates.
    pub coords: Coordinates,
}

/// A 1-D or 2-D texture of `T` on one device.
pub struct Texture<T: Texel> {
    ctx: Arc<CudaContext>,
    array: sys::CUarray,
    handle: sys::CUtexObject,
    width: usize,
    height: usize,
    desc: TextureDesc,
    _texel: PhantomData<T>,
}

// SAFETY: CUDA array and texture object handles may be used and destroyed from any thread once
// the owning context is made current, which every use here does.
unsafe impl<T: Texel> Send for Texture<T> {}
// SAFETY: as above; `&Texture` only hands out the immutable handle.
unsafe impl<T: Texel> Sync for Texture<T> {}

impl<T: Texel> Texture<T> {
    /// A 1-D texture of `data.len()` texels.
    pub fn new_1d(gpu: &Gpu, data: &[T], desc: TextureDesc) -> Result<Self> {
        Self::new(gpu, data, data.len(), 0, desc)
    }

    /// A 2-D texture, `data` in row-major order (`x` fastest): texel (x, y) is
    /// `data[y * width + x]`.
    pub fn new_2d(
        gpu: &Gpu,
        data: &[T],
        width: usize,
        height: usize,
        desc: TextureDesc,
    ) -> Result<Self> {
        if height == 0 {
            return Err(Error::Invalid("a 2-D texture needs height ≥ 1".into()));
        }
        Self::new(gpu, data, width, height, desc)
    }

    fn new(gpu: &Gpu, data: &[T], width: usize, height: usize, desc: TextureDesc) -> Result<Self> {
        check_extent(gpu, data.len(), width, height)?;
        let ctx = gpu.context().clone();
        ctx.bind_to_thread().context("binding the context")?;
        let array_desc = sys::CUDA_ARRAY_DESCRIPTOR {
            Width: width,
            Height: height,
            Format: sys::CUarray_format::CU_AD_FORMAT_FLOAT,
            NumChannels: T::CHANNELS,
        };
        let mut array = std::ptr::null_mut();
        // SAFETY: valid descriptor and out-pointer; the context is current.
        unsafe { sys::cuArrayCreate_v2(&mut array, &array_desc) }
            .result()
            .context(format_args!("creating a {width}×{height} CUDA array"))?;
        // From here on `tex` owns the array, so every error path below releases it.
        let mut tex = Texture {
            ctx,
            array,
            handle: 0,
            width,
            height,
            desc,
            _texel: PhantomData,
        };
        tex.upload(data)?;
        tex.create_object()?;
        Ok(tex)
    }

    fn upload(&mut self, data: &[T]) -> Result<()> {
        let row_bytes = self.width * std::mem::size_of::<T>();
        // SAFETY: `data` holds width × max(height, 1) texels, exactly what is copied; the array
        // was created with that extent and this texel format.
        let r = unsafe {
            if self.height == 0 {
                sys::cuMemcpyHtoA_v2(self.array, 0, data.as_ptr().cast(), row_bytes)
            } else {
                // Spelled out in full: CUmemorytype has no zero value, so zeroed() is invalid.
                let copy = sys::CUDA_MEMCPY2D {
                    srcXInBytes: 0,
                    srcY: 0,
                    srcMemoryType: sys::CUmemorytype::CU_MEMORYTYPE_HOST,
                    srcHost: data.as_ptr().cast(),
                    srcDevice: 0,
                    srcArray: std::ptr::null_mut(),
                    srcPitch: row_bytes,
                    dstXInBytes: 0,
                    dstY: 0,
                    dstMemoryType: sys::CUmemorytype::CU_MEMORYTYPE_ARRAY,
                    dstHost: std::ptr::null_mut(),
                    dstDevice: 0,
                    dstArray: self.array,
                    dstPitch: 0,
                    WidthInBytes: row_bytes,
                    Height: self.height,
                };
                sys::cuMemcpy2D_v2(&copy)
            }
        };
        r.result().context("copying texels into the CUDA array")
    }

    fn create_object(&mut self) -> Result<()> {
        // SAFETY: all-zero is a valid value of these plain C structs (no filtering of mipmaps,
        // no border colour, reserved fields zero as the driver requires).
        let (mut res, mut tex): (sys::CUDA_RESOURCE_DESC, sys::CUDA_TEXTURE_DESC) =
            unsafe { (std::mem::zeroed(), std::mem::zeroed()) };
        res.resType = sys::CUresourcetype::CU_RESOURCE_TYPE_ARRAY;
        res.res.array.hArray = self.array;
        tex.addressMode = [sys::CUaddress_mode::CU_TR_ADDRESS_MODE_CLAMP; 3];
        tex.filterMode = match self.desc.filter {
            Filter::Point => sys::CUfilter_mode::CU_TR_FILTER_MODE_POINT,
            Filter::Linear => sys::CUfilter_mode::CU_TR_FILTER_MODE_LINEAR,
        };
        if self.desc.coords == Coordinates::Normalized {
            tex.flags |= sys::CU_TRSF_NORMALIZED_COORDINATES;
        }
        // SAFETY: descriptors are fully initialised and refer to the live array.
        unsafe { sys::cuTexObjectCreate(&mut self.handle, &res, &tex, std::ptr::null()) }
            .result()
            .context("creating the texture object")
    }

    /// The `cudaTextureObject_t` to pass to a kernel. Dropping the texture waits for the
    /// device to finish its work first, so kernels still using the handle complete.
    pub fn handle(&self) -> u64 {
        self.handle
    }

    /// Texels per row.
    pub fn width(&self) -> usize {
        self.width
    }

    /// 0 for a 1-D texture.
    pub fn height(&self) -> usize {
        self.height
    }

    /// How the texture is sampled.
    pub fn desc(&self) -> TextureDesc {
        self.desc
    }
}

impl<T: Texel> Drop for Texture<T> {
    fn drop(&mut self) {
        // Errors cannot be reported from drop; a failure here means the context is already gone.
        let _ = self.ctx.bind_to_thread();
        // A kernel still reading this texture must finish before its storage goes away.
        let _ = self.ctx.synchronize();
        // SAFETY: both handles were created by this value and are destroyed exactly once; a
        // zero handle means the object was never created.
        unsafe {
            if self.handle != 0 {
                let _ = sys::cuTexObjectDestroy(self.handle);
            }
            let _ = sys::cuArrayDestroy(self.array);
        }
    }
}

/// Rejects empty or oversized tables before the driver sees them, naming the device limit.
fn check_extent(gpu: &Gpu, len: usize, width: usize, height: usize) -> Result<()> {
    use sys::CUdevice_attribute::*;
    let rows = height.max(1);
    if width == 0 || width.checked_mul(rows) != Some(len) {
        return Err(Error::Invalid(format!(
            "texture extent {width}×{rows} does not match the {len} texels given"
        )));
    }
    let limit = |a| {
        gpu.context()
            .attribute(a)
            .context("querying texture limits")
    };
    let (max_w, max_h) = if height == 0 {
        (limit(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH)?, 1)
    } else {
        (
            limit(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH)?,
            limit(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT)?,
        )
    };
    if width > max_w as usize || rows > max_h as usize {
        return Err(Error::Invalid(format!(
            "texture extent {width}×{rows} exceeds this device's limit of {max_w}×{max_h}"
        )));
    }
    Ok(())
}
