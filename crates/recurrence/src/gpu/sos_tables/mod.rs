//! The host side of the fused cascade that needs no GPU, one job per module: the launch shape
//! ([`SosConfig`]), the coefficients checked and rounded ([`sos_coefficients`], the crate's one
//! sos validator and stability verdict), the correction tables computed exactly
//! ([`SosTables`]: double-double powers of each section's state transition, rounded once), the
//! generated prelude and the kernel header, a CPU emulation of the kernel's block and carry scheme
//! ([`emulate`]), and the serial references (in the element type, as scipy's `sosfilt` runs,
//! and in double-double).
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

mod coefficients;
mod config;
mod emulate;
mod passband;
mod prelude;
mod reference;
mod tables;

pub use coefficients::{section_stable, sos_coefficients, MAX_SECTIONS};
pub use config::SosConfig;
pub use emulate::{emulate, emulate_in};
pub use passband::passband_correction;
pub(crate) use prelude::short_hash;
pub use prelude::{SOS_HEADER, SOS_HEADER_NAME, SOS_KERNEL};
pub use reference::{channel_error, sosfilt_extended, sosfilt_serial};
pub use tables::{cascade_decay, scan_steps, SosTables};
