//! `sigpu lns certify`: every input of a format through each method, on the GPU (the methods
//! with a kernel) or on the CPU (the methods with a CPU evaluator or twin).

use anyhow::{Context, Result};
use sigpu_lns::gpu::GpuMethod;
use sigpu_lns::{certify, Certificate, Format, Method, Which};
use sigpu_runtime::cuda::Gpu;

/// `methods` split into those that run where the certificates are made (`on_gpu` or the CPU)
/// and those that do not, in order.
pub fn runnable(methods: &[Method], on_gpu: bool) -> (Vec<Method>, Vec<Method>) {
    methods.iter().partition(|m| {
        if on_gpu {
            m.runs_on_gpu()
        } else {
            m.runs_on_cpu()
        }
    })
}

/// How many inputs certifying `methods` over `funcs` evaluates (for a progress bar).
pub fn inputs(format: Format, methods: &[Method], funcs: &[Which]) -> u64 {
    let per_method: u64 = funcs.iter().map(|f| f.inputs(format).count() as u64).sum();
    methods.len() as u64 * per_method
}

/// Certificates of each of `methods` (all runnable there) for each of `funcs`, on `gpu` or
/// on the CPU. `stage` is told what runs next, `progress` how many inputs were evaluated.
pub fn certify_all(
    gpu: Option<&Gpu>,
    format: Format,
    methods: &[Method],
    funcs: &[Which],
    stage: &dyn Fn(String),
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Vec<Certificate>> {
    let mut certs = Vec::new();
    for &m in methods {
        stage(format!("{m} tables"));
        match gpu {
            Some(gpu) => {
                let on_gpu = GpuMethod::new(gpu, m, format)
                    .with_context(|| format!("preparing {m} for {format} on the GPU"))?;
                for &func in funcs {
                    stage(format!("{m} {func:?}"));
                    certs.push(on_gpu.certify(gpu, func, progress)?);
                }
            }
            None => {
                let eval = m
                    .cpu(format)
                    .with_context(|| format!("building {m} tables for {format}"))?
                    .context("CPU evaluator")?;
                for &func in funcs {
                    stage(format!("{m} {func:?}"));
                    certs.push(certify(&eval, func, &m.to_string(), progress));
                }
            }
        }
    }
    Ok(certs)
}

/// Certificates as text: one row per method and function, and the methods skipped.
pub fn text(format: Format, certs: &[Certificate], skipped: &[Method]) -> String {
    let mut out = String::new();
    let on = certs.first().map_or("cpu", |c| c.device.as_str());
    let ulps = format.frac_bits;
    out += &format!("{format} on {on}, every input (errors in ulps of 2^-{ulps}):\n");
    let header = [
        "method",
        "func",
        "inputs",
        "max err",
        "faithful",
        "correctly rounded",
        "worst z (code)",
    ];
    out += &crate::table::of(&header, certs, |c| {
        vec![
            c.method.clone(),
            format!("{:?}", c.func).to_lowercase(),
            c.inputs.to_string(),
            format!("{:.4}", c.max_error_ulps),
            if c.faithful { "yes" } else { "NO" }.into(),
            format!("{:.4}%", 100.0 * c.share_correctly_rounded),
            c.worst_input.to_string(),
        ]
    });
    if !skipped.is_empty() {
        let names: Vec<String> = skipped.iter().map(Method::to_string).collect();
        out += &format!(
            "GPU-only methods not certified here: {}\n",
            names.join(", ")
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_certificates_of_the_runnable_methods() {
        let (run, skip) = runnable(&[Method::Horner(2), Method::Sfu], false);
        assert_eq!(
            (run.as_slice(), skip.as_slice()),
            (&[Method::Horner(2)][..], &[Method::Sfu][..])
        );
        let funcs = [Which::Sb, Which::Db];
        let certs = certify_all(None, Format::LNS16, &run, &funcs, &|_| {}, &|_| {}).unwrap();
        assert_eq!(certs.len(), 2);
        assert!(certs.iter().all(|c| c.faithful));
        let total: u64 = certs.iter().map(|c| c.inputs).sum();
        assert_eq!(total, inputs(Format::LNS16, &run, &funcs));
    }
}
