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
            super::Target::Gpu(g) => (Some(*g), None),
            super::Target::Cpu => (None, Some("--device cpu".to_owned())),
        },
    };
    let bar = super::spinner();
    let step = |what: &str| bar.set_message(format!("demo: {what}"));
    let demo = sigpu_lab::demo::run(gpu.as_ref(), gpu_skipped, &step)?;
    bar.finish_and_clear();
    if json {
        super::print_json(&demo)?;
    } else {
        print!("{}", sigpu_lab::demo::render(&demo));
    }
    Ok(if demo.failed() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
