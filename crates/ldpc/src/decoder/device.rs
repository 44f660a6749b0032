//! Decoding LLRs that live in device memory ([`Decoder::decode_device`]) with a decoder that
//! decodes on the host: the LLRs come over on the caller's stream, the decisions go back on
//! it. The flooding GPU decoder overrides this and never leaves the device.

use super::{DecodeStats, Decoder, Llrs};
use crate::error::{LdpcError, Result};
use serde::Serialize;
use sigpu_runtime::cuda::{foreign, DeviceSlice, DeviceSliceMut};
use sigpu_runtime::GpuTarget;

/// What decoding device memory did: [`DecodeStats`], with `valid` counted only where the
/// decisions passed through the host (`None` where they stayed on the device).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct DeviceDecodeStats {
    /// Codewords decoded.
    pub codewords: usize,
    /// Codewords whose hard decision satisfies every check, where counted.
    pub valid: Option<usize>,
    /// Iterations run, summed over the codewords (as [`DecodeStats::iterations`]).
    pub iterations: usize,
    /// Decoder batches run.
    pub batches: usize,
}

impl From<DecodeStats> for DeviceDecodeStats {
    fn from(s: DecodeStats) -> Self {
        DeviceDecodeStats {
            codewords: s.codewords,
            valid: Some(s.valid),
            iterations: s.iterations,
            batches: s.batches,
        }
    }
}

/// [`Decoder::decode`] of device-resident LLRs through the host, ordered on `caller`'s stream.
pub(crate) fn through_host<D: Decoder + ?Sized>(
    decoder: &mut D,
    caller: &GpuTarget,
    llr: DeviceSlice<'_, f32>,
    out: DeviceSliceMut<'_, u8>,
) -> Result<DeviceDecodeStats> {
    if llr.len() != out.len() {
        return Err(LdpcError::invalid(format!(
            "decoding device memory: {} LLRs and room for {} bits",
            llr.len(),
            out.len()
        )));
    }
    if llr.ordinal() != caller.gpu().ordinal() || out.ordinal() != caller.gpu().ordinal() {
        return Err(LdpcError::invalid(format!(
            "decoding device memory of cuda:{} and cuda:{} on a stream of cuda:{}",
            llr.ordinal(),
            out.ordinal(),
            caller.gpu().ordinal()
        )));
    }
    let mut host = vec![0f32; llr.len()];
    // SAFETY: a view addresses `len` live values of its device (its constructor's contract),
    // and the device is the stream's (checked above).
    unsafe { foreign::copy_to_host(caller.stream(), llr.device_ptr(), &mut host) }?;
    let mut bits = vec![0u8; host.len()];
    let stats = decoder.decode(Llrs::F32(&host), &mut bits)?;
    // SAFETY: as above, for the writable view of `len` bytes.
    unsafe { foreign::copy_from_host(caller.stream(), &bits, out.device_ptr()) }?;
    Ok(stats.into())
}
