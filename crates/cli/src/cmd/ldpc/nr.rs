//! `sigpu ldpc encode | decode | simulate` for 5G NR codes (`--code nr:k=K,n=N[,bg=1|2]`):
//! parsing and printing around `sigpu_ldpc::nr`.

use super::{DecodeArgs, EncodeArgs, NrArgs, SimulateArgs};
use anyhow::{bail, Result};
use sigpu_ldpc::channel::Snr;
use sigpu_ldpc::nr::files::{decode_npy, encode_npy, RvChoice};
use sigpu_ldpc::nr::modulation::{Fading, NrModulation};
use sigpu_ldpc::nr::sim::{simulate_point, NrLink};
use sigpu_ldpc::nr::NrCode;
use sigpu_ldpc::plan;
use sigpu_ldpc::sim::sweep;
use sigpu_runtime::Target;
use std::process::ExitCode;

impl NrArgs {
    fn rv(&self) -> Result<RvChoice> {
        Ok(match &self.rv {
            Some(text) => RvChoice::parse(text)?,
            None => RvChoice::first(),
        })
    }

    /// Refuses the NR flags on a code that is not NR.
    pub fn only_for_nr(&self, code: &str) -> Result<()> {
        if self.rv.is_some() || self.bits_per_symbol.is_some() {
            bail!(
                "--rv and --bits-per-symbol apply to 5G NR codes (--code nr:k=K,n=N), not {code:?}"
            );
        }
        Ok(())
    }
}

/// `sigpu ldpc encode --code nr:…`.
pub fn encode(json: bool, a: &EncodeArgs) -> Result<ExitCode> {
    super::super::check_files(&[("--output", &a.output)], &[("--input", &a.input)])?;
    let code = NrCode::parse(&a.code)?;
    let report = encode_npy(
        &code,
        &a.nr.rv()?,
        a.nr.bits_per_symbol,
        &a.input,
        &a.output,
    )?;
    super::super::report(json, &report, |r| println!("{}", r.text()))
}

/// `sigpu ldpc decode --code nr:…`, on `target`.
pub fn decode(target: &Target, json: bool, a: &DecodeArgs) -> Result<ExitCode> {
    if a.output_info.is_some() || a.soft.is_some() {
        bail!("--output-info and --soft: for 5G NR codes --output already holds the k decoded bits; posteriors are not offered");
    }
    super::super::check_files(&[("--output", &a.output)], &[("--input", &a.input)])?;
    let code = NrCode::parse(&a.code)?;
    let config = a.decoder.config()?;
    let report = decode_npy(
        &code,
        &a.nr.rv()?,
        a.nr.bits_per_symbol,
        config,
        target,
        &a.input,
        &a.output,
    )?;
    super::super::report(json, &report, |r| println!("{}", r.text()))
}

/// `sigpu ldpc simulate --code nr:…`: one code block per frame on the CPU, point by point.
pub fn simulate(json: bool, a: &SimulateArgs) -> Result<ExitCode> {
    if a.out.is_some() || a.resume || a.plot.is_some() {
        bail!("--out, --resume and --plot are not offered for 5G NR codes yet: use --json and keep its output");
    }
    let code = NrCode::parse(&a.code)?;
    let rv = match &a.rv {
        Some(t) => RvChoice::parse(t)?,
        None => RvChoice::first(),
    };
    let config = a.decoder.config()?;
    let mut decoder = plan::decoder(&code.decoding_code(&rv.rvs)?, config, &Target::cpu())?;
    let (eb, points) = match (&a.snr, &a.eb_n0) {
        (Some(s), None) => (false, sweep::parse_points(s)?),
        (None, Some(s)) => (true, sweep::parse_points(s)?),
        _ => bail!("give the SNR points with --snr (Es/N0) or --eb-n0"),
    };
    // The names of --modulation are those of TS 38.211's constellations; NR codes get those.
    let modulation = NrModulation::parse(a.modulation.name())?;
    let fading = match a.fading.as_deref() {
        None | Some("awgn") => Fading::Awgn,
        Some("rayleigh") | Some("rayleigh-block") => Fading::RayleighBlock,
        Some(other) => bail!("--fading {other:?}: expected awgn or rayleigh"),
    };
    let link = NrLink {
        modulation,
        fading,
        demapper: a.demapper,
        rvs: rv.rvs.clone(),
        seed: a.seed,
    };
    // Eb/N0 per information bit of one transmission: Es/N0 = Eb/N0 · (k/n) · Q_m.
    let es = |db: f64| {
        if eb {
            Snr::EbN0(db).es_n0_db(a.modulation, code.rate())
        } else {
            db
        }
    };
    let batch = a.batch.unwrap_or(64);
    let mut results = Vec::new();
    for db in points {
        let p = simulate_point(
            &code,
            &link,
            decoder.as_mut(),
            es(db),
            a.min_errors,
            a.max_frames,
            batch,
        )?;
        if !json {
            println!(
                "{} rv {:?} {} {fading:?} Es/N0 {:.2} dB: BLER {:.3e} [{:.2e}, {:.2e}] ({} of {} blocks), BER {:.3e}, {:.1} iterations",
                code.name(),
                rv.rvs,
                modulation.name(),
                p.es_n0_db,
                p.fer,
                p.fer_ci[0],
                p.fer_ci[1],
                p.frame_errors,
                p.frames,
                p.ber,
                p.mean_iterations
            );
        }
        results.push(p);
    }
    if json {
        super::super::print_json(&serde_json::json!({
            "code": code.name(), "z": code.z(), "rvs": rv.rvs, "modulation": modulation.name(), "fading": format!("{fading:?}"),
            "decoder": decoder.describe(), "seed": a.seed, "points": results,
        }))?;
    }
    Ok(ExitCode::SUCCESS)
}
