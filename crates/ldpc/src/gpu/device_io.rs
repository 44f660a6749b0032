//! [`GpuDecoder`] on LLRs that are already on the GPU (device memory owned by another library,
//! such as a PyTorch tensor), ordered on the caller's stream: the input is quantised and the
//! hard decisions unpacked by kernels, so nothing crosses PCIe.

use super::super::batch::BATCH;
use super::GpuDecoder;
use crate::decoder::{DeviceDecodeStats, Precision};
use crate::error::{LdpcError, Result};
use sigpu_runtime::cuda::{
    streaming_config, DeviceSlice, DeviceSliceMut, DriverContext, KernelSource,
};
use sigpu_runtime::GpuTarget;

fn source() -> KernelSource {
    KernelSource::embedded(
        "ldpc_device_io.cu",
        include_str!("../../kernels/ldpc_device_io.cu"),
    )
}

impl GpuDecoder {
    /// [`crate::Decoder::decode_device`] without leaving the device: decodes the float32 LLRs
    /// of `llr` (frames × N, row-major) into bytes of `out` (frames × N, 0/1), owned buffers
    /// ([`DeviceSlice::of`]) and another library's memory ([`DeviceSlice::from_raw`]) alike.
    /// The work is ordered after what `caller`'s stream has queued, and what the caller queues
    /// on it later is ordered after the decoding. Views of another device than the decoder's
    /// are refused.
    pub fn decode_resident(
        &mut self,
        caller: &GpuTarget,
        llr: DeviceSlice<'_, f32>,
        mut out: DeviceSliceMut<'_, u8>,
    ) -> Result<DeviceDecodeStats> {
        let gpu = &self.setup.gpu.clone();
        let Precision::Fixed8 { scale } = self.setup.config.precision else {
            return Err(LdpcError::invalid("the GPU decoder is 8-bit"));
        };
        let n = self.order.n();
        if llr.len() != out.len() || !llr.len().is_multiple_of(n) {
            return Err(LdpcError::invalid(format!(
                "decoding {} on the GPU: {} LLRs and room for {} bits; both must be the same \
                 multiple of N = {n}",
                self.setup.code.name(),
                llr.len(),
                out.len()
            )));
        }
        let on = [caller.gpu().ordinal(), llr.ordinal(), out.ordinal()];
        if on.iter().any(|&o| o != gpu.ordinal()) {
            return Err(LdpcError::invalid(format!(
                "the decoder runs on cuda:{}; the stream and memory are on cuda:{}, cuda:{} and \
                 cuda:{}: plan the decoder for the device the data is on",
                gpu.ordinal(),
                on[0],
                on[1],
                on[2]
            )));
        }
        let frames = llr.len() / n;
        let quantize = gpu.kernel(&source(), "ldpc_quantize_f32")?;
        let unpack = gpu.kernel(&source(), "ldpc_unpack_hard")?;
        let own = gpu.stream().clone();
        gpu.context()
            .bind_to_thread()
            .context("making the decoder's CUDA context current")?;
        // The decoder's stream waits for the caller's earlier work (the LLRs being written).
        let ready = (caller.stream().record_event(None)).context("recording an event")?;
        own.wait(&ready)
            .context("waiting for the caller's stream")?;
        let mut iterations = 0;
        for first in (0..frames).step_by(BATCH) {
            let count = (frames - first).min(BATCH);
            let rows = first * n..(first + count) * n;
            let src = llr.slice(rows.clone()).expect("within the checked length");
            let mut dst = out.slice_mut(rows).expect("within the checked length");
            let (count_elems, total) = ((count * n) as i64, (BATCH * n) as i64);
            gpu.launch(&quantize)
                .slice(&src)
                .buf_mut(&mut self.b.input)
                .arg(&count_elems)
                .arg(&total)
                .arg(&scale)
                .run(streaming_config(gpu, BATCH * n))?;
            // A batch's iterations count for each of its codewords.
            iterations += count * self.enqueue(false, count.div_ceil(self.sub))?;
            let (n32, sub32, count64) = (n as i32, self.sub as i32, count as i64);
            gpu.launch(&unpack)
                .buf(&self.b.hard)
                .slice_mut(&mut dst)
                .arg(&n32)
                .arg(&sub32)
                .arg(&count64)
                .run(streaming_config(gpu, count * n))?;
        }
        // The caller's stream waits for the decoding (the hard decisions being written).
        let done = own.record_event(None).context("recording an event")?;
        (caller.stream().wait(&done)).context("ordering the caller's stream")?;
        Ok(DeviceDecodeStats {
            codewords: frames,
            valid: None,
            iterations,
            batches: frames.div_ceil(BATCH),
        })
    }
}

#[cfg(test)]
mod tests {
    use sigpu_runtime::cuda::{compile, nvrtc_for_test, KernelCache};

    #[test]
    fn device_io_kernels_compile_for_sm_90() {
        if !nvrtc_for_test("device_io_kernels_compile_for_sm_90") {
            return;
        }
        let compiled = compile(&super::source(), "sm_90", &KernelCache::disabled()).unwrap();
        let names = compiled.kernel_names();
        for k in ["ldpc_quantize_f32", "ldpc_unpack_hard"] {
            assert!(names.iter().any(|n| n == k), "{k} missing from {names:?}");
        }
    }
}
