//! `sigpu bench clns`'s report as text tables and the cliff chart, and read back from JSON.

use super::bench::Report;
use super::TextTable;
use anyhow::{bail, Context, Result};
use sigpu_plot::{LineChart, Series};
use std::path::Path;

impl Report {
    /// A report `sigpu bench clns --out` wrote, read back (`--from`): no GPU needed.
    pub fn load(path: &Path) -> Result<Report> {
        let what = "a `bench clns --out` report (JSON)";
        let text = sigpu_runtime::input::read_text(path, 64 << 20, what)
            .with_context(|| format!("--from {}", path.display()))?;
        serde_json::from_str(&text)
            .with_context(|| format!("--from {}: not a `bench clns` report", path.display()))
    }

    /// The text `sigpu bench clns` prints: the headline, Table I, then the cliff and the
    /// streaming ops when they were measured.
    pub fn text(&self) -> String {
        let mut out = format!("{}\n{}", self.headline(), self.table1_table().render());
        let cliff = self.cliff_table();
        if !cliff.rows.is_empty() {
            out += "texture-cache cliff (S_b reads at random inputs):\n";
            out += &cliff.render();
        }
        let streaming = self.streaming_table();
        if !streaming.rows.is_empty() {
            out += "streaming element-wise ops (2^26 pairs in device memory):\n";
            out += &streaming.render();
        }
        out
    }

    /// The headline: device, format, table, SM clock, ops per launch.
    pub fn headline(&self) -> String {
        let g = self.geometry;
        format!(
            "{} · {}, table {}×{} · SM clock {:.0} MHz · {} ops per launch",
            self.device, self.format, g.p_cl, g.p_theta, self.sm_clock_mhz, self.ops_per_launch
        )
    }

    /// Table I, each CLNS row against its target in the same run: a CLNS multiply against
    /// complex f32 add, a CLNS add against complex f32 multiply.
    pub fn table1_table(&self) -> TextTable {
        let peer = |op: &str| {
            self.table1
                .iter()
                .find(|r| r.op == op)
                .map(|r| r.g_ops_per_s)
        };
        let (cadd, cmul) = (peer("complex f32 add"), peer("complex f32 mul"));
        TextTable::new(
            &["op", "S_b", "G ops/s", "cycles/warp", "vs target"],
            self.table1.iter(),
            |r| {
                let vs = match (r.op.starts_with("clns"), r.op.contains("mul")) {
                    (true, true) => cadd.map(|p| format!("{:.3}× cf32 add", r.g_ops_per_s / p)),
                    (true, false) => cmul.map(|p| format!("{:.3}× cf32 mul", r.g_ops_per_s / p)),
                    _ => None,
                };
                vec![
                    r.op.clone(),
                    r.method.clone().unwrap_or_default(),
                    format!("{:.1}", r.g_ops_per_s),
                    format!("{:.2}", r.cycles_per_warp),
                    vs.unwrap_or_default(),
                ]
            },
        )
    }

    /// The texture-cache cliff (no rows when measured with `table1_only`).
    pub fn cliff_table(&self) -> TextTable {
        TextTable::new(
            &["reader", "table", "KiB", "G reads/s"],
            self.cliff.iter(),
            |r| {
                vec![
                    r.reader.clone(),
                    format!("{}×{}", r.p_cl, r.p_theta),
                    format!("{:.0}", r.table_kib),
                    format!("{:.1}", r.g_reads_per_s),
                ]
            },
        )
    }

    /// The streaming element-wise ops against the copy ceiling.
    pub fn streaming_table(&self) -> TextTable {
        TextTable::new(
            &["op", "G ops/s", "GB/s", "of copy"],
            self.streaming.iter(),
            |r| {
                vec![
                    r.op.clone(),
                    format!("{:.1}", r.g_ops_per_s),
                    format!("{:.0}", r.gb_per_s),
                    format!("{:.1}%", 100.0 * r.fraction_of_copy),
                ]
            },
        )
    }

    /// The cliff, G reads/s against table KiB per reader, to BASE.{svg,png}.
    pub fn plot_cliff(&self, base: &Path) -> Result<()> {
        if self.cliff.is_empty() {
            bail!(
                "--plot {}: this report has no cliff rows (measured with --table1-only)",
                base.display()
            );
        }
        let series = [("tex", "texture (bilinear)"), ("fma", "FMA lerps (global)")]
            .into_iter()
            .map(|(reader, name)| Series {
                name: name.into(),
                points: self
                    .cliff
                    .iter()
                    .filter(|r| r.reader == reader)
                    .map(|r| (r.table_kib, r.g_reads_per_s))
                    .collect(),
            })
            .collect();
        let chart = LineChart {
            title: format!(
                "S_b table reads at random inputs vs table size ({})",
                self.device
            ),
            x_label: "table size (KiB of float2 texels)".into(),
            y_label: "S_b reads (G/s)".into(),
            log_x: true,
            log_y: false,
            series,
        };
        chart
            .write(base)
            .with_context(|| format!("--plot {}", base.display()))
    }
}
