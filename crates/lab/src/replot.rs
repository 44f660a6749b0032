//! The figures under `docs/` redrawn from the JSON their runs saved in `bench/results/`,
//! without measuring anything (no GPU needed): `cargo run -p sigpu-lab --example docs-figures`.
//! The LDPC, recurrence and texture-cliff figures have their own CLI paths (`sigpu ldpc plot`,
//! `sigpu bench filter --from`, `sigpu bench clns --from`); these are the rest.

use crate::approx::figures::{fig4_of, fig8_of, Bars};
use crate::approx::tune::geomean;
use crate::lns::fig3::Fig3Point;
use anyhow::{Context, Result};
use serde_json::Value;
use sigpu_approx::search::Point;
use std::path::Path;

fn read(path: &Path) -> Result<Value> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))
}

fn num(v: &Value, key: &str) -> f64 {
    v[key].as_f64().unwrap_or(f64::NAN)
}

fn text<'a>(v: &'a Value, key: &str) -> &'a str {
    v[key].as_str().unwrap_or("")
}

/// Fig. 3 (s_b accuracy against input precision) from `sigpu --json lns fig3` output, with
/// the methods in the order they first appear, to `<base>.{svg,png}`.
pub fn lns_fig3(json: &Path, source: &str, base: &Path) -> Result<()> {
    let points: Vec<Fig3Point> = serde_json::from_value(read(json)?)
        .with_context(|| format!("{}: not a list of Fig. 3 points", json.display()))?;
    let mut methods: Vec<&str> = Vec::new();
    for p in &points {
        if !methods.contains(&p.method.as_str()) {
            methods.push(&p.method);
        }
    }
    crate::lns::figure::chart(source, &methods, &points).write(base)?;
    Ok(())
}

/// The s_b blend throughput chart from `sigpu --json bench lns` output.
pub fn lns_blends(json: &Path, base: &Path) -> Result<()> {
    let v = read(json)?;
    let rows: Vec<crate::lns::bench::Row> = serde_json::from_value(v["rows"].clone())
        .with_context(|| format!("{}: no rows", json.display()))?;
    crate::lns::bench::blend_chart_of(text(&v, "format"), text(&v, "device"), &rows).write(base)?;
    Ok(())
}

/// The FFT SNR chart from `sigpu --json clns fft` output (transform length `n`).
pub fn clns_fft(json: &Path, n: usize, base: &Path) -> Result<()> {
    let v = read(json)?;
    let rows: Vec<[f64; 4]> = v["snr"]
        .as_array()
        .context("no snr rows")?
        .iter()
        .map(|r| {
            [
                num(r, "bits"),
                num(r, "clns_db"),
                num(r, "fixed_db"),
                num(r, "fixed_input_scaled_db"),
            ]
        })
        .collect();
    crate::clns::fft::snr_chart(text(&v, "method"), n, &rows).write(base)?;
    Ok(())
}

/// Fig. 4 for every app with a measured curve and Fig. 8 from `sigpu approx tune --out` JSON,
/// into `dir` as `fig4_<app>_<partition>` and `fig8_speedup_<partition>`.
pub fn approx_tune(json: &Path, dir: &Path) -> Result<()> {
    let v = read(json)?;
    let partition = text(&v, "partition").to_owned();
    let apps = v["apps"].as_array().context("no apps")?;
    let mut groups: Vec<(String, Bars)> = Vec::new();
    for a in apps {
        let curve: Vec<Point> = (a["curve"].as_array().into_iter().flatten())
            .map(|p| Point {
                lambda: p["lambda"].as_u64().unwrap_or(0) as u32,
                time: num(p, "time"),
                error: num(p, "error"),
            })
            .collect();
        let app = text(a, "app");
        if curve.len() > 2 {
            fig4_of(app, &partition, &curve, num(a, "sfu_error"))
                .write(&dir.join(format!("fig4_{app}_{partition}")))?;
        }
        let search = |m: &str| {
            (a["searches"].as_array().into_iter().flatten())
                .find(|s| text(s, "method") == m)
                .map(|s| (num(s, "speedup"), s["runs"].as_u64().unwrap_or(0) as usize))
        };
        groups.push((
            app.to_owned(),
            [
                Some((num(a, "sfu_speedup"), 0)),
                search("smp"),
                search("heu"),
                search("omg"),
            ],
        ));
    }
    let gm = |k: usize| geomean(groups.iter().filter_map(|g| g.1[k].map(|v| v.0)));
    let means = [gm(0), gm(1), gm(2), gm(3)].map(|v| Some((v, 0)));
    groups.push(("geometric mean".into(), means));
    fig8_of(groups, num(&v, "qos_ratio"), &partition, text(&v, "device"))
        .write(&dir.join(format!("fig8_speedup_{partition}")))?;
    Ok(())
}
