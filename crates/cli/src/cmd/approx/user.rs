//! `sigpu approx tune --source FILE.cu --kernel NAME --grid G --block B --args …`: tuning a
//! user's own kernel on their data; parses the flags, calls `sigpu_approx::user::tune`, prints
//! the table or JSON and writes the tuned source.

use super::super::{check, print_json, spinning, Output};
use super::TuneArgs;
use anyhow::{anyhow, Context, Result};
use sigpu_approx::user::args::load_args;
use sigpu_approx::user::metric::Qos;
use sigpu_approx::user::{self, LaunchShape, TuneOptions, UserKernel};
use sigpu_runtime::Device;
use std::path::Path;
use std::process::ExitCode;

/// `X[,Y[,Z]]` (or `x`-separated) extents, each ≥ 1.
pub fn parse_dim(text: &str) -> Result<[u32; 3], String> {
    let parts: Vec<&str> = text.split([',', 'x']).map(str::trim).collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err("expected X, X,Y or X,Y,Z".into());
    }
    let mut d = [1u32; 3];
    for (i, p) in parts.iter().enumerate() {
        d[i] = p
            .parse()
            .ok()
            .filter(|&v| v >= 1)
            .ok_or_else(|| format!("{p:?} is not an extent >= 1"))?;
    }
    Ok(d)
}

pub fn run(device: Option<Device>, json: bool, args: &TuneArgs, source: &Path) -> Result<ExitCode> {
    let kernel = args.kernel.clone().ok_or_else(|| {
        anyhow!("--kernel: required with --source (the extern \"C\" __global__ kernel to tune)")
    })?;
    let (grid, block) = match (args.grid, args.block) {
        (Some(g), Some(b)) => (g, b),
        _ => return Err(anyhow!("--grid and --block: both required with --source")),
    };
    check(
        &[
            args.out.file(),
            Output::File("--output", args.output.as_deref()),
        ],
        &[("--source", Some(source))],
    )?;
    if args.args.is_empty() {
        return Err(anyhow!(
            "--args: required with --source (in:X.npy, out:f32:N, i32:5, …)"
        ));
    }
    let host = load_args(&args.args).map_err(|e| anyhow!("--args: {e}"))?;
    let holdout = match &args.holdout_args {
        Some(h) => Some(load_args(h).map_err(|e| anyhow!("--holdout-args: {e}"))?),
        None => None,
    };
    let metric = args.metric.parse().map_err(|e| anyhow!("--metric: {e}"))?;
    let qos = match args.qos {
        Some(v) => Qos::Value(v),
        None => Qos::Ratio(args.qos_ratio),
    };
    let qos = user::check_qos(&metric, qos).map_err(|e| match qos {
        Qos::Value(_) => anyhow!("--qos: {e}"),
        Qos::Ratio(_) => anyhow!("--qos-ratio: {e}"),
    })?;
    let code = sigpu_runtime::input::read_text(source, 16 << 20, "CUDA C source text")
        .with_context(|| format!("--source {}", source.display()))?;
    let shape = LaunchShape {
        grid,
        block,
        shared_mem: args.shared_mem,
    };
    shape.check()?;
    let opts = TuneOptions {
        metric,
        qos,
        per_site: !args.single_lambda,
        guards: !args.no_guards,
        energy_seconds: args
            .energy_seconds
            .unwrap_or(TuneOptions::default().energy_seconds),
        ..TuneOptions::default()
    };
    let k = UserKernel {
        file: source.display().to_string(),
        source: code,
        kernel,
    };
    let gpu = super::super::resolve_gpu(device, "approx tune")?;
    let report = spinning(|progress| {
        user::tune(&gpu, &k, &host, &shape, &opts, holdout.as_deref(), progress)
    })?;
    if let Some(path) = &args.output {
        sigpu_runtime::fs::write_atomic(path, report.tuned_source.as_bytes())
            .with_context(|| format!("--output {}: cannot write", path.display()))?;
    }
    if let Some(p) = &args.out.path {
        sigpu_runtime::fs::write_atomic(p, serde_json::to_string_pretty(&report)?.as_bytes())
            .with_context(|| format!("--out {}: cannot write", p.display()))?;
    }
    if json {
        print_json(&report)?;
    } else {
        print!("{}", report.text());
        if let Some(path) = &args.output {
            println!(
                "wrote the kernel at the chosen setting to {}",
                path.display()
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launch_dimensions_parse_and_errors_say_which_part() {
        assert_eq!(parse_dim("256").unwrap(), [256, 1, 1]);
        assert_eq!(parse_dim("64,4").unwrap(), [64, 4, 1]);
        assert_eq!(parse_dim("8x8x2").unwrap(), [8, 8, 2]);
        assert!(parse_dim("0").unwrap_err().contains("\"0\""));
        assert!(parse_dim("1,2,3,4").unwrap_err().contains("X,Y,Z"));
        assert!(parse_dim("a").is_err());
    }
}
