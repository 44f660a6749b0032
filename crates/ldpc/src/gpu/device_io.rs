//! [`GpuDecoder`] on LLRs that are already on the GPU (device memory owned by another library,
//! such as a PyTorch tensor), ordered on the caller's stream: the input is quantised and the
//! hard decisions unpacked by kernels, so nothing crosses PCIe.

use super::super::batch::BATCH;
use super::GpuDecoder;
use crate::decoder::Precision;
use crate::error::{LdpcError, Result};
use sigpu_runtime::cuda::cudarc::driver::CudaStream;
use sigpu_runtime::cuda::{streaming_config, DriverContext, KernelSource};
use std::sync::Arc;

fn source() -> KernelSource {
    KernelSource::embedded(
        "ldpc_device_io.cu",
        include_str!("../../kernels/ldpc_device_io.cu"),
    )
}

impl GpuDecoder<'_> {
    /// Decodes `frames` codewords of float32 LLRs (frames × N, row-major) at device address
    /// `llr` into bytes (frames × N, 0/1) at device address `out`. The work is ordered after
    /// what `stream` (the caller's) has queued, and what the caller queues on it later is
    /// ordered after the decoding. Returns the iterations run, summed over batches.
    ///
    /// # Safety
    /// `llr` and `out` must be live allocations of this decoder's GPU context holding
    /// `frames × N` float32 values and bytes, staying alive until the caller's stream has
    /// passed this work; `stream` must belong to that context.
    pub unsafe fn decode_device(
        &mut self,
        stream: &Arc<CudaStream>,
        llr: u64,
        out: u64,
        frames: usize,
    ) -> Result<usize> {
        let gpu = self.setup.gpu;
        let Precision::Fixed8 { scale } = self.setup.config.precision else {
            return Err(LdpcError::invalid("the GPU decoder is 8-bit"));
        };
        let n = self.order.n();
        let quantize = gpu.kernel(&source(), "ldpc_quantize_f32")?;
        let unpack = gpu.kernel(&source(), "ldpc_unpack_hard")?;
        let own = gpu.stream().clone();
        gpu.context()
            .bind_to_thread()
            .context("making the decoder's CUDA context current")?;
        // The decoder's stream waits for the caller's earlier work (the LLRs being written).
        let ready = stream.record_event(None).context("recording an event")?;
        own.wait(&ready)
            .context("waiting for the caller's stream")?;
        let mut iterations = 0;
        for first in (0..frames).step_by(BATCH) {
            let count = (frames - first).min(BATCH);
            let src = llr + (first * n * 4) as u64;
            let dst = out + (first * n) as u64;
            let (count_elems, total) = ((count * n) as i64, (BATCH * n) as i64);
            gpu.launch(&quantize)
                .ptr(&src)
                .buf_mut(&mut self.b.input)
                .arg(&count_elems)
                .arg(&total)
                .arg(&scale)
                .run(streaming_config(gpu, BATCH * n))?;
            iterations += self.enqueue(false, count.div_ceil(self.sub))?;
            let (n32, sub32, count64) = (n as i32, self.sub as i32, count as i64);
            gpu.launch(&unpack)
                .buf(&self.b.hard)
                .ptr(&dst)
                .arg(&n32)
                .arg(&sub32)
                .arg(&count64)
                .run(streaming_config(gpu, count * n))?;
        }
        // The caller's stream waits for the decoding (the hard decisions being written).
        let done = own.record_event(None).context("recording an event")?;
        stream.wait(&done).context("ordering the caller's stream")?;
        Ok(iterations)
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
