//! The GPU's energy counter, through NVML opened at run time (like the CUDA driver): nothing is
//! needed at build time, and a machine without `libnvidia-ml.so.1` (or a GPU older than Volta,
//! which has no counter) gets an error value that says so, never a panic.
//!
//! `nvmlDeviceGetTotalEnergyConsumption` counts millijoules since the driver was loaded; the
//! difference around a measured stretch of work is its energy. The counter is refreshed by the
//! driver every few tens of milliseconds, so callers measure stretches of a few hundred
//! milliseconds (many runs) and divide.
//!
//! The device is NVML's index `n` (PCI bus order). With `CUDA_VISIBLE_DEVICES` set, or on a
//! machine where CUDA orders its devices differently, CUDA ordinal `n` may be another GPU: the
//! counter reports the GPU it opened by name ([`EnergyCounter::name`]).

use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::sync::Arc;

/// The library name NVML is loaded by.
pub const LIBRARY: &str = "libnvidia-ml.so.1";

/// Why there is no energy figure: the library, a symbol, or the counter itself.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("energy not available: {0}")]
pub struct NvmlError(String);

type Ret = c_int;
type Handle = *mut c_void;

struct Api {
    _lib: libloading::Library,
    by_index: unsafe extern "C" fn(c_uint, *mut Handle) -> Ret,
    energy: unsafe extern "C" fn(Handle, *mut u64) -> Ret,
    name: unsafe extern "C" fn(Handle, *mut c_char, c_uint) -> Ret,
    error_string: unsafe extern "C" fn(Ret) -> *const c_char,
}

impl Api {
    fn describe(&self, what: &str, ret: Ret) -> NvmlError {
        // SAFETY: nvmlErrorString returns a static NUL-terminated string for any code.
        let text = unsafe { CStr::from_ptr((self.error_string)(ret)) };
        NvmlError(format!(
            "{what}: {} (NVML code {ret})",
            text.to_string_lossy()
        ))
    }
}

/// One GPU's energy counter.
pub struct EnergyCounter {
    api: Arc<Api>,
    device: Handle,
    name: String,
}

// SAFETY: NVML handles are process-wide and NVML is thread-safe (its documentation); the
// handle is only passed back to NVML.
unsafe impl Send for EnergyCounter {}
// SAFETY: as above; reading the counter takes `&self` and NVML serialises internally.
unsafe impl Sync for EnergyCounter {}

impl std::fmt::Debug for EnergyCounter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EnergyCounter")
            .field("name", &self.name)
            .finish()
    }
}

fn symbol<T: Copy>(lib: &libloading::Library, name: &str) -> Result<T, NvmlError> {
    // SAFETY: each symbol is looked up with the C signature NVML's header declares for it.
    unsafe { lib.get::<T>(name.as_bytes()) }
        .map(|s| *s)
        .map_err(|e| NvmlError(format!("{LIBRARY} has no {name}: {e}")))
}

impl EnergyCounter {
    /// The counter of NVML device `index`, from the library at `path` (normally [`LIBRARY`]).
    pub fn open_from(path: &str, index: u32) -> Result<EnergyCounter, NvmlError> {
        // SAFETY: loading NVML runs only its initialisers, which have no preconditions.
        let lib = unsafe { libloading::Library::new(path) }
            .map_err(|e| NvmlError(format!("cannot load {path} (no NVIDIA driver here?): {e}")))?;
        let init: unsafe extern "C" fn() -> Ret = symbol(&lib, "nvmlInit_v2")?;
        let api = Api {
            by_index: symbol(&lib, "nvmlDeviceGetHandleByIndex_v2")?,
            energy: symbol(&lib, "nvmlDeviceGetTotalEnergyConsumption")?,
            name: symbol(&lib, "nvmlDeviceGetName")?,
            error_string: symbol(&lib, "nvmlErrorString")?,
            _lib: lib,
        };
        // SAFETY: nvmlInit_v2 takes no arguments and may be called more than once.
        let ret = unsafe { init() };
        if ret != 0 {
            return Err(api.describe("nvmlInit", ret));
        }
        let mut device: Handle = std::ptr::null_mut();
        // SAFETY: `device` is a valid out-pointer for the handle.
        let ret = unsafe { (api.by_index)(index, &mut device) };
        if ret != 0 {
            return Err(api.describe(&format!("NVML device {index}"), ret));
        }
        let mut buf = [0 as c_char; 96];
        // SAFETY: the buffer holds 96 bytes, as passed; NVML NUL-terminates the name.
        let name = match unsafe { (api.name)(device, buf.as_mut_ptr(), buf.len() as c_uint) } {
            // SAFETY: on success the buffer holds a NUL-terminated string.
            0 => unsafe { CStr::from_ptr(buf.as_ptr()) }
                .to_string_lossy()
                .into_owned(),
            _ => format!("NVML device {index}"),
        };
        let counter = EnergyCounter {
            api: Arc::new(api),
            device,
            name,
        };
        // A GPU without the counter (pre-Volta) fails here rather than at the first reading.
        counter.millijoules()?;
        Ok(counter)
    }

    /// The counter of NVML device `index` from the system's NVML.
    pub fn open(index: u32) -> Result<EnergyCounter, NvmlError> {
        Self::open_from(LIBRARY, index)
    }

    /// The GPU's name as NVML gives it.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Millijoules the GPU has used since the driver was loaded.
    pub fn millijoules(&self) -> Result<u64, NvmlError> {
        let mut mj = 0u64;
        // SAFETY: a handle NVML returned, and a valid out-pointer.
        let ret = unsafe { (self.api.energy)(self.device, &mut mj) };
        match ret {
            0 => Ok(mj),
            r => Err(self.api.describe("nvmlDeviceGetTotalEnergyConsumption", r)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_library_is_an_error_that_says_so() {
        let e = EnergyCounter::open_from("/nonexistent/libnvidia-ml.so.1", 0).unwrap_err();
        let text = e.to_string();
        assert!(
            text.starts_with("energy not available: cannot load /nonexistent/libnvidia-ml.so.1"),
            "{text}"
        );
    }

    #[test]
    fn the_system_counter_opens_or_says_why_not() {
        // This machine may or may not have the NVIDIA driver: either a counter or a reason.
        match EnergyCounter::open(0) {
            Ok(c) => assert!(c.millijoules().is_ok()),
            Err(e) => assert!(e.to_string().contains("energy not available"), "{e}"),
        }
    }
}
