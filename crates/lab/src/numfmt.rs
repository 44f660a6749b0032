//! Numbers for people: three significant digits, and rates with an SI prefix, so a small
//! non-zero figure never prints as `0.0` (a fixed number of decimals did that: 0.019 G/s
//! printed as "0.0 G/s").

/// `x` with three significant digits: `743`, `17.0`, `2.45`, `0.0191`; whole numbers from 100
/// up keep every integer digit (`1732`); below 0.001 and from 10^6 up in exponent notation
/// (`3.70e-6`). Zero prints as `0`, and a non-zero value never as zero.
pub fn sig3(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let a = x.abs();
    if !(1e-3..1e6).contains(&a) {
        return format!("{x:.2e}");
    }
    // Decimals for three significant digits, from the rounded value's magnitude (9.996 → 10.0).
    let decimals = |v: f64| (2 - v.log10().floor() as i32).max(0) as usize;
    let d = decimals(a);
    let rounded: f64 = format!("{a:.d$}").parse().unwrap_or(a);
    let d = decimals(rounded).min(d);
    format!("{x:.d$}")
}

/// `per_s` with the SI prefix that puts it in [1, 1000), then `unit`: a word unit keeps a
/// space after the prefix (`19.1 M transitions/s`), a symbol takes the prefix (`17.0 GB/s`,
/// `22.1 Mbit/s` for `"B/s"`, `"bit/s"`); under 1, [`sig3`] and the unit.
pub fn si(per_s: f64, unit: &str) -> String {
    const PREFIXES: [&str; 6] = ["", "k", "M", "G", "T", "P"];
    let mut v = per_s;
    let mut p = 0;
    while v.abs() >= 999.5 && p + 1 < PREFIXES.len() {
        v /= 1e3;
        p += 1;
    }
    let symbol = unit.starts_with("B/") || unit.starts_with("bit/");
    match PREFIXES[p] {
        "" => format!("{} {unit}", sig3(v)),
        prefix if symbol => format!("{} {prefix}{unit}", sig3(v)),
        prefix => format!("{} {prefix} {unit}", sig3(v)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_significant_digits_never_round_a_nonzero_to_zero() {
        assert_eq!(sig3(0.019), "0.0190");
        assert_eq!(sig3(0.001_23), "0.00123");
        assert_eq!(sig3(3.7e-6), "3.70e-6");
        assert_eq!(sig3(2.449), "2.45");
        assert_eq!(sig3(17.04), "17.0");
        assert_eq!(sig3(9.996), "10.0");
        assert_eq!(sig3(743.2), "743");
        assert_eq!(sig3(1731.8), "1732");
        assert_eq!(sig3(0.0), "0");
        assert_eq!(sig3(-0.5), "-0.500");
    }

    #[test]
    fn rates_take_the_prefix_that_keeps_three_digits() {
        assert_eq!(si(0.019e9, "transitions/s"), "19.0 M transitions/s");
        assert_eq!(si(1.7318e12, "transitions/s"), "1.73 T transitions/s");
        assert_eq!(si(743e6, "samples/s"), "743 M samples/s");
        assert_eq!(si(999.7e6, "samples/s"), "1.00 G samples/s");
        assert_eq!(si(12.0, "frames/s"), "12.0 frames/s");
        assert_eq!(si(0.5, "frames/s"), "0.500 frames/s");
        assert_eq!(si(17.04e9, "B/s"), "17.0 GB/s");
        assert_eq!(si(22.1e6, "bit/s"), "22.1 Mbit/s");
    }
}
