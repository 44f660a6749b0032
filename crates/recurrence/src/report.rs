//! The vocabulary of the accuracy contract every filter reports in: the method that runs it
//! and the predicted error bounds (see [`crate::Lfilter`] for the contract itself).

/// How a filter runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    /// No recursive part: a map (FIR), parallel.
    Fir,
    /// The (b, a) recurrence blocked with correction factors (PLR), multi-core / single-pass GPU.
    Plr,
    /// (b, a) run as its numerator (FIR) followed by all-pole second-order sections from A's
    /// poles, blocked.
    PoleCascade,
    /// (b, a) converted to second-order sections (zeros and poles paired as SciPy's
    /// `zpk2sos` pairs them), blocked, on the CPU; calls with zi run the (b, a) method.
    Sections,
    /// SciPy's serial transposed direct form II, one sample after another (per channel).
    Serial,
    /// Given second-order sections, blocked.
    Sos,
    /// Given second-order sections, serially (SciPy's loop).
    SosSerial,
}

impl Method {
    /// The method's name as reports and `--json` print it.
    pub fn name(self) -> &'static str {
        match self {
            Method::Fir => "fir",
            Method::Plr => "plr",
            Method::PoleCascade => "pole-cascade",
            Method::Sections => "sections",
            Method::Serial => "serial",
            Method::Sos => "sos",
            Method::SosSerial => "sos-serial",
        }
    }
}

/// The method chosen for a filter and its predicted error.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Report {
    pub method: Method,
    /// Predicted bound on max|y − y_exact| / max|x| for the method chosen, where y_exact is
    /// the exact output of the coefficients as given (f64). A worst case over inputs: typical
    /// errors are 10–100× smaller. Exact integer filters report 0.
    pub error_bound: f64,
    /// The same bound for SciPy's serial algorithm at the same dtype: the contract holds
    /// the measured error within 4× of SciPy's.
    pub reference_bound: f64,
}
