//! The catalog and the app suite as `sigpu approx list` shows them.

use crate::table;
use serde::Serialize;
use sigpu_approx::apps::{App, APPS};
use sigpu_approx::catalog::{Function, CATALOG};

/// Every catalog function (accurate and SFU forms) and every app of the suite.
#[derive(Serialize)]
pub struct Listing {
    /// The function catalog.
    pub functions: &'static [Function],
    /// The application suite.
    pub apps: &'static [App],
}

/// The whole listing.
pub const LISTING: Listing = Listing {
    functions: CATALOG,
    apps: APPS,
};

impl Listing {
    /// The two tables, functions then apps, with a blank line between.
    pub fn text(&self) -> String {
        let head = [
            "function",
            "math",
            "accurate (CUDA)",
            "SFU (PTX)",
            "needs",
            "documented SFU error",
        ];
        let functions = table::of(&head, self.functions, |f| {
            vec![
                f.key.into(),
                f.math.into(),
                f.accurate_cuda.into(),
                f.approx_ptx.into(),
                format!("sm_{}", f.min_sm),
                f.documented_error.into(),
            ]
        });
        let head = ["app", "abbr", "type", "functions", "QoS metric", "workload"];
        let apps = table::of(&head, self.apps, |a| {
            vec![
                a.name.into(),
                a.abbr.into(),
                format!("{:?}", a.precision).to_lowercase(),
                a.functions.into(),
                format!("{:?}", a.metric),
                a.about.into(),
            ]
        });
        format!("{functions}\n{apps}")
    }
}
