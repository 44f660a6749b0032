//! Redraws the figures under docs/ that come from saved JSON through the lab (Fig. 3 and Table 1
//! of the texture-LNS paper, the CLNS FFT SNR, Fig. 4 and 8 of the SFU-approximation paper);
//! `scripts/figures` runs it after the CLI's own re-plotting commands (LDPC, recurrence,
//! texture cliff, CLNS Fig. 4/5). Run from the repository root.

use sigpu_lab::replot;
use std::path::Path;

fn main() -> anyhow::Result<()> {
    let r = Path::new("bench/results");
    replot::lns_fig3(
        &r.join("2026-11-21-cpu-lns/2026-11-21-cpu-lns-fig3.json"),
        "CPU twins, H100 filter model",
        Path::new("docs/lns/fig3"),
    )?;
    replot::lns_fig3(
        &r.join("2026-11-21-h100-lns/2026-11-21-h100-lns-fig3.json"),
        "NVIDIA H100 80GB HBM3",
        Path::new("docs/lns/fig3-h100"),
    )?;
    replot::lns_blends(
        &r.join("2026-11-21-h100-lns/2026-11-21-h100-lns16-throughput-s2.json"),
        Path::new("docs/lns/table1-lns16-blends"),
    )?;
    for n in [256, 1024] {
        for (method, suffix) in [("tex", ""), ("f64", "-f64")] {
            replot::clns_fft(
                &r.join(format!(
                    "2026-11-21-cpu-clns/2026-11-21-cpu-clns-fft{n}-{method}.json"
                )),
                n,
                Path::new(&format!("docs/clns/fft{n}-snr{suffix}")),
            )?;
        }
    }
    for partition in ["slot", "block"] {
        replot::approx_tune(
            &r.join(format!(
                "2026-11-21-h100-approx/2026-11-21-h100-approx-tune-{partition}.json"
            )),
            Path::new("docs/figures/approx"),
        )?;
    }
    println!("redrawn: docs/lns, docs/clns (FFT), docs/figures/approx");
    Ok(())
}
