//! The certificate runs behind `sigpu clns certify` (S_b methods of a code format, on the GPU
//! when one is given, else on the CPU) and `sigpu clns certify-f32` (the CLNS paper's f32-radian
//! variant on the CPU), with their tables.

use super::TextTable;
use anyhow::{Context, Result};
use serde::Serialize;
use sigpu_clns::certify::{certify as certify_cpu, Certificate, Inputs};
use sigpu_clns::gpu::GpuClns;
use sigpu_clns::{radian, ClnsFormat, Geometry, Method};
use sigpu_runtime::cuda::Gpu;

/// The methods `--method` names: `all`, every method; else the one named.
pub fn methods_named(name: &str) -> Result<Vec<Method>> {
    if name == "all" {
        return Ok(Method::ALL.to_vec());
    }
    Ok(vec![name.parse().context("--method")?])
}

/// Certificates of `methods` over `inputs`, on `gpu` if given (every method but the blend)
/// or on the CPU (the methods with a CPU evaluator), and the names of the methods skipped
/// (GPU-only methods on the CPU, the blend on the GPU, methods without kernels for `format`).
pub fn certify(
    gpu: Option<&Gpu>,
    format: ClnsFormat,
    geometry: Geometry,
    methods: &[Method],
    inputs: &Inputs,
    progress: &dyn Fn(&str),
) -> Result<(Vec<Certificate>, Vec<String>)> {
    let on_gpu = gpu
        .map(|gpu| GpuClns::new(gpu, format, geometry).context("uploading the S_b table"))
        .transpose()?;
    let (mut certs, mut skipped) = (Vec::new(), Vec::new());
    for &m in methods {
        progress(&format!("{m}: {} inputs", inputs.len()));
        match &on_gpu {
            Some(t) if m != Method::Blend && m.serves(format) => certs.push(t.certify(m, inputs)?),
            None if m.runs_on_cpu() => {
                let eval = m.cpu(format, geometry)?.context("CPU evaluator")?;
                certs.push(certify_cpu(&eval, &m.to_string(), inputs));
            }
            _ => skipped.push(m.to_string()),
        }
    }
    Ok((certs, skipped))
}

/// One row per certificate: errors in ulps, the faithful share and the add bound.
pub fn table(certs: &[Certificate]) -> TextTable {
    TextTable::new(
        &[
            "method",
            "inputs",
            "Re max",
            "Re mean",
            "Im max",
            "Im mean",
            "faithful",
            "add rel. bound",
        ],
        certs.iter(),
        |c| {
            vec![
                c.method.clone(),
                c.inputs.to_string(),
                format!("{:.3}", c.re_max_ulps),
                format!("{:.3}", c.re_mean_ulps),
                format!("{:.3}", c.im_max_ulps),
                format!("{:.3}", c.im_mean_ulps),
                format!("{:.4}%", 100.0 * c.share_faithful),
                format!("{:.2e}", c.add_relative_bound),
            ]
        },
    )
}

/// `sigpu clns certify-f32`: the f32-radian variant's S_b errors and its operations' errors.
#[derive(Clone, Debug, Serialize)]
pub struct F32Report {
    /// S_b of the f32-radian variant: error of each CPU method over the certificate inputs.
    pub sb: Vec<radian::SbCertificate>,
    /// Each operation against num_complex f64 on random pairs, per S_b method.
    pub ops: Vec<radian::OpErrors>,
    /// How many S_b inputs were certified.
    #[serde(skip)]
    pub inputs: usize,
}

/// The CLNS paper's representation on the CPU (f64 reference and the texture / FMA twins of the
/// GPU kernels, on clns16's default table `geometry`): S_b over a `grid`² lattice and
/// `random` inputs, the operations over `pairs` random pairs.
pub fn certify_f32(
    geometry: Geometry,
    (grid, random, pairs): (usize, usize, usize),
    seed: u64,
    progress: &dyn Fn(&str),
) -> Result<F32Report> {
    progress("inputs");
    let inputs = radian::certify_inputs(grid, random, seed);
    let pairs = radian::random_pairs(pairs, seed);
    let mut report = F32Report {
        sb: Vec::new(),
        ops: Vec::new(),
        inputs: inputs.len(),
    };
    for method in [Method::F64, Method::Tex, Method::Fma] {
        progress(&format!("{method}"));
        let m =
            radian::evaluator(method, ClnsFormat::CLNS16, geometry)?.context("CPU evaluator")?;
        let name = method.to_string();
        report.sb.push(radian::certify(&m, &name, &inputs));
        report.ops.push(radian::op_errors(&m, &name, &pairs));
    }
    Ok(report)
}

/// The text `sigpu clns certify` prints for `certs` of `format` on `geometry`, and the
/// methods `skipped`.
pub fn text(
    format: ClnsFormat,
    geometry: Geometry,
    certs: &[Certificate],
    skipped: &[String],
) -> String {
    let mut out = format!(
        "{format} S_b on {}, table {}×{} (errors in ulps: Re 2^-{}, Im 2^-{} turn):\n",
        certs.first().map_or("", |c| c.device.as_str()),
        geometry.p_cl,
        geometry.p_theta,
        format.frac_bits(),
        format.angle_bits
    );
    out += &table(certs).render();
    if !skipped.is_empty() {
        out += &format!("not certified on this device: {}\n", skipped.join(", "));
    }
    out
}

impl F32Report {
    /// The text `sigpu clns certify-f32` prints: S_b errors on `geometry`, then the op errors
    /// over `pairs` random pairs.
    pub fn text(&self, geometry: Geometry, pairs: usize) -> String {
        format!(
            "CLNS-f32 (log2|X| and angle in radians, f32 each; 64-bit word) S_b on the CPU, \
             table {}×{} ({} inputs: Re in log2 units, Im in radians):\n{}relative error vs \
             num_complex f64 on {pairs} random pairs (max / mean; 1 in 16 nearly cancelling):\n{}",
            geometry.p_cl,
            geometry.p_theta,
            self.inputs,
            self.sb_table().render(),
            self.ops_table().render()
        )
    }

    /// S_b errors per method.
    pub fn sb_table(&self) -> TextTable {
        TextTable::new(
            &[
                "method",
                "Re max",
                "Re mean",
                "Im max",
                "Im mean",
                "add rel. bound",
            ],
            self.sb.iter(),
            |c| {
                vec![
                    c.method.clone(),
                    format!("{:.2e}", c.re_max),
                    format!("{:.2e}", c.re_mean),
                    format!("{:.2e}", c.im_max),
                    format!("{:.2e}", c.im_mean),
                    format!("{:.2e}", c.add_relative_bound),
                ]
            },
        )
    }

    /// Relative errors of each operation (max / mean) per S_b method.
    pub fn ops_table(&self) -> TextTable {
        let pct = |(max, mean): (f64, f64)| format!("{max:.2e} / {mean:.2e}");
        TextTable::new(
            &["S_b", "convert", "mul", "div", "add", "sub"],
            self.ops.iter(),
            |e| {
                vec![
                    e.method.clone(),
                    pct(e.convert),
                    pct(e.mul),
                    pct(e.div),
                    pct(e.add),
                    pct(e.sub),
                ]
            },
        )
    }
}
