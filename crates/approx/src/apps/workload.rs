//! An app's data on the device and how one run of it is launched: its kernel's arguments,
//! the λ variants' extra arguments, and Gaussian elimination's two-kernel loop.

use crate::catalog::Precision;
use crate::dev::{Buf, Scalar};
use crate::numeric::Values;
use sigpu_runtime::cuda::cudarc::driver::LaunchConfig;
use sigpu_runtime::cuda::{DeviceBuffer, DriverContext, Gpu, Kernel, Launch, Result};

/// Arguments appended to a generated kernel's own.
pub enum Extra<'a> {
    /// The original or the all-SFU kernel.
    None,
    /// `K_lambda`: λ and the slot-recording buffer (null when not recording).
    Slot {
        /// λ: warps whose `%warpid` is below it take the SFU copy.
        lambda: i32,
        /// A one-element buffer where the kernel records the largest warp slot it occupied; `None`
        /// passes a null pointer (nothing recorded).
        slots: Option<&'a mut DeviceBuffer<u32>>,
    },
    /// `K_lambda_block`: λ over the warp index within the block.
    Block {
        /// λ: warps whose index within the block is below it take the SFU copy.
        lambda: i32,
    },
}

static NULL: u64 = 0;

impl Extra<'_> {
    fn push<'l>(&'l mut self, l: &mut Launch<'l>) {
        match self {
            Extra::None => {}
            Extra::Slot { lambda, slots } => {
                l.arg(lambda);
                match slots {
                    Some(s) => l.buf_mut(s),
                    // A null `unsigned int*`: the kernel records no slots.
                    None => l.arg(&NULL),
                };
            }
            Extra::Block { lambda } => {
                l.arg(lambda);
            }
        }
    }
}

/// One argument of an app kernel.
pub(super) enum Arg {
    In(Buf),
    Out(Buf),
    S(Scalar),
}

/// An app's data on the device and how it is launched.
pub struct Workload {
    pub(super) precision: Precision,
    pub(super) args: Vec<Arg>,
    pub(super) config: LaunchConfig,
    /// Gaussian elimination only: the matrix size; runs Fan1 (the app kernel) and Fan2 for
    /// every column, from pristine copies of the matrix and right-hand side.
    pub(super) gaussian: Option<Gaussian>,
}

pub(super) struct Gaussian {
    pub(super) n: i32,
    pub(super) a0: DeviceBuffer<f32>,
    pub(super) b0: DeviceBuffer<f32>,
    pub(super) a: DeviceBuffer<f32>,
    pub(super) b: DeviceBuffer<f32>,
    pub(super) m: DeviceBuffer<f32>,
    pub(super) fan2: Kernel,
}

impl Workload {
    /// The launch configuration every run uses (the grid sized to the app's data).
    pub fn config(&self) -> LaunchConfig {
        self.config
    }

    /// Enqueues one run of the app with `kernel` (a variant of its kernel).
    ///
    /// The app's argument list matches its kernel's parameters (each app builds both), the
    /// generated variants append exactly what `extra` pushes, and every buffer holds the
    /// elements the launch configuration makes the kernel touch.
    pub fn run(&mut self, gpu: &Gpu, kernel: &Kernel, extra: &mut Extra) -> Result<()> {
        if let Some(g) = &mut self.gaussian {
            return g.run(gpu, kernel, extra);
        }
        let mut l = gpu.launch(kernel);
        for a in &mut self.args {
            match a {
                Arg::In(b) => b.push(&mut l),
                Arg::Out(b) => b.push_mut(&mut l),
                Arg::S(s) => s.push(&mut l),
            }
        }
        extra.push(&mut l);
        l.run(self.config)
    }

    /// Fills every output with NaN, so a value the kernel failed to write cannot pass.
    pub fn poison(&mut self, gpu: &Gpu) -> Result<()> {
        if let Some(g) = &mut self.gaussian {
            return gpu.poison(&mut g.m);
        }
        for a in &mut self.args {
            if let Arg::Out(b) = a {
                b.poison(gpu)?;
            }
        }
        Ok(())
    }

    /// Every output buffer, concatenated.
    pub fn output(&self, gpu: &Gpu) -> Result<Values> {
        if let Some(g) = &self.gaussian {
            return g.solution(gpu);
        }
        let mut f32s = Vec::new();
        let mut f64s = Vec::new();
        for a in &self.args {
            if let Arg::Out(b) = a {
                match b.download(gpu, self.precision)? {
                    Values::F32(v) => f32s.extend(v),
                    Values::F64(v) => f64s.extend(v),
                    Values::Bits16(..) => unreachable!("apps are f32 or f64"),
                }
            }
        }
        Ok(match self.precision {
            Precision::F64 => Values::F64(f64s),
            _ => Values::F32(f32s),
        })
    }
}

impl Gaussian {
    fn run(&mut self, gpu: &Gpu, fan1: &Kernel, extra: &mut Extra) -> Result<()> {
        let s = gpu.stream();
        s.memcpy_dtod(&self.a0, &mut self.a)
            .context("matrix copy")?;
        s.memcpy_dtod(&self.b0, &mut self.b)
            .context("vector copy")?;
        let n = self.n;
        for t in 0..n - 1 {
            let rows = (n - 1 - t) as u32;
            // fan1(float* m, const float* a, int n, int t) plus the variant's extras; m and a
            // hold n*n elements.
            let mut l = gpu.launch(fan1);
            l.buf_mut(&mut self.m).buf(&self.a).arg(&n).arg(&t);
            extra.push(&mut l);
            l.run(grid_1d_cfg(rows, 256))?;
            let cols = (n - t) as u32;
            let cfg = LaunchConfig {
                grid_dim: (cols.div_ceil(32), rows.div_ceil(8), 1),
                block_dim: (32, 8, 1),
                shared_mem_bytes: 0,
            };
            // fan2(const float* m, float* a, float* b, int n, int t); sizes as above.
            gpu.launch(&self.fan2)
                .buf(&self.m)
                .buf_mut(&mut self.a)
                .buf_mut(&mut self.b)
                .arg(&n)
                .arg(&t)
                .run(cfg)?;
        }
        Ok(())
    }

    /// Back substitution on the host: the solution x of the eliminated system.
    fn solution(&self, gpu: &Gpu) -> Result<Values> {
        let n = self.n as usize;
        let a = gpu.download(&self.a)?;
        let b = gpu.download(&self.b)?;
        let mut x = vec![0f64; n];
        for i in (0..n).rev() {
            let s: f64 = (i + 1..n).map(|j| a[i * n + j] as f64 * x[j]).sum();
            x[i] = (b[i] as f64 - s) / a[i * n + i] as f64;
        }
        Ok(Values::F64(x))
    }
}

pub(super) fn grid_1d_cfg(n: u32, block: u32) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (n.div_ceil(block).max(1), 1, 1),
        block_dim: (block, 1, 1),
        shared_mem_bytes: 0,
    }
}

pub(super) fn grid_2d(w: u32, h: u32) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (w.div_ceil(16), h.div_ceil(16), 1),
        block_dim: (16, 16, 1),
        shared_mem_bytes: 0,
    }
}
