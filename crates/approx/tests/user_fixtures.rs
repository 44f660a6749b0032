//! Three kernels from outside the built-in suite (an activation, an RBF kernel matrix, a
//! mixture log-likelihood): their sites, and every per-call-site setting with guards and
//! polynomials compiling under NVRTC for sm_90 without a GPU (SKIP without NVRTC unless
//! SIGPU_REQUIRE_NVRTC=1).

use sigpu_approx::sites::{Choice, Form, Plan, Setting};
use sigpu_runtime::cuda::{compile, nvrtc_for_test, KernelCache, KernelSource};

const FIXTURES: [(&str, &str, &str); 3] = [
    (
        "activation.cu",
        include_str!("fixtures/activation.cu"),
        "softplus_gelu",
    ),
    ("rbf.cu", include_str!("fixtures/rbf.cu"), "rbf_matrix"),
    (
        "loglik.cu",
        include_str!("fixtures/loglik.cu"),
        "vonmises_loglik",
    ),
];

#[test]
fn fixtures_list_their_sites() {
    let names = |src, k| -> Vec<String> {
        Plan::new(src, k)
            .unwrap()
            .sites
            .iter()
            .map(|s| s.function.clone())
            .collect()
    };
    assert_eq!(
        names(FIXTURES[0].1, FIXTURES[0].2),
        ["tanhf", "logf", "expf"]
    );
    assert_eq!(names(FIXTURES[1].1, FIXTURES[1].2), ["expf"]);
    assert_eq!(
        names(FIXTURES[2].1, FIXTURES[2].2),
        ["cosf", "cosf", "expf", "expf", "logf", "/"]
    );
}

/// Settings that exercise every form: all accurate, all SFU guarded on the whole block, each
/// site's last form (polynomial where there is one) at its own λ, unguarded SFU at λ = 2.
fn settings(plan: &Plan) -> Vec<Setting> {
    let n = plan.sites.len();
    let mut mixed = Setting::accurate(n, true);
    for s in &plan.sites {
        mixed.choices[s.index] = Choice {
            form: *s.forms.last().unwrap(),
            lambda: 1 + s.index as u32 % 8,
        };
    }
    vec![
        Setting::accurate(n, true),
        Setting::uniform(n, 8, true),
        mixed,
        Setting::uniform(n, 2, false),
    ]
}

#[test]
fn per_site_settings_of_the_fixtures_compile() {
    if !nvrtc_for_test("per_site_settings_of_the_fixtures_compile") {
        return;
    }
    for (file, src, kernel) in FIXTURES {
        let plan = Plan::new(src, kernel).unwrap();
        for (i, s) in settings(&plan).iter().enumerate() {
            let code = plan.source(s, 8).unwrap();
            if i == 2 {
                assert!(code.contains("sg_warp <"), "{file}: {code}");
            }
            let c = compile(
                &KernelSource::generated(file, code),
                "sm_90",
                &KernelCache::disabled(),
            )
            .unwrap_or_else(|e| panic!("{file} setting {i} does not compile: {e}"));
            assert!(c.kernel_names().iter().any(|k| k == kernel), "{file}");
        }
    }
}

#[test]
fn guards_and_polynomials_reach_the_kernel() {
    let (_, src, kernel) = FIXTURES[2];
    let plan = Plan::new(src, kernel).unwrap();
    let mut s = Setting::accurate(plan.sites.len(), true);
    s.choices[0] = Choice {
        form: Form::Sfu,
        lambda: 8,
    };
    s.choices[1] = Choice {
        form: Form::Poly,
        lambda: 8,
    };
    let code = plan.source(&s, 8).unwrap();
    let body = &code[code.rfind("vonmises_loglik(").unwrap()..];
    assert!(body.contains("sg_grd_cosf(x[i] - mu0)"), "{body}");
    assert!(body.contains("sg_poly_cosf(x[i] - mu1)"), "{body}");
}
