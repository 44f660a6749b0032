//! Two small facts about numbers every module needs: the unit roundoff of an element type
//! and a short form of a value for messages.

use crate::elem::Element;

/// A number for a message: as Rust prints it when that is short, else in exponent notation
/// (`1e300`, not 301 digits).
pub fn short(v: f64) -> String {
    let plain = format!("{v}");
    if plain.len() <= 20 {
        plain
    } else {
        format!("{v:e}")
    }
}

/// The unit roundoff (half an ulp of 1) of the float type `T` is: what one rounding costs.
pub(crate) fn eps<T: Element>() -> f64 {
    if T::DTYPE.size() == 4 {
        f32::EPSILON as f64 / 2.0
    } else {
        f64::EPSILON / 2.0
    }
}
