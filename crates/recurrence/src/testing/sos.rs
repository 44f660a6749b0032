//! Second-order sections for tests, checks and benchmarks: scipy's designs as constants, random
//! inputs, and the accuracy contract judged against the double-double cascade.

use crate::elem::{DType, Element};
use crate::gpu::sos_tables::{
    channel_error, emulate, sos_coefficients, sosfilt_extended, sosfilt_serial, SosConfig,
    SosTables,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// scipy.signal.butter(8, 0.1, output='sos'): max |pole| 0.941.
pub const BUTTER8_01: [[f64; 6]; 4] = [
    [
        1.7625537291912854e-07,
        3.525107458382571e-07,
        1.7625537291912854e-07,
        1.0,
        -1.4597062543768673,
        0.5348259849616107,
    ],
    [1.0, 2.0, 1.0, 1.0, -1.5132907658389045, 0.5911680745682053],
    [1.0, 2.0, 1.0, 1.0, -1.6234056976410005, 0.7069497656826822],
    [1.0, 2.0, 1.0, 1.0, -1.7939618452517712, 0.8862831120070135],
];

/// scipy.signal.butter(8, 0.02, output='sos'): poles to 0.988.
pub const BUTTER8_002: [[f64; 6]; 4] = [
    [
        8.098259786747707e-13,
        1.6196519573495413e-12,
        8.098259786747707e-13,
        1.0,
        -1.8802595219238372,
        0.8839771204173436,
    ],
    [1.0, 2.0, 1.0, 1.0, -1.8970134052508192, 0.9007641290712767],
    [1.0, 2.0, 1.0, 1.0, -1.928769222871887, 0.9325827334397969],
    [1.0, 2.0, 1.0, 1.0, -1.971898055346293, 0.9757968390803613],
];

/// scipy.signal.butter(8, 0.005, output='sos'): max |pole| 0.9969, a low cutoff.
pub const BUTTER8_0005: [[f64; 6]; 4] = [
    [
        1.390933448977224e-17,
        2.781866897954448e-17,
        1.390933448977224e-17,
        1.0,
        -1.9694134549270441,
        0.9696564465548368,
    ],
    [1.0, 2.0, 1.0, 1.0, -1.973972869306222, 0.9742164234870525],
    [1.0, 2.0, 1.0, 1.0, -1.982453350239147, 0.9826979507649495],
    [1.0, 2.0, 1.0, 1.0, -1.9936440506040927, 0.993890031869166],
];

/// A first-order section (odd orders: b2 = a2 = 0) and a high-pass biquad: butter(3, 0.2,
/// 'high', output='sos').
pub const BUTTER3_HIGH: [[f64; 6]; 2] = [
    [
        0.5276243825019431,
        -0.5276243825019431,
        0.0,
        1.0,
        -0.5095254494944288,
        0.0,
    ],
    [1.0, -2.0, 1.0, 1.0, -1.2505164308487402, 0.5457233155094577],
];

/// `len` values drawn uniformly from (−half, half), rounded to `T`.
pub fn random_values<T: Element>(rng: &mut impl Rng, len: usize, half: f64) -> Vec<T> {
    (0..len)
        .map(|_| T::from_f64(rng.random_range(-half..half)))
        .collect()
}

fn to64<T: Element>(v: &[T]) -> Vec<f64> {
    v.iter().map(|x| x.to_f64()).collect()
}

/// The exact answer for a cascade run (double-double, on the coefficients as `T` holds them)
/// and the errors of scipy's serial loop in `T` against it: the accuracy contract's yardstick.
pub struct SosReference {
    /// The outputs in double-double, rounded to f64.
    pub y: Vec<f64>,
    /// The final states likewise, [channel][section][2].
    pub zf: Vec<f64>,
    /// The serial run's output error ([`channel_error`]).
    pub serial: f64,
    /// The serial run's zf error ([`SosReference::zf_error`]).
    pub serial_zf: f64,
    channels: usize,
}

impl SosReference {
    /// The reference for `channels` channels of `x` through `coefs` from `zi`.
    pub fn new<T: Element>(
        coefs: &[[T; 6]],
        x: &[T],
        channels: usize,
        zi: Option<&[T]>,
    ) -> SosReference {
        let c64: Vec<[f64; 6]> = coefs.iter().map(|r| r.map(|v| v.to_f64())).collect();
        Self::exact_and_serial(&c64, coefs, x, channels, zi)
    }

    /// The yardstick of a design given in f64 and run on signals of type `T`: the exact
    /// output of the coefficients as given, and against it the error of SciPy's loop in `T`
    /// with the coefficients rounded to `T` (SciPy at the signal's dtype), as the accuracy
    /// sweep judges every face.
    pub fn of_design<T: Element>(
        given: &[[f64; 6]],
        x: &[T],
        channels: usize,
        zi: Option<&[T]>,
    ) -> SosReference {
        let rounded: Vec<[T; 6]> = given.iter().map(|r| r.map(T::from_f64)).collect();
        Self::exact_and_serial(given, &rounded, x, channels, zi)
    }

    /// The double-double run of `exact` and the errors against it of SciPy's loop in `T`
    /// through `serial`.
    fn exact_and_serial<T: Element>(
        exact: &[[f64; 6]],
        serial: &[[T; 6]],
        x: &[T],
        channels: usize,
        zi: Option<&[T]>,
    ) -> SosReference {
        let zi64 = zi.map(to64);
        let (y, zf) = sosfilt_extended(exact, &to64(x), channels, zi64.as_deref());
        let (ys, zfs) = sosfilt_serial(serial, x, channels, zi);
        let mut r = SosReference {
            serial: channel_error(&ys, &y, channels),
            serial_zf: 0.0,
            y,
            zf,
            channels,
        };
        r.serial_zf = r.zf_error(&zfs);
        r
    }

    /// A run's output error, max |y − y_ref| / max |y_ref| over the worst channel.
    pub fn error<T: Element>(&self, y: &[T]) -> f64 {
        channel_error(y, &self.y, self.channels)
    }

    /// A run's zf error on the signal's scale: max |zf − zf_ref| / max |y_ref|.
    pub fn zf_error<T: Element>(&self, zf: &[T]) -> f64 {
        let scale = self.y.iter().fold(f64::MIN_POSITIVE, |m, v| m.max(v.abs()));
        to64(zf)
            .iter()
            .zip(&self.zf)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max)
            / scale
    }

    /// The smallest bound the contract is judged against: a few units of `T`'s rounding, where
    /// the serial run happens to be nearly exact.
    pub fn floor<T: Element>() -> f64 {
        8.0 * if T::DTYPE == DType::F32 {
            f32::EPSILON as f64
        } else {
            f64::EPSILON
        }
    }
}

/// The kernel's CPU emulation on random input (and zi) against the double-double reference:
/// output and zf within 4× the serial run's error (or [`SosReference::floor`]); panics
/// otherwise.
pub fn sos_emulation_keeps_contract<T: Element>(
    sos: &[[f64; 6]],
    config: SosConfig,
    channels: usize,
    n: usize,
    with_zi: bool,
    seed: u64,
) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let coefs = sos_coefficients::<T>(sos).unwrap();
    let config = config.normalized(T::DTYPE).unwrap();
    let t = SosTables::new(coefs.clone(), config);
    let x: Vec<T> = random_values(&mut rng, channels * n, 1.0);
    let zi: Option<Vec<T>> =
        with_zi.then(|| random_values(&mut rng, channels * sos.len() * 2, 0.5));
    let (y, zf) = emulate(&t, &x, channels, zi.as_deref());
    let r = SosReference::new(&coefs, &x, channels, zi.as_deref());
    let (err, floor) = (r.error(&y), SosReference::floor::<T>());
    assert!(
        err <= (4.0 * r.serial).max(floor),
        "{} n={n}: emulated {err:e}, serial {:e}",
        T::DTYPE,
        r.serial
    );
    let zerr = r.zf_error(&zf);
    assert!(
        zerr <= (4.0 * r.serial_zf).max(floor),
        "zf {zerr:e} vs serial {:e}",
        r.serial_zf
    );
}
