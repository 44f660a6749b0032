//! `sigpu ldpc encode | decode | simulate` for 5G NR codes (`--code nr:k=K,n=N[,bg=1|2]`):
//! parsing and printing around `sigpu_ldpc::nr`.

use super::{DecodeArgs, EncodeArgs, NrArgs, SimulateArgs};
use anyhow::{bail, Result};
use sigpu_ldpc::nr::files::{decode_npy, encode_npy, RvChoice};
use sigpu_ldpc::nr::modulation::Fading;
use sigpu_ldpc::nr::NrCode;
use sigpu_ldpc::sim::sweep::SweepSpec;
use sigpu_ldpc::sweep_request::{fading_named, NrLinkChoice};
use sigpu_ldpc::Code;
use sigpu_runtime::Target;
use std::process::ExitCode;

/// --rv: the versions given, or rv 0 alone.
fn rv_choice(rv: Option<&str>) -> Result<RvChoice> {
    Ok(match rv {
        Some(text) => RvChoice::parse(text)?,
        None => RvChoice::first(),
    })
}

impl NrArgs {
    fn rv(&self) -> Result<RvChoice> {
        rv_choice(self.rv.as_deref())
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

/// The sweep of `sigpu ldpc simulate --code nr:…` and the code its decoders run: one code
/// block per frame, the rvs of `--rv` combined, TS 38.211's constellation of `--modulation`,
/// on the sweep / resume / MPI machinery of every code.
pub fn sweep_spec(a: &SimulateArgs) -> Result<(SweepSpec, Code)> {
    let code = NrCode::parse(&a.code)?;
    let rv = rv_choice(a.rv.as_deref())?;
    let fading = match a.fading.as_deref() {
        None => Fading::Awgn,
        Some(name) => fading_named(name)
            .ok_or_else(|| anyhow::anyhow!("--fading {name:?}: expected awgn or rayleigh"))?,
    };
    let link = NrLinkChoice {
        modulation: a.modulation,
        fading,
        demapper: a.demapper,
        rvs: rv.rvs,
        seed: a.seed,
    };
    let (nr, decoding) = link.sweep(code)?;
    let (axis, points) = a.points()?;
    let mut spec = SweepSpec::for_nr(nr, a.modulation, axis, points, a.decoder.config()?);
    a.stop().apply(&mut spec);
    Ok((spec, decoding))
}
