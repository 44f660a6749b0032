//! Small text helpers shared by the parsers and error messages of every module. It imports
//! nothing from the crate, so any module may use it.

/// `x` as written when short, else in scientific notation (1e30, not 31 digits).
pub(crate) fn short(x: f32) -> String {
    let plain = x.to_string();
    if plain.len() <= 8 {
        plain
    } else {
        format!("{x:e}")
    }
}

/// A name as the parsers compare it: trimmed, lower case, without `-` and `_`.
pub(crate) fn name_key(s: &str) -> String {
    s.trim().to_ascii_lowercase().replace(['-', '_'], "")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_numbers_stay_plain_and_long_ones_turn_scientific() {
        assert_eq!(short(0.875), "0.875");
        assert_eq!(short(1e30), "1e30");
        assert_eq!(name_key(" Max_Log "), "maxlog");
    }
}
