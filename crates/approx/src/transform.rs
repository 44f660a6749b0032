//! The paper's Algorithm 1: from CUDA source whose kernel calls the standard functions, the
//! λ-partitioned kernel, generated without touching the original.
//!
//! For kernel `K` the output source holds, besides everything the input had:
//! - `K_sfu`: the all-approximate kernel. Every standard call (`expf`, `sqrt`, `powf`, …) and
//!   every floating-point `/` becomes its SFU form from the catalog; device functions that
//!   reach such calls are copied (`name_sg_sfu`) and rewritten the same way, which is what
//!   the paper's "inline all device functions" step achieves.
//! - `K_lambda(…, int sg_lambda, unsigned int* sg_slots)`: warps whose hardware warp slot
//!   (`%warpid`) is below λ run the SFU body, the others the original. The branch is taken
//!   once at entry, so it sits outside every loop (both bodies are complete copies); warps do
//!   not diverge. When `sg_slots` is not null, lane 0 of every warp records the largest slot
//!   id seen there, so a search can bound λ by the slots the kernel really occupies.
//! - `K_lambda_block(…, int sg_lambda)`: the deterministic variant. It splits on the warp
//!   index within the block (linear thread index / 32), which does not change between runs or
//!   under preemption, unlike `%warpid`.
//!
//! Static `__shared__` declarations at the top level of the body are hoisted above the branch,
//! so both copies use the same arrays (two copies would give warps of one block different
//! shared memory); one nested in a block is refused.
//!
//! Both bodies of the λ kernels replace `__syncthreads()` with a non-aligned `barrier.sync 0`:
//! `__syncthreads()` is an *aligned* barrier, which every thread of the block must reach at
//! the same instruction, and warps of one block may now run different copies of the body.
//! (Measured: without this, MonteCarlo's block reduction returned garbage whenever λ split a
//! block.) `__syncthreads_count/and/or` are refused.
//!
//! The rewriting works on tokens, not types: `/` is replaced by `sg_sfu_div(a, b)`, a C++17
//! template that uses the approximate divide only when the division's type is `float` or
//! `double` and divides exactly otherwise (so integer division is untouched); `1.0f / x` and
//! `1.0 / x` become `sg_sfu_rcp`. Calls resolve through overloads the same way, so `sqrt` on a
//! `double` gets the f64 SFU form and `exp` on a `double`, which has none, stays accurate.
//! `/=` is left accurate.

use crate::catalog::{self, Function};
pub use crate::error::TransformError;
use crate::lex::{matching_close, matching_open, tokens, Kind, Token};
use serde::Serialize;
use std::collections::BTreeMap;

/// Standard functions and the SFU helper each becomes.
const CALLS: [(&str, &str); 16] = [
    ("expf", "sg_sfu_expf"),
    ("logf", "sg_sfu_logf"),
    ("sinf", "sg_sfu_sinf"),
    ("cosf", "sg_sfu_cosf"),
    ("powf", "sg_sfu_powf"),
    ("sqrtf", "sg_sfu_sqrtf"),
    ("rsqrtf", "sg_sfu_rsqrtf"),
    ("tanhf", "sg_sfu_tanhf"),
    ("exp", "sg_sfu_exp"),
    ("log", "sg_sfu_log"),
    ("sin", "sg_sfu_sin"),
    ("cos", "sg_sfu_cos"),
    ("pow", "sg_sfu_pow"),
    ("sqrt", "sg_sfu_sqrt"),
    ("rsqrt", "sg_sfu_rsqrt"),
    ("tanh", "sg_sfu_tanh"),
];

/// Keywords that may stand before `(` without making a call.
const KEYWORDS: [&str; 8] = [
    "return", "if", "while", "for", "switch", "case", "else", "do",
];
/// Words that make a parenthesised group a cast.
const TYPE_WORDS: [&str; 12] = [
    "float", "double", "int", "unsigned", "long", "short", "char", "signed", "const", "bool",
    "size_t", "half",
];

/// The generated source and what was rewritten.
#[derive(Clone, Debug, Serialize)]
pub struct Transformed {
    /// The whole rewritten file: a prelude of SFU forms, the input with an SFU copy after each
    /// device function the kernel reaches, then the three generated kernels. NVRTC compiles it as it
    /// is.
    pub source: String,
    /// The original kernel's name (left unchanged in the source).
    pub kernel: String,
    /// `K_sfu`: every call and division approximated.
    pub sfu_kernel: String,
    /// `K_lambda`: warps with `%warpid < λ` take the SFU copy; takes `int sg_lambda,
    /// unsigned int* sg_slots` after the kernel's own parameters.
    pub lambda_kernel: String,
    /// `K_lambda_block`: as `K_lambda` over the warp index within the block (deterministic);
    /// takes `int sg_lambda`.
    pub block_kernel: String,
    /// Rewrites in the kernel and the device functions it reaches, by original form
    /// (`expf`, `/`, `1/x`).
    pub rewrites: BTreeMap<String, usize>,
    /// Device functions copied into SFU versions.
    pub device_functions: Vec<String>,
}

/// A top-level function definition.
struct FnDef {
    name: String,
    global: bool,
    extern_c: bool,
    /// Token range of the declaration up to (excluding) the name.
    decl_start: usize,
    name_tok: usize,
    params: (usize, usize),
    body: (usize, usize),
}

fn line(src: &str, t: &Token) -> usize {
    src[..t.start].matches('\n').count() + 1
}

fn functions(src: &str, toks: &[Token]) -> Vec<FnDef> {
    let mut defs = Vec::new();
    let mut depth = 0i32;
    let mut decl_start = 0;
    let mut i = 0;
    while i < toks.len() {
        let s = toks[i].text(src);
        match s {
            "{" if depth == 0 => {
                // `name ( params ) [qualifiers] {` at top level is a function definition.
                let close = (decl_start..i).rev().find(|&k| toks[k].text(src) == ")");
                let def = close.and_then(|c| {
                    let open = matching_open(src, toks, c)?;
                    (open > decl_start && toks[open - 1].kind == Kind::Ident).then_some((open, c))
                });
                let Some(end) = matching_close(src, toks, i) else {
                    return defs;
                };
                if let Some((open, c)) = def {
                    let words: Vec<&str> =
                        toks[decl_start..open].iter().map(|t| t.text(src)).collect();
                    defs.push(FnDef {
                        name: toks[open - 1].text(src).to_owned(),
                        global: words.contains(&"__global__"),
                        extern_c: words.windows(2).any(|w| w == ["extern", "\"C\""]),
                        decl_start,
                        name_tok: open - 1,
                        params: (open, c),
                        body: (i, end),
                    });
                }
                i = end + 1;
                decl_start = i;
                continue;
            }
            "{" | "(" | "[" => depth += 1,
            "}" | ")" | "]" => depth -= 1,
            ";" if depth == 0 => decl_start = i + 1,
            _ => {}
        }
        i += 1;
    }
    defs
}

/// Is token `k` the end of an operand (so a following `*`, `-` is binary)?
fn ends_operand(src: &str, t: &Token) -> bool {
    match t.kind {
        Kind::Number | Kind::Literal => true,
        Kind::Ident => !KEYWORDS.contains(&t.text(src)),
        Kind::Punct => matches!(t.text(src), ")" | "]" | "++" | "--"),
    }
}

fn is_cast(src: &str, toks: &[Token], open: usize, close: usize) -> bool {
    close > open + 1
        && toks[open + 1..close]
            .iter()
            .all(|t| t.kind == Kind::Ident || t.text(src) == "*")
        && toks[open + 1..close]
            .iter()
            .any(|t| TYPE_WORDS.contains(&t.text(src)))
}

/// First token of the postfix expression ending at `j`.
fn postfix_start(src: &str, toks: &[Token], mut j: usize) -> Option<usize> {
    loop {
        let t = toks[j];
        let start = match t.text(src) {
            ")" | "]" => {
                let open = matching_open(src, toks, j)?;
                let prev = open.checked_sub(1).map(|p| toks[p]);
                match prev {
                    // A call or index: the callee / array continues the chain.
                    Some(p)
                        if toks[open].text(src) == "["
                            || (ends_operand(src, &p) && !is_cast(src, toks, open, j)) =>
                    {
                        j = open - 1;
                        continue;
                    }
                    _ => open,
                }
            }
            _ if matches!(t.kind, Kind::Ident | Kind::Number | Kind::Literal) => j,
            _ => return None,
        };
        // Member access: `a.b`, `a->b` continue leftwards.
        if start >= 2 && matches!(toks[start - 1].text(src), "." | "->") {
            j = start - 2;
            continue;
        }
        return Some(start);
    }
}

/// First token of the left operand of the binary `/` at `i`: a multiplicative chain of
/// unary expressions (casts and prefix operators included).
fn left_operand(src: &str, toks: &[Token], i: usize) -> Option<usize> {
    let mut s = postfix_start(src, toks, i.checked_sub(1)?)?;
    loop {
        // Casts and unary prefixes bind tighter than `/`.
        if s >= 1 && toks[s - 1].text(src) == ")" {
            let open = matching_open(src, toks, s - 1)?;
            if is_cast(src, toks, open, s - 1) {
                s = open;
                continue;
            }
        }
        if s >= 1 && matches!(toks[s - 1].text(src), "-" | "+" | "!" | "~") {
            let unary = s < 2 || !ends_operand(src, &toks[s - 2]);
            if unary {
                s -= 1;
                continue;
            }
        }
        // `a * b / c` is `(a * b) / c`.
        if s >= 2 && matches!(toks[s - 1].text(src), "*" | "%") && ends_operand(src, &toks[s - 2]) {
            s = postfix_start(src, toks, s - 2)?;
            continue;
        }
        return Some(s);
    }
}

/// Last token of the right operand of the binary `/` at `i`: a unary expression.
fn right_operand(src: &str, toks: &[Token], i: usize) -> Option<usize> {
    let mut j = i + 1;
    // Prefix operators and casts.
    loop {
        let t = toks.get(j)?;
        match t.text(src) {
            "-" | "+" | "!" | "~" | "*" | "&" => j += 1,
            "(" => {
                let close = matching_close(src, toks, j)?;
                if is_cast(src, toks, j, close) {
                    j = close + 1;
                } else {
                    break;
                }
            }
            _ => break,
        }
    }
    let t = toks.get(j)?;
    let mut end = match t.text(src) {
        "(" => matching_close(src, toks, j)?,
        _ if matches!(t.kind, Kind::Ident | Kind::Number | Kind::Literal) => j,
        _ => return None,
    };
    // Postfix: calls, indexing, members.
    loop {
        match toks.get(end + 1).map(|t| t.text(src)) {
            Some("(") | Some("[") => end = matching_close(src, toks, end + 1)?,
            Some(".") | Some("->") if toks.get(end + 2).is_some_and(|t| t.kind == Kind::Ident) => {
                end += 2
            }
            _ => return Some(end),
        }
    }
}

fn is_one(text: &str) -> bool {
    matches!(
        text.trim_end_matches(['f', 'F']),
        "1.0" | "1." | "1.00" | "1.0e0" | "1e0"
    )
}

/// Renames calls in `body`: every `name(` that is not a member call goes to `rename(name)`,
/// which returns the new name or `None` to leave it.
pub(crate) fn rename_calls(
    body: &str,
    mut rename: impl FnMut(&str) -> Option<String>,
) -> Result<String, TransformError> {
    let toks = tokens(body).map_err(TransformError::Lex)?;
    let mut out = String::with_capacity(body.len() * 2);
    let mut last = 0;
    for (k, t) in toks.iter().enumerate() {
        if t.kind != Kind::Ident || toks.get(k + 1).is_none_or(|n| n.text(body) != "(") {
            continue;
        }
        if k > 0 && matches!(toks[k - 1].text(body), "." | "->" | "::") {
            continue;
        }
        let Some(replacement) = rename(t.text(body)) else {
            continue;
        };
        out.push_str(&body[last..t.start]);
        out.push_str(&replacement);
        last = t.end;
    }
    out.push_str(&body[last..]);
    Ok(out)
}

/// The SFU helper a standard function's call becomes (`expf` → `sg_sfu_expf`), if it has one.
pub(crate) fn sfu_name(name: &str) -> Option<&'static str> {
    CALLS.iter().find(|(n, _)| *n == name).map(|(_, sfu)| *sfu)
}

/// Rewrites a function body's text: calls to their SFU helpers, device functions to their SFU
/// copies, `/` to `sg_sfu_div` / `sg_sfu_rcp`. Counts go into `rewrites`.
fn rewrite_body(
    body: &str,
    copied: &[String],
    rewrites: &mut BTreeMap<String, usize>,
) -> Result<String, TransformError> {
    let out = rename_calls(body, |name| {
        if let Some(sfu) = sfu_name(name) {
            *rewrites.entry(name.to_owned()).or_default() += 1;
            Some(sfu.to_owned())
        } else if copied.iter().any(|c| c == name) {
            Some(format!("{name}_sg_sfu"))
        } else {
            None
        }
    })?;
    approximate_divisions(out, "sg_sfu", rewrites)
}

/// `text` with every binary `/` made `{prefix}_div(a, b)`, `1/x` `{prefix}_rcp(1, x)` and
/// `1/sg_sfu_sqrt(x)` one `sg_sfu_rsqrt(x)`. Counts go into `rewrites`.
pub(crate) fn approximate_divisions(
    mut text: String,
    prefix: &str,
    rewrites: &mut BTreeMap<String, usize>,
) -> Result<String, TransformError> {
    // Divisions, leftmost first, re-lexing after each so `a / b / c` nests correctly.
    loop {
        let toks = tokens(&text).map_err(TransformError::Lex)?;
        let Some(i) = toks
            .iter()
            .position(|t| t.kind == Kind::Punct && t.text(&text) == "/")
        else {
            break;
        };
        let syntax = |what: &str| TransformError::Syntax {
            line: line(&text, &toks[i]),
            what: what.to_owned(),
        };
        let l = left_operand(&text, &toks, i)
            .ok_or_else(|| syntax("cannot find the left operand of /"))?;
        let r = right_operand(&text, &toks, i)
            .ok_or_else(|| syntax("cannot find the right operand of /"))?;
        let (lt, rt) = (
            &text[toks[l].start..toks[i - 1].end],
            &text[toks[i + 1].start..toks[r].end],
        );
        // `1 / sqrt(x)` is one MUFU.RSQ, not a square root and a reciprocal.
        let sqrt_call = ["sg_sfu_sqrtf", "sg_sfu_sqrt"]
            .into_iter()
            .find(|name| toks[i + 1].text(&text) == *name)
            .filter(|_| {
                toks.get(i + 2).is_some_and(|t| t.text(&text) == "(")
                    && matching_close(&text, &toks, i + 2) == Some(r)
            });
        let call = if let (Some(name), true) = (sqrt_call, l == i - 1 && is_one(lt)) {
            *rewrites.entry("1/sqrt".into()).or_default() += 1;
            let inner = &text[toks[i + 3].start..toks[r - 1].end];
            format!("{}({inner})", name.replace("sqrt", "rsqrt"))
        } else if l == i - 1 && is_one(lt) {
            *rewrites.entry("1/x".into()).or_default() += 1;
            format!("{prefix}_rcp({lt}, {rt})")
        } else {
            *rewrites.entry("/".into()).or_default() += 1;
            format!("{prefix}_div({lt}, {rt})")
        };
        text = format!("{}{call}{}", &text[..toks[l].start], &text[toks[r].end..]);
    }
    Ok(text)
}

/// `body` with every `__syncthreads()` call made the non-aligned `sg_barrier()`.
pub(crate) fn unaligned_barriers(body: &str) -> Result<String, TransformError> {
    let toks = tokens(body).map_err(TransformError::Lex)?;
    let mut out = String::with_capacity(body.len());
    let mut last = 0;
    for t in toks.iter().filter(|t| t.text(body) == "__syncthreads") {
        out.push_str(&body[last..t.start]);
        out.push_str("sg_barrier");
        last = t.end;
    }
    out.push_str(&body[last..]);
    Ok(out)
}

/// `body` without its top-level `__shared__` declarations, and those declarations. A
/// declaration nested in a block is an error.
pub(crate) fn hoist_shared(kernel: &str, body: &str) -> Result<(String, String), TransformError> {
    let toks = tokens(body).map_err(TransformError::Lex)?;
    let mut depth = 0i32;
    let mut stmt_start = 0usize; // byte offset where the current statement starts
    let mut kept = String::with_capacity(body.len());
    let mut hoisted = String::new();
    let mut last = 0usize;
    let mut i = 0;
    while i < toks.len() {
        let t = toks[i];
        match t.text(body) {
            "{" | "(" | "[" => depth += 1,
            "}" | ")" | "]" => depth -= 1,
            "__shared__" if depth > 0 => {
                return Err(TransformError::Unsupported {
                    kernel: kernel.to_owned(),
                    what: format!(
                        "a __shared__ declaration inside a block (line {})",
                        line(body, &t)
                    ),
                })
            }
            "__shared__" => {
                let end = (i..toks.len())
                    .find(|&k| toks[k].text(body) == ";")
                    .ok_or_else(|| TransformError::Syntax {
                        line: line(body, &t),
                        what: "__shared__ declaration without ';'".into(),
                    })?;
                kept.push_str(&body[last..stmt_start]);
                hoisted.push_str(body[stmt_start..toks[end].end].trim());
                hoisted.push(' ');
                last = toks[end].end;
                stmt_start = last;
                i = end + 1;
                continue;
            }
            _ => {}
        }
        if depth == 0 && matches!(t.text(body), ";" | "{" | "}") {
            stmt_start = t.end;
        }
        i += 1;
    }
    kept.push_str(&body[last..]);
    Ok((kept, hoisted))
}

/// The SFU helpers the rewritten code calls: catalog device functions plus overload sets that
/// pick the f32 or f64 form by argument type.
pub fn prelude() -> String {
    let mut p = String::from(
        "// ---- sigpu-approx: SFU forms (generated) ----\n\
         // __syncthreads() for warps that may run different copies of a body: not .aligned.\n\
         __device__ __forceinline__ void sg_barrier() { asm volatile(\"barrier.sync 0;\" ::: \"memory\"); }\n",
    );
    for f in catalog::CATALOG.iter().filter(|f| f.precision.bytes() >= 4) {
        p += &f.device_functions();
    }
    let apx = |key: &str| -> String {
        let f: &Function = catalog::find(key).expect("catalog key");
        f.approx_fn()
    };
    p += "template <class A, class B> struct sg_same { static const bool value = false; };\n\
          template <class A> struct sg_same<A, A> { static const bool value = true; };\n";
    for (std, f32key, f64key) in [
        ("exp", "exp_f32", None),
        ("log", "log_f32", None),
        ("sin", "sin_f32", None),
        ("cos", "cos_f32", None),
        ("sqrt", "sqrt_f32", Some("sqrt_f64")),
        ("rsqrt", "rsqrt_f32", Some("rsqrt_f64")),
        ("tanh", "tanh_f32", None),
    ] {
        p += &format!(
            "__device__ __forceinline__ float sg_sfu_{std}f(float x) {{ return {a}(x); }}\n\
             __device__ __forceinline__ float sg_sfu_{std}(float x) {{ return {a}(x); }}\n\
             __device__ __forceinline__ double sg_sfu_{std}(double x) {{ return {d}; }}\n\
             template <class T> __device__ __forceinline__ auto sg_sfu_{std}(T x) {{ return {std}(x); }}\n",
            a = apx(f32key),
            d = f64key.map_or(format!("{std}(x)"), |k| format!("{}(x)", apx(k))),
        );
    }
    p += &format!(
        "__device__ __forceinline__ float sg_sfu_powf(float x, float y) {{ return {pw}(x, y); }}\n\
         __device__ __forceinline__ float sg_sfu_pow(float x, float y) {{ return {pw}(x, y); }}\n\
         template <class A, class B> __device__ __forceinline__ auto sg_sfu_pow(A x, B y) {{ return pow(x, y); }}\n\
         template <class A, class B> __device__ __forceinline__ auto sg_sfu_div(A a, B b) -> decltype(a / b) {{\n\
         \x20   typedef decltype(a / b) R;\n\
         \x20   if constexpr (sg_same<R, float>::value) return {d32}((float)a, (float)b);\n\
         \x20   else if constexpr (sg_same<R, double>::value) return {d64}((double)a, (double)b);\n\
         \x20   else return a / b;\n\
         }}\n\
         template <class A, class B> __device__ __forceinline__ auto sg_sfu_rcp(A one, B b) -> decltype(one / b) {{\n\
         \x20   typedef decltype(one / b) R;\n\
         \x20   if constexpr (sg_same<R, float>::value) return {r32}((float)b);\n\
         \x20   else if constexpr (sg_same<R, double>::value) return {r64}((double)b);\n\
         \x20   else return one / b;\n\
         }}\n\
         // ---- end of SFU forms ----\n",
        pw = apx("pow_f32"),
        d32 = apx("div_f32"),
        d64 = apx("div_f64"),
        r32 = apx("rcp_f32"),
        r64 = apx("rcp_f64"),
    );
    p
}

/// The kernel named `kernel` among `defs`, or an error listing the kernels there are.
fn find_kernel<'d>(defs: &'d [FnDef], kernel: &str) -> Result<&'d FnDef, TransformError> {
    let kernels = || defs.iter().filter(|d| d.global && d.extern_c);
    kernels()
        .find(|d| d.name == kernel)
        .ok_or_else(|| TransformError::NoKernel {
            name: kernel.to_owned(),
            known: kernels()
                .map(|d| d.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        })
}

/// The device functions that reach a standard call or a division, to a fixed point: these get
/// SFU twins.
fn reaching_devices(
    devices: &[&FnDef],
    body_of: impl Fn(&FnDef) -> String,
) -> Result<Vec<String>, TransformError> {
    let mut copied: Vec<String> = Vec::new();
    loop {
        let before = copied.len();
        for d in devices {
            if copied.contains(&d.name) {
                continue;
            }
            let body = body_of(d);
            if rewrite_body(&body, &copied, &mut BTreeMap::new())? != body {
                copied.push(d.name.clone());
            }
        }
        if copied.len() == before {
            return Ok(copied);
        }
    }
}

/// Barriers with a result cannot be split between the two bodies of a λ kernel.
fn refuse_counting_barriers(src: &str, toks: &[Token], k: &FnDef) -> Result<(), TransformError> {
    let bad = [
        "__syncthreads_count",
        "__syncthreads_and",
        "__syncthreads_or",
    ];
    match toks[k.body.0..k.body.1]
        .iter()
        .find(|t| bad.contains(&t.text(src)))
    {
        Some(t) => Err(TransformError::Unsupported {
            kernel: k.name.clone(),
            what: t.text(src).to_owned(),
        }),
        None => Ok(()),
    }
}

/// The three generated kernels' text: the all-SFU kernel and the two λ kernels (`%warpid`
/// and warp-in-block), each with the shared arrays declared once above the branch.
struct Generated<'a> {
    kernel: &'a str,
    head: &'a str,
    params: String,
    sfu_body: String,
    shared: String,
    lambda_sfu_body: String,
    body: String,
}

impl Generated<'_> {
    fn names(&self) -> (String, String, String) {
        let k = self.kernel;
        (
            format!("{k}_sfu"),
            format!("{k}_lambda"),
            format!("{k}_lambda_block"),
        )
    }

    fn with(&self, extra: &str) -> String {
        if self.params.is_empty() || self.params == "void" {
            extra.to_owned()
        } else {
            format!("{}, {extra}", self.params)
        }
    }

    fn source(&self) -> String {
        let (sfu, lam, blk) = self.names();
        let (kernel, head, params) = (self.kernel, self.head, &self.params);
        let (sfu_body, shared) = (&self.sfu_body, &self.shared);
        let (lambda_sfu_body, body) = (&self.lambda_sfu_body, &self.body);
        format!(
            "\n// ---- generated by sigpu-approx from {kernel} ----\n\
             {head} {sfu}({params}) {{{sfu_body}}}\n\
             {head} {lam}({lam_params}) {{\n\
             \x20   {shared}\n\
             \x20   unsigned int sg_warp, sg_lane;\n\
             \x20   asm volatile(\"mov.u32 %0, %%warpid;\" : \"=r\"(sg_warp));\n\
             \x20   asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(sg_lane));\n\
             \x20   if (sg_slots != 0 && sg_lane == 0) atomicMax(sg_slots, sg_warp);\n\
             \x20   if ((int)sg_warp < sg_lambda) {{{lambda_sfu_body}}} else {{{body}}}\n\
             }}\n\
             {head} {blk}({blk_params}) {{\n\
             \x20   {shared}\n\
             \x20   const unsigned int sg_warp = (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) / 32u;\n\
             \x20   if ((int)sg_warp < sg_lambda) {{{lambda_sfu_body}}} else {{{body}}}\n\
             }}\n",
            lam_params = self.with("int sg_lambda, unsigned int* sg_slots"),
            blk_params = self.with("int sg_lambda"),
        )
    }
}

/// Transforms `kernel` (an `extern "C" __global__` function of `source`).
pub fn transform(source: &str, kernel: &str) -> Result<Transformed, TransformError> {
    let toks = tokens(source).map_err(TransformError::Lex)?;
    let defs = functions(source, &toks);
    let k = find_kernel(&defs, kernel)?;
    // Tokens a..=b; none when b < a (empty parameters `()`, no return type before the name).
    let text_of = |a: usize, b: usize| match b.checked_sub(a) {
        Some(_) => &source[toks[a].start..toks[b].end],
        None => "",
    };
    // What precedes the name (qualifiers, return type): nothing for a name at the start.
    let head_of = |d: &FnDef| match d.name_tok > d.decl_start {
        true => text_of(d.decl_start, d.name_tok - 1),
        false => "",
    };
    let body_of = |d: &FnDef| &source[toks[d.body.0].end..toks[d.body.1].start];
    let devices: Vec<&FnDef> = defs.iter().filter(|d| !d.global).collect();
    let copied = reaching_devices(&devices, |d| body_of(d).to_owned())?;
    refuse_counting_barriers(source, &toks, k)?;
    let mut rewrites = BTreeMap::new();
    let sfu_body = rewrite_body(body_of(k), &copied, &mut rewrites)?;
    if sfu_body == body_of(k) {
        return Err(TransformError::NothingToApproximate(kernel.to_owned()));
    }
    // The output: prelude, the input with each copied device function's SFU twin after it,
    // then the three generated kernels.
    let mut out = prelude();
    let mut last = 0;
    for d in devices.iter().filter(|d| copied.contains(&d.name)) {
        let end = toks[d.body.1].end;
        out.push_str(&source[last..end]);
        let body = rewrite_body(body_of(d), &copied, &mut rewrites)?;
        out += &format!(
            "\n{} {}_sg_sfu{} {{{}}}",
            head_of(d),
            d.name,
            text_of(d.params.0, d.params.1),
            body
        );
        last = end;
    }
    out.push_str(&source[last..]);
    // The λ kernels' bodies: shared arrays declared once above the branch, barriers that any
    // warp may reach from either copy.
    let (shared_free, shared) = hoist_shared(kernel, body_of(k))?;
    let generated = Generated {
        kernel,
        head: head_of(k),
        params: text_of(k.params.0 + 1, k.params.1 - 1).trim().to_owned(),
        sfu_body,
        lambda_sfu_body: unaligned_barriers(&rewrite_body(
            &shared_free,
            &copied,
            &mut BTreeMap::new(),
        )?)?,
        body: unaligned_barriers(&shared_free)?,
        shared,
    };
    out += &generated.source();
    let (sfu_kernel, lambda_kernel, block_kernel) = generated.names();
    Ok(Transformed {
        source: out,
        kernel: kernel.to_owned(),
        sfu_kernel,
        lambda_kernel,
        block_kernel,
        rewrites,
        device_functions: copied,
    })
}

/// Where kernel `kernel` of `source` keeps its body: the byte range between its braces (for the
/// per-call-site generator, which replaces it). Refuses what [`transform`] refuses.
pub(crate) fn kernel_body_span(
    source: &str,
    kernel: &str,
) -> Result<std::ops::Range<usize>, TransformError> {
    let toks = tokens(source).map_err(TransformError::Lex)?;
    let defs = functions(source, &toks);
    let k = find_kernel(&defs, kernel)?;
    refuse_counting_barriers(source, &toks, k)?;
    Ok(toks[k.body.0].end..toks[k.body.1].start)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sfu(body: &str) -> String {
        rewrite_body(body, &[], &mut BTreeMap::new()).unwrap()
    }

    #[test]
    fn divisions_keep_their_operands_and_precedence() {
        let cases = [
            ("y = a * b / c;", "y = sg_sfu_div(a * b, c);"),
            ("y = a + b / c[i];", "y = a + sg_sfu_div(b, c[i]);"),
            ("y = a / b / c;", "y = sg_sfu_div(sg_sfu_div(a, b), c);"),
            ("y = -x / (1.0f + t);", "y = sg_sfu_div(-x, (1.0f + t));"),
            ("y = 1.0f / x;", "y = sg_sfu_rcp(1.0f, x);"),
            ("y = 1.0f / sqrtf(a + b);", "y = sg_sfu_rsqrtf(a + b);"),
            ("y = 1.0 / sqrt(d) * 2.0;", "y = sg_sfu_rsqrt(d) * 2.0;"),
            (
                "y = 1.0f / sqrtf(a) / b;",
                "y = sg_sfu_div(sg_sfu_rsqrtf(a), b);",
            ),
            ("y = (float)i / n;", "y = sg_sfu_div((float)i, n);"),
            ("y = p.x / q->w;", "y = sg_sfu_div(p.x, q->w);"),
            ("y = f(a, b) / -g(c);", "y = sg_sfu_div(f(a, b), -g(c));"),
            ("y = a - b * c / d;", "y = a - sg_sfu_div(b * c, d);"),
            ("return (a + b) / c;", "return sg_sfu_div((a + b), c);"),
        ];
        for (input, want) in cases {
            assert_eq!(sfu(input), want, "{input}");
        }
        assert_eq!(
            sfu("x /= 2.0f;"),
            "x /= 2.0f;",
            "compound division stays accurate"
        );
    }

    #[test]
    fn calls_are_renamed_but_members_are_not() {
        assert_eq!(
            sfu("r = sqrtf(-2.0f * logf(u)) * cosf(p); q = s.exp(1);"),
            "r = sg_sfu_sqrtf(-2.0f * sg_sfu_logf(u)) * sg_sfu_cosf(p); q = s.exp(1);"
        );
    }

    const SRC: &str = r#"
#define PI 3.14159265f
__device__ float helper(float u) { return sqrtf(-2.0f * logf(u)); }
__device__ int plain(int a) { return a + 1; }
extern "C" __global__ void __launch_bounds__(256) box(const float* u, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    for (int k = 0; k < 4; k++) out[i * 4 + k] = helper(u[i]) * cosf(2.0f * PI * u[i]) + plain(k) / 2;
}
"#;

    /// Malformed sources (every truncation of a valid one, each single character removed, a
    /// multi-byte character inserted anywhere) give an error or a transform, never a panic.
    #[test]
    fn mangled_sources_never_panic() {
        let cuts = (0..=SRC.len()).filter(|&i| SRC.is_char_boundary(i));
        let prefixes = cuts.clone().map(|i| SRC[..i].to_owned());
        let holes = cuts
            .filter(|&i| i < SRC.len())
            .map(|i| format!("{}{}", &SRC[..i], &SRC[i + 1..]));
        // A multi-byte character anywhere (comments, strings, or stray in code).
        let accents = (0..=SRC.len()).map(|i| format!("{}λ{}", &SRC[..i], &SRC[i..]));
        for src in prefixes.chain(holes).chain(accents) {
            let r = std::panic::catch_unwind(|| transform(&src, "box").map(drop));
            assert!(r.is_ok(), "panicked on:\n{src}");
        }
    }

    #[test]
    fn generates_all_three_kernels_and_copies_device_functions() {
        let t = transform(SRC, "box").unwrap();
        assert_eq!(t.device_functions, vec!["helper"]);
        assert!(t.source.contains("helper_sg_sfu(float u)"), "{}", t.source);
        assert!(t.source.contains("void __launch_bounds__(256) box_lambda(const float* u, float* out, int n, int sg_lambda, unsigned int* sg_slots)"));
        assert!(t
            .source
            .contains("box_lambda_block(const float* u, float* out, int n, int sg_lambda)"));
        assert_eq!(t.rewrites["cosf"], 1);
        assert_eq!(t.rewrites["logf"], 1);
        assert_eq!(
            t.rewrites["/"], 1,
            "the integer division goes through sg_sfu_div too"
        );
        // The original functions are still there, unchanged.
        let kernel = &SRC[SRC.find("extern").unwrap()..];
        assert!(t.source.contains(kernel.trim()));
        assert!(t
            .source
            .contains("__device__ float helper(float u) { return sqrtf(-2.0f * logf(u)); }"));
    }

    #[test]
    fn lambda_kernels_use_unaligned_barriers() {
        let src = "extern \"C\" __global__ void r(float* x) { __shared__ float s[32]; \
                   s[threadIdx.x] = expf(x[threadIdx.x]); __syncthreads(); x[0] = s[1]; }";
        let t = transform(src, "r").unwrap();
        let lambda = &t.source[t.source.find("r_lambda(").unwrap()..];
        assert!(!lambda.contains("__syncthreads"), "{lambda}");
        assert_eq!(lambda.matches("sg_barrier()").count(), 4, "{lambda}");
        // One shared array per λ kernel, declared before the branch.
        assert_eq!(
            lambda.matches("__shared__ float s[32];").count(),
            2,
            "{lambda}"
        );
        let first = lambda.find("__shared__").unwrap();
        assert!(first < lambda.find("%%warpid").unwrap(), "{lambda}");
        let nested = src.replace("__shared__ float s[32];", "{ __shared__ float s[32]; }");
        assert!(matches!(
            transform(&nested, "r"),
            Err(TransformError::Unsupported { .. })
        ));
        let sfu = &t.source[t.source.find("r_sfu(").unwrap()..t.source.find("r_lambda(").unwrap()];
        assert!(
            sfu.contains("__syncthreads()"),
            "the all-SFU kernel keeps the aligned barrier"
        );
        let bad = src.replace("__syncthreads()", "__syncthreads_count(1)");
        assert!(matches!(
            transform(&bad, "r"),
            Err(TransformError::Unsupported { .. })
        ));
    }

    #[test]
    fn errors_name_the_problem() {
        let e = transform(SRC, "nope").unwrap_err().to_string();
        assert!(e.contains("\"nope\"") && e.contains("box"), "{e}");
        let e = transform(
            "extern \"C\" __global__ void k(float* x) { x[0] = 1.0f; }",
            "k",
        )
        .unwrap_err();
        assert!(matches!(e, TransformError::NothingToApproximate(_)));
    }
}
