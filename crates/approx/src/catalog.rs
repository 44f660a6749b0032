//! The function catalog: every transcendental an SM's special-function unit (MUFU) can
//! approximate, with its accurate CUDA form and its approximate PTX form, as data.
//!
//! The paper's 9 single-precision and 4 double-precision functions (its Tables 1 and 2), plus
//! what Hopper adds: `tanh.approx.f32` and `ex2.approx` on f16 and bf16. Each entry carries the
//! CUDA device-function bodies both versions compile from, the input domains the error is
//! measured over, the dependent-chain step the latency benchmark runs and the f64 reference.
//!
//! Approximate forms are inline PTX with `.ftz` (flush-to-zero per instruction, so the rest of
//! the kernel keeps IEEE denormals); accurate forms are the plain CUDA calls compiled without
//! `--use_fast_math` (NVRTC's defaults: `-prec-div=true -prec-sqrt=true -ftz=false`).

use crate::error::ApproxError;
pub use crate::precision::Precision;
use serde::Serialize;

/// How random inputs are drawn for one argument.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Range {
    /// Uniform in [lo, hi].
    Uniform {
        /// Lower end.
        lo: f64,
        /// Upper end.
        hi: f64,
    },
    /// |x| = 2^u with u uniform in [lo_exp, hi_exp]; the sign random when `signed`.
    LogUniform {
        /// Exponent of the smallest magnitude.
        lo_exp: f64,
        /// Exponent of the largest magnitude.
        hi_exp: f64,
        /// Negative values too, half the time.
        signed: bool,
    },
}

impl Range {
    /// Maps two uniform [0, 1) draws to a value in the range.
    pub fn sample(&self, u: f64, sign: f64) -> f64 {
        match *self {
            Range::Uniform { lo, hi } => lo + (hi - lo) * u,
            Range::LogUniform {
                lo_exp,
                hi_exp,
                signed,
            } => {
                let m = (lo_exp + (hi_exp - lo_exp) * u).exp2();
                if signed && sign < 0.5 {
                    -m
                } else {
                    m
                }
            }
        }
    }

    /// The range as the catalog table prints it: `[lo, hi]` or `±[2^a, 2^b]`.
    pub fn describe(&self) -> String {
        match *self {
            Range::Uniform { lo, hi } => format!("[{lo}, {hi}]"),
            Range::LogUniform {
                lo_exp,
                hi_exp,
                signed,
            } => format!("{}[2^{lo_exp}, 2^{hi_exp}]", if signed { "±" } else { "" }),
        }
    }
}

/// Inputs of one error measurement: a range for x and, for two-argument functions, for y.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Domain {
    /// Range of the first argument.
    pub x: Range,
    /// Range of the second argument; `None` for one-argument functions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub y: Option<Range>,
}

/// One catalog entry.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Function {
    /// Short identifier, also used in generated kernel names: `exp_f32`, `div_f64`, ….
    pub key: &'static str,
    /// The mathematical function: `x/y`, `1/x`, `sqrt(x)`, ….
    pub math: &'static str,
    /// Element type of the arguments and the result.
    pub precision: Precision,
    /// 1 or 2 arguments.
    pub arity: u8,
    /// The accurate version as a CUDA user writes it.
    pub accurate_cuda: &'static str,
    /// The accurate version in PTX terms (what NVRTC makes of it).
    pub accurate_ptx: &'static str,
    /// The approximate (SFU) version: the PTX instructions emitted.
    pub approx_ptx: &'static str,
    /// The CUDA intrinsic with the same meaning, where one exists.
    pub intrinsic: Option<&'static str>,
    /// Body of the accurate device function (arguments `x`, `y`).
    #[serde(skip)]
    pub accurate_body: &'static str,
    /// Body of the approximate device function.
    #[serde(skip)]
    pub approx_body: &'static str,
    /// The documented range where the approximation's bound holds.
    pub domain: Domain,
    /// A wide range, past the documented one, where the approximation's failure modes show.
    pub wide: Domain,
    /// Dependent-chain step for the latency benchmark: an expression in `{x}` (the previous
    /// result), `y` (a fixed second argument) and `{F}` (the function). Chains stay in the domain
    /// by construction (e.g. x ← e^(−x) converges to 0.567); `glue` names any extra op.
    #[serde(skip)]
    pub chain: &'static str,
    /// The chain's extra operation besides the call, if any (counted in the latency).
    pub chain_glue: Option<&'static str>,
    /// Second argument of the chain (two-argument functions).
    #[serde(skip)]
    pub chain_y: f64,
    /// Starting value of the chain.
    #[serde(skip)]
    pub chain_x0: f64,
    /// Lowest SM architecture the approximate form needs (e.g. 75 for `tanh.approx`).
    pub min_sm: u32,
    /// What NVIDIA documents for the approximate form's error.
    pub documented_error: &'static str,
    /// The CPU reference, evaluated in f64 (y ignored for one-argument functions).
    #[serde(skip)]
    pub reference: fn(f64, f64) -> f64,
}

/// Which version of a function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Version {
    /// libdevice / IEEE-rounded CUDA (the paper's SPU/DPU version).
    Accurate,
    /// `.approx` PTX on the special-function unit.
    Sfu,
}

impl Version {
    /// Both versions, accurate first.
    pub const BOTH: [Version; 2] = [Version::Accurate, Version::Sfu];

    /// The short tag in generated kernel names.
    pub fn tag(self) -> &'static str {
        match self {
            Version::Accurate => "acc",
            Version::Sfu => "apx",
        }
    }
}

impl Function {
    /// Name of the accurate device function generated for this entry.
    pub fn accurate_fn(&self) -> String {
        format!("sg_acc_{}", self.key)
    }

    /// Name of the approximate device function generated for this entry.
    pub fn approx_fn(&self) -> String {
        format!("sg_apx_{}", self.key)
    }

    /// Name of the device function of version `v`.
    pub fn device_fn(&self, v: Version) -> String {
        match v {
            Version::Accurate => self.accurate_fn(),
            Version::Sfu => self.approx_fn(),
        }
    }

    /// The form of version `v` as the tables print it: the CUDA call or the PTX instructions.
    pub fn form(&self, v: Version) -> &'static str {
        match v {
            Version::Accurate => self.accurate_cuda,
            Version::Sfu => self.approx_ptx,
        }
    }

    /// `args` joined as this function's argument list: the first only for one-argument
    /// functions, both for two-argument ones.
    pub fn arguments(&self, args: [&str; 2]) -> String {
        if self.arity == 2 {
            args.join(", ")
        } else {
            args[0].to_owned()
        }
    }

    /// Both device functions, as CUDA source.
    pub fn device_functions(&self) -> String {
        let t = self.precision.cuda_type();
        let params = self.arguments([&format!("{t} x"), &format!("{t} y")]);
        format!(
            "__device__ __forceinline__ {t} {acc}({params}) {{ {ab} }}\n\
             __device__ __forceinline__ {t} {apx}({params}) {{ {xb} }}\n",
            acc = self.accurate_fn(),
            apx = self.approx_fn(),
            ab = self.accurate_body,
            xb = self.approx_body,
        )
    }
}

const fn uni(lo: f64, hi: f64) -> Range {
    Range::Uniform { lo, hi }
}
const fn log2u(lo_exp: f64, hi_exp: f64, signed: bool) -> Range {
    Range::LogUniform {
        lo_exp,
        hi_exp,
        signed,
    }
}
const fn one(x: Range) -> Domain {
    Domain { x, y: None }
}
const fn two(x: Range, y: Range) -> Domain {
    Domain { x, y: Some(y) }
}

fn r_div(x: f64, y: f64) -> f64 {
    x / y
}
fn r_rcp(x: f64, _: f64) -> f64 {
    1.0 / x
}
fn r_sqrt(x: f64, _: f64) -> f64 {
    x.sqrt()
}
fn r_rsqrt(x: f64, _: f64) -> f64 {
    1.0 / x.sqrt()
}
fn r_pow(x: f64, y: f64) -> f64 {
    x.powf(y)
}
fn r_exp(x: f64, _: f64) -> f64 {
    x.exp()
}
fn r_ln(x: f64, _: f64) -> f64 {
    x.ln()
}
fn r_sin(x: f64, _: f64) -> f64 {
    x.sin()
}
fn r_cos(x: f64, _: f64) -> f64 {
    x.cos()
}
fn r_tanh(x: f64, _: f64) -> f64 {
    x.tanh()
}
fn r_exp2(x: f64, _: f64) -> f64 {
    x.exp2()
}

// f16 / bf16 ⇄ f32 conversions in PTX (no cuda_fp16.h needed under NVRTC).
const F16_ACC_EX2: &str = "float f; asm(\"cvt.f32.f16 %0, %1;\" : \"=f\"(f) : \"h\"(x)); \
    f = exp2f(f); unsigned short r; asm(\"cvt.rn.f16.f32 %0, %1;\" : \"=h\"(r) : \"f\"(f)); return r;";
const BF16_ACC_EX2: &str = "float f = __uint_as_float(((unsigned int)x) << 16); \
    f = exp2f(f); unsigned short r; asm(\"cvt.rn.bf16.f32 %0, %1;\" : \"=h\"(r) : \"f\"(f)); return r;";

/// What most entries share: f32, one argument, the chain x ← f(x), no intrinsic, any GPU
/// since Fermi. Each entry overrides what differs.
const UNARY: Function = Function {
    key: "",
    math: "",
    precision: Precision::F32,
    arity: 1,
    accurate_cuda: "",
    accurate_ptx: "",
    approx_ptx: "",
    intrinsic: None,
    accurate_body: "",
    approx_body: "",
    domain: one(uni(0.0, 0.0)),
    wide: one(uni(0.0, 0.0)),
    chain: "{F}({x})",
    chain_glue: None,
    chain_y: 0.0,
    chain_x0: 0.0,
    min_sm: 20,
    documented_error: "",
    reference: r_exp,
};

/// The body of an approximate form that is one SFU instruction on `x`: the C type, the asm
/// constraint letter and the instruction.
macro_rules! sfu {
    ($t:literal, $c:literal, $instr:literal) => {
        concat!(
            $t,
            " r; asm(\"",
            $instr,
            " %0, %1;\" : \"=",
            $c,
            "\"(r) : \"",
            $c,
            "\"(x)); return r;"
        )
    };
}

/// Every function, single precision first (the paper's Table 1 order), then double precision
/// (Table 2), then what Hopper adds.
pub const CATALOG: &[Function] = &[
    Function {
        key: "div_f32",
        math: "x/y",
        arity: 2,
        accurate_cuda: "x / y",
        accurate_ptx: "div.rn.f32",
        approx_ptx: "div.approx.ftz.f32",
        intrinsic: Some("__fdividef(x, y)"),
        accurate_body: "return x / y;",
        approx_body: "float r; asm(\"div.approx.ftz.f32 %0, %1, %2;\" : \"=f\"(r) : \"f\"(x), \"f\"(y)); return r;",
        domain: two(log2u(-20.0, 20.0, true), log2u(-60.0, 60.0, true)),
        wide: two(log2u(-126.0, 127.0, true), log2u(-126.0, 127.99, true)),
        chain: "{F}(y, {x})",
        chain_y: 1.5,
        chain_x0: 0.7,
        documented_error: "2 ulp for |y| in [2^-126, 2^126]; 0 beyond",
        reference: r_div,
        ..UNARY
    },
    Function {
        key: "rcp_f32",
        math: "1/x",
        accurate_cuda: "1.0f / x",
        accurate_ptx: "rcp.rn.f32",
        approx_ptx: "rcp.approx.ftz.f32",
        accurate_body: "return 1.0f / x;",
        approx_body: sfu!("float", "f", "rcp.approx.ftz.f32"),
        domain: one(log2u(-60.0, 60.0, true)),
        wide: one(log2u(-126.0, 127.99, true)),
        chain_x0: 0.7,
        documented_error: "1 ulp",
        reference: r_rcp,
        ..UNARY
    },
    Function {
        key: "sqrt_f32",
        math: "sqrt(x)",
        accurate_cuda: "sqrtf(x)",
        accurate_ptx: "sqrt.rn.f32",
        approx_ptx: "sqrt.approx.ftz.f32",
        accurate_body: "return sqrtf(x);",
        approx_body: sfu!("float", "f", "sqrt.approx.ftz.f32"),
        domain: one(log2u(-100.0, 100.0, false)),
        wide: one(log2u(-149.0, 127.99, false)),
        chain_x0: 3.0,
        documented_error: "2^-23 relative",
        reference: r_sqrt,
        ..UNARY
    },
    Function {
        key: "rsqrt_f32",
        math: "1/sqrt(x)",
        accurate_cuda: "1.0f / sqrtf(x)",
        accurate_ptx: "sqrt.rn.f32 + rcp.rn.f32",
        approx_ptx: "rsqrt.approx.ftz.f32",
        intrinsic: Some("rsqrtf(x)"),
        accurate_body: "return 1.0f / sqrtf(x);",
        approx_body: sfu!("float", "f", "rsqrt.approx.ftz.f32"),
        domain: one(log2u(-100.0, 100.0, false)),
        wide: one(log2u(-149.0, 127.99, false)),
        chain_x0: 3.0,
        documented_error: "2^-22.9 relative",
        reference: r_rsqrt,
        ..UNARY
    },
    Function {
        key: "pow_f32",
        math: "x^y",
        arity: 2,
        accurate_cuda: "powf(x, y)",
        accurate_ptx: "libdevice __nv_powf (software, FMA pipe)",
        approx_ptx: "lg2.approx.ftz.f32, mul.ftz.f32, ex2.approx.ftz.f32",
        intrinsic: Some("__powf(x, y)"),
        accurate_body: "return powf(x, y);",
        approx_body: "float l, p, r; asm(\"lg2.approx.ftz.f32 %0, %1;\" : \"=f\"(l) : \"f\"(x)); \
            asm(\"mul.ftz.f32 %0, %1, %2;\" : \"=f\"(p) : \"f\"(l), \"f\"(y)); \
            asm(\"ex2.approx.ftz.f32 %0, %1;\" : \"=f\"(r) : \"f\"(p)); return r;",
        domain: two(log2u(-8.0, 8.0, false), uni(-8.0, 8.0)),
        wide: two(log2u(-60.0, 60.0, false), uni(-2.0, 2.0)),
        chain: "{F}({x}, y)",
        chain_y: -0.9,
        chain_x0: 1.7,
        documented_error: "none (built from ex2/lg2; grows with |y·log2 x|)",
        reference: r_pow,
        ..UNARY
    },
    Function {
        key: "exp_f32",
        math: "e^x",
        accurate_cuda: "expf(x)",
        accurate_ptx: "libdevice __nv_expf (range reduction + ex2.approx)",
        approx_ptx: "mul.ftz.f32 by log2 e, ex2.approx.ftz.f32",
        intrinsic: Some("__expf(x)"),
        accurate_body: "return expf(x);",
        approx_body: "float t, r; asm(\"mul.ftz.f32 %0, %1, 0f3FB8AA3B;\" : \"=f\"(t) : \"f\"(x)); \
            asm(\"ex2.approx.ftz.f32 %0, %1;\" : \"=f\"(r) : \"f\"(t)); return r;",
        domain: one(uni(-10.0, 10.0)),
        wide: one(uni(-87.0, 88.0)),
        chain: "{F}(-{x})",
        chain_x0: 0.5,
        documented_error: "2 + floor(|1.173·x|) ulp (ex2.approx: 2 ulp)",
        reference: r_exp,
        ..UNARY
    },
    Function {
        key: "log_f32",
        math: "ln(x)",
        accurate_cuda: "logf(x)",
        accurate_ptx: "libdevice __nv_logf (software, FMA pipe)",
        approx_ptx: "lg2.approx.ftz.f32, mul.ftz.f32 by ln 2",
        intrinsic: Some("__logf(x)"),
        accurate_body: "return logf(x);",
        approx_body: "float t, r; asm(\"lg2.approx.ftz.f32 %0, %1;\" : \"=f\"(t) : \"f\"(x)); \
            asm(\"mul.ftz.f32 %0, %1, 0f3F317218;\" : \"=f\"(r) : \"f\"(t)); return r;",
        domain: one(log2u(-60.0, 60.0, false)),
        wide: one(log2u(-126.0, 127.99, false)),
        chain: "{F}({x} + 2.0f)",
        chain_glue: Some("fadd"),
        chain_x0: 1.0,
        documented_error: "2^-21.41 abs on [0.5, 2], 3 ulp elsewhere",
        reference: r_ln,
        ..UNARY
    },
    Function {
        key: "sin_f32",
        math: "sin(x)",
        accurate_cuda: "sinf(x)",
        accurate_ptx: "libdevice __nv_sinf (range reduction + polynomial)",
        approx_ptx: "sin.approx.ftz.f32",
        intrinsic: Some("__sinf(x)"),
        accurate_body: "return sinf(x);",
        approx_body: sfu!("float", "f", "sin.approx.ftz.f32"),
        domain: one(uni(-std::f64::consts::PI, std::f64::consts::PI)),
        wide: one(uni(-100.0 * std::f64::consts::PI, 100.0 * std::f64::consts::PI)),
        chain_x0: 1.0,
        documented_error: "2^-20.5 abs on [-2π, 2π], 2^-14.7 on [-100π, 100π]",
        reference: r_sin,
        ..UNARY
    },
    Function {
        key: "cos_f32",
        math: "cos(x)",
        accurate_cuda: "cosf(x)",
        accurate_ptx: "libdevice __nv_cosf (range reduction + polynomial)",
        approx_ptx: "cos.approx.ftz.f32",
        intrinsic: Some("__cosf(x)"),
        accurate_body: "return cosf(x);",
        approx_body: sfu!("float", "f", "cos.approx.ftz.f32"),
        domain: one(uni(-std::f64::consts::PI, std::f64::consts::PI)),
        wide: one(uni(-100.0 * std::f64::consts::PI, 100.0 * std::f64::consts::PI)),
        chain_x0: 1.0,
        documented_error: "2^-20.5 abs on [-2π, 2π], 2^-14.7 on [-100π, 100π]",
        reference: r_cos,
        ..UNARY
    },
    Function {
        key: "div_f64",
        math: "x/y",
        precision: Precision::F64,
        arity: 2,
        accurate_cuda: "x / y",
        accurate_ptx: "div.rn.f64",
        approx_ptx: "rcp.approx.ftz.f64, mul.f64",
        accurate_body: "return x / y;",
        approx_body: "double r; asm(\"rcp.approx.ftz.f64 %0, %1;\" : \"=d\"(r) : \"d\"(y)); return x * r;",
        domain: two(log2u(-100.0, 100.0, true), log2u(-100.0, 100.0, true)),
        wide: two(log2u(-1000.0, 1000.0, true), log2u(-1022.0, 1023.0, true)),
        chain: "{F}(y, {x})",
        chain_y: 1.5,
        chain_x0: 0.7,
        documented_error: "none (uses the top 32 input bits; low 32 result bits 0)",
        reference: r_div,
        ..UNARY
    },
    Function {
        key: "rcp_f64",
        math: "1/x",
        precision: Precision::F64,
        accurate_cuda: "1.0 / x",
        accurate_ptx: "rcp.rn.f64",
        approx_ptx: "rcp.approx.ftz.f64",
        accurate_body: "return 1.0 / x;",
        approx_body: sfu!("double", "d", "rcp.approx.ftz.f64"),
        domain: one(log2u(-100.0, 100.0, true)),
        wide: one(log2u(-1022.0, 1023.0, true)),
        chain_x0: 0.7,
        documented_error: "none (uses the top 32 input bits; low 32 result bits 0)",
        reference: r_rcp,
        ..UNARY
    },
    Function {
        key: "sqrt_f64",
        math: "sqrt(x)",
        precision: Precision::F64,
        accurate_cuda: "sqrt(x)",
        accurate_ptx: "sqrt.rn.f64",
        approx_ptx: "rsqrt.approx.ftz.f64, rcp.approx.ftz.f64",
        accurate_body: "return sqrt(x);",
        approx_body: "double t, r; asm(\"rsqrt.approx.ftz.f64 %0, %1;\" : \"=d\"(t) : \"d\"(x)); \
            asm(\"rcp.approx.ftz.f64 %0, %1;\" : \"=d\"(r) : \"d\"(t)); return r;",
        domain: one(log2u(-100.0, 100.0, false)),
        wide: one(log2u(-1022.0, 1023.0, false)),
        chain_x0: 3.0,
        documented_error: "none (two approximations chained)",
        reference: r_sqrt,
        ..UNARY
    },
    Function {
        key: "rsqrt_f64",
        math: "1/sqrt(x)",
        precision: Precision::F64,
        accurate_cuda: "1.0 / sqrt(x)",
        accurate_ptx: "sqrt.rn.f64 + rcp.rn.f64",
        approx_ptx: "rsqrt.approx.ftz.f64",
        accurate_body: "return 1.0 / sqrt(x);",
        approx_body: sfu!("double", "d", "rsqrt.approx.ftz.f64"),
        domain: one(log2u(-100.0, 100.0, false)),
        wide: one(log2u(-1022.0, 1023.0, false)),
        chain_x0: 3.0,
        documented_error: "none (low 32 result bits 0)",
        reference: r_rsqrt,
        ..UNARY
    },
    Function {
        key: "tanh_f32",
        math: "tanh(x)",
        accurate_cuda: "tanhf(x)",
        accurate_ptx: "libdevice __nv_tanhf",
        approx_ptx: "tanh.approx.f32",
        intrinsic: Some("__tanhf(x)"),
        accurate_body: "return tanhf(x);",
        approx_body: sfu!("float", "f", "tanh.approx.f32"),
        domain: one(uni(-5.0, 5.0)),
        wide: one(log2u(-30.0, 6.0, true)),
        chain_x0: 1.0,
        min_sm: 75,
        documented_error: "2^-11 relative",
        reference: r_tanh,
        ..UNARY
    },
    Function {
        key: "ex2_f16",
        math: "2^x",
        precision: Precision::F16,
        accurate_cuda: "__float2half_rn(exp2f(__half2float(x)))",
        accurate_ptx: "cvt.f32.f16, libdevice exp2f, cvt.rn.f16.f32",
        approx_ptx: "ex2.approx.f16",
        intrinsic: Some("hexp2(x)"),
        accurate_body: F16_ACC_EX2,
        approx_body: sfu!("unsigned short", "h", "ex2.approx.f16"),
        domain: one(uni(-14.0, 15.0)),
        wide: one(uni(-24.0, 15.99)),
        chain: "{F}({x} ^ 0x8000)",
        chain_glue: Some("xor (negate)"),
        chain_x0: 0.5,
        min_sm: 75,
        documented_error: "2^-9.9 relative",
        reference: r_exp2,
        ..UNARY
    },
    Function {
        key: "ex2_bf16",
        math: "2^x",
        precision: Precision::Bf16,
        accurate_cuda: "__float2bfloat16_rn(exp2f(__bfloat162float(x)))",
        accurate_ptx: "shl (bf16→f32), libdevice exp2f, cvt.rn.bf16.f32",
        approx_ptx: "ex2.approx.ftz.bf16",
        intrinsic: Some("hexp2(x)"),
        accurate_body: BF16_ACC_EX2,
        approx_body: sfu!("unsigned short", "h", "ex2.approx.ftz.bf16"),
        domain: one(uni(-100.0, 100.0)),
        wide: one(uni(-126.0, 127.9)),
        chain: "{F}({x} ^ 0x8000)",
        chain_glue: Some("xor (negate)"),
        chain_x0: 0.5,
        min_sm: 90,
        documented_error: "2^-7 relative",
        reference: r_exp2,
        ..UNARY
    },
];

/// The entry with `key`, or an error listing the keys there are.
pub fn find(key: &str) -> Result<&'static Function, ApproxError> {
    CATALOG
        .iter()
        .find(|f| f.key == key)
        .ok_or_else(|| ApproxError::UnknownFunction {
            key: key.to_owned(),
            known: CATALOG.iter().map(|f| f.key).collect::<Vec<_>>().join(", "),
        })
}

/// The entries whose approximate form an `arch` (`sm_90`) GPU has.
pub fn supported(arch: &str) -> Vec<&'static Function> {
    let sm: u32 = arch.trim_start_matches("sm_").parse().unwrap_or(0);
    CATALOG.iter().filter(|f| f.min_sm <= sm).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalog_has_the_seed_functions_and_hopper_additions() {
        let count = |p| CATALOG.iter().filter(|f| f.precision == p).count();
        assert_eq!(count(Precision::F32), 10, "9 seed functions + tanh");
        assert_eq!(count(Precision::F64), 4);
        assert_eq!(count(Precision::F16), 1);
        assert_eq!(count(Precision::Bf16), 1);
        let mut keys: Vec<_> = CATALOG.iter().map(|f| f.key).collect();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), CATALOG.len(), "keys are unique");
    }

    #[test]
    fn approximate_forms_are_sfu_ptx_with_ftz() {
        for f in CATALOG {
            assert!(f.approx_body.contains("approx"), "{}", f.key);
            // tanh.approx and ex2.approx.f16 have no .ftz form.
            if !matches!(f.key, "tanh_f32" | "ex2_f16") {
                assert!(f.approx_body.contains(".ftz"), "{}", f.key);
            }
            assert!(!f.accurate_body.contains("approx"), "{}", f.key);
            assert_eq!(f.domain.y.is_some(), f.arity == 2, "{}", f.key);
        }
    }

    #[test]
    fn unknown_key_lists_the_known_ones() {
        let e = find("exp").unwrap_err().to_string();
        assert!(e.contains("exp_f32") && e.contains("ex2_bf16"), "{e}");
        assert_eq!(find("cos_f32").unwrap().math, "cos(x)");
    }
}
