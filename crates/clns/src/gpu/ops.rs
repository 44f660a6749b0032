//! Element-wise CLNS operations over device buffers of equal length: add (S_b by a method,
//! from the table) and mul, in the code formats (`[log, angle]` words) and in the f32-radian
//! variant (`[log2 |X|, radians]`).

use super::{kernels, ClnsGeo, GpuClns};
use crate::error::{ClnsError, Result};
use crate::sb::Method;
use sigpu_runtime::cuda::cudarc::driver::DeviceRepr;
use sigpu_runtime::cuda::{equal_lengths, streaming_config, DeviceBuffer, Gpu};

/// A public element-wise op `name(&self, a, b, out)` that launches [`elementwise`]'s
/// `kernel` (no table, no geometry) on words of type `word`.
macro_rules! elementwise_op {
    ($(#[$doc:meta])* $name:ident, $word:ty, $what:literal, $kernel:literal) => {
        $(#[$doc])*
        pub fn $name(
            &self,
            a: &DeviceBuffer<$word>,
            b: &DeviceBuffer<$word>,
            out: &mut DeviceBuffer<$word>,
        ) -> Result<()> {
            elementwise(&self.gpu, $what, $kernel, None, a, b, out)
        }
    };
}

/// Device buffers of CLNS code words (`[log, angle]`).
type Words = DeviceBuffer<[u32; 2]>;

/// Device buffers of the f32-radian variant's values (`[log2 |X|, radians]`).
type F32Words = DeviceBuffer<[f32; 2]>;

/// The blend's warp split in the element-wise add: λ of every 8 warps on the texture.
const BLEND_LAMBDA: i32 = 4;

impl GpuClns {
    /// out = a + b element-wise, S_b by `method` (Blend: half the warps on each reader).
    pub fn add(&self, method: Method, a: &Words, b: &Words, out: &mut Words) -> Result<()> {
        // clns_add_blend takes λ after n; the other add kernels end at n.
        self.check_method(method)?;
        let lambda = (method == Method::Blend).then_some(&BLEND_LAMBDA);
        let name = format!("clns_add_{method}");
        self.table_op("CLNS add", &name, a, b, out, lambda)
    }

    /// out = a · b element-wise.
    pub fn mul(&self, a: &Words, b: &Words, out: &mut Words) -> Result<()> {
        let geo = Some(&self.geo);
        elementwise(&self.gpu, "CLNS mul", "clns_mul_kernel", geo, a, b, out)
    }

    elementwise_op!(
        /// out = a · b element-wise by the finite fast path (`ClnsFormat::mul_finite`: the
        /// caller promises finite operands and in-range products).
        mul_finite,
        [u32; 2],
        "CLNS mul_finite",
        "clns_mul_finite_kernel"
    );

    /// out = a ± b element-wise in the f32-radian variant ([`crate::ClnsF32`] as
    /// `[log, angle]`), S_b by `method` (f64, accurate, tex, fma or sfu; the tables are this
    /// object's; sfu serves the f32 variant whatever the code format).
    pub fn add_f32(
        &self,
        method: Method,
        a: &F32Words,
        b: &F32Words,
        out: &mut F32Words,
        negate: bool,
    ) -> Result<()> {
        equal_lengths("CLNS-f32 add", &[a.len(), b.len(), out.len()])?;
        if method == Method::Blend {
            return Err(ClnsError::NoKernel {
                what: "CLNS-f32 add".into(),
                why: "no blend kernel (f64, accurate, tex, fma, sfu)",
            });
        }
        let name = format!("clnsf_add_{method}");
        let negate = i32::from(negate);
        self.table_op("CLNS-f32 add", &name, a, b, out, Some(&negate))
    }

    elementwise_op!(
        /// out = a · b element-wise in the f32-radian variant.
        mul_f32,
        [f32; 2],
        "CLNS-f32 mul",
        "clnsf_mul_kernel"
    );

    /// Launches a table kernel `name(ClnsGeo, tex, const float2* table, const T* a,
    /// const T* b, T* out, unsigned long long n[, int last])` over equal-length buffers.
    fn table_op<T: DeviceRepr>(
        &self,
        what: &str,
        name: &str,
        a: &DeviceBuffer<T>,
        b: &DeviceBuffer<T>,
        out: &mut DeviceBuffer<T>,
        last: Option<&i32>,
    ) -> Result<()> {
        let n = equal_lengths(what, &[a.len(), b.len(), out.len()])?;
        let gpu = &self.gpu;
        let kernel = gpu.kernel(&kernels(), name)?;
        let (tex, n64) = (self.texture_handle(), n as u64);
        let mut launch = gpu.launch(&kernel);
        launch
            .arg(&self.geo)
            .arg(&tex)
            .buf(&self.buffer)
            .buf(a)
            .buf(b)
            .buf_mut(out)
            .arg(&n64);
        if let Some(last) = last {
            launch.arg(last);
        }
        launch.run(streaming_config(gpu, n))?;
        Ok(())
    }
}

/// Launches a kernel `name([ClnsGeo g,] const T* a, const T* b, T* out, unsigned long long
/// n)` over equal-length buffers (the element-wise ops that read no table; `geo` when the
/// kernel takes the format's geometry).
fn elementwise<T: DeviceRepr>(
    gpu: &Gpu,
    what: &str,
    name: &str,
    geo: Option<&ClnsGeo>,
    a: &DeviceBuffer<T>,
    b: &DeviceBuffer<T>,
    out: &mut DeviceBuffer<T>,
) -> Result<()> {
    let n = equal_lengths(what, &[a.len(), b.len(), out.len()])?;
    let kernel = gpu.kernel(&kernels(), name)?;
    let n64 = n as u64;
    let mut launch = gpu.launch(&kernel);
    if let Some(geo) = geo {
        launch.arg(geo);
    }
    launch.buf(a).buf(b).buf_mut(out).arg(&n64);
    launch.run(streaming_config(gpu, n))?;
    Ok(())
}
