//! The table of the built-in codes that `sigpu ldpc codes` prints.

use sigpu_ldpc::{Code, CodeInfo};

/// The parameters of every built-in code, in [`Code::standard_names`] order.
pub fn standard_infos() -> sigpu_ldpc::Result<Vec<CodeInfo>> {
    let names = Code::standard_names().into_iter();
    names.map(|n| Code::standard(n).map(|c| c.info())).collect()
}

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

/// A list of code names split at commas (`--codes a,b,…`), which also separate an NR spec's
/// keys (`nr:k=8448,n=9126`): a piece that is a bare `k=`, `n=` or `bg=` rejoins the one
/// before it.
pub fn rejoin_nr_specs(pieces: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for p in pieces {
        let key = ["k=", "n=", "bg="]
            .iter()
            .any(|k| p.trim_start().starts_with(k));
        match out.last_mut() {
            Some(last) if key && sigpu_ldpc::nr::NrCode::is_spec(last) => {
                last.push(',');
                last.push_str(p);
            }
            _ => out.push(p.clone()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_nr_spec_split_at_its_commas_is_rejoined_and_other_names_are_kept() {
        let pieces: Vec<String> = [
            "dvbt2-short-1/2",
            "nr:k=8448",
            "n=9126",
            "bg=1",
            "dvbt2-normal-3/4",
        ]
        .map(String::from)
        .to_vec();
        let codes = rejoin_nr_specs(&pieces);
        assert_eq!(
            codes,
            [
                "dvbt2-short-1/2",
                "nr:k=8448,n=9126,bg=1",
                "dvbt2-normal-3/4"
            ]
        );
    }
}
