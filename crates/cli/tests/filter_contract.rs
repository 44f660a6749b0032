//! `sigpu filter` keeps the accuracy contract: scipy's butter(8, 0.02), butter(6, 0.02) and
//! butter(4, 0.02) as --b/--a, in f32 and f64, on two channels of noise, come back within the
//! error the contract allows (4× scipy's own at the dtype, against a double-double
//! reference), or are refused with the way out. On the CPU, and on a GPU (skipped without one;
//! `SIGPU_REQUIRE_GPU=1` makes that a failure).

mod common;

use common::sigpu;
use sigpu_recurrence::testing::{butter_0_02, Contract};
use sigpu_recurrence::{io, Element};
use sigpu_runtime::cuda::gpu_for_test;

fn values(v: &[f64]) -> String {
    v.iter()
        .map(|c| format!("{c:?}"))
        .collect::<Vec<_>>()
        .join(",")
}

fn face<T: Element>(device: &str, n: usize) {
    let dir = tempfile::tempdir().unwrap();
    let (xp, yp) = (dir.path().join("x.npy"), dir.path().join("y.npy"));
    let x: Vec<T> = (0..2 * n)
        .map(|i| T::from_f64(((7919 * i) % 1013) as f64 / 506.5 - 1.0))
        .collect();
    io::write(&xp, false, &[2, n], &x).unwrap();
    for order in [8, 6, 4] {
        let (b, a) = butter_0_02(order).unwrap();
        let contract = Contract::new(&b, &a, &x, 2);
        let (bs, as_) = (values(&b), values(&a));
        let args = [
            "filter", "--device", device, "--b", &bs, "--a", &as_, "--input",
        ];
        let mut all: Vec<&str> = args.to_vec();
        let (xs, ys) = (xp.to_str().unwrap(), yp.to_str().unwrap());
        all.extend([xs, "--output", ys]);
        let out = sigpu(&all);
        let name = format!("butter({order}, 0.02) {} on {device}", T::DTYPE);
        let stderr = String::from_utf8_lossy(&out.stderr);
        if !out.status.success() {
            assert!(
                stderr.contains("host arrays") || stderr.contains("second-order sections"),
                "{name}: failed without a way out: {stderr}"
            );
            continue;
        }
        let y = io::read(&yp, None).unwrap().values::<T>().unwrap();
        let err = contract.error(&y);
        assert!(
            err <= contract.allowed,
            "{name}: error {err:.3e}, allowed {:.3e}",
            contract.allowed
        );
    }
}

#[test]
fn butterworth_designs_keep_the_contract_on_the_cpu() {
    face::<f32>("cpu", 1 << 16);
    face::<f64>("cpu", 1 << 16);
}

#[test]
fn butterworth_designs_keep_the_contract_on_a_gpu() {
    if gpu_for_test("butterworth_designs_keep_the_contract_on_a_gpu").is_none() {
        return;
    }
    face::<f32>("cuda", 1 << 20);
    face::<f64>("cuda", 1 << 20);
}
