//! `sigpu filter` with second-order sections, shapes and axes, zero-phase filtering, WAV and
//! stdin/stdout, and the messages users meet.

mod common;

use common::{fails_with, ok, ok_json, sigpu};
use sigpu_recurrence::{signal, FilterOptions};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

fn npy(path: &Path, shape: &[usize], values: &[f64]) {
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(
        path,
        sigpu_recurrence::io::encode(sigpu_recurrence::DType::F64, shape, &bytes),
    )
    .unwrap();
}

fn read(path: &Path) -> (Vec<usize>, Vec<f64>) {
    let a = sigpu_recurrence::io::read(path, None).unwrap();
    (a.shape.clone(), a.values::<f64>().unwrap())
}

fn signal_of(n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| ((7919 * i) % 1013) as f64 / 506.5 - 1.0)
        .collect()
}

// scipy.signal.butter(4, 0.05, output='sos') as printed.
#[allow(clippy::excessive_precision)]
const SOS: [[f64; 6]; 2] = [
    [
        3.1238976917082617e-05,
        6.2477953834165235e-05,
        3.1238976917082617e-05,
        1.0,
        -1.7259333950369407,
        0.74744737190779109,
    ],
    [1.0, 2.0, 1.0, 1.0, -1.8638004920752349, 0.88703299965269455],
];

fn sos_text() -> String {
    SOS.iter()
        .map(|r| {
            r.iter()
                .map(|v| format!("{v:?}"))
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect::<Vec<_>>()
        .join(";")
}

#[test]
fn sections_inline_and_from_npy_with_zi_zf_in_scipys_shapes() {
    let dir = tempfile::tempdir().unwrap();
    let (xp, yp, y2, zi, zf) = (
        dir.path().join("x.npy"),
        dir.path().join("y.npy"),
        dir.path().join("y2.npy"),
        dir.path().join("zi.npy"),
        dir.path().join("zf.npy"),
    );
    let n = 50_001;
    let x: Vec<f64> = signal_of(n)
        .into_iter()
        .chain(signal_of(n).iter().map(|v| -v))
        .collect();
    npy(&xp, &[2, n], &x);
    // scipy's zi for sections and 2 channels: (n_sections, 2, 2).
    let zvals = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8];
    npy(&zi, &[2, 2, 2], &zvals);
    let s = ok_json(&[
        "--device",
        "cpu",
        "--json",
        "filter",
        "--sos",
        &sos_text(),
        "--input",
        xp.to_str().unwrap(),
        "--output",
        yp.to_str().unwrap(),
        "--zi",
        zi.to_str().unwrap(),
        "--zf",
        zf.to_str().unwrap(),
    ]);
    assert_eq!(s["method"], "sos");
    assert!(s["error_bound"].as_f64().unwrap() < 1e-12, "{s}");
    let want = signal::sosfilt(
        &SOS,
        &x,
        &[2, n],
        -1,
        Some((&zvals, &[2, 2, 2])),
        &FilterOptions::default(),
    )
    .unwrap();
    let (shape, y) = read(&yp);
    assert_eq!((shape, y), (vec![2, n], want.y));
    let (zshape, z) = read(&zf);
    assert_eq!((zshape, Some(z)), (vec![2, 2, 2], want.zf));
    // The same sections from a .npy file of shape (2, 6).
    let sp = dir.path().join("sos.npy");
    npy(&sp, &[2, 6], &SOS.concat());
    ok(&[
        "--device",
        "cpu",
        "filter",
        "--sos",
        sp.to_str().unwrap(),
        "--input",
        xp.to_str().unwrap(),
        "--output",
        y2.to_str().unwrap(),
        "--zi",
        zi.to_str().unwrap(),
    ]);
    assert_eq!(read(&y2).1, read(&yp).1);
    // A zi of the wrong shape: the message gives the shape expected.
    npy(&zi, &[2, 2, 2, 1], &zvals);
    fails_with(
        &[
            "--device",
            "cpu",
            "filter",
            "--sos",
            &sos_text(),
            "--input",
            xp.to_str().unwrap(),
            "--output",
            y2.to_str().unwrap(),
            "--zi",
            zi.to_str().unwrap(),
        ],
        "expected [2, 2, 2]",
    );
    // Rows with a0 != 1 and a wrong number of values.
    fails_with(
        &[
            "--device",
            "cpu",
            "filter",
            "--sos",
            "1,0,0,2,0.5,0",
            "--input",
            xp.to_str().unwrap(),
            "--output",
            y2.to_str().unwrap(),
        ],
        "a0 = 1",
    );
    fails_with(
        &[
            "--device",
            "cpu",
            "filter",
            "--sos",
            "1,0,0,1,0.5",
            "--input",
            xp.to_str().unwrap(),
            "--output",
            y2.to_str().unwrap(),
        ],
        "expected (n_sections, 6)",
    );
}

#[test]
fn axis_zero_and_multichannel_zi_layout_follow_scipy() {
    let dir = tempfile::tempdir().unwrap();
    let (xp, yp) = (dir.path().join("x.npy"), dir.path().join("y.npy"));
    // A 5000 × 3 array is 3 channels along axis 0 (time first), as scipy with axis=0.
    let n = 5000;
    let base = signal_of(n);
    let x: Vec<f64> = (0..n)
        .flat_map(|t| (0..3).map(move |c| (t, c)))
        .map(|(t, c)| base[t] * (c + 1) as f64)
        .collect();
    npy(&xp, &[n, 3], &x);
    let (b, a) = ("0.0675,0.1349,0.0675", "1,-1.143,0.4128");
    // zi for axis 0: shape (2, 3) = (state, channels), given inline in C order.
    let zi = "0.1,0.2,0.3,0.01,0.02,0.03";
    let s = ok_json(&[
        "--device",
        "cpu",
        "--json",
        "filter",
        "--b",
        b,
        "--a",
        a,
        "--axis",
        "0",
        "--zi",
        zi,
        "--input",
        xp.to_str().unwrap(),
        "--output",
        yp.to_str().unwrap(),
    ]);
    assert_eq!(s["axis"], 0);
    let zv = [0.1, 0.2, 0.3, 0.01, 0.02, 0.03];
    let bv = [0.0675, 0.1349, 0.0675];
    let av = [1.0, -1.143, 0.4128];
    let want = signal::lfilter(
        &bv,
        &av,
        &x,
        &[n, 3],
        0,
        Some((&zv, &[2, 3])),
        &FilterOptions::default(),
    )
    .unwrap();
    assert_eq!(read(&yp).1, want.y);
    // The reversed layout (3, 2) is refused with the expected shape.
    fails_with(
        &[
            "--device",
            "cpu",
            "filter",
            "--b",
            b,
            "--a",
            a,
            "--axis",
            "0",
            "--zi",
            zi,
            "--input",
            xp.to_str().unwrap(),
            "--output",
            yp.to_str().unwrap(),
            "--zi",
            "1,2,3",
        ],
        "--zi",
    );
    let zp = dir.path().join("zi.npy");
    npy(&zp, &[3, 2], &zv);
    fails_with(
        &[
            "--device",
            "cpu",
            "filter",
            "--b",
            b,
            "--a",
            a,
            "--axis",
            "0",
            "--zi",
            zp.to_str().unwrap(),
            "--input",
            xp.to_str().unwrap(),
            "--output",
            yp.to_str().unwrap(),
        ],
        "expected [2, 3]",
    );
    fails_with(
        &[
            "--device",
            "cpu",
            "filter",
            "--b",
            b,
            "--a",
            a,
            "--axis",
            "2",
            "--input",
            xp.to_str().unwrap(),
            "--output",
            yp.to_str().unwrap(),
        ],
        "--axis 2 is out of range",
    );
}

#[test]
fn filtfilt_matches_the_library_and_refuses_short_input() {
    let dir = tempfile::tempdir().unwrap();
    let (xp, yp) = (dir.path().join("x.npy"), dir.path().join("y.npy"));
    let x = signal_of(3001);
    npy(&xp, &[3001], &x);
    let s = ok_json(&[
        "--device",
        "cpu",
        "--json",
        "filter",
        "--filtfilt",
        "--sos",
        &sos_text(),
        "--input",
        xp.to_str().unwrap(),
        "--output",
        yp.to_str().unwrap(),
    ]);
    assert_eq!(s["filtfilt"], true);
    let want = signal::sosfiltfilt(&SOS, &x, &[3001], -1, None, &FilterOptions::default()).unwrap();
    assert_eq!(read(&yp).1, want.y);
    ok(&[
        "--device",
        "cpu",
        "filter",
        "--filtfilt",
        "--padlen",
        "0",
        "--b",
        "0.5,0.5",
        "--a",
        "1",
        "--input",
        xp.to_str().unwrap(),
        "--output",
        yp.to_str().unwrap(),
    ]);
    npy(&xp, &[10], &x[..10]);
    fails_with(
        &[
            "--device",
            "cpu",
            "filter",
            "--filtfilt",
            "--sos",
            &sos_text(),
            "--input",
            xp.to_str().unwrap(),
            "--output",
            yp.to_str().unwrap(),
        ],
        "padlen = 15",
    );
}

#[test]
fn wav_in_and_out_keeps_the_format() {
    let dir = tempfile::tempdir().unwrap();
    let (wp, op) = (dir.path().join("in.wav"), dir.path().join("out.wav"));
    let spec = hound::WavSpec {
        channels: 2,
        sample_rate: 48_000,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    let mut w = hound::WavWriter::create(&wp, spec).unwrap();
    let frames = 4000;
    for t in 0..frames {
        w.write_sample(((t * 37) % 2000) as i16 - 1000).unwrap();
        w.write_sample(-(((t * 11) % 3000) as i16)).unwrap();
    }
    w.finalize().unwrap();
    // Identity filter: every sample comes back exactly; the channels are filtered along time.
    let s = ok_json(&[
        "--device",
        "cpu",
        "--json",
        "filter",
        "--b",
        "1",
        "--a",
        "1",
        "--input",
        wp.to_str().unwrap(),
        "--output",
        op.to_str().unwrap(),
    ]);
    assert_eq!(
        (
            s["shape"][0].as_u64(),
            s["axis"].as_u64(),
            s["clipped"].as_u64()
        ),
        (Some(frames as u64), Some(0), Some(0))
    );
    let a: Vec<i16> = hound::WavReader::open(&wp)
        .unwrap()
        .samples::<i16>()
        .map(Result::unwrap)
        .collect();
    let r = hound::WavReader::open(&op).unwrap();
    assert_eq!(r.spec(), spec);
    let b: Vec<i16> = r.into_samples::<i16>().map(Result::unwrap).collect();
    assert_eq!(a, b);
    // A gain of 100 clips, and says how many samples.
    let s = ok_json(&[
        "--device",
        "cpu",
        "--json",
        "filter",
        "--b",
        "100",
        "--a",
        "1",
        "--input",
        wp.to_str().unwrap(),
        "--output",
        op.to_str().unwrap(),
    ]);
    assert!(s["clipped"].as_u64().unwrap() > 1000, "{s}");
}

#[test]
fn stdin_to_stdout() {
    let dir = tempfile::tempdir().unwrap();
    let xp = dir.path().join("x.npy");
    let x = signal_of(1000);
    npy(&xp, &[1000], &x);
    let mut child = Command::new(env!("CARGO_BIN_EXE_sigpu"))
        .args([
            "--device", "cpu", "filter", "--b", "0.2", "--a", "1,-0.8", "--input", "-", "--output",
            "-",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(&std::fs::read(&xp).unwrap())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let y = sigpu_recurrence::io::parse(&out.stdout)
        .unwrap()
        .values::<f64>()
        .unwrap();
    let want = signal::lfilter(
        &[0.2],
        &[1.0, -0.8],
        &x,
        &[1000],
        -1,
        None,
        &FilterOptions::default(),
    )
    .unwrap()
    .y;
    assert_eq!(y, want);
    assert!(String::from_utf8_lossy(&out.stderr).contains("method plr"));
}

#[test]
fn messages_name_the_flag_and_stay_short() {
    let dir = tempfile::tempdir().unwrap();
    let xn = dir.path().join("x.npy");
    let bytes: Vec<u8> = [1i32, 2, 3].iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(
        &xn,
        sigpu_recurrence::io::encode(sigpu_recurrence::DType::I32, &[3], &bytes),
    )
    .unwrap();
    let yn = dir.path().join("y.npy");
    let s = ok_json(&[
        "--device",
        "cpu",
        "--json",
        "filter",
        "--b",
        "1",
        "--a",
        "1,-0.5",
        "--input",
        xn.to_str().unwrap(),
        "--output",
        yn.to_str().unwrap(),
    ]);
    assert_eq!(s["dtype"], "f64");
    assert_eq!(read(&yn).1, [1.0, 2.5, 4.25]);
    // ... and an integer dtype forced on it names the flag the user gave, not --signature.
    let err = fails_with(
        &[
            "--device",
            "cpu",
            "filter",
            "--dtype",
            "i32",
            "--b",
            "1",
            "--a",
            "1,-0.5",
            "--input",
            xn.to_str().unwrap(),
            "--output",
            yn.to_str().unwrap(),
        ],
        "--b/--a",
    );
    assert!(!err.contains("--signature"), "{err}");
    // --zi nan,1 is a list with a NaN, not a file name.
    let err = fails_with(
        &[
            "--device",
            "cpu",
            "filter",
            "--b",
            "1,0.5",
            "--a",
            "1",
            "--zi",
            "nan",
            "--input",
            xn.to_str().unwrap(),
            "--output",
            yn.to_str().unwrap(),
        ],
        "--zi",
    );
    assert!(err.contains("NaN") && !err.contains("cannot read"), "{err}");
    // Unstable filters name the way out.
    fails_with(
        &[
            "--device",
            "cpu",
            "filter",
            "--b",
            "1",
            "--a",
            "1,-1.5",
            "--input",
            xn.to_str().unwrap(),
            "--output",
            yn.to_str().unwrap(),
        ],
        "--allow-unstable",
    );
    // Long numbers are shortened.
    let out = sigpu(&[
        "--device",
        "cpu",
        "filter",
        "--b",
        "1e300",
        "--a",
        "1",
        "--dtype",
        "f32",
        "--input",
        xn.to_str().unwrap(),
        "--output",
        yn.to_str().unwrap(),
    ]);
    let text =
        String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("000000000000"), "{text}");
    assert!(text.contains("1e300"), "{text}");
    // 20,000 recursive taps: refused at once, pointing to sections.
    let a: String = std::iter::once("1".to_string())
        .chain((0..20_000).map(|i| {
            if i == 19_999 {
                "0.5".into()
            } else {
                "0".into()
            }
        }))
        .collect::<Vec<_>>()
        .join(",");
    let start = std::time::Instant::now();
    fails_with(
        &[
            "--device",
            "cpu",
            "filter",
            "--b",
            "1",
            "--a",
            &a,
            "--input",
            xn.to_str().unwrap(),
            "--output",
            yn.to_str().unwrap(),
        ],
        "at most 64",
    );
    assert!(start.elapsed().as_secs_f64() < 5.0);
    // --help states the contract and integer wrapping.
    let help = String::from_utf8_lossy(&ok(&["filter", "--help"]).stdout).to_string();
    assert!(
        help.contains("within 4x") && help.contains("wrap on overflow"),
        "{help}"
    );
}
