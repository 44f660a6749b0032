//! `sigpu check` entries of the time-varying all-pole kernel: forward and backward on fresh
//! LPC-like inputs (order-16 polynomials with poles to radius 0.999, a new one every 100
//! samples, zi given), against the CPU twin ([`super::chunked`], the same operations in the
//! same order: expected bit for bit, held to 4 units of the data type's epsilon times the
//! largest magnitude of each output) and against the double-double reference (the output
//! within 4× the error of the serial loop in the data's own type, plus one rounding).

use super::cases::{lpc_coefficients, white};
use super::reference::{self, relative_error, serial_same_type};
use super::{chunked, plan_allpole, AllPoleOptions, AllPoleSpec, DEFAULT_CHUNK};
use crate::elem::Element;
use crate::error::FilterError;
use sigpu_runtime::cuda::{check_result, Check, CheckReport, Gpu, Tolerance};
use sigpu_runtime::{GpuTarget, Target};

/// The kernel's checks, in the order `sigpu check` runs them.
pub fn checks() -> Vec<Check> {
    vec![
        Check::new(
            "recurrence/allpole_order16_f32",
            "time-varying all-pole, order 16, f32, 3 channels of 3·256+77 with zi: forward and \
             backward vs the chunked CPU twin, y vs double-double (4x the serial f32 loop)",
            |gpu, seed| check_result(case::<f32>(gpu, seed, 16, 3, 3 * DEFAULT_CHUNK + 77)),
        ),
        Check::new(
            "recurrence/allpole_lengths",
            "orders 1, 3, 5, 32 at lengths 1 … chunk ± 1 … 1000, f32, vs the twin",
            |gpu, seed| check_result(lengths(gpu, seed)),
        ),
    ]
}

/// Forward and backward of one case on the GPU against the twin; the report's note carries
/// the contract's ratio.
fn case<T: Element>(
    gpu: &Gpu,
    seed: u64,
    order: usize,
    channels: usize,
    n: usize,
) -> Result<CheckReport, FilterError> {
    let run = Run::<T>::new(seed, order, channels, n);
    let target = Target::Gpu(GpuTarget::new(gpu.clone()));
    let got = run.on(&target)?;
    let want = run.twin();
    let mut report = compare(&got, &want);
    // The contract: y against double-double, within 4× the serial loop in T (+ one rounding).
    let (x, a, zi) = (run.f64s(&run.x), run.f64s(&run.a), run.f64s(&run.zi));
    let exact = reference::forward(&x, &a, Some(&zi), channels, order);
    let serial = serial_same_type(&run.x, &run.a, Some(&run.zi), channels, order);
    let (ours, theirs) = (
        relative_error(&got.y, &exact),
        relative_error(&serial, &exact),
    );
    let eps = f64::EPSILON.max(T::from_f64(1.0 + 1e-10).to_f64() - 1.0);
    let eps = if T::from_f64(1.0 + f64::EPSILON).to_f64() == 1.0 {
        2f64.powi(-23)
    } else {
        eps
    };
    let ok = ours <= 4.0 * theirs + eps;
    if !ok {
        report.mismatches += 1;
    }
    Ok(report.with_note(format!(
        "y vs double-double: {ours:.2e} of max|y|, serial {} loop {theirs:.2e}{}",
        T::DTYPE,
        if ok { "" } else { " (over 4x)" }
    )))
}

fn lengths(gpu: &Gpu, seed: u64) -> Result<CheckReport, FilterError> {
    let mut all: Option<CheckReport> = None;
    let target = Target::Gpu(GpuTarget::new(gpu.clone()));
    for (i, &(order, n)) in [
        (1, 1),
        (3, 2),
        (5, 15),
        (3, DEFAULT_CHUNK - 1),
        (5, DEFAULT_CHUNK),
        (1, DEFAULT_CHUNK + 1),
        (32, 1000),
    ]
    .iter()
    .enumerate()
    {
        let run = Run::<f32>::new(seed + i as u64, order, 2, n);
        let r = compare(&run.on(&target)?, &run.twin());
        all = Some(merged(all, r));
    }
    Ok(all.expect("cases"))
}

/// One case's inputs and a gradient to pull back.
pub(crate) struct Run<T> {
    pub order: usize,
    pub channels: usize,
    pub x: Vec<T>,
    pub a: Vec<T>,
    pub zi: Vec<T>,
    pub g: Vec<T>,
}

/// Every output of a forward and backward call.
pub(crate) struct Outputs<T> {
    pub y: Vec<T>,
    pub zf: Vec<T>,
    pub gx: Vec<T>,
    pub ga: Vec<T>,
    pub gzi: Vec<T>,
}

impl<T: Element> Run<T> {
    pub fn new(seed: u64, order: usize, channels: usize, n: usize) -> Self {
        let conv = |v: Vec<f64>| v.into_iter().map(T::from_f64).collect::<Vec<T>>();
        Run {
            order,
            channels,
            x: conv(white(seed, channels * n)),
            a: conv(lpc_coefficients(
                seed ^ 1,
                channels,
                n,
                order,
                100,
                (0.9, 0.999),
            )),
            zi: conv(white(seed ^ 2, channels * order)),
            g: conv(white(seed ^ 3, channels * n)),
        }
    }

    pub fn f64s(&self, v: &[T]) -> Vec<f64> {
        v.iter().map(|x| x.to_f64()).collect()
    }

    /// Through the planner on `target`.
    pub fn on(&self, target: &Target) -> Result<Outputs<T>, FilterError> {
        let spec = AllPoleSpec {
            order: self.order,
            channels: self.channels,
            zi: true,
        };
        let f = plan_allpole::<T>(&spec, AllPoleOptions::default(), target)?;
        let mut out = Outputs {
            y: vec![T::ZERO; self.x.len()],
            zf: vec![T::ZERO; self.zi.len()],
            gx: vec![T::ZERO; self.x.len()],
            ga: vec![T::ZERO; self.a.len()],
            gzi: vec![T::ZERO; self.zi.len()],
        };
        f.forward(
            &self.x,
            &self.a,
            Some(&self.zi),
            &mut out.y,
            Some(&mut out.zf),
        )?;
        f.backward(
            &self.a,
            &out.y,
            Some(&self.zi),
            &self.g,
            &mut out.gx,
            &mut out.ga,
            Some(&mut out.gzi),
        )?;
        Ok(out)
    }

    /// The CPU twin of the GPU kernel (chunks of [`DEFAULT_CHUNK`]).
    pub fn twin(&self) -> Outputs<T> {
        let (p, c) = (self.order, self.channels);
        let n = self.x.len() / c;
        let mut out = Outputs {
            y: vec![T::ZERO; self.x.len()],
            zf: Vec::new(),
            gx: vec![T::ZERO; self.x.len()],
            ga: vec![T::ZERO; self.a.len()],
            gzi: Vec::new(),
        };
        for ch in 0..c {
            let a = &self.a[ch * n * p..(ch + 1) * n * p];
            let zi = self.f64s(&self.zi[ch * p..(ch + 1) * p]);
            let rows = ch * n..(ch + 1) * n;
            let end = chunked::channel(
                &self.x[rows.clone()],
                a,
                &zi,
                &mut out.y[rows.clone()],
                DEFAULT_CHUNK,
                false,
            );
            out.zf.extend(end.into_iter().map(T::from_f64));
            let zero = vec![0.0; p];
            let gzi = chunked::channel(
                &self.g[rows.clone()],
                a,
                &zero,
                &mut out.gx[rows.clone()],
                DEFAULT_CHUNK,
                true,
            );
            out.gzi.extend(gzi.into_iter().map(T::from_f64));
            super::serial::grad_a_channel(
                &out.gx[rows.clone()],
                &out.y[rows.clone()],
                Some(&self.zi[ch * p..(ch + 1) * p]),
                &mut out.ga[ch * n * p..(ch + 1) * n * p],
                p,
            );
        }
        out
    }
}

/// Every output against the twin's, each within 4 ε(T) of its own largest magnitude.
fn compare<T: Element>(got: &Outputs<T>, want: &Outputs<T>) -> CheckReport {
    let eps = if T::from_f64(1.0 + f64::EPSILON).to_f64() == 1.0 {
        2f64.powi(-23)
    } else {
        f64::EPSILON
    };
    let mut report: Option<CheckReport> = None;
    for (name, g, w) in [
        ("y", &got.y, &want.y),
        ("zf", &got.zf, &want.zf),
        ("grad_x", &got.gx, &want.gx),
        ("grad_a", &got.ga, &want.ga),
        ("grad_zi", &got.gzi, &want.gzi),
    ] {
        let scale = w.iter().fold(0.0f64, |m, v| m.max(v.to_f64().abs()));
        let tolerance = Tolerance {
            abs: 4.0 * eps * scale,
            rel: 0.0,
        };
        let pairs = g
            .iter()
            .zip(w.iter())
            .map(|(a, b)| (a.to_f64(), b.to_f64()));
        let mut r = sigpu_runtime::cuda::compare_by(
            pairs,
            tolerance.abs,
            |a, b| {
                if a.is_nan() || b.is_nan() {
                    f64::INFINITY
                } else {
                    (a - b).abs()
                }
            },
            tolerance,
        );
        if g.len() != w.len() {
            r.mismatches += 1;
        }
        if r.mismatches > 0 {
            r.note = format!("{name}: {}", r.note);
        }
        report = Some(merged(report, r));
    }
    report.expect("outputs")
}

/// Two reports as one: counts added, the larger error, the first note.
pub(crate) fn merged(acc: Option<CheckReport>, r: CheckReport) -> CheckReport {
    match acc {
        None => r,
        Some(mut acc) => {
            acc.elements += r.elements;
            acc.mismatches += r.mismatches;
            acc.max_error = acc.max_error.max(r.max_error);
            if acc.note.is_empty() {
                acc.note = r.note;
            }
            acc
        }
    }
}
