//! The measured search for launch shapes (`sigpu tune`): for each kernel family, every
//! candidate shape ([`candidates`]) is timed with CUDA events on the workloads of the rows it
//! is chosen for ([`cases`]), its output checked against the default shape's, and the fastest
//! that keeps the results (and beats the default by 1%) is written to the device's tuning
//! cache, which every later run on the device reads (`sigpu_runtime::cuda::tuning`).
//!
//! "Keeps the results": bit for bit the default's output where a kernel's result does not
//! depend on its shape (integer recurrences, the element-wise LNS words, the fused sum's
//! word); for the float recurrence kernels, whose rounding follows the blocking, within the
//! bound their self-check holds them to against the reference (PLR f32: 1e-5 of max |y|
//! against serial f64; sections: 2x SciPy's serial f32 error).

pub mod candidates;
pub mod cases;
pub mod search;

use anyhow::Result;
use candidates::{candidates, Part};
use cases::{FusedSumCase, PlrCase, PlrKind, SosCase, StreamCase};
use search::{search_part, Case, PartReport};
use serde::Serialize;
use sigpu_lns::{Format, Method};
use sigpu_runtime::cuda::tuning::{Family, Policies, TuneKey, Tuning, TuningCache};
use sigpu_runtime::cuda::Gpu;

/// What to search.
#[derive(Clone, Debug)]
pub struct Request {
    /// The families, in order.
    pub families: Vec<Family>,
    /// log2 of the elements (words, samples) of each case: every case runs at each size, and
    /// a candidate's time ratio is the geometric mean over all of them.
    pub log2_n: Vec<u32>,
    /// Untimed runs before the timed ones, per candidate and case.
    pub warmup: usize,
    /// Timed runs; the median is compared.
    pub runs: usize,
    /// Write the chosen shapes to the tuning cache.
    pub store: bool,
}

/// One family's search.
#[derive(Clone, Debug, Serialize)]
pub struct FamilyReport {
    /// The family.
    pub family: Family,
    /// The default policy.
    pub default: serde_json::Value,
    /// The policy chosen: each part's winner in place.
    pub chosen: serde_json::Value,
    /// Each part's search.
    pub parts: Vec<PartReport>,
}

/// Everything the search measured and chose on one device.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// The device's name.
    pub device: String,
    /// Its tuning key.
    pub key: TuneKey,
    /// log2 of the elements of the cases, each size a case of its own.
    pub log2_n: Vec<u32>,
    /// Each family searched.
    pub families: Vec<FamilyReport>,
    /// The cache file the choices were written to (`None`: not written).
    pub stored_in: Option<String>,
}

/// The cases of `part` at `n` elements.
fn cases_of(gpu: &Gpu, part: Part, n: usize) -> Result<Vec<Box<dyn Case>>> {
    Ok(match part {
        Part::PlrTailCarry => vec![
            Box::new(PlrCase::<f32>::new(
                gpu,
                "(0.2 : 0.8)",
                PlrKind::TailCarry,
                n,
            )?),
            Box::new(PlrCase::<f32>::new(
                gpu,
                "(0.81, -1.62, 0.81 : 1.6, -0.64)",
                PlrKind::TailCarry,
                n,
            )?),
        ],
        Part::PlrLookBack => vec![
            Box::new(PlrCase::<i32>::new(
                gpu,
                "(1 : 2, -1)",
                PlrKind::LookBack,
                n,
            )?),
            Box::new(PlrCase::<i32>::new(
                gpu,
                "(1 : 0, 1)",
                PlrKind::LookBack,
                n,
            )?),
        ],
        Part::PlrPrefixSum => vec![
            Box::new(PlrCase::<i32>::new(gpu, "(1 : 1)", PlrKind::PrefixSum, n)?),
            Box::new(PlrCase::<f32>::new(gpu, "(1 : 1)", PlrKind::PrefixSum, n)?),
        ],
        Part::Sos => {
            let (name, sos) = crate::recurrence::sos_bench::parse_sos("butter8")?;
            vec![Box::new(SosCase::new(gpu, &name, sos, n)?)]
        }
        Part::LnsStream => vec![
            Box::new(StreamCase::<u32>::new(gpu, Method::Sfu, Format::LNS16, n)?),
            Box::new(StreamCase::<u16>::new(gpu, Method::Sfu, Format::LNS16, n)?),
            Box::new(StreamCase::<u32>::new(
                gpu,
                Method::F32Split,
                Format::LNS32,
                n,
            )?),
        ],
        Part::LnsFusedSum => vec![
            Box::new(FusedSumCase::new(gpu, Format::LNS32, n)?),
            Box::new(FusedSumCase::new(gpu, Format::LNS16, n)?),
        ],
    })
}

/// `policies` with the `family` policy of `from` (a part's chosen candidate) in place for the
/// part: for the PLR family only the part's own tile.
fn take_part(policies: &mut Policies, part: Part, from: &Policies) {
    match part {
        Part::PlrTailCarry => policies.plr.tail_carry = from.plr.tail_carry,
        Part::PlrLookBack => policies.plr.look_back = from.plr.look_back,
        Part::PlrPrefixSum => policies.plr.prefix_sum = from.plr.prefix_sum,
        Part::Sos => policies.sos = from.sos,
        Part::LnsStream => policies.lns_stream = from.lns_stream,
        Part::LnsFusedSum => policies.lns_fused_sum = from.lns_fused_sum,
    }
}

/// Searches every family of `request` on `gpu`, reporting each candidate it starts on to
/// `progress`; with `request.store`, writes each family's choice to the tuning cache (which
/// must be enabled) and leaves the device running them. Without it, the device's tuning is
/// left as it was.
pub fn tune(gpu: &Gpu, request: &Request, progress: &mut dyn FnMut(&str)) -> Result<Report> {
    if let Some(l) = (request.log2_n.iter()).find(|l| !(10..=30).contains(*l)) {
        anyhow::bail!("--log2-n {l}: take 10 to 30");
    }
    if request.log2_n.is_empty() {
        anyhow::bail!("--log2-n: give at least one size");
    }
    let cache = TuningCache::from_env();
    if request.store && cache.dir().is_none() {
        anyhow::bail!(
            "the tuning cache is disabled ({}=off or no home folder): nothing could be stored; \
             set it to a folder, or pass --dry-run",
            sigpu_runtime::cuda::tuning::TUNING_CACHE_ENV
        );
    }
    let most = 1usize << request.log2_n.iter().max().expect("checked above");
    crate::recurrence::bench::check_host_memory(3 * 4 * most as u64, "the search")?;
    let base = (*gpu.tuning()).clone();
    let mut families = Vec::new();
    let mut stored_in = None;
    for &family in &request.families {
        let mut chosen = Policies::default();
        let mut parts = Vec::new();
        for &part in Part::of(family) {
            let list = candidates(part);
            let mut cases = Vec::new();
            for &l in &request.log2_n {
                cases.extend(cases_of(gpu, part, 1 << l)?);
            }
            let report = search_part(
                gpu,
                &base,
                (part.name(), family),
                &list,
                &mut cases,
                (request.warmup, request.runs),
                progress,
            )?;
            take_part(&mut chosen, part, &list[report.chosen].policies);
            parts.push(report);
        }
        let value = chosen.get_json(family);
        if request.store {
            let measured = serde_json::json!({
                "sigpu": env!("CARGO_PKG_VERSION"),
                "log2_n": &request.log2_n,
                "runs": request.runs,
                "time_ratio": parts.iter().map(|p| p.rows[p.chosen].time_ratio).collect::<Vec<_>>(),
            });
            let path = cache.store(&base.device, &base.key, family, value.clone(), measured)?;
            stored_in = Some(path.display().to_string());
        }
        families.push(FamilyReport {
            family,
            default: Policies::default().get_json(family),
            chosen: value,
            parts,
        });
    }
    if request.store {
        gpu.set_tuning(Tuning::resolve(gpu.info(), &cache));
    }
    Ok(Report {
        device: base.device,
        key: base.key,
        log2_n: request.log2_n.clone(),
        families,
        stored_in,
    })
}

impl Report {
    /// The report as text: per part, every candidate's time against the default's and its
    /// outcome, the chosen one marked; then where the choices went.
    pub fn text(&self) -> String {
        let sizes: Vec<String> = self.log2_n.iter().map(|l| format!("2^{l}")).collect();
        let mut s = format!(
            "{} ({}), cases of {} elements\n",
            self.device,
            self.key.label(),
            sizes.join(" and ")
        );
        for f in &self.families {
            for p in &f.parts {
                s += &format!("\n{} on {}:\n", p.part, p.cases.join(", "));
                for (i, r) in p.rows.iter().enumerate() {
                    let mark = if i == p.chosen { "*" } else { " " };
                    let times: Vec<String> = (r.median_ms.iter())
                        .map(|t| t.map_or("-".into(), |t| format!("{t:.3} ms")))
                        .collect();
                    let why = r
                        .outcomes
                        .iter()
                        .find(|o| !o.keeps_results())
                        .map(|o| format!("  {}", serde_json::to_string(o).unwrap_or_default()))
                        .unwrap_or_default();
                    s += &format!(
                        "{mark} {:<22} {:>7.3}x  {}{why}\n",
                        r.candidate,
                        r.time_ratio,
                        times.join("  ")
                    );
                }
            }
            s += &format!("{}: chosen {}\n", f.family, f.chosen);
        }
        s += &match &self.stored_in {
            Some(path) => format!("\nwritten to {path}\n"),
            None => "\nnot written (--dry-run)\n".into(),
        };
        s
    }
}
