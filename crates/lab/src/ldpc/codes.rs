//! The table of the built-in codes that `sigpu ldpc codes` prints.

use sigpu_ldpc::CodeInfo;

/// One row per code: name, N, K, rate, edges, column and check degree distributions
/// (`degree:count` pairs).
pub fn codes_table(infos: &[CodeInfo]) -> String {
    let degrees = |d: &[(usize, usize)]| {
        let pairs: Vec<_> = d.iter().map(|(d, c)| format!("{d}:{c}")).collect();
        pairs.join(" ")
    };
    let header = [
        "code",
        "N",
        "K",
        "K/N",
        "edges",
        "column degrees",
        "check degrees",
    ];
    crate::table::of(&header, infos, |i| {
        vec![
            i.name.clone(),
            i.n.to_string(),
            i.k.to_string(),
            format!("{:.4}", i.rate),
            i.edges.to_string(),
            degrees(&i.column_degrees),
            degrees(&i.row_degrees),
        ]
    })
}
