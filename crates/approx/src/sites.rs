//! Per-call-site approximation: every transcendental call of a kernel gets its own form
//! (accurate, SFU intrinsic, FMA polynomial) and its own λ, and SFU forms can carry range
//! guards that fall back to the accurate function outside the intrinsic's documented bound.
//!
//! A [`Plan`] starts from the λ transformation's output ([`transform`]), which already holds
//! the SFU forms and the SFU copies of device functions, and lists the kernel's *sites*: each
//! call of a standard function in the kernel body (in source order), each call of a device
//! function that has an SFU copy (the copy is the approximate form), and one site for all of
//! the body's divisions. [`Plan::source`] writes that source again with the kernel's body
//! replaced for a [`Setting`]: the kernel keeps its name and signature, so the result is a
//! drop-in for the user's file.
//!
//! Sites with different λ split the block's warps into groups (warp index within the block
//! below the smallest λ, then below the next, …); each group runs a complete copy of the body
//! with its sites' forms, chosen once at kernel entry as in the λ kernels (shared arrays
//! hoisted above the branch, barriers made non-aligned). A setting where every approximate
//! site covers all warps has one body and no branch.
//!
//! Guards use each catalog function's documented input domain (`sin.approx` on [−π, π],
//! `ex2`-based exp on [−10, 10], …; a division's divisor on ±[2^-126, 2^126], where
//! `div.approx` keeps its 2 ulp): inside, the SFU form; outside (NaN included), the accurate
//! function. A guard costs a compare and a predicated branch, and keeps a tuned kernel within
//! its bound on arguments the tuning never saw.
//!
//! [`transform`]: crate::transform::transform

use crate::catalog::{self, Range};
use crate::transform::TransformError;
use crate::transform::{
    approximate_divisions, hoist_shared, kernel_body_span, rename_calls, sfu_name, transform,
    unaligned_barriers, Transformed,
};
use serde::Serialize;
use std::collections::BTreeMap;

/// How one call site computes its function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Form {
    /// The standard function as written.
    Accurate,
    /// The SFU intrinsic (guarded when the setting says so).
    Sfu,
    /// A branch-free FMA polynomial with Cody–Waite reduction (exp, log, sin, cos in f32);
    /// arguments outside its range take the accurate function.
    Poly,
}

impl std::fmt::Display for Form {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Form::Accurate => "accurate",
            Form::Sfu => "sfu",
            Form::Poly => "poly",
        })
    }
}

/// What a site is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SiteKind {
    /// A call of a standard function (`expf`, `sqrt`, …).
    Standard,
    /// A call of a device function that has an SFU copy.
    Device,
    /// Every `/` of the kernel body.
    Division,
}

/// One call site of the kernel.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Site {
    /// Position among the sites (the index a [`Setting`] uses).
    pub index: usize,
    /// The function called (`expf`, `helper`), or `/`.
    pub function: String,
    /// What kind of site it is.
    pub kind: SiteKind,
    /// 1-based line in the kernel body where it is (the first division for `/`).
    pub line: usize,
    /// The forms it can take.
    pub forms: Vec<Form>,
}

/// One site's choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Choice {
    /// The form its approximated warps use.
    pub form: Form,
    /// Warps with index within the block below λ use `form`; the others are accurate.
    pub lambda: u32,
}

/// A choice for every site, and whether SFU forms are guarded.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Setting {
    /// One choice per site, by [`Site::index`].
    pub choices: Vec<Choice>,
    /// SFU forms fall back to the accurate function outside their documented bound.
    pub guards: bool,
}

impl Setting {
    /// Every site accurate.
    pub fn accurate(sites: usize, guards: bool) -> Setting {
        Setting {
            choices: vec![
                Choice {
                    form: Form::Accurate,
                    lambda: 0
                };
                sites
            ],
            guards,
        }
    }

    /// Every site in its SFU form at the same λ (the single-λ kernel as a setting).
    pub fn uniform(sites: usize, lambda: u32, guards: bool) -> Setting {
        Setting {
            choices: vec![
                Choice {
                    form: Form::Sfu,
                    lambda
                };
                sites
            ],
            guards,
        }
    }

    /// Whether site `k` is approximated in warp `w`.
    fn approximated(&self, k: usize, w: u32) -> bool {
        let c = self.choices[k];
        c.form != Form::Accurate && w < c.lambda
    }

    /// One line: `expf@3=sfu/8 logf@5=accurate …` style, by site.
    pub fn describe(&self, sites: &[Site]) -> String {
        sites
            .iter()
            .zip(&self.choices)
            .map(|(s, c)| match c.form {
                Form::Accurate => format!("{}:{}=accurate", s.function, s.line),
                f => format!("{}:{}={f}/λ{}", s.function, s.line, c.lambda),
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// A kernel ready for per-call-site settings.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The λ transformation of the source (its kernels are still there in every output).
    pub transformed: Transformed,
    /// The kernel's sites.
    pub sites: Vec<Site>,
    kernel: String,
    /// The transformed source and where its copy of the kernel's body lies.
    base: String,
    body: std::ops::Range<usize>,
    /// The body without its top-level `__shared__` declarations, and those declarations.
    shared_free: String,
    shared: String,
}

/// Standard functions with an FMA polynomial form.
const POLY: [&str; 8] = ["expf", "logf", "sinf", "cosf", "exp", "log", "sin", "cos"];

fn line_of(text: &str, byte: usize) -> usize {
    text[..byte].matches('\n').count() + 1
}

impl Plan {
    /// Transforms `kernel` of `source` and lists its sites.
    pub fn new(source: &str, kernel: &str) -> Result<Plan, TransformError> {
        let transformed = transform(source, kernel)?;
        let base = transformed.source.clone();
        let body = kernel_body_span(&base, kernel)?;
        let (shared_free, shared) = hoist_shared(kernel, &base[body.clone()])?;
        let mut sites = Vec::new();
        let copied = &transformed.device_functions;
        // Call sites, in the order `rename_calls` visits them (the order `generate` numbers).
        let mut names = Vec::new();
        rename_calls(&shared_free, |name| {
            if sfu_name(name).is_some() || copied.iter().any(|c| c == name) {
                names.push(name.to_owned());
            }
            None
        })?;
        // Lines: the n-th occurrence of `name(` in the body text.
        let mut from = 0;
        for name in names {
            let at = find_call(&shared_free, &name, from).unwrap_or(from);
            from = at + name.len();
            let device = sfu_name(&name).is_none();
            let mut forms = vec![Form::Accurate, Form::Sfu];
            if POLY.contains(&name.as_str()) {
                forms.push(Form::Poly);
            }
            sites.push(Site {
                index: sites.len(),
                kind: if device {
                    SiteKind::Device
                } else {
                    SiteKind::Standard
                },
                function: name,
                line: line_of(&shared_free, at),
                forms,
            });
        }
        let divided = approximate_divisions(shared_free.clone(), "sg_sfu", &mut BTreeMap::new())?;
        if divided != shared_free {
            let at = shared_free.find('/').unwrap_or(0);
            sites.push(Site {
                index: sites.len(),
                function: "/".into(),
                kind: SiteKind::Division,
                line: line_of(&shared_free, at),
                forms: vec![Form::Accurate, Form::Sfu],
            });
        }
        Ok(Plan {
            transformed,
            sites,
            kernel: kernel.to_owned(),
            base,
            body,
            shared_free,
            shared,
        })
    }

    /// The kernel's name.
    pub fn kernel(&self) -> &str {
        &self.kernel
    }

    /// The body of one warp group: sites approximated where `on(k)` says.
    fn group_body(
        &self,
        s: &Setting,
        on: impl Fn(usize) -> bool,
    ) -> Result<String, TransformError> {
        let mut k = 0;
        let copied = &self.transformed.device_functions;
        let text = rename_calls(&self.shared_free, |name| {
            let standard = sfu_name(name);
            if standard.is_none() && !copied.iter().any(|c| c == name) {
                return None;
            }
            let site = k;
            k += 1;
            if !on(site) {
                return None;
            }
            match (s.choices[site].form, standard) {
                (Form::Accurate, _) => None,
                (Form::Poly, _) => Some(format!("sg_poly_{name}")),
                (Form::Sfu, Some(_)) if s.guards => Some(format!("sg_grd_{name}")),
                (Form::Sfu, Some(sfu)) => Some(sfu.to_owned()),
                (Form::Sfu, None) => Some(format!("{name}_sg_sfu")),
            }
        })?;
        match self.sites.last() {
            Some(d) if d.kind == SiteKind::Division && on(d.index) => {
                let prefix = if s.guards { "sg_grd" } else { "sg_sfu" };
                approximate_divisions(text, prefix, &mut BTreeMap::new())
            }
            _ => Ok(text),
        }
    }

    /// The source with the kernel's body made `setting` (`warps`: warps per block, so a λ at
    /// or above it covers the block). The kernel keeps its name and parameters.
    pub fn source(&self, setting: &Setting, warps: u32) -> Result<String, TransformError> {
        if setting.choices.len() != self.sites.len() {
            return Err(TransformError::Syntax {
                line: 0,
                what: format!(
                    "a setting of {} choices for a kernel with {} sites",
                    setting.choices.len(),
                    self.sites.len()
                ),
            });
        }
        // λ thresholds below which some site is approximated, each capped at the block.
        let mut cuts: Vec<u32> = setting
            .choices
            .iter()
            .filter(|c| c.form != Form::Accurate && c.lambda > 0)
            .map(|c| c.lambda.min(warps))
            .collect();
        cuts.sort_unstable();
        cuts.dedup();
        let body = match cuts.as_slice() {
            [] => self.base[self.body.clone()].to_owned(),
            // Every approximated site covers the whole block: one body, no branch.
            [only] if *only >= warps => {
                let b = self.group_body(setting, |k| setting.approximated(k, 0))?;
                format!("\n    {}\n{b}", self.shared)
            }
            _ => {
                let mut code = format!(
                    "\n    {}\n    const unsigned int sg_warp = (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) / 32u;\n    ",
                    self.shared
                );
                for &cut in &cuts {
                    // Warps below `cut` and at or above the previous cut.
                    let w = cut - 1;
                    let b = self.group_body(setting, |k| setting.approximated(k, w))?;
                    code += &format!(
                        "if (sg_warp < {cut}u) {{{}}} else ",
                        unaligned_barriers(&b)?
                    );
                }
                code += &format!("{{{}}}\n", unaligned_barriers(&self.shared_free)?);
                code
            }
        };
        let mut out = String::with_capacity(self.base.len() + body.len() + 4096);
        // The guard and polynomial forms go before the kernel (after every SFU form).
        let decl = kernel_decl_start(&self.base, self.body.start);
        out.push_str(&self.base[..decl]);
        out.push_str(&forms_prelude());
        out.push_str(&self.base[decl..self.body.start]);
        out.push_str(&body);
        out.push_str(&self.base[self.body.end..]);
        Ok(out)
    }
}

/// Byte offset of `name(` at or after `from` that is a call (not part of a longer name).
fn find_call(text: &str, name: &str, from: usize) -> Option<usize> {
    let mut at = from;
    while let Some(i) = text[at..].find(name) {
        let i = at + i;
        let before_ok = text[..i]
            .chars()
            .next_back()
            .is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
        let after = text[i + name.len()..].trim_start();
        if before_ok && after.starts_with('(') {
            return Some(i);
        }
        at = i + name.len();
    }
    None
}

/// The start of the line holding the kernel's `extern "C"` declaration whose body starts at
/// `body_start`: the last `extern "C"` before it.
fn kernel_decl_start(base: &str, body_start: usize) -> usize {
    let head = &base[..body_start];
    let at = head.rfind("extern \"C\"").unwrap_or(0);
    head[..at].rfind('\n').map_or(0, |n| n + 1)
}

fn literal(v: f64, float: bool) -> String {
    format!("{v:e}{}", if float { "f" } else { "" })
}

/// The test that `x` lies in `r`, as CUDA on a `float` (`float`) or `double`.
fn in_range(x: &str, r: &Range, float: bool) -> String {
    let abs = if float { "fabsf" } else { "fabs" };
    match *r {
        Range::Uniform { lo, hi } => format!(
            "({x} >= {} && {x} <= {})",
            literal(lo, float),
            literal(hi, float)
        ),
        Range::LogUniform {
            lo_exp,
            hi_exp,
            signed,
        } => {
            let v = if signed {
                format!("{abs}({x})")
            } else {
                x.to_owned()
            };
            format!(
                "({v} >= {} && {v} <= {})",
                literal(2f64.powf(lo_exp), float),
                literal(2f64.powf(hi_exp), float)
            )
        }
    }
}

/// The guard of catalog function `key` on its arguments `x` (and `y`).
fn guard(key: &str, float: bool) -> String {
    let f = catalog::find(key).expect("catalog key");
    let mut g = in_range("x", &f.domain.x, float);
    if let Some(y) = &f.domain.y {
        g = format!("{g} && {}", in_range("y", y, float));
    }
    g
}

/// Guarded SFU forms (`sg_grd_*`) and FMA polynomial forms (`sg_poly_*`), with the same
/// overload sets as the SFU forms of [`crate::transform::prelude`].
pub fn forms_prelude() -> String {
    let mut p =
        String::from("// ---- sigpu-approx: guarded and polynomial forms (generated) ----\n");
    for (std, f32key, f64key) in [
        ("exp", "exp_f32", None),
        ("log", "log_f32", None),
        ("sin", "sin_f32", None),
        ("cos", "cos_f32", None),
        ("sqrt", "sqrt_f32", Some("sqrt_f64")),
        ("rsqrt", "rsqrt_f32", Some("rsqrt_f64")),
        ("tanh", "tanh_f32", None),
    ] {
        let dbl = match f64key {
            Some(k) => format!("return {} ? sg_sfu_{std}(x) : {std}(x);", guard(k, false)),
            None => format!("return {std}(x);"),
        };
        p += &format!(
            "__device__ __forceinline__ float sg_grd_{std}f(float x) {{ return {g} ? sg_sfu_{std}f(x) : {std}f(x); }}\n\
             __device__ __forceinline__ float sg_grd_{std}(float x) {{ return sg_grd_{std}f(x); }}\n\
             __device__ __forceinline__ double sg_grd_{std}(double x) {{ {dbl} }}\n\
             template <class T> __device__ __forceinline__ auto sg_grd_{std}(T x) {{ return {std}(x); }}\n",
            g = guard(f32key, true),
        );
    }
    p += &format!(
        "__device__ __forceinline__ float sg_grd_powf(float x, float y) {{ return {g} ? sg_sfu_powf(x, y) : powf(x, y); }}\n\
         __device__ __forceinline__ float sg_grd_pow(float x, float y) {{ return sg_grd_powf(x, y); }}\n\
         template <class A, class B> __device__ __forceinline__ auto sg_grd_pow(A x, B y) {{ return pow(x, y); }}\n\
         // div.approx keeps 2 ulp for divisors of magnitude in [2^-126, 2^126]; rcp.approx likewise.\n\
         template <class A, class B> __device__ __forceinline__ auto sg_grd_div(A a, B b) -> decltype(a / b) {{\n\
         \x20   typedef decltype(a / b) R;\n\
         \x20   if constexpr (sg_same<R, float>::value || sg_same<R, double>::value) {{\n\
         \x20       const double m = fabs((double)b);\n\
         \x20       if (m >= 1.1754943508222875e-38 && m <= 8.507059173023462e37) return sg_sfu_div(a, b);\n\
         \x20   }}\n\
         \x20   return a / b;\n\
         }}\n\
         template <class A, class B> __device__ __forceinline__ auto sg_grd_rcp(A one, B b) -> decltype(one / b) {{\n\
         \x20   typedef decltype(one / b) R;\n\
         \x20   if constexpr (sg_same<R, float>::value || sg_same<R, double>::value) {{\n\
         \x20       const double m = fabs((double)b);\n\
         \x20       if (m >= 1.1754943508222875e-38 && m <= 8.507059173023462e37) return sg_sfu_rcp(one, b);\n\
         \x20   }}\n\
         \x20   return one / b;\n\
         }}\n",
        g = guard("pow_f32", true),
    );
    p += POLY_FORMS;
    p += "// ---- end of guarded and polynomial forms ----\n";
    p
}

/// FMA polynomials (the CPU fast functions' formulas, module `cpu`): exp by 2^n · p(r) with a
/// two-part ln 2 and a degree-6 polynomial; log by exponent extraction and the atanh series;
/// sin / cos by three-part Cody–Waite reduction modulo π/2 (exact for |x| ≤ 8192) and degree
/// 9 / 8 polynomials. NaN, ±∞, zero and negative logs and |x| > 8192 take the accurate
/// function.
const POLY_FORMS: &str = r#"__device__ __forceinline__ float sg_poly_expf(float x) {
    const float xc = fminf(fmaxf(x, -104.0f), 89.0f);
    const float n = rintf(xc * 1.44269504f);
    float r = fmaf(n, -0.693359375f, xc);
    r = fmaf(n, 2.12194440e-4f, r);
    float p = fmaf(r, 1.0f / 720.0f, 1.0f / 120.0f);
    p = fmaf(p, r, 1.0f / 24.0f);
    p = fmaf(p, r, 1.0f / 6.0f);
    p = fmaf(p, r, 0.5f);
    p = fmaf(p, r, 1.0f);
    p = fmaf(p, r, 1.0f);
    const int ni = (int)n, h = ni >> 1;
    const float v = p * __int_as_float((h + 127) << 23) * __int_as_float((ni - h + 127) << 23);
    return x != x ? x : v;
}
__device__ __forceinline__ float sg_poly_logf(float x) {
    if (!(x >= 1.17549435e-38f && x < 3.40282347e38f)) return logf(x);
    const int b = __float_as_int(x);
    int e = ((b >> 23) & 0xff) - 127;
    float m = __int_as_float((b & 0x007fffff) | 0x3f800000);
    if (m > 1.41421356f) { m *= 0.5f; e += 1; }
    const float s = __fdividef(m - 1.0f, m + 1.0f);
    const float s2 = s * s;
    float q = fmaf(s2, 1.0f / 9.0f, 1.0f / 7.0f);
    q = fmaf(q, s2, 1.0f / 5.0f);
    q = fmaf(q, s2, 1.0f / 3.0f);
    q = fmaf(q, s2, 1.0f);
    return fmaf((float)e, 0.693147182f, 2.0f * s * q);
}
__device__ __forceinline__ float sg_poly_sincos(float x, int shift) {
    const float n = rintf(x * 0.636619772f);
    float r = fmaf(n, -1.5703125f, x);
    r = fmaf(n, -4.83751297e-4f, r);
    r = fmaf(n, -7.54978942e-8f, r);
    const float r2 = r * r;
    float s = fmaf(r2, 1.0f / 362880.0f, -1.0f / 5040.0f);
    s = fmaf(s, r2, 1.0f / 120.0f);
    s = fmaf(s, r2, -1.0f / 6.0f);
    s = fmaf(s, r2, 1.0f) * r;
    float c = fmaf(r2, 1.0f / 40320.0f, -1.0f / 720.0f);
    c = fmaf(c, r2, 1.0f / 24.0f);
    c = fmaf(c, r2, -0.5f);
    c = fmaf(c, r2, 1.0f);
    const int q = ((int)n + shift) & 3;
    const float v = (q & 1) ? c : s;
    return (q & 2) ? -v : v;
}
__device__ __forceinline__ float sg_poly_sinf(float x) { return fabsf(x) <= 8192.0f ? sg_poly_sincos(x, 0) : sinf(x); }
__device__ __forceinline__ float sg_poly_cosf(float x) { return fabsf(x) <= 8192.0f ? sg_poly_sincos(x, 1) : cosf(x); }
__device__ __forceinline__ float sg_poly_exp(float x) { return sg_poly_expf(x); }
__device__ __forceinline__ float sg_poly_log(float x) { return sg_poly_logf(x); }
__device__ __forceinline__ float sg_poly_sin(float x) { return sg_poly_sinf(x); }
__device__ __forceinline__ float sg_poly_cos(float x) { return sg_poly_cosf(x); }
template <class T> __device__ __forceinline__ auto sg_poly_exp(T x) { return exp(x); }
template <class T> __device__ __forceinline__ auto sg_poly_log(T x) { return log(x); }
template <class T> __device__ __forceinline__ auto sg_poly_sin(T x) { return sin(x); }
template <class T> __device__ __forceinline__ auto sg_poly_cos(T x) { return cos(x); }
"#;

#[cfg(test)]
mod tests {
    use super::*;

    const GELU_LL: &str = r#"
__device__ float sq(float v) { return sqrtf(v); }
extern "C" __global__ void k(const float* x, float* y, int n) {
    __shared__ float s[64];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float a = expf(-x[i]);
    s[threadIdx.x % 64] = a;
    __syncthreads();
    y[i] = logf(1.0f + a) + sinf(x[i]) / (1.0f + sq(x[i] * x[i])) + s[0];
}
"#;

    #[test]
    fn sites_are_listed_in_order_with_their_forms() {
        let p = Plan::new(GELU_LL, "k").unwrap();
        let names: Vec<&str> = p.sites.iter().map(|s| s.function.as_str()).collect();
        assert_eq!(names, ["expf", "logf", "sinf", "sq", "/"]);
        assert_eq!(p.sites[0].forms, [Form::Accurate, Form::Sfu, Form::Poly]);
        assert_eq!(p.sites[3].kind, SiteKind::Device);
        assert_eq!(p.sites[3].forms, [Form::Accurate, Form::Sfu]);
        assert_eq!(p.sites[4].kind, SiteKind::Division);
        assert!(p.sites[1].line > p.sites[0].line);
    }

    fn kernel_text(src: &str) -> &str {
        let at = src.rfind("extern \"C\" __global__ void k(").unwrap();
        let end = src[at..]
            .find("// ---- generated")
            .map_or(src.len(), |e| at + e);
        &src[at..end]
    }

    #[test]
    fn each_site_takes_its_own_form_and_lambda() {
        let p = Plan::new(GELU_LL, "k").unwrap();
        let mut s = Setting::accurate(p.sites.len(), true);
        assert!(kernel_text(&p.source(&s, 8).unwrap()).contains("float a = expf(-x[i]);"));
        s.choices[0] = Choice {
            form: Form::Sfu,
            lambda: 8,
        };
        s.choices[2] = Choice {
            form: Form::Poly,
            lambda: 3,
        };
        s.choices[4] = Choice {
            form: Form::Sfu,
            lambda: 8,
        };
        let src = p.source(&s, 8).unwrap();
        let k = kernel_text(&src);
        // Two groups: warps 0..3 (exp guarded, sin poly, division), 3..8 (exp, division), rest.
        assert!(k.contains("if (sg_warp < 3u)"), "{k}");
        assert!(k.contains("if (sg_warp < 8u)"), "{k}");
        assert_eq!(k.matches("sg_grd_expf(-x[i])").count(), 2, "{k}");
        assert_eq!(k.matches("sg_poly_sinf(x[i])").count(), 1, "{k}");
        assert_eq!(k.matches("sg_grd_div(").count(), 2, "{k}");
        assert_eq!(k.matches("logf(1.0f + a)").count(), 3, "{k}");
        assert!(!k.contains("__syncthreads"), "{k}");
        assert_eq!(k.matches("__shared__").count(), 1, "{k}");
        // Unguarded, whole block: one body, no branch, the SFU helpers themselves.
        let mut u = Setting::uniform(p.sites.len(), 8, false);
        u.choices[1].form = Form::Accurate;
        let k2 = p.source(&u, 8).unwrap();
        let k2 = kernel_text(&k2);
        assert!(!k2.contains("sg_warp"), "{k2}");
        assert!(
            k2.contains("sg_sfu_expf(-x[i])") && k2.contains("sq_sg_sfu("),
            "{k2}"
        );
        assert!(
            k2.contains("__syncthreads()"),
            "one body keeps the aligned barrier: {k2}"
        );
        assert!(p.source(&Setting::accurate(2, true), 8).is_err());
    }

    /// Every truncation and every one-character deletion of a source gives a plan and
    /// sources, or an error: never a panic.
    #[test]
    fn mangled_sources_never_panic() {
        let src = GELU_LL;
        let cuts = (0..=src.len()).filter(|&i| src.is_char_boundary(i));
        let prefixes = cuts.clone().map(|i| src[..i].to_owned());
        let holes = cuts
            .filter(|&i| i < src.len())
            .map(|i| format!("{}{}", &src[..i], &src[i + 1..]));
        for text in prefixes.chain(holes) {
            let r = std::panic::catch_unwind(|| {
                if let Ok(p) = Plan::new(&text, "k") {
                    let n = p.sites.len();
                    let mut s = Setting::uniform(n, 3, true);
                    if let Some(c) = s.choices.first_mut() {
                        c.form = *p.sites[0].forms.last().unwrap();
                    }
                    let _ = p.source(&s, 8);
                }
            });
            assert!(r.is_ok(), "panicked on:\n{text}");
        }
    }

    #[test]
    fn guards_follow_the_documented_domains() {
        let f = forms_prelude();
        assert!(f.contains("sg_grd_sinf(float x) { return (x >= -3.141592653589793e0f && x <= 3.141592653589793e0f) ? sg_sfu_sinf(x) : sinf(x); }"), "{f}");
        assert!(
            f.contains("sg_grd_expf(float x) { return (x >= -1e1f && x <= 1e1f)"),
            "{f}"
        );
        assert!(f.contains("sg_poly_logf"));
    }
}
