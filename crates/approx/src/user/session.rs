//! A user kernel on the GPU: its arguments uploaded, its variants compiled by NVRTC, run,
//! timed (CUDA events) and scored against the accurate kernel's outputs; energy from NVML.
//!
//! The kernel is the user's code: it must stay within the buffers given (the sizes come from
//! the arguments) and must not write its inputs. The second is checked: after the reference
//! run every input is read back, and one that changed is an error (the outputs of later runs
//! would be compared on other data).

use super::args::{Dtype, HostArg, HostArray, ScalarArg};
use super::metric::UserMetric;
use crate::energy::Energy;
use crate::error::{ApproxError, Result};
use crate::sites::{Plan, Setting};
use serde::Serialize;
use sigpu_runtime::cuda::{time_gpu, DeviceBuffer, Gpu, Kernel, KernelSource, LaunchConfig};
use sigpu_runtime::nvml::EnergyCounter;

/// Where and how a user kernel is launched.
#[derive(Clone, Debug, Serialize)]
pub struct LaunchShape {
    /// Blocks per grid (x, y, z).
    pub grid: [u32; 3],
    /// Threads per block (x, y, z).
    pub block: [u32; 3],
    /// Dynamic shared memory in bytes.
    pub shared_mem: u32,
}

impl LaunchShape {
    /// The driver's launch configuration.
    pub fn config(&self) -> LaunchConfig {
        let [gx, gy, gz] = self.grid;
        let [bx, by, bz] = self.block;
        LaunchConfig {
            grid_dim: (gx, gy, gz),
            block_dim: (bx, by, bz),
            shared_mem_bytes: self.shared_mem,
        }
    }

    /// Warps per block: the largest useful λ.
    pub fn warps(&self) -> u32 {
        let [x, y, z] = self.block;
        (x as u64 * y as u64 * z as u64)
            .div_ceil(32)
            .min(u32::MAX as u64) as u32
    }

    /// Refuses an empty or oversized shape, naming `--grid` / `--block`.
    pub fn check(&self) -> Result<()> {
        let threads = self.block.iter().map(|&v| v as u64).product::<u64>();
        if self.grid.contains(&0) || self.block.contains(&0) {
            return Err(ApproxError::User(format!(
                "--grid {:?} / --block {:?}: every extent must be at least 1",
                self.grid, self.block
            )));
        }
        if threads > 1024 {
            return Err(ApproxError::User(format!(
                "--block {:?}: {threads} threads per block, at most 1024",
                self.block
            )));
        }
        Ok(())
    }
}

enum DevArg {
    In(DeviceBuffer<u8>),
    Out(DeviceBuffer<u8>, Dtype, Vec<usize>),
    S(ScalarArg),
}

/// A user kernel's arguments on the device.
pub(super) struct Runner {
    gpu: Gpu,
    args: Vec<DevArg>,
    config: LaunchConfig,
}

impl Runner {
    pub(super) fn open(gpu: &Gpu, args: &[HostArg], shape: &LaunchShape) -> Result<Runner> {
        let args = args
            .iter()
            .map(|a| {
                Ok(match a {
                    HostArg::In(h) => DevArg::In(gpu.upload(&h.bytes)?),
                    HostArg::Out { dtype, shape } => {
                        let n = shape.iter().product::<usize>() * dtype.size();
                        DevArg::Out(gpu.alloc_poisoned(n)?, *dtype, shape.clone())
                    }
                    HostArg::Scalar(s) => DevArg::S(*s),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Runner {
            gpu: gpu.clone(),
            args,
            config: shape.config(),
        })
    }

    /// Enqueues one run of `k`, with `lambda` appended for a λ kernel.
    pub(super) fn launch(
        &mut self,
        k: &Kernel,
        lambda: Option<i32>,
    ) -> sigpu_runtime::cuda::Result<()> {
        let lam = lambda.unwrap_or(0);
        let mut l = self.gpu.launch(k);
        for a in &mut self.args {
            match a {
                DevArg::In(b) => l.buf(b),
                DevArg::Out(b, ..) => l.buf_mut(b),
                DevArg::S(ScalarArg::I32(v)) => l.arg(v),
                DevArg::S(ScalarArg::U32(v)) => l.arg(v),
                DevArg::S(ScalarArg::I64(v)) => l.arg(v),
                DevArg::S(ScalarArg::F32(v)) => l.arg(v),
                DevArg::S(ScalarArg::F64(v)) => l.arg(v),
            };
        }
        if lambda.is_some() {
            l.arg(&lam);
        }
        l.run(self.config)
    }

    /// The outputs of one run of `k`, poisoned (NaN bytes) first.
    pub(super) fn outputs(&mut self, k: &Kernel, lambda: Option<i32>) -> Result<Vec<HostArray>> {
        for a in &mut self.args {
            if let DevArg::Out(b, ..) = a {
                self.gpu.poison(b)?;
            }
        }
        self.launch(k, lambda)?;
        let mut outs = Vec::new();
        for a in &self.args {
            if let DevArg::Out(b, dtype, shape) = a {
                outs.push(HostArray {
                    dtype: *dtype,
                    shape: shape.clone(),
                    bytes: self.gpu.download(b)?,
                });
            }
        }
        Ok(outs)
    }

    /// The position of the first input whose device copy differs from `host`.
    pub(super) fn written_input(&self, host: &[HostArg]) -> Result<Option<usize>> {
        for (i, (d, h)) in self.args.iter().zip(host).enumerate() {
            if let (DevArg::In(b), HostArg::In(h)) = (d, h) {
                if self.gpu.download(b)? != h.bytes {
                    return Ok(Some(i));
                }
            }
        }
        Ok(None)
    }

    /// `runs` event-timed runs of `k` after one warm-up, milliseconds each.
    pub(super) fn time(
        &mut self,
        k: &Kernel,
        lambda: Option<i32>,
        runs: usize,
    ) -> Result<Vec<f64>> {
        let gpu = self.gpu.clone();
        Ok(time_gpu(&gpu, 1, runs, || self.launch(k, lambda))?.samples_ms)
    }

    /// Energy of `k` over at least `seconds` of back-to-back runs.
    pub(super) fn energy(
        &mut self,
        counter: &EnergyCounter,
        k: &Kernel,
        lambda: Option<i32>,
        run_ms: f64,
        seconds: f64,
    ) -> Result<Energy> {
        let gpu = self.gpu.clone();
        crate::energy::measure(&gpu, counter, run_ms, seconds, || {
            Ok(self.launch(k, lambda)?)
        })
    }
}

/// The kernel's compiled variants and its accurate outputs.
pub(super) struct Session {
    pub(super) gpu: Gpu,
    pub(super) runner: Runner,
    pub(super) plan: Plan,
    pub(super) file: String,
    pub(super) original: Kernel,
    pub(super) sfu: Kernel,
    pub(super) block: Kernel,
    pub(super) reference: Vec<HostArray>,
    pub(super) metric: UserMetric,
    pub(super) runs: usize,
    pub(super) warps: u32,
}

impl Session {
    pub(super) fn open(
        gpu: &Gpu,
        (file, source, kernel): (&str, &str, &str),
        args: &[HostArg],
        shape: &LaunchShape,
        metric: UserMetric,
    ) -> Result<Session> {
        shape.check()?;
        let plan = Plan::new(source, kernel).map_err(|source| ApproxError::Transform {
            file: file.to_owned(),
            source,
        })?;
        let src = KernelSource::generated(file, plan.transformed.source.clone());
        let t = &plan.transformed;
        let (original, sfu, block) = (
            gpu.kernel(&src, &t.kernel)?,
            gpu.kernel(&src, &t.sfu_kernel)?,
            gpu.kernel(&src, &t.block_kernel)?,
        );
        let mut runner = Runner::open(gpu, args, shape)?;
        let reference = runner.outputs(&original, None)?;
        if let Some(i) = runner.written_input(args)? {
            return Err(ApproxError::User(format!(
                "argument {} is an input the kernel writes: every variant must see the same inputs, so pass it as an output (out:like:FILE) and copy it in the kernel",
                i + 1
            )));
        }
        let mut median = runner.time(&original, None, 3)?;
        let t = sigpu_runtime::cuda::median(&mut median);
        Ok(Session {
            gpu: gpu.clone(),
            runner,
            plan,
            file: file.to_owned(),
            original,
            sfu,
            block,
            reference,
            metric,
            runs: (20.0 / t.max(1e-3)).ceil().clamp(5.0, 50.0) as usize,
            warps: shape.warps(),
        })
    }

    /// The kernel of `setting`'s source (compiled once per distinct source).
    pub(super) fn kernel_for(&self, setting: &Setting) -> Result<(Kernel, String)> {
        let code =
            self.plan
                .source(setting, self.warps)
                .map_err(|source| ApproxError::Transform {
                    file: self.file.clone(),
                    source,
                })?;
        let k = self.gpu.kernel(
            &KernelSource::generated(&self.file, code.clone()),
            self.plan.kernel(),
        )?;
        Ok((k, code))
    }

    /// The metric's value for kernel `k` against the reference.
    pub(super) fn value(&mut self, k: &Kernel, lambda: Option<i32>) -> Result<f64> {
        let got = self.runner.outputs(k, lambda)?;
        self.metric.evaluate(&got, &self.reference)
    }

    /// Median time of kernel `k`, milliseconds.
    pub(super) fn median_ms(&mut self, k: &Kernel, lambda: Option<i32>) -> Result<f64> {
        let mut s = self.runner.time(k, lambda, self.runs)?;
        Ok(sigpu_runtime::cuda::median(&mut s))
    }
}
