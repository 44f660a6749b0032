//! Reproductions and benchmarks for sigpu-clns: the CLNS paper's Table I on today's GPU
//! ([`bench`], with the texture-cache cliff and streaming ops in [`cliff`]), Fig. 4/5
//! ([`fig45`]), the FFT comparison of number formats ([`fft`]), and the certificate runs
//! ([`certify`]) behind `sigpu clns …` and `sigpu bench clns`.
//!
//! ```
//! use sigpu_clns::certify::Inputs;
//! use sigpu_clns::ClnsFormat;
//! use sigpu_lab::clns::fig45;
//!
//! // Fig. 4/5 at two table sizes on a sparse grid: the error falls with the table size.
//! let f = ClnsFormat::CLNS16;
//! let points = fig45::fig45(f, &[16, 64], &Inputs::standard(f, 2003, 100, 1)).unwrap();
//! assert_eq!(points.len(), 4);
//! assert!(points[2].re_mean < points[0].re_mean);
//! ```

pub mod bench;
pub mod certify;
mod chain;
pub mod cliff;
pub mod fft;
pub mod fig45;
mod render;

/// A text table for the terminal: a header and rows of cells (the CLI lays them out).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TextTable {
    /// Column titles.
    pub header: &'static [&'static str],
    /// Rows of cells, one per column.
    pub rows: Vec<Vec<String>>,
}

impl TextTable {
    /// One row per item, its cells made by `row`.
    pub fn new<T>(
        header: &'static [&'static str],
        items: impl IntoIterator<Item = T>,
        row: impl FnMut(T) -> Vec<String>,
    ) -> TextTable {
        TextTable {
            header,
            rows: items.into_iter().map(row).collect(),
        }
    }

    /// The table laid out in aligned columns ([`crate::table::render`]).
    pub fn render(&self) -> String {
        crate::table::render(self.header, &self.rows)
    }
}
