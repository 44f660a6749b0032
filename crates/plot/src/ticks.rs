//! Where an axis gets its ticks and what they say: 1-2-5 steps on linear axes, whole decades
//! (or 1-2-5 mantissas inside one decade) on logarithmic ones; labels as short as the step
//! allows, with SI prefixes for large values and powers of ten for wide log axes.

/// An axis' tick positions and how to print them.
#[derive(Clone, Debug, PartialEq)]
pub struct TickLabels {
    /// Tick positions in data units, ascending.
    pub values: Vec<f64>,
    kind: Kind,
}

#[derive(Clone, Debug, PartialEq)]
enum Kind {
    /// Fixed decimals after dividing by 10^(3·prefix) (prefix 0: none, 1: k, 2: M, …).
    Linear { decimals: usize, prefix: i32 },
    /// Scientific notation with this many decimals in the mantissa.
    Scientific { decimals: usize },
    /// 10ⁿ for every tick (decades only).
    Power,
    /// Plain numbers with up to 3 significant digits.
    Plain,
}

const PREFIXES: [&str; 5] = ["", "k", "M", "G", "T"];

impl TickLabels {
    /// The label of the tick at `v`.
    pub fn label(&self, v: f64) -> String {
        match self.kind {
            Kind::Linear { decimals, prefix } => {
                let scaled = v / 1000f64.powi(prefix);
                let s = format!("{scaled:.decimals$}");
                // "-0" reads as a bug on an axis.
                let s = if s
                    .trim_start_matches('-')
                    .chars()
                    .all(|c| c == '0' || c == '.')
                {
                    s.trim_start_matches('-').to_owned()
                } else {
                    s
                };
                format!("{s}{}", PREFIXES[prefix as usize])
            }
            Kind::Scientific { .. } if v == 0.0 => "0".into(),
            Kind::Scientific { decimals } => format!("{v:.decimals$e}"),
            Kind::Power => power(v.log10().round() as i32),
            Kind::Plain => plain(v),
        }
    }

    /// Every tick's label, in order.
    pub fn texts(&self) -> impl Iterator<Item = String> + '_ {
        self.values.iter().map(|&v| self.label(v))
    }
}

/// Ticks at multiples of a 1-2-5 step, about five to eight of them between `lo` and `hi`.
pub fn linear_ticks(lo: f64, hi: f64) -> TickLabels {
    let step = nice_step(lo, hi);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    let values: Vec<f64> = (first..=last).map(|k| k as f64 * step).collect();
    let top = lo.abs().max(hi.abs());
    let kind = if top >= 1e4 && step >= 1.0 {
        let prefix = ((top.log10() / 3.0).floor() as i32).clamp(0, 4);
        let scaled_step = step / 1000f64.powi(prefix);
        Kind::Linear {
            decimals: decimals_for(scaled_step),
            prefix,
        }
    } else if top < 1e-3 && top > 0.0 {
        // The mantissa needs as many digits as the step has below the leading one.
        let lead = top.log10().floor();
        let digits = (lead - step.log10().floor()).max(0.0) as usize;
        Kind::Scientific { decimals: digits }
    } else {
        Kind::Linear {
            decimals: decimals_for(step),
            prefix: 0,
        }
    };
    TickLabels { values, kind }
}

/// Ticks at whole decades when the axis holds four or more (every second or third one on a
/// very wide axis), else at 1-2-5 mantissas (all of 1…9 when even those are too few).
pub fn log_ticks(lo: f64, hi: f64) -> TickLabels {
    let (a, b) = (lo.log10(), hi.log10());
    let (d0, d1) = ((a - 1e-9).ceil() as i32, (b + 1e-9).floor() as i32);
    // Four decades or more: the decades alone are enough ticks; fewer get 1-2-5 mantissas.
    if d1 >= d0 + 3 {
        let every = ((d1 - d0) as usize).div_ceil(12).max(1);
        let values: Vec<f64> = (d0..=d1).step_by(every).map(|d| 10f64.powi(d)).collect();
        // Plain numbers read best while they are short; powers of ten beyond.
        let kind = if d0 >= -3 && d1 <= 4 {
            Kind::Plain
        } else {
            Kind::Power
        };
        return TickLabels { values, kind };
    }
    for mantissas in [
        &[1.0, 2.0, 5.0][..],
        &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0],
    ] {
        let values: Vec<f64> = (a.floor() as i32..=b.ceil() as i32)
            .flat_map(|d| mantissas.iter().map(move |m| m * 10f64.powi(d)))
            .filter(|&v| v >= lo * (1.0 - 1e-9) && v <= hi * (1.0 + 1e-9))
            .collect();
        if values.len() >= 3 {
            return TickLabels {
                values,
                kind: Kind::Plain,
            };
        }
    }
    // Less than a ninth of a decade: linear steps read better.
    let mut t = linear_ticks(lo, hi);
    t.values.retain(|&v| v > 0.0);
    t
}

/// The 1-2-5 step that puts closest to six ticks between `lo` and `hi` (the larger step on
/// a tie).
fn nice_step(lo: f64, hi: f64) -> f64 {
    let range = hi - lo;
    if !(range.is_finite() && range > 0.0) {
        return 1.0;
    }
    let mag = 10f64.powf((range / 6.0).log10().floor());
    let count = |s: f64| ((hi / s).floor() - (lo / s).ceil() + 1.0).abs();
    [0.5, 1.0, 2.0, 5.0, 10.0, 20.0]
        .iter()
        .map(|m| m * mag)
        .min_by(|&a, &b| {
            let (ca, cb) = ((count(a) - 6.0).abs(), (count(b) - 6.0).abs());
            ca.total_cmp(&cb).then(b.total_cmp(&a))
        })
        .unwrap_or(1.0)
}

fn decimals_for(step: f64) -> usize {
    (-(step.log10() + 1e-9).floor()).max(0.0) as usize
}

fn plain(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let digits = (2 - v.abs().log10().floor() as i32).max(0) as usize;
    let s = format!("{v:.digits$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        s
    }
}

/// 10ⁿ with superscript digits.
fn power(n: i32) -> String {
    const SUP: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
    let digits: String = n
        .unsigned_abs()
        .to_string()
        .chars()
        .map(|c| SUP[c as usize - '0' as usize])
        .collect();
    format!("10{}{digits}", if n < 0 { "⁻" } else { "" })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(t: &TickLabels) -> Vec<String> {
        t.texts().collect()
    }

    #[test]
    fn linear_steps_are_1_2_5() {
        assert_eq!(
            labels(&linear_ticks(0.0, 1.0)),
            ["0.0", "0.2", "0.4", "0.6", "0.8", "1.0"]
        );
        assert_eq!(
            labels(&linear_ticks(41.788, 105.632)),
            ["50", "60", "70", "80", "90", "100"]
        );
        assert_eq!(labels(&linear_ticks(-5.314, 12.8)), ["-5", "0", "5", "10"]);
        assert_eq!(
            labels(&linear_ticks(0.0, 2.5e6)),
            ["0.0M", "0.5M", "1.0M", "1.5M", "2.0M", "2.5M"]
        );
        assert_eq!(labels(&linear_ticks(0.0, 4e-4))[..2], ["0", "1e-4"]);
    }

    #[test]
    fn log_axes_tick_at_decades() {
        assert_eq!(
            labels(&log_ticks(8.01e-4, 0.167)),
            ["0.001", "0.002", "0.005", "0.01", "0.02", "0.05", "0.1"]
        );
        assert_eq!(
            labels(&log_ticks(1e-4, 0.167)),
            ["10⁻⁴", "10⁻³", "10⁻²", "10⁻¹"]
        );
        assert_eq!(
            labels(&log_ticks(13.929, 4705.068)),
            ["20", "50", "100", "200", "500", "1000", "2000"]
        );
        assert_eq!(
            labels(&log_ticks(1e-7, 1.0)),
            [
                "10⁻⁷", "10⁻⁶", "10⁻⁵", "10⁻⁴", "10⁻³", "10⁻²", "10⁻¹", "10⁰"
            ]
        );
        assert_eq!(labels(&log_ticks(1.5, 60.0)), ["2", "5", "10", "20", "50"]);
        assert_eq!(
            labels(&log_ticks(1.5, 9.0)),
            ["2", "3", "4", "5", "6", "7", "8", "9"]
        );
    }
}
