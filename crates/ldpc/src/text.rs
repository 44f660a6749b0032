//! Small text helpers shared by the parsers and error messages of every module. It imports
//! nothing from the crate (only `from_names!` expands to a path of the crate's error type), so
//! any module may use it.

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

/// A name trimmed and in lower case, `-` and `_` kept (for names where they matter).
pub(crate) fn lower(s: &str) -> String {
    s.trim().to_ascii_lowercase()
}

/// The value of the row of `table` one of whose names reads as `s` once both go through `key`
/// ([`name_key`] or [`lower`]); else the message `unknown WHAT "s": expected A, B or C`, naming
/// each row's first (canonical) name. One table serves every option enum's `FromStr`.
pub(crate) fn parse_name<T: Copy>(
    s: &str,
    what: &str,
    key: fn(&str) -> String,
    table: &[(&[&str], T)],
) -> Result<T, String> {
    let wanted = key(s);
    if let Some(&(_, value)) =
        (table.iter()).find(|(names, _)| names.iter().any(|n| key(n) == wanted))
    {
        return Ok(value);
    }
    let names: Vec<&str> = table.iter().map(|(names, _)| names[0]).collect();
    let expected = match names.split_last() {
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    };
    Err(format!("unknown {what} {s:?}: expected {expected}"))
}

/// `FromStr` for an option enum from its table of names, through [`parse_name`]:
/// `from_names!(Type, "what", key, [canonical, aliases…] => value, …)`.
macro_rules! from_names {
    ($ty:ty, $what:literal, $key:path, $([$($name:literal),+] => $value:expr),+ $(,)?) => {
        impl std::str::FromStr for $ty {
            type Err = crate::error::LdpcError;
            fn from_str(s: &str) -> crate::error::Result<Self> {
                let table: &[(&[&str], $ty)] = &[$((&[$($name),+], $value)),+];
                crate::text::parse_name(s, $what, $key, table)
                    .map_err(crate::error::LdpcError::invalid)
            }
        }
    };
}
pub(crate) use from_names;

/// `Display` as each type's canonical spelling, its `name()`.
macro_rules! display_by_name {
    ($($ty:ty),+ $(,)?) => {$(
        impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }
    )+};
}
pub(crate) use display_by_name;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_numbers_stay_plain_and_long_ones_turn_scientific() {
        assert_eq!(short(0.875), "0.875");
        assert_eq!(short(1e30), "1e30");
        assert_eq!(name_key(" Max_Log "), "maxlog");
    }

    #[test]
    fn name_tables_take_aliases_and_list_the_canonical_names() {
        let table: &[(&[&str], u8)] = &[(&["one", "1"], 1), (&["two"], 2), (&["three"], 3)];
        assert_eq!(parse_name(" ONE ", "number", lower, table), Ok(1));
        assert_eq!(parse_name("1", "number", lower, table), Ok(1));
        assert_eq!(
            parse_name("four", "number", lower, table),
            Err("unknown number \"four\": expected one, two or three".to_owned())
        );
    }
}
