//! Generated kernels must compile for sm_90 (the H100) with NVRTC, without a GPU. Without
//! NVRTC these tests print SKIP and pass, unless SIGPU_REQUIRE_NVRTC=1.

use sigpu_approx::catalog::{Function, CATALOG};
use sigpu_runtime::cuda::{compile, nvrtc_for_test, KernelCache, KernelSource};

fn compiles(src: &KernelSource) -> Vec<String> {
    let c = compile(src, "sm_90", &KernelCache::disabled())
        .unwrap_or_else(|e| panic!("{} does not compile: {e}", src.name));
    c.kernel_names()
}

#[test]
fn catalog_eval_kernels_compile() {
    if !nvrtc_for_test("catalog_eval_kernels_compile") {
        return;
    }
    let all: Vec<&Function> = CATALOG.iter().collect();
    let src = sigpu_approx::eval::source(&all);
    let names = compiles(&src);
    assert_eq!(names.len(), src.entry_points().len(), "{names:?}");
}

/// A kernel written the way a user writes it: device helpers, loops, integer arithmetic.
const USER_KERNEL: &str = r#"
#define PI 3.14159265f
__device__ float radius(float u) { return sqrtf(-2.0f * logf(u)); }
extern "C" __global__ void box_muller(const float* u, float* out, int n, int per_thread) {
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    for (int k = 0; k < per_thread; k += 2) {
        const int i = tid + k * n;
        const float r = radius(u[i]);
        const float phi = 2.0f * PI * u[i + n];
        out[i] = r * cosf(phi);
        out[i + n] = r * sinf(phi) / (1.0f + (float)(k / 2));
    }
}
extern "C" __global__ void norms(const double* x, double* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 1.0 / sqrt(x[i]) + x[i] / (x[i] + 1.0) + exp(x[i]);
}
"#;

#[test]
fn transformed_user_kernels_compile() {
    if !nvrtc_for_test("transformed_user_kernels_compile") {
        return;
    }
    for kernel in ["box_muller", "norms"] {
        let t = sigpu_approx::transform::transform(USER_KERNEL, kernel).unwrap();
        let names = compiles(&KernelSource::generated("user.cu", t.source.clone()));
        for k in [&t.kernel, &t.sfu_kernel, &t.lambda_kernel, &t.block_kernel] {
            assert!(names.contains(k), "{k} missing from {names:?}");
        }
    }
}

#[test]
fn every_app_and_its_lambda_kernels_compile() {
    if !nvrtc_for_test("every_app_and_its_lambda_kernels_compile") {
        return;
    }
    for app in sigpu_approx::apps::APPS {
        let t = sigpu_approx::transform::transform(app.code, app.kernel).unwrap();
        let names = compiles(&KernelSource::generated(app.file, t.source.clone()));
        for k in [&t.kernel, &t.sfu_kernel, &t.lambda_kernel, &t.block_kernel] {
            assert!(
                names.contains(k),
                "{}: {k} missing from {names:?}",
                app.name
            );
        }
    }
}
