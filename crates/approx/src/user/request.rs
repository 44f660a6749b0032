//! A tuning request as a user's face gives it — the kernel's arguments as text, the metric
//! by name, a bound or a ratio, the launch extents — turned into what [`super::tune`] takes.
//! The command line (`sigpu approx tune --source`) and the Python `approx_tune` both come
//! through here; each names the argument an error is about in its own words
//! ([`RequestError::field`]).

use super::args::{load_args, HostArg};
use super::metric::{Qos, UserMetric};
use super::{check_qos, TuneOptions};

/// The argument a [`RequestError`] is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// The kernel's arguments.
    Args,
    /// The held-out arguments.
    Holdout,
    /// The metric's name.
    Metric,
    /// The bound, in the metric's unit.
    Qos,
    /// The bound as a ratio of the all-SFU kernel's error.
    QosRatio,
}

/// A request that cannot be tuned: which argument, and why.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct RequestError {
    /// The argument at fault.
    pub field: Field,
    /// Why, without the argument's name.
    pub message: String,
}

/// What a face asks for.
#[derive(Clone, Debug)]
pub struct TuneRequest<'a> {
    /// The kernel's arguments (`in:X.npy`, `out:f32:N`, `i32:5`, …).
    pub args: &'a [String],
    /// The same arguments on other data, for the held-out check.
    pub holdout: Option<&'a [String]>,
    /// The metric's name (`rel-l2`, `max-abs`, `max-ulp`, `psnr`, `cmd:…`).
    pub metric: &'a str,
    /// The bound in the metric's unit, when given.
    pub qos: Option<f64>,
    /// Otherwise: the bound as a ratio of the all-SFU kernel's error.
    pub qos_ratio: f64,
    /// Also search a form and λ per call site.
    pub per_site: bool,
    /// Range guards on the per-site SFU forms.
    pub guards: bool,
    /// Seconds of back-to-back runs per energy figure.
    pub energy_seconds: f64,
}

/// A request read and checked: the host arguments, the held-out ones, and the options.
pub struct Prepared {
    /// The kernel's arguments, loaded.
    pub host: Vec<HostArg>,
    /// The held-out arguments, loaded.
    pub holdout: Option<Vec<HostArg>>,
    /// The options [`super::tune`] takes.
    pub options: TuneOptions,
}

fn at(field: Field) -> impl Fn(crate::ApproxError) -> RequestError {
    move |e| RequestError {
        field,
        message: e.to_string(),
    }
}

impl TuneRequest<'_> {
    /// Loads the arguments (then the held-out ones), reads the metric and checks the bound
    /// for it, in that order.
    pub fn prepare(&self) -> Result<Prepared, RequestError> {
        let host = load_args(self.args).map_err(at(Field::Args))?;
        let holdout = (self.holdout.map(load_args))
            .transpose()
            .map_err(at(Field::Holdout))?;
        let metric: UserMetric = self.metric.parse().map_err(at(Field::Metric))?;
        let (qos, field) = match self.qos {
            Some(v) => (Qos::Value(v), Field::Qos),
            None => (Qos::Ratio(self.qos_ratio), Field::QosRatio),
        };
        let qos = check_qos(&metric, qos).map_err(at(field))?;
        let options = TuneOptions {
            metric,
            qos,
            per_site: self.per_site,
            guards: self.guards,
            energy_seconds: self.energy_seconds,
            ..TuneOptions::default()
        };
        Ok(Prepared {
            host,
            holdout,
            options,
        })
    }
}

/// Launch extents `X[,Y[,Z]]` (or `x`-separated), each ≥ 1; missing ones are 1.
pub fn parse_extents(text: &str) -> Result<[u32; 3], String> {
    let parts: Vec<&str> = text.split([',', 'x']).map(str::trim).collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err("expected X, X,Y or X,Y,Z".into());
    }
    let mut d = [1u32; 3];
    for (i, p) in parts.iter().enumerate() {
        d[i] = p
            .parse()
            .ok()
            .filter(|&v| v >= 1)
            .ok_or_else(|| format!("{p:?} is not an extent >= 1"))?;
    }
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launch_dimensions_parse_and_errors_say_which_part() {
        assert_eq!(parse_extents("256").unwrap(), [256, 1, 1]);
        assert_eq!(parse_extents("64,4").unwrap(), [64, 4, 1]);
        assert_eq!(parse_extents("8x8x2").unwrap(), [8, 8, 2]);
        assert!(parse_extents("0").unwrap_err().contains("\"0\""));
        assert!(parse_extents("1,2,3,4").unwrap_err().contains("X,Y,Z"));
        assert!(parse_extents("a").is_err());
    }

    fn request<'a>(args: &'a [String], metric: &'a str, qos: Option<f64>) -> TuneRequest<'a> {
        TuneRequest {
            args,
            holdout: None,
            metric,
            qos,
            qos_ratio: 0.8,
            per_site: true,
            guards: true,
            energy_seconds: 0.0,
        }
    }

    #[test]
    fn each_refusal_names_its_argument() {
        let good = vec!["out:f32:4".to_owned(), "i32:5".to_owned()];
        let bad = vec!["nonsense".to_owned()];
        assert_eq!(
            request(&bad, "rel-l2", None).prepare().err().unwrap().field,
            Field::Args
        );
        assert_eq!(
            request(&good, "nope", None).prepare().err().unwrap().field,
            Field::Metric
        );
        let e = request(&good, "rel-l2", Some(f64::NAN))
            .prepare()
            .err()
            .unwrap();
        assert_eq!(e.field, Field::Qos);
        let mut r = request(&good, "rel-l2", None);
        r.qos_ratio = 2.0;
        assert_eq!(r.prepare().err().unwrap().field, Field::QosRatio);
        let ok = request(&good, "max-abs", Some(0.1)).prepare().unwrap();
        assert_eq!(ok.options.qos, Qos::Value(0.1));
        assert_eq!(ok.host.len(), 2);
    }
}
