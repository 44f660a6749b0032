//! An opened CUDA device: context, stream, kernel loading and buffer helpers.

use super::cache::KernelCache;
use super::compile::{compile, KernelSource};
use super::error::{DriverContext, Error, Missing, Result, Unavailable};
use super::probe::{device_count, driver_version, nvrtc_version, DeviceInfo};
use super::tuning::{Policies, Tuning, TuningCache};
use super::DeviceBuffer;
use cudarc::driver::{
    result, CudaContext, CudaFunction, CudaModule, CudaStream, DevicePtrMut, DeviceRepr,
    LaunchConfig,
};
use cudarc::nvrtc::Ptx;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// One CUDA device, ready to compile, load and launch kernels on its default stream.
///
/// A cheap handle: clones share the context, the loaded modules and the kernel cache, so
/// objects that run on a device hold a clone of its `Gpu` (uploads and launches of one object
/// then cannot go to two devices).
#[derive(Clone)]
pub struct Gpu {
    inner: Arc<Inner>,
}

struct Inner {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    info: DeviceInfo,
    cache: KernelCache,
    /// Loaded modules by source name + options, so each source is compiled and loaded once,
    /// with the image they were loaded from (it tells each kernel's parameter count).
    modules: Mutex<HashMap<ModuleId, Loaded>>,
    /// Kernels already looked up, with their parameter sizes: wrappers ask for their kernel on
    /// every call, and the lookup and the driver queries are done once.
    kernels: Mutex<HashMap<(ModuleId, String), Kernel>>,
    /// Whether the driver reports kernel parameters (`cuFuncGetParamInfo`, CUDA ≥ 12.4).
    param_info: bool,
    /// The launch policies, looked up on first use ([`Gpu::tuning`]).
    tuning: Mutex<Option<Arc<Tuning>>>,
}

/// Source name, NVRTC options and a hash of the code: what makes two loaded modules different.
type ModuleId = (String, Vec<String>, u64);

/// A loaded module and the CUBIN it came from.
#[derive(Clone)]
struct Loaded {
    module: Arc<CudaModule>,
    cubin: Arc<[u8]>,
}

impl Gpu {
    /// Opens device `ordinal`. Fails with [`Error::Unavailable`] naming the missing driver or
    /// device; NVRTC is checked only when a kernel is first compiled.
    pub fn open(ordinal: usize) -> Result<Gpu> {
        driver_version()?;
        let count = device_count()?;
        if ordinal >= count {
            return Err(Unavailable::new(
                Missing::Device,
                format!("CUDA device {ordinal} was requested but the driver reports {count}"),
            )
            .into());
        }
        let ctx = CudaContext::new(ordinal)
            .context(format_args!("creating a context on device {ordinal}"))?;
        let info = DeviceInfo::query(ordinal).context("querying device attributes")?;
        Ok(Gpu {
            inner: Arc::new(Inner {
                stream: ctx.default_stream(),
                ctx,
                info,
                cache: KernelCache::from_env(),
                modules: Mutex::new(HashMap::new()),
                kernels: Mutex::new(HashMap::new()),
                param_info: driver_reports_params(),
                tuning: Mutex::new(None),
            }),
        })
    }

    /// Opens device `ordinal` and makes sure NVRTC is there too, so kernels can be compiled:
    /// what every command that runs kernels wants, failing once, up front, when either is
    /// missing.
    pub fn open_with_compiler(ordinal: usize) -> Result<Gpu> {
        let gpu = Gpu::open(ordinal)?;
        nvrtc_version()?;
        Ok(gpu)
    }

    /// Opens every CUDA device of the host, in ordinal order, each with its own context and
    /// NVRTC checked: for work spread over all GPUs. An error naming what is missing when the
    /// driver, every device or NVRTC is, or naming the first device that cannot be opened
    /// (busy, exclusive-process mode): all or nothing, so a sweep never silently runs on fewer.
    pub fn open_all() -> Result<Vec<Gpu>> {
        driver_version()?;
        let count = device_count()?;
        nvrtc_version()?;
        (0..count).map(Gpu::open).collect()
    }

    /// The device's attributes as queried when it was opened.
    pub fn info(&self) -> &DeviceInfo {
        &self.inner.info
    }

    /// The launch policies this device's kernels run, looked up once on first use: measured
    /// on this device (the tuning cache) → the built-in row for its key → the default
    /// ([`super::tuning`]). What the cache held but could not be used is printed once to
    /// stderr as a warning.
    pub fn tuning(&self) -> Arc<Tuning> {
        let mut slot = self.inner.tuning.lock().unwrap_or_else(|p| p.into_inner());
        slot.get_or_insert_with(|| {
            let t = Tuning::resolve(&self.inner.info, &TuningCache::from_env());
            for w in &t.warnings {
                eprintln!("sigpu: warning: {w}");
            }
            Arc::new(t)
        })
        .clone()
    }

    /// The policies of [`Gpu::tuning`].
    pub fn policies(&self) -> Policies {
        self.tuning().policies
    }

    /// Replaces the policies of this device's handles (every clone) from now on: what the
    /// search does while it times a candidate. Objects already built keep the shapes they
    /// were built with (a generated kernel's tile is compiled in).
    pub fn set_tuning(&self, tuning: Tuning) {
        *self.inner.tuning.lock().unwrap_or_else(|p| p.into_inner()) = Some(Arc::new(tuning));
    }

    /// The device's ordinal (what `cuda:N` names).
    pub fn ordinal(&self) -> usize {
        self.inner.ctx.ordinal()
    }

    /// Whether `self` and `other` are handles of the same opened device.
    pub fn same(&self, other: &Gpu) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// The NVRTC target for this device, e.g. `sm_90`.
    pub fn arch(&self) -> &str {
        &self.inner.info.arch
    }

    /// The CUDA context, for cudarc calls this layer does not wrap.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.inner.ctx
    }

    /// The device's default stream, which every call of this handle orders its work on.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.inner.stream
    }

    /// Compiles (or takes from the disk cache) and loads `source` for this device, once.
    pub fn module(&self, source: &KernelSource) -> Result<Arc<CudaModule>> {
        self.module_by_id(source, module_id(source))
    }

    fn module_by_id(&self, source: &KernelSource, id: ModuleId) -> Result<Arc<CudaModule>> {
        Ok(self.loaded(source, id)?.module)
    }

    fn loaded(&self, source: &KernelSource, id: ModuleId) -> Result<Loaded> {
        let mut modules = self.inner.modules.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(m) = modules.get(&id) {
            return Ok(m.clone());
        }
        let compiled = compile(source, self.arch(), &self.inner.cache)?;
        let load = |cubin: Vec<u8>| -> Result<Loaded, cudarc::driver::DriverError> {
            let module = self
                .inner
                .ctx
                .load_module(Ptx::from_binary(cubin.clone()))?;
            Ok(Loaded {
                module,
                cubin: cubin.into(),
            })
        };
        let loaded = match load(compiled.cubin) {
            Ok(m) => m,
            // A cached image that no longer loads (e.g. after a driver downgrade) is replaced.
            Err(_) if compiled.from_cache => {
                self.inner.cache.evict(&source.name, &compiled.key);
                let fresh = compile(source, self.arch(), &self.inner.cache)?;
                load(fresh.cubin).context(format_args!("loading {}", source.name))?
            }
            Err(e) => return Err(e).context(format_args!("loading {}", source.name)),
        };
        modules.insert(id, loaded.clone());
        Ok(loaded)
    }

    /// The kernel `name` from `source`, ready for [`Gpu::launch`]: compiled, loaded and its
    /// parameters queried on the first call, taken from this device's cache after. An unknown
    /// name lists the kernels the image has.
    pub fn kernel(&self, source: &KernelSource, name: &str) -> Result<Kernel> {
        let key = (module_id(source), name.to_owned());
        let mut kernels = self.inner.kernels.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(k) = kernels.get(&key) {
            return Ok(k.clone());
        }
        let function = self.function(source, key.0.clone(), name)?;
        let count = self.loaded(source, key.0.clone())?.param_count(name);
        let params = count
            .filter(|_| self.inner.param_info)
            .and_then(|count| param_sizes(&function, count));
        let kernel = Kernel {
            name: name.into(),
            function,
            params: params.map(Into::into),
        };
        kernels.insert(key, kernel.clone());
        Ok(kernel)
    }

    fn function(&self, source: &KernelSource, id: ModuleId, name: &str) -> Result<CudaFunction> {
        if name.contains('\0') {
            return Err(Error::Invalid(format!(
                "kernel name {name:?} contains a NUL byte"
            )));
        }
        let module = self.module_by_id(source, id)?;
        module.load_function(name).map_err(|_| {
            let known = compile(source, self.arch(), &self.inner.cache)
                .map(|c| c.kernel_names())
                .unwrap_or_default();
            Error::Invalid(format!(
                "{} has no kernel named {name:?} (it has: {})",
                source.name,
                known.join(", ")
            ))
        })
    }

    /// Copies `host` into a new device buffer (ordered on the stream).
    pub fn upload<T: DeviceRepr>(&self, host: &[T]) -> Result<DeviceBuffer<T>> {
        self.inner
            .stream
            .clone_htod(host)
            .context("copying host to device")
    }

    /// Copies `device` back to the host, waiting for the stream's earlier work.
    pub fn download<T: DeviceRepr>(&self, device: &DeviceBuffer<T>) -> Result<Vec<T>> {
        self.inner
            .stream
            .clone_dtoh(device)
            .context("copying device to host")
    }

    /// A buffer of `len` elements filled with [`poison`](Self::poison)'s pattern.
    pub fn alloc_poisoned<T: Plain>(&self, len: usize) -> Result<DeviceBuffer<T>> {
        // SAFETY: the memory is written by `poison` before anything can read it.
        let mut buf = unsafe { self.inner.stream.alloc::<T>(len) }
            .context(format_args!("allocating {len} elements"))?;
        self.poison(&mut buf)?;
        Ok(buf)
    }

    /// Fills `buf` with 0xFF bytes: NaN for floats, -1 / MAX for integers. Outputs are poisoned
    /// before a checked kernel runs, so an element the kernel forgot to write cannot pass.
    pub fn poison<T: Plain>(&self, buf: &mut DeviceBuffer<T>) -> Result<()> {
        let bytes = buf.len() * std::mem::size_of::<T>();
        let (ptr, _sync) = buf.device_ptr_mut(&self.inner.stream);
        // SAFETY: `ptr` covers `bytes` bytes of a live allocation on this stream, and every bit
        // pattern is a valid value of a `Plain` type.
        unsafe { result::memset_d8_async(ptr, 0xFF, bytes, self.inner.stream.cu_stream()) }
            .context("poisoning a buffer")
    }

    /// Waits until all work queued on the stream has finished; surfaces a kernel's fault.
    pub fn synchronize(&self) -> Result<()> {
        self.inner
            .stream
            .synchronize()
            .context("synchronising the stream")
    }
}

mod sealed {
    pub trait Sealed {}
}

/// Element types for which every bit pattern is a valid value (numbers and arrays of them), so
/// a buffer of them may be filled with any bytes.
pub trait Plain: DeviceRepr + sealed::Sealed {}

macro_rules! plain {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl Plain for $t {}
        impl<const N: usize> sealed::Sealed for [$t; N] {}
        impl<const N: usize> Plain for [$t; N] where [$t; N]: DeviceRepr {}
    )*};
}
plain!(f32, f64, i8, i16, i32, i64, u8, u16, u32, u64, usize, isize);

/// A loaded kernel: the function, its name (for every error) and its parameters' sizes.
/// Cheap to clone.
#[derive(Clone, Debug)]
pub struct Kernel {
    name: Arc<str>,
    function: CudaFunction,
    /// Byte size of each parameter, in order; `None` where the driver cannot report them.
    params: Option<Arc<[usize]>>,
}

impl Kernel {
    /// The kernel's name, as looked up in its module.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The driver's function, for attribute and occupancy queries.
    pub fn function(&self) -> &CudaFunction {
        &self.function
    }

    /// The byte size of each parameter, when the driver reports them (CUDA ≥ 12.4).
    pub fn param_sizes(&self) -> Option<&[usize]> {
        self.params.as_deref()
    }
}

/// Whether the driver has `cuFuncGetParamInfo` (CUDA 12.4).
fn driver_reports_params() -> bool {
    let mut version = 0;
    // SAFETY: plain query into a local.
    let status = unsafe { cudarc::driver::sys::cuDriverGetVersion(&mut version) };
    status == cudarc::driver::sys::CUresult::CUDA_SUCCESS && version >= 12040
}

impl Loaded {
    /// How many parameters kernel `name` takes, as the image says (`None`: it does not say).
    fn param_count(&self, name: &str) -> Option<usize> {
        super::cubin::param_count(&self.cubin, name)
    }
}

/// The size of each of the kernel's `count` parameters (`cuFuncGetParamInfo`); `None` when a
/// query fails: launches of that kernel are then not checked. Only indices below the count the
/// image gives are asked for: a query past the last parameter is an API error that
/// compute-sanitizer would log.
fn param_sizes(function: &CudaFunction, count: usize) -> Option<Vec<usize>> {
    use cudarc::driver::sys;
    (0..count)
        .map(|index| {
            let (mut offset, mut size) = (0usize, 0usize);
            // SAFETY: `function` is a live kernel handle, `index` is below its parameter count,
            // and the outputs are locals.
            let status = unsafe {
                sys::cuFuncGetParamInfo(function.cu_function(), index, &mut offset, &mut size)
            };
            (status == sys::CUresult::CUDA_SUCCESS).then_some(size)
        })
        .collect()
}

/// What makes two loaded modules different: name, options and the code with its headers.
fn module_id(source: &KernelSource) -> ModuleId {
    (
        source.name.to_string(),
        source.options.clone(),
        hash_code(&source.expanded()),
    )
}

fn hash_code(code: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    code.hash(&mut h);
    h.finish()
}

/// A 1-D launch covering `n` threads with `block` threads per block (at least 1). The grid
/// is capped at the hardware's 2^31 − 1 blocks; kernels meant for more must loop (grid-stride).
pub fn grid_1d(n: usize, block: u32) -> LaunchConfig {
    let block = block.max(1);
    let blocks = (n as u64).div_ceil(block as u64).clamp(1, i32::MAX as u64);
    LaunchConfig {
        grid_dim: (blocks as u32, 1, 1),
        block_dim: (block, 1, 1),
        shared_mem_bytes: 0,
    }
}
