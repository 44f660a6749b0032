//! Charts for `sigpu bench filter --plot`: throughput against sequence length, as in
//! PLR's slides 21–26 (memcpy, ours, peers), one chart per signature and one of all. They
//! are drawn from the report's JSON, so a saved run can be re-plotted (`--from`).

use anyhow::Result;
use serde_json::Value;
use sigpu_plot::{LineChart, Series};
use sigpu_recurrence::Signature;
use std::collections::BTreeMap;
use std::path::Path;

/// PLR's signatures: file names, and what each filter is in words (for titles and legends).
const NAMES: [(&str, &str, &str); 7] = [
    ("(1 : 1)", "prefix-sum", "prefix sum"),
    ("(1 : 0, 1)", "tuple-prefix-sum", "2-tuple prefix sum"),
    (
        "(1 : 2, -1)",
        "prefix-sum-2nd-order",
        "2nd-order prefix sum",
    ),
    ("(0.2 : 0.8)", "lowpass-1-stage", "1-pole low-pass"),
    ("(0.04 : 1.6, -0.64)", "lowpass-2-stage", "2-pole low-pass"),
    ("(0.9, -0.9 : 0.8)", "highpass-1-stage", "1-pole high-pass"),
    (
        "(0.81, -1.62, 0.81 : 1.6, -0.64)",
        "highpass-2-stage",
        "2-pole high-pass",
    ),
];

fn name_of(signature: &str) -> String {
    NAMES
        .iter()
        .find(|(s, ..)| *s == signature)
        .map(|(_, n, _)| n.to_string())
        .unwrap_or_else(|| {
            signature
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                .collect::<String>()
                .split('_')
                .filter(|p| !p.is_empty())
                .collect::<Vec<_>>()
                .join("_")
        })
}

/// The filter as a SciPy user writes it: `lfilter(b = [0.04], a = [1, -1.6, 0.64])`, named
/// when it is one of PLR's ("2-pole low-pass, lfilter(…)"); the signature as given when it
/// does not parse.
fn filter_words(signature: &str) -> String {
    let Ok(sig) = signature.parse::<Signature>() else {
        return signature.to_owned();
    };
    let list = |v: &mut dyn Iterator<Item = f64>| {
        // -0.0 + 0.0 is 0.0: a zero prints without a sign.
        let v: Vec<String> = v.map(|v| (v + 0.0).to_string()).collect();
        format!("[{}]", v.join(", "))
    };
    let b = list(&mut sig.feedforward.iter().map(|c| c.value));
    // SciPy's a: a[0] = 1, then minus the feedback; a pure map (feedback 0) is a = [1].
    let pure_map = sig.feedback.iter().all(|c| c.value == 0.0);
    let a = list(
        &mut std::iter::once(1.0)
            .chain(sig.feedback.iter().map(|c| -c.value).filter(|_| !pure_map)),
    );
    let call = format!("lfilter(b = {b}, a = {a})");
    match NAMES.iter().find(|(s, ..)| *s == signature) {
        Some((_, _, words)) => format!("{words}, {call}"),
        None => call,
    }
}

fn text<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

fn num(v: &Value, key: &str) -> f64 {
    v.get(key).and_then(Value::as_f64).unwrap_or(f64::NAN)
}

fn list<'a>(report: &'a Value, key: &str) -> impl Iterator<Item = &'a Value> {
    report
        .get(key)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

fn elem_bytes(dtype: &str) -> f64 {
    if dtype.ends_with("64") {
        8.0
    } else {
        4.0
    }
}

/// The copy line for elements of `bytes` bytes, if the report swept lengths.
fn memcpy_series(report: &Value, bytes: f64) -> Option<Series> {
    let points: Vec<(f64, f64)> = list(report, "copy_sweep")
        .filter(|c| num(c, "elem_bytes") == bytes)
        .map(|c| (num(c, "n").log2(), num(c, "gelem_per_s")))
        .collect();
    (!points.is_empty()).then(|| Series {
        name: "memcpy".into(),
        points,
    })
}

/// (signature, dtype) → line label → points, charts in the order their rows appear.
type Charts = Vec<((String, String), BTreeMap<String, Vec<(f64, f64)>>)>;

fn add(charts: &mut Charts, sig: &str, dtype: &str, label: String, point: (f64, f64)) {
    let key = (sig.to_owned(), dtype.to_owned());
    let pos = match charts.iter().position(|(k, _)| *k == key) {
        Some(p) => p,
        None => {
            charts.push((key, BTreeMap::new()));
            charts.len() - 1
        }
    };
    charts[pos].1.entry(label).or_default().push(point);
}

/// Writes the charts into `dir`; returns how many.
pub fn write_charts(report: &Value, dir: &Path) -> Result<usize> {
    std::fs::create_dir_all(dir)?;
    let device = text(report, "device");
    let mut charts = our_lines(report);
    add_peer_lines(report, &mut charts);
    // The overview: each signature as a percentage of the copy at the same length.
    let copy4: BTreeMap<i64, f64> = memcpy_series(report, 4.0)
        .map(|s| {
            s.points
                .iter()
                .map(|&(x, y)| (x.round() as i64, y))
                .collect()
        })
        .unwrap_or_default();
    let mut overview = Vec::new();
    let mut written = 0;
    for ((sig, dtype), lines) in &charts {
        let mut series: Vec<Series> = memcpy_series(report, elem_bytes(dtype))
            .into_iter()
            .collect();
        for (label, points) in lines {
            let mut points = points.clone();
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            if label == "sigpu" && elem_bytes(dtype) == 4.0 && !copy4.is_empty() {
                let words = NAMES.iter().find(|(s, ..)| s == sig).map(|n| n.2);
                overview.push(percent_of_copy(
                    &format!("{} {dtype}", words.unwrap_or(sig)),
                    &points,
                    &copy4,
                ));
            }
            series.push(Series {
                name: label.clone(),
                points,
            });
        }
        let name = format!("{}-{dtype}", name_of(sig));
        throughput_chart(format!("{}, {dtype}, {device}", filter_words(sig)), series)
            .write(&dir.join(&name))?;
        written += 1;
    }
    if overview.len() > 1 {
        LineChart {
            title: format!("The PLR paper's filters against memcpy, {device}"),
            x_label: "log2 of the sequence length (elements)".into(),
            y_label: "% of memcpy throughput at the same length".into(),
            log_x: false,
            log_y: false,
            series: overview,
        }
        .write(&dir.join("all-signatures"))?;
        written += 1;
    }
    Ok(written)
}

/// Our rows as chart lines: shapes are named only where one signature was timed in several.
fn our_lines(report: &Value) -> Charts {
    let mut charts: Charts = Vec::new();
    let shapes_of = |r: &Value| {
        list(report, "rows")
            .filter(|o| o["signature"] == r["signature"] && o["dtype"] == r["dtype"])
            .map(|o| text(o, "shape"))
            .collect::<std::collections::BTreeSet<_>>()
            .len()
    };
    for r in list(report, "rows") {
        let mut label = "sigpu".to_owned();
        if shapes_of(r) > 1 {
            label += &format!(" {}", text(r, "shape"));
        }
        if r["optimize"].as_bool() == Some(false) {
            label += " (opt. off)";
        }
        add(
            &mut charts,
            text(r, "signature"),
            text(r, "dtype"),
            label,
            (num(r, "n").log2(), num(r, "gelem_per_s")),
        );
    }
    charts
}

/// The GPU peers' lines, on the charts of signatures we timed.
fn add_peer_lines(report: &Value, charts: &mut Charts) {
    let ours: Vec<(String, String)> = charts.iter().map(|(k, _)| k.clone()).collect();
    for p in list(report, "peers") {
        let peer = text(p, "peer");
        // CPU peers, failed runs and many-channel runs have no place on a chart of one
        // channel's throughput on the GPU.
        if peer.contains("CPU") || p.get("error").is_some() || num(p, "channels") > 1.0 {
            continue;
        }
        let key = (text(p, "signature").to_owned(), text(p, "dtype").to_owned());
        if ours.contains(&key) {
            // Short labels: the legend is narrow.
            let label = peer
                .replace("cupyx.scipy.signal.", "cupyx ")
                .replace("torchaudio.functional.", "torchaudio ");
            add(
                charts,
                &key.0,
                &key.1,
                label,
                (num(p, "n").log2(), num(p, "gelem_per_s")),
            );
        }
    }
}

/// `points` as a percentage of the copy throughput at the same length.
fn percent_of_copy(name: &str, points: &[(f64, f64)], copy: &BTreeMap<i64, f64>) -> Series {
    Series {
        name: name.to_owned(),
        points: points
            .iter()
            .filter_map(|&(x, y)| copy.get(&(x.round() as i64)).map(|c| (x, 100.0 * y / c)))
            .collect(),
    }
}

fn throughput_chart(title: String, series: Vec<Series>) -> LineChart {
    LineChart {
        title,
        x_label: "log2 of the sequence length (elements)".into(),
        y_label: "throughput (G elements/s)".into(),
        log_x: false,
        log_y: true,
        series,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charts_have_memcpy_ours_and_gpu_peers() {
        let report = serde_json::json!({
            "device": "test",
            "copy_sweep": [
                {"n": 1024, "elem_bytes": 4, "gelem_per_s": 10.0},
                {"n": 2048, "elem_bytes": 4, "gelem_per_s": 20.0}
            ],
            "rows": [
                {"signature": "(1 : 1)", "dtype": "i32", "optimize": true, "shape": "256x32t",
                 "n": 1024, "gelem_per_s": 5.0},
                {"signature": "(1 : 1)", "dtype": "i32", "optimize": true, "shape": "256x32t",
                 "n": 2048, "gelem_per_s": 9.0},
                {"signature": "(0.2 : 0.8)", "dtype": "f32", "optimize": true, "shape": "256x32t",
                 "n": 2048, "gelem_per_s": 9.0}
            ],
            "peers": [
                {"peer": "torch.cumsum", "signature": "(1 : 1)", "dtype": "i32", "n": 1024,
                 "gelem_per_s": 4.0},
                {"peer": "scipy.signal.lfilter (CPU)", "signature": "(1 : 1)", "dtype": "i32",
                 "n": 1024, "gelem_per_s": 0.1},
                {"peer": "torchaudio", "error": "not importable"}
            ]
        });
        let dir = std::env::temp_dir().join(format!("sigpu-filter-plot-{}", std::process::id()));
        assert_eq!(write_charts(&report, &dir).unwrap(), 3);
        let svg = std::fs::read_to_string(dir.join("prefix-sum-i32.svg")).unwrap();
        assert!(svg.contains(">\nmemcpy\n<") && svg.contains(">\nsigpu\n<"));
        assert!(svg.contains(">\ntorch.cumsum\n<") && !svg.contains("CPU"));
        let all = std::fs::read_to_string(dir.join("all-signatures.svg")).unwrap();
        assert!(all.contains(">\nprefix sum i32\n<") && all.contains("% of memcpy"));
        assert!(svg.contains("prefix sum, lfilter(b = [1], a = [1, -1]), i32, test"));
        assert!(dir.join("all-signatures.png").exists());
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn titles_give_the_filter_as_scipys_b_and_a() {
        assert_eq!(
            filter_words("(0.04 : 1.6, -0.64)"),
            "2-pole low-pass, lfilter(b = [0.04], a = [1, -1.6, 0.64])"
        );
        assert_eq!(
            filter_words("(0.81, -1.62, 0.81 : 1.6, -0.64)"),
            "2-pole high-pass, lfilter(b = [0.81, -1.62, 0.81], a = [1, -1.6, 0.64])"
        );
        assert_eq!(
            filter_words("(0.5, 0.5 : 0)"),
            "lfilter(b = [0.5, 0.5], a = [1])"
        );
        assert_eq!(filter_words("not a filter"), "not a filter");
    }

    #[test]
    fn unknown_signatures_get_a_file_name() {
        assert_eq!(name_of("(0.5, -1 : 0.3)"), "0_5_1_0_3");
        assert_eq!(name_of("(1 : 2, -1)"), "prefix-sum-2nd-order");
    }
}
