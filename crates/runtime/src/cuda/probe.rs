//! What CUDA this machine has, found without creating a context and without any call that
//! could panic.

use super::error::{Missing, Unavailable};
use super::libs;
use cudarc::driver::{result, sys};
use serde::Serialize;

/// One CUDA device as `sigpu info` lists it.
#[derive(Clone, Debug, Serialize)]
pub struct DeviceInfo {
    /// What `cuda:N` names.
    pub ordinal: usize,
    /// The marketing name, e.g. `NVIDIA H100 80GB HBM3`.
    pub name: String,
    /// `"9.0"` on an H100.
    pub compute_capability: String,
    /// The NVRTC target sigpu compiles for, e.g. `sm_90`.
    pub arch: String,
    /// Streaming multiprocessors.
    pub sms: u32,
    /// Global memory, bytes.
    pub memory_bytes: u64,
    /// Peak SM clock, MHz (0 when the driver does not say).
    pub sm_clock_mhz: u32,
    /// Peak memory clock, MHz (0 when the driver does not say).
    pub memory_clock_mhz: u32,
    /// DRAM bus width, bits (0 when the driver does not say).
    pub memory_bus_bits: u32,
    /// L2 cache, bytes (0 when the driver does not say).
    pub l2_bytes: u32,
    /// Theoretical DRAM bandwidth (double data rate × bus width), GB/s.
    pub peak_dram_gb_per_s: f64,
}

impl DeviceInfo {
    pub(crate) fn query(ordinal: usize) -> Result<Self, cudarc::driver::DriverError> {
        use sys::CUdevice_attribute::*;
        let dev = result::device::get(ordinal as i32)?;
        // SAFETY: `dev` is a valid device handle from cuDeviceGet.
        let attr = |a| unsafe { result::device::get_attribute(dev, a) };
        let (major, minor) = (
            attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
            attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
        );
        let mem_clock_khz = attr(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE).unwrap_or(0) as u32;
        let bus_bits = attr(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH).unwrap_or(0) as u32;
        Ok(DeviceInfo {
            ordinal,
            name: result::device::get_name(dev)?,
            compute_capability: format!("{major}.{minor}"),
            arch: format!("sm_{major}{minor}"),
            sms: attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)? as u32,
            // SAFETY: as above.
            memory_bytes: unsafe { result::device::total_mem(dev)? } as u64,
            sm_clock_mhz: attr(CU_DEVICE_ATTRIBUTE_CLOCK_RATE).unwrap_or(0) as u32 / 1000,
            memory_clock_mhz: mem_clock_khz / 1000,
            memory_bus_bits: bus_bits,
            l2_bytes: attr(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE).unwrap_or(0) as u32,
            peak_dram_gb_per_s: 2.0 * mem_clock_khz as f64 * 1e3 * (bus_bits as f64 / 8.0) / 1e9,
        })
    }
}

/// Everything `sigpu info` says about CUDA.
#[derive(Clone, Debug, Serialize)]
pub struct CudaStatus {
    /// Driver, at least one device and NVRTC are all usable.
    pub available: bool,
    /// Why not, when `available` is false: what is missing and what to do.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Which piece is missing, when `available` is false.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub missing: Option<Missing>,
    /// The CUDA version the driver supports, e.g. `13.0`; `None` without a driver.
    pub driver_version: Option<String>,
    /// NVRTC's version, e.g. `13.0`; `None` when NVRTC cannot be loaded.
    pub nvrtc_version: Option<String>,
    /// Set when NVRTC was found outside the loader's path (SIGPU_NVRTC_DIR, CUDA_HOME, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nvrtc_path: Option<String>,
    /// Every device the driver reports, in ordinal order.
    pub devices: Vec<DeviceInfo>,
}

/// Looks for the driver, the devices and NVRTC, in that order, and never panics.
pub fn probe() -> CudaStatus {
    let nvrtc_version = nvrtc_version().ok();
    let mut status = CudaStatus {
        available: false,
        reason: None,
        missing: None,
        driver_version: None,
        nvrtc_version: nvrtc_version.clone(),
        nvrtc_path: libs::nvrtc_preloaded_from().map(|p| p.display().to_string()),
        devices: Vec::new(),
    };
    let devices = driver_version().and_then(|v| {
        status.driver_version = Some(v);
        let count = device_count()?;
        (0..count)
            .map(|i| {
                DeviceInfo::query(i).map_err(|e| {
                    Unavailable::new(Missing::Device, format!("querying CUDA device {i}: {e}"))
                })
            })
            .collect::<Result<Vec<_>, _>>()
    });
    let problem = match devices {
        Ok(devices) => {
            status.devices = devices;
            nvrtc_version.is_none().then(nvrtc_missing)
        }
        Err(e) => Some(e),
    };
    match problem {
        None => status.available = true,
        Some(u) => {
            status.reason = Some(u.to_string());
            status.missing = Some(u.missing);
        }
    }
    status
}

/// The driver's CUDA version, e.g. `"13.0"`, after initialising it.
pub(crate) fn driver_version() -> Result<String, Unavailable> {
    if !libs::driver_present() {
        return Err(Unavailable::new(
            Missing::Driver,
            "no CUDA driver: libcuda.so could not be loaded",
        ));
    }
    if let Err(e) = result::init() {
        return Err(Unavailable::new(
            Missing::Device,
            format!("the CUDA driver is installed but cuInit failed: {e}"),
        ));
    }
    let mut v = 0;
    // SAFETY: the driver library is present and initialised; `v` is a valid out-pointer.
    unsafe { sys::cuDriverGetVersion(&mut v) }
        .result()
        .map_err(|e| {
            Unavailable::new(Missing::Driver, format!("cuDriverGetVersion failed: {e}"))
        })?;
    let version = format!("{}.{}", v / 1000, (v % 1000) / 10);
    // cudarc is built for the CUDA 13.0 driver API (e.g. cuEventElapsedTime_v2), and kernels are
    // compiled by NVRTC 13: an older driver would fail at the first such call or module load.
    if v < 13000 {
        return Err(Unavailable::new(
            Missing::Driver,
            format!("the CUDA driver supports CUDA {version}, but sigpu needs CUDA 13.0 or newer (driver R580+)"),
        ));
    }
    Ok(version)
}

/// Number of devices; an error when there are none. Call after [`driver_version`].
pub(crate) fn device_count() -> Result<usize, Unavailable> {
    match result::device::get_count() {
        Ok(n) if n > 0 => Ok(n as usize),
        Ok(_) => Err(Unavailable::new(
            Missing::Device,
            "the CUDA driver reports no devices",
        )),
        Err(e) => Err(Unavailable::new(
            Missing::Device,
            format!("cuDeviceGetCount failed: {e}"),
        )),
    }
}

pub(crate) fn nvrtc_missing() -> Unavailable {
    Unavailable::new(
        Missing::Nvrtc,
        format!("no NVRTC: {} could not be loaded", libs::NVRTC_FILE),
    )
}

/// NVRTC's version, e.g. `"13.0"`. NVRTC needs no GPU, so this works on GPU-less machines too.
pub fn nvrtc_version() -> Result<String, Unavailable> {
    if !libs::nvrtc_present() {
        return Err(nvrtc_missing());
    }
    let (mut major, mut minor) = (0, 0);
    // SAFETY: the library is present; both are valid out-pointers.
    unsafe { cudarc::nvrtc::sys::nvrtcVersion(&mut major, &mut minor) }
        .result()
        .map_err(|e| Unavailable::new(Missing::Nvrtc, format!("nvrtcVersion failed: {e:?}")))?;
    if major != 13 {
        return Err(Unavailable::new(
            Missing::Nvrtc,
            format!(
                "found NVRTC {major}.{minor}, but sigpu needs NVRTC 13 ({})",
                libs::NVRTC_FILE
            ),
        ));
    }
    Ok(format!("{major}.{minor}"))
}
