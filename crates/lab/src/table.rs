//! Plain aligned text tables for terminal output.

/// Renders `rows` under `header`, each column as wide as its widest cell.
pub fn render(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: Vec<&str>| {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(c, &w)| format!("{c:<w$}"))
            .collect();
        padded.join("  ").trim_end().to_owned() + "\n"
    };
    let mut out = line(header.to_vec());
    out += &line(
        widths
            .iter()
            .map(|&w| {
                &"----------------------------------------------------------------"[..w.min(64)]
            })
            .collect(),
    );
    for row in rows {
        out += &line(row.iter().map(String::as_str).collect());
    }
    out
}

/// A table of `items`, one row each as `row` makes it, under `header`.
pub fn of<T>(
    header: &[&str],
    items: impl IntoIterator<Item = T>,
    row: impl FnMut(T) -> Vec<String>,
) -> String {
    let rows: Vec<Vec<String>> = items.into_iter().map(row).collect();
    render(header, &rows)
}

/// Prints the table [`of`] `items`.
pub fn print<T>(
    header: &[&str],
    items: impl IntoIterator<Item = T>,
    row: impl FnMut(T) -> Vec<String>,
) {
    print!("{}", of(header, items, row));
}

#[cfg(test)]
mod tests {
    #[test]
    fn aligns_columns() {
        let t = super::render(&["a", "bb"], &[vec!["xxx".into(), "y".into()]]);
        assert_eq!(t, "a    bb\n---  --\nxxx  y\n");
    }
}
