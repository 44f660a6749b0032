//! `sigpu lns fig3`: Fig. 3 of Arnold & Collange's texture-LNS paper for f = 8..23 on a GPU or from the CPU twins, as a
//! table and a chart.

use super::fig3::{fig3 as on_cpu, Fig3Point, FIG3_METHODS};
use super::fig3_gpu::{fig3 as on_gpu, FIG3_GPU_METHODS};
use anyhow::Result;
use sigpu_runtime::cuda::Gpu;

/// Accuracy in bits against f, one series per method (in `methods`' order), measured on
/// `source`; also how saved results are redrawn.
pub fn chart(source: &str, methods: &[&str], points: &[Fig3Point]) -> sigpu_plot::LineChart {
    let series = methods
        .iter()
        .map(|m| sigpu_plot::Series {
            name: method_name(m),
            points: (points.iter())
                .filter(|p| p.method == *m)
                .map(|p| (p.f as f64, p.bits))
                .collect(),
        })
        .collect();
    sigpu_plot::LineChart {
        title: format!(
            "Fig. 3 of Arnold & Collange's texture-LNS paper: worst-case s_b accuracy ({source})"
        ),
        x_label: "input precision f (fractional bits; tables of 2^(f-8) segments on [-1, 0])"
            .into(),
        y_label: "output accuracy: -log2 of the worst error (bits)".into(),
        log_x: false,
        log_y: false,
        series,
    }
}

/// A method's legend entry: its CLI name and what it is.
fn method_name(m: &str) -> String {
    let what = match m {
        "tex1" => "1-D linear-filtered texture",
        "tex2" => "order-2 texture (bilinear-filter trick)",
        "texlut" => "every result code in a point-sampled texture",
        "sfu" => "special-function units",
        "accurate" => "f32 libdevice",
        "f64" => "f64",
        h if h.starts_with("horner") => {
            return format!("{h}: f32 FMA polynomial of degree {}", &h[6..])
        }
        _ => return m.to_owned(),
    };
    format!("{m}: {what}")
}

/// The input precisions of the figure.
pub const PRECISIONS: std::ops::RangeInclusive<u32> = 8..=23;

/// The figure's points, the methods plotted and where they were measured.
#[derive(Clone, Debug)]
pub struct Figure {
    /// Where the points were measured: the GPU's name, or the CPU twins with the H100 filter
    /// model.
    pub source: String,
    /// The methods plotted, one series each, in this order.
    pub methods: Vec<&'static str>,
    /// Accuracy of every method at every input precision f.
    pub points: Vec<Fig3Point>,
}

/// Measures the figure on `gpu` (every method) or from the CPU twins (the table methods, the
/// texture unit by the H100 filter model); `progress` is told after each precision.
pub fn figure(gpu: Option<&Gpu>, progress: &dyn Fn()) -> Result<Figure> {
    let mut points = Vec::new();
    for f in PRECISIONS {
        match gpu {
            Some(gpu) => points.extend(on_gpu(gpu, [f])?),
            None => points.extend(on_cpu([f])?),
        }
        progress();
    }
    Ok(match gpu {
        Some(gpu) => Figure {
            source: gpu.info().name.clone(),
            methods: FIG3_GPU_METHODS.to_vec(),
            points,
        },
        None => Figure {
            source: "CPU twins, H100 filter model".into(),
            methods: FIG3_METHODS.to_vec(),
            points,
        },
    })
}

impl Figure {
    /// Accuracy in bits against f, one series per method.
    pub fn chart(&self) -> sigpu_plot::LineChart {
        chart(&self.source, &self.methods, &self.points)
    }

    /// The text `sigpu lns fig3` prints: where it was measured and the [`rows`](Self::rows).
    pub fn text(&self) -> String {
        let mut header = vec!["f"];
        header.extend(&self.methods);
        format!(
            "s_b worst-case accuracy in bits (k = 2^(f-8) segments on [-1, 0]; {}):\n{}",
            self.source,
            crate::table::render(&header, &self.rows())
        )
    }

    /// One row per precision: f, then each method's bits (`-` where missing).
    pub fn rows(&self) -> Vec<Vec<String>> {
        PRECISIONS
            .map(|f| {
                let mut row = vec![f.to_string()];
                row.extend(self.methods.iter().map(|m| {
                    (self.points.iter())
                        .find(|p| p.method == *m && p.f == f)
                        .map_or("-".into(), |p| format!("{:.1}", p.bits))
                }));
                row
            })
            .collect()
    }
}
