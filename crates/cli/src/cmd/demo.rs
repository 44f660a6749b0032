//! `sigpu demo`: resolves the device, runs the lab's demo with a spinner, prints it.

use anyhow::Result;
use sigpu_runtime::cuda::{probe, Gpu};
use sigpu_runtime::Device;
use std::process::ExitCode;

pub fn run(device: Option<Device>, json: bool) -> Result<ExitCode> {
    let (gpu, gpu_skipped) = match device {
        // Without --device the demo says why the GPU part was skipped.
        None => match Gpu::open_with_compiler(0) {
            Ok(g) => (Some(g), None),
            Err(e) => (None, probe().reason.or(Some(e.to_string()))),
        },
        explicit => match super::resolve(explicit, super::Need::Either, "demo")? {
            super::Target::Gpu(g) => (Some(g), None),
            super::Target::Cpu => (None, Some("--device cpu".to_owned())),
        },
    };
    let demo = super::spinning(|progress| {
        sigpu_lab::demo::run(gpu.as_ref(), gpu_skipped, &|what| {
            progress(&format!("demo: {what}"))
        })
    })?;
    super::report(json, &demo, |d| print!("{}", sigpu_lab::demo::render(d)))?;
    // Exit status 1 when a section failed.
    Ok(ExitCode::from(u8::from(demo.failed())))
}
