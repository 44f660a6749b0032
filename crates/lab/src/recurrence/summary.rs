//! What one `sigpu filter` run reports: the filter, where and how it ran (the method the
//! accuracy contract chose and its predicted bound), the shape, and the times; as JSON or one
//! line of text.

/// One filter run's report.
#[derive(Clone, Debug, serde::Serialize)]
pub struct FilterSummary {
    /// The filter as given.
    pub filter: String,
    /// The element type it ran in.
    pub dtype: sigpu_recurrence::DType,
    /// Where it ran: `cpu (N threads, ISA)` or the GPU's name.
    pub device: String,
    /// How it ran (plr, pole-cascade, serial, sos, sos-serial, fir).
    pub method: String,
    /// The predicted bound on max|error| / max|x| of that method.
    pub error_bound: f64,
    /// The same bound for SciPy's algorithm.
    pub reference_bound: f64,
    /// The input's shape.
    pub shape: Vec<usize>,
    /// The axis filtered.
    pub axis: usize,
    /// Channels (every line along the axis).
    pub channels: usize,
    /// Samples per channel.
    pub samples_per_channel: usize,
    /// Zero-phase (forward and backward) filtering.
    pub filtfilt: bool,
    /// Building the filter: stability, method, factors; on a GPU also the kernel.
    pub setup_seconds: f64,
    /// Host ↔ device copies, when a GPU ran host data.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transfer_seconds: Option<f64>,
    /// The filtering itself.
    pub compute_seconds: f64,
    /// Samples per second of the filtering, in millions.
    pub msamples_per_s: f64,
    /// Where the output went.
    pub output: String,
    /// Where zf went.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub zf: Option<String>,
    /// WAV output: samples clipped to the integer PCM range.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clipped: Option<usize>,
    /// How the work was split, where not all on the device named.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl FilterSummary {
    /// The report as one line of text.
    pub fn line(&self) -> String {
        let s = self;
        format!(
            "{} {} on {}: {} channel(s) × {} samples{}; method {} (error bound {:.1e}, scipy's \
             {:.1e}); setup {:.3} s{}, filtering {:.6} s ({:.1} M samples/s) → {}{}{}",
            s.filter,
            s.dtype,
            s.device,
            s.channels,
            s.samples_per_channel,
            if s.filtfilt { ", zero-phase" } else { "" },
            s.method,
            s.error_bound,
            s.reference_bound,
            s.setup_seconds,
            (s.transfer_seconds.map(|t| format!(", transfers {t:.3} s"))).unwrap_or_default(),
            s.compute_seconds,
            s.msamples_per_s,
            s.output,
            (s.zf.as_deref().map(|z| format!(", zf → {z}"))).unwrap_or_default(),
            (s.note.as_deref().map(|n| format!(" ({n})"))).unwrap_or_default(),
        )
    }

    /// The report as pretty JSON, or as [`FilterSummary::line`].
    pub fn render(&self, json: bool) -> serde_json::Result<String> {
        match json {
            true => serde_json::to_string_pretty(self),
            false => Ok(self.line()),
        }
    }

    /// The warning for a WAV output whose samples were clipped to the integer PCM range:
    /// how many, of how many, and what to do instead.
    pub fn clip_warning(&self) -> Option<String> {
        let c = self.clipped.filter(|&c| c > 0)?;
        let samples = self.channels * self.samples_per_channel;
        Some(format!(
            "warning: {c} of {samples} samples ({:.1}%) were clipped to the WAV sample range in \
             {}; lower the filter's gain, or write .npy to keep the values",
            100.0 * c as f64 / samples.max(1) as f64,
            self.output
        ))
    }
}
