//! `sigpu ldpc ...` and `sigpu bench ldpc`: DVB-T2/S2 LDPC codes, decoding a user's LLRs,
//! error-rate sweeps (`sigpu_ldpc::sim::sweep`) and decoder throughput (`sigpu_lab::ldpc`).

mod args;
mod nr;

pub use args::*;

use anyhow::{Context, Result};
use indicatif::ProgressBar;
use sigpu_lab::ldpc::bench::{self as lab_bench, BenchSpec};
use sigpu_lab::ldpc::codes::{codes_table, rejoin_nr_specs};
use sigpu_lab::ldpc::plot as ldpc_plot;
use sigpu_lab::ldpc::simulate::{self as lab_simulate, spread_notes};
use sigpu_ldpc::decode_file::{decode_npy, DecodeFiles};
use sigpu_ldpc::nr::NrCode;
use sigpu_ldpc::plan;
use sigpu_ldpc::sim::sweep::{SnrAxis, SweepEvent, SweepSpec};
use sigpu_ldpc::Code;
use sigpu_runtime::cuda::Gpu;
use sigpu_runtime::ranks::agree;
use sigpu_runtime::{Device, Target};
use std::process::ExitCode;

/// Every LDPC command but `simulate`, on one device.
pub fn run(device: Option<Device>, json: bool, command: &LdpcCommand) -> Result<ExitCode> {
    match command {
        LdpcCommand::Codes(a) => codes(json, a.code.as_deref()),
        LdpcCommand::Export(a) => export(json, a),
        LdpcCommand::Encode(a) => encode(json, a),
        LdpcCommand::Decode(a) => decode(device, json, a),
        LdpcCommand::Simulate(a) => simulate(device, false, json, a),
        LdpcCommand::Plot(a) => plot(json, a),
    }
}

fn export(json: bool, a: &ExportArgs) -> Result<ExitCode> {
    super::check_files(
        &[("--output", &a.output)],
        &super::and_file(&[], "--code", &a.code),
    )?;
    let code = Code::resolve(&a.code)?;
    sigpu_ldpc::write_alist(&code, &a.output)?;
    let out = a.output.display();
    super::report(json, &code.info(), |i| {
        println!("wrote {} to {out}", i.matrix())
    })
}

fn encode(json: bool, a: &EncodeArgs) -> Result<ExitCode> {
    if NrCode::is_spec(&a.code) {
        return nr::encode(json, a);
    }
    a.nr.only_for_nr(&a.code)?;
    let inputs = super::and_file(&[("--input", &a.input)], "--code", &a.code);
    super::check_files(&[("--output", &a.output)], &inputs)?;
    let code = Code::resolve(&a.code)?;
    let encoded = sigpu_ldpc::encode_npy(&code, &a.input, &a.output)?;
    super::report(json, &encoded, |e| println!("{}", e.text()))
}

fn plot(json: bool, a: &PlotArgs) -> Result<ExitCode> {
    let inputs: Vec<_> = a.inputs.iter().map(|p| ("--input", p.as_path())).collect();
    super::check_files(&[("--output", &a.output)], &inputs)?;
    let axis = if a.eb_n0 {
        SnrAxis::EbN0
    } else {
        SnrAxis::EsN0
    };
    let drawn = ldpc_plot::plot_files(&a.inputs, axis, a.fer, a.title.as_deref(), &a.output)?;
    super::report(json, &drawn, |d| println!("wrote {}", d.output))
}

fn codes(json: bool, code: Option<&str>) -> Result<ExitCode> {
    let infos = match code {
        Some(spec) => vec![Code::resolve(spec)?.info()],
        None => sigpu_lab::ldpc::codes::standard_infos()?,
    };
    super::report(json, &infos, |i| print!("{}", codes_table(i)))
}

/// LDPC commands run on the CPU unless `--device cuda[:N]` is given: unlike commands that
/// take the GPU when there is one, since an 8-bit GPU run and a float CPU run of the same
/// command are different decoders. An explicit device goes through the one policy
/// ([`super::resolve`]), so `--device cpu|cuda[:N]` means the same everywhere.
fn open_device(device: Option<Device>) -> Result<Option<Gpu>> {
    if device.is_none() {
        return Ok(None);
    }
    super::resolve(device, super::Need::Either, "ldpc").map(super::Target::into_gpu)
}

fn decode(device: Option<Device>, json: bool, a: &DecodeArgs) -> Result<ExitCode> {
    if NrCode::is_spec(&a.code) {
        if device.is_some_and(|d| d != Device::Cpu) {
            anyhow::bail!("5G NR codes are decoded on the CPU for now: leave out --device");
        }
        return nr::decode(&Target::cpu(), json, a);
    }
    a.nr.only_for_nr(&a.code)?;
    let mut outputs = vec![("--output", a.output.as_path())];
    outputs.extend(a.output_info.as_deref().map(|p| ("--output-info", p)));
    outputs.extend(a.soft.as_deref().map(|p| ("--soft", p)));
    super::check_files(
        &outputs,
        &super::and_file(&[("--input", &a.input)], "--code", &a.code),
    )?;
    let target = plan::target(open_device(device)?);
    let code = Code::resolve(&a.code)?;
    let files = DecodeFiles {
        input: a.input.clone(),
        scale: a.decoder.scale,
        output: a.output.clone(),
        soft: a.soft.clone(),
        info: a.output_info.clone(),
    };
    let done = decode_npy(&code, a.decoder.config()?, &target, &files)?;
    if done.input_dtype == "float64" && !json {
        eprintln!("note: --input holds float64 LLRs; decoded after conversion to float32");
    }
    super::report(json, &done.report(), |_| println!("{}", done.summary()))
}

/// What `prepare` gives every rank: the GPUs (none: the CPU), the sweep and the code.
type Prepared = (Vec<Gpu>, SweepSpec, Code);

impl SimulateArgs {
    /// The checks before any work (rank 0 alone checks the files: it writes them), then
    /// what the sweep needs.
    fn prepare(&self, root: bool, device: Option<Device>, all: bool) -> Result<Prepared> {
        if root {
            let outputs = [("--out", &self.out), ("--plot", &self.plot)];
            let outputs: Vec<_> = (outputs.iter())
                .filter_map(|(f, p)| Some((*f, p.as_deref()?)))
                .collect();
            super::check_files(&outputs, &super::and_file(&[], "--code", &self.code))?;
            if let Some(path) = &self.plot {
                // Before the sweep, not after hours of it.
                sigpu_plot::Format::of(path).context("--plot")?;
            }
        }
        let gpus = if all {
            Gpu::open_all().context("--device all: no GPU can run kernels on this host")?
        } else {
            open_device(device)?.into_iter().collect()
        };
        if NrCode::is_spec(&self.code) {
            let (spec, code) = nr::sweep_spec(self)?;
            return Ok((gpus, spec, code));
        }
        let code = Code::resolve(&self.code)?;
        Ok((gpus, self.spec(&code)?, code))
    }
}

/// `sigpu ldpc simulate`: on the CPU, one GPU, or with `all_gpus` every GPU of the host; under
/// an MPI launcher (built with `--features mpi`) on every rank, each with its own device(s),
/// rank 0 alone writing the file and printing.
pub fn simulate(
    device: Option<Device>,
    all_gpus: bool,
    json: bool,
    a: &SimulateArgs,
) -> Result<ExitCode> {
    if !NrCode::is_spec(&a.code) && (a.rv.is_some() || a.fading.is_some()) {
        anyhow::bail!(
            "--rv and --fading apply to 5G NR codes (--code nr:k=K,n=N), not {:?}",
            a.code
        );
    }
    sigpu_lab::ranks::run("ldpc simulate", |ranks| {
        let root = ranks.rank() == 0;
        let prepared = a.prepare(root, device, all_gpus);
        let (gpus, spec, code) = agree(ranks, prepared, |e| format!("{e:#}"))
            .map_err(|e| e.unwrap_or_else(anyhow::Error::new))?;
        if !json {
            spread_notes(ranks, &gpus)
                .iter()
                .for_each(|n| eprintln!("{n}"));
        }
        // One bar per point, gone once the point's line is printed (rank 0 only).
        let mut bar: Option<ProgressBar> = None;
        let template = "{spinner} {prefix} [{bar:30}] {pos}/{len} frames {msg}";
        let result = lab_simulate::run(ranks, &code, gpus, &spec, &mut |event| match event {
            SweepEvent::Start(db) => {
                let b = super::bar(a.max_frames, template);
                b.set_prefix(format!("{} {db:.2} dB", spec.axis.label()));
                bar = Some(b);
            }
            SweepEvent::Batch(p) => {
                let Some(b) = &bar else { return };
                b.set_position(p.frames);
                b.set_message(p.progress());
            }
            SweepEvent::Note(note) => eprintln!("{note}"),
            SweepEvent::Point(p) => {
                bar.take().inspect(ProgressBar::finish_and_clear);
                if !json {
                    println!("{}", p.summary());
                }
            }
        });
        bar.take().inspect(ProgressBar::finish_and_clear);
        let swept = result?;
        if !root {
            return Ok(ExitCode::SUCCESS);
        }
        if let (false, Some(out)) = (json, &a.out) {
            // Points resumed from the file are part of the result: shown too, marked as such.
            for p in swept.kept() {
                println!("{} (kept from {})", p.summary(), out.display());
            }
        }
        let sweep = swept.sweep;
        if let Some(path) = &a.plot {
            ldpc_plot::save_sweep(path, &sweep, spec.axis)
                .with_context(|| format!("--plot {}", path.display()))?;
        }
        if json {
            super::print_json(&sweep)?;
        }
        Ok(ExitCode::SUCCESS)
    })
}

/// `sigpu bench ldpc`: the decoder throughput tables.
pub fn bench(device: Option<Device>, json: bool, a: &BenchArgs) -> Result<ExitCode> {
    super::check_files(&Vec::from_iter(a.out.output()), &[])?;
    let gpu = open_device(device)?;
    let spec = BenchSpec {
        codes: rejoin_nr_specs(&a.codes),
        iterations: a.iterations.clone(),
        runs: a.runs,
        algorithm: a.decoder,
        schedules: a.schedule.clone(),
        scale: a.scale,
        codewords: a.codewords,
        sub_batches: a.sub_batch.clone(),
        word_kernels: a.word_kernels,
        compact_batches: a.compact_batch.clone(),
        threads: a.threads,
    };
    let bar = ProgressBar::new(0);
    let report = lab_bench::run(gpu.as_ref(), &spec, &mut |done, total, what| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
        bar.set_message(what.to_owned());
    })?;
    bar.finish_and_clear();
    super::write_json_out(&a.out, &report)?;
    super::report(json, &report, |r| print!("{}", r.text()))
}
