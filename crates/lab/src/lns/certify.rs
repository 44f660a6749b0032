//! `sigpu lns certify`: every input of a format through each method, on the GPU (the methods
//! with a kernel) or on the CPU (the methods with a CPU evaluator or twin).

use anyhow::{Context, Result};
use sigpu_lns::gpu::GpuMethod;
use sigpu_lns::{certify_part, Certificate, Format, Method, Part, Which};
use sigpu_runtime::cuda::Gpu;
use sigpu_runtime::ranks::{self, Ranks};

/// The methods `--method` names: `all`, every method that takes `format`; else the one named.
pub fn methods_named(name: &str, format: Format) -> Result<Vec<Method>> {
    if name == "all" {
        return Ok((Method::ALL.into_iter())
            .filter(|m| m.takes(format))
            .collect());
    }
    Ok(vec![name.parse().context("--method")?])
}

/// The functions `--func` names: `sb`, `db`, or both for any other name.
pub fn funcs_named(name: &str) -> Vec<Which> {
    match name {
        "sb" => vec![Which::Sb],
        "db" => vec![Which::Db],
        _ => vec![Which::Sb, Which::Db],
    }
}

/// Refuses `methods` (`--method name`) when none of them runs where the certificates are
/// made (`on_gpu` or the CPU), saying which device to use instead.
pub fn check_runnable(methods: &[Method], on_gpu: bool, name: &str) -> Result<()> {
    if runnable(methods, on_gpu).0.is_empty() {
        let only = match on_gpu {
            true => "the CPU only (use --device cpu)",
            false => "the GPU only (use --device cuda)",
        };
        anyhow::bail!("--method {name}: runs on {only}");
    }
    Ok(())
}

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

/// How many inputs this rank of `size` evaluates when [`certify_ranks`] splits them.
pub fn inputs_share(
    format: Format,
    methods: &[Method],
    funcs: &[Which],
    rank: usize,
    size: usize,
) -> u64 {
    let per_method: u64 = (funcs.iter())
        .map(|f| {
            let s = ranks::share(f.inputs(format).count() as u64, rank, size);
            s.end - s.start
        })
        .sum();
    methods.len() as u64 * per_method
}

/// Certificates of each of `methods` (all runnable there) for each of `funcs`, with every
/// function's inputs split across `ranks` in consecutive shares (MPI ranks: `mpirun -n R sigpu
/// lns certify`; `ranks::One`: this process alone), each rank on its own `gpu` or the CPU.
/// `stage` is told what runs next, `progress` how many inputs were evaluated. Collective:
/// every rank calls it with the same format, methods and functions. The shares' tallies are
/// gathered on every rank and merged in input order ([`Part`]), so every rank returns the
/// certificates one process makes (the device named is rank 0's). A failure on any rank (a
/// table that cannot be built, a GPU error) is every rank's error, naming the rank.
pub fn certify_ranks(
    ranks: &dyn Ranks,
    gpu: Option<&Gpu>,
    format: Format,
    methods: &[Method],
    funcs: &[Which],
    stage: &dyn Fn(String),
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Vec<Certificate>> {
    let device = match gpu {
        Some(gpu) => format!("{} ({})", gpu.info().name, gpu.arch()),
        None => "cpu".to_owned(),
    };
    let device = String::from_utf8_lossy(&ranks.broadcast(0, device.as_bytes())).into_owned();
    let mut certs = Vec::new();
    for &m in methods {
        stage(format!("{m} tables"));
        let parts = (|| -> Result<Vec<Part>> {
            let mut parts = Vec::new();
            let range = |func: Which| {
                let inputs = func.inputs(format);
                let s = ranks.share(inputs.clone().count() as u64);
                *inputs.start() + s.start as i64..=*inputs.start() + s.end as i64 - 1
            };
            match gpu {
                Some(gpu) => {
                    let on_gpu = GpuMethod::new(gpu, m, format)
                        .with_context(|| format!("preparing {m} for {format} on the GPU"))?;
                    for &func in funcs {
                        stage(format!("{m} {func:?}"));
                        parts.push(on_gpu.certify_part(func, range(func), progress)?);
                    }
                }
                None => {
                    let eval = m
                        .cpu(format)
                        .with_context(|| format!("building {m} tables for {format}"))?
                        .context("CPU evaluator")?;
                    for &func in funcs {
                        stage(format!("{m} {func:?}"));
                        parts.push(certify_part(&eval, func, range(func), progress));
                    }
                }
            }
            Ok(parts)
        })();
        let parts = ranks::agree(ranks, parts, |e| format!("{e:#}"))
            .map_err(|e| e.unwrap_or_else(anyhow::Error::new))?;
        let words: Vec<u64> = parts.iter().flat_map(|p| p.to_words()).collect();
        let all = ranks.all_gather(&words);
        for (i, &func) in funcs.iter().enumerate() {
            // Rank r's part of function i, in rank (= input) order.
            let merged = (all.chunks(5 * funcs.len()))
                .map(|rank| {
                    let w = &rank[5 * i..5 * i + 5];
                    Part::from_words([w[0], w[1], w[2], w[3], w[4]])
                })
                .fold(Part::default(), Part::merge);
            certs.push(merged.certificate(format, func, &m.to_string(), &device));
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
    use sigpu_runtime::ranks::One;

    #[test]
    fn cpu_certificates_of_the_runnable_methods() {
        let (run, skip) = runnable(&[Method::Horner(2), Method::Sfu], false);
        assert_eq!(
            (run.as_slice(), skip.as_slice()),
            (&[Method::Horner(2)][..], &[Method::Sfu][..])
        );
        let funcs = [Which::Sb, Which::Db];
        let certs =
            certify_ranks(&One, None, Format::LNS16, &run, &funcs, &|_| {}, &|_| {}).unwrap();
        assert_eq!(certs.len(), 2);
        assert!(certs.iter().all(|c| c.faithful));
        let total: u64 = certs.iter().map(|c| c.inputs).sum();
        assert_eq!(total, inputs(Format::LNS16, &run, &funcs));
    }

    #[test]
    fn certificates_over_ranks_equal_one_process() {
        let methods = [Method::Horner(2), Method::Tex1];
        let funcs = [Which::Sb, Which::Db];
        let format = Format::LNS16;
        let one = certify_ranks(&One, None, format, &methods, &funcs, &|_| {}, &|_| {}).unwrap();
        for size in [2, 3] {
            let done = std::sync::atomic::AtomicU64::new(0);
            let all = ranks::on_threads(size, |r| {
                let add = |n| {
                    done.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
                };
                certify_ranks(r, None, format, &methods, &funcs, &|_| {}, &add).unwrap()
            });
            assert!(all.iter().all(|c| *c == one), "{size} ranks");
            let shares: u64 = (0..size)
                .map(|r| inputs_share(format, &methods, &funcs, r, size))
                .sum();
            assert_eq!(done.into_inner(), shares);
            assert_eq!(shares, inputs(format, &methods, &funcs));
        }
    }
}
