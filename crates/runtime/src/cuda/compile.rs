//! CUDA C → CUBIN through NVRTC, for one architecture, with the disk cache in front.

use super::cache::KernelCache;
use super::error::{Error, Result};
use super::probe::nvrtc_version;
use cudarc::nvrtc::{result as nvrtc, sys};
use std::borrow::Cow;
use std::ffi::CString;
use std::fmt;

/// CUDA C source plus the NVRTC options it is compiled with.
///
/// Kernels meant to be loaded by name are declared `extern "C" __global__` so their symbols are
/// not mangled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelSource {
    /// File name shown in NVRTC's messages (`runtime.cu(12): error: ...`).
    pub name: Cow<'static, str>,
    /// The CUDA C text, `#include`s of [`headers`](Self::headers) unexpanded.
    pub code: Cow<'static, str>,
    /// Extra NVRTC flags, e.g. `--use_fast_math`. The architecture is added by [`compile`].
    pub options: Vec<String>,
    /// Headers the code may `#include "name"`, by name: shared CUDA helpers (`.cuh` files).
    pub headers: Vec<(Cow<'static, str>, Cow<'static, str>)>,
}

impl KernelSource {
    /// A `.cu` file embedded in a crate with `include_str!`.
    pub fn embedded(name: &'static str, code: &'static str) -> Self {
        KernelSource {
            name: Cow::Borrowed(name),
            code: Cow::Borrowed(code),
            options: Vec::new(),
            headers: Vec::new(),
        }
    }

    /// Source text produced by a code generator.
    pub fn generated(name: impl Into<String>, code: impl Into<String>) -> Self {
        KernelSource {
            name: Cow::Owned(name.into()),
            code: Cow::Owned(code.into()),
            options: Vec::new(),
            headers: Vec::new(),
        }
    }

    /// Makes `#include "name"` in the code (and in other headers) resolve to `code`.
    pub fn with_header(
        mut self,
        name: impl Into<Cow<'static, str>>,
        code: impl Into<Cow<'static, str>>,
    ) -> Self {
        self.headers.push((name.into(), code.into()));
        self
    }

    /// The code with every `#include "name"` of a known header replaced by the header's text
    /// (once per header, as `#pragma once` would), framed by `#line` directives so NVRTC's
    /// messages name the header's or the source's own lines. What NVRTC compiles and what the
    /// cache key hashes.
    pub fn expanded(&self) -> Cow<'_, str> {
        if self.headers.is_empty() {
            return Cow::Borrowed(&self.code);
        }
        let mut seen = Vec::new();
        Cow::Owned(self.expand(&self.name, &self.code, &mut seen))
    }

    fn expand(&self, file: &str, code: &str, seen: &mut Vec<String>) -> String {
        let mut out = String::with_capacity(code.len());
        for (i, line) in code.lines().enumerate() {
            let header = line
                .trim()
                .strip_prefix("#include")
                .map(str::trim)
                .and_then(|h| h.strip_prefix('"')?.strip_suffix('"'))
                .and_then(|h| self.headers.iter().find(|(name, _)| name == h));
            match header {
                Some((name, text)) => {
                    if !seen.iter().any(|s| s == name) {
                        seen.push(name.to_string());
                        out += &format!("#line 1 \"{name}\"\n");
                        out += &self.expand(name, text, seen);
                        out += &format!("#line {} \"{file}\"\n", i + 2);
                    } else {
                        out.push('\n');
                    }
                }
                None => {
                    out += line;
                    out.push('\n');
                }
            }
        }
        out
    }

    /// Adds one NVRTC flag, e.g. `--use_fast_math`.
    pub fn with_option(mut self, option: impl Into<String>) -> Self {
        self.options.push(option.into());
        self
    }

    /// Names of the `extern "C" __global__` kernels the source declares, in order: the ones
    /// that can be looked up by name (other kernels have mangled symbols). Comments and
    /// preprocessor lines are skipped, so kernels stamped out by a macro are not listed
    /// ([`Compiled::kernel_names`] reads every kernel from the compiled image).
    pub fn entry_points(&self) -> Vec<String> {
        let code = strip_preprocessor(&strip_comments(&self.code));
        let mut names = Vec::new();
        let mut rest = code.as_str();
        while let Some(pos) = rest.find("extern \"C\"") {
            rest = rest[pos + "extern \"C\"".len()..].trim_start();
            let Some(after) = rest.strip_prefix("__global__") else {
                continue;
            };
            let header = &after[..after.find(['{', ';']).unwrap_or(after.len())];
            // The name is the identifier before the parameter list, which is the first '('
            // once a `__launch_bounds__(...)` qualifier is skipped.
            let after_bounds = match header.find("__launch_bounds__") {
                Some(b) => header[b..]
                    .find(')')
                    .map_or("", |close| &header[b + close + 1..]),
                None => header,
            };
            let Some(paren) = after_bounds.find('(') else {
                continue;
            };
            let ident = after_bounds[..paren]
                .split_whitespace()
                .last()
                .unwrap_or("");
            let ident = ident.trim_start_matches('*');
            if !ident.is_empty() {
                names.push(ident.to_owned());
            }
        }
        names
    }

    /// The full NVRTC command line for `arch`, in a fixed order (it is part of the cache key).
    pub(crate) fn nvrtc_options(&self, arch: &str) -> Vec<String> {
        let mut opts = vec![
            format!("--gpu-architecture={arch}"),
            "--std=c++17".to_owned(),
        ];
        opts.extend(self.options.iter().cloned());
        opts
    }
}

/// A compiled kernel image for one architecture.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// The architecture it was compiled for, e.g. `sm_90`.
    pub arch: String,
    /// The CUBIN image, ready for `cuModuleLoadData`.
    pub cubin: Vec<u8>,
    /// NVRTC's log (warnings); empty for a clean compile or a cache hit.
    pub log: String,
    /// Taken from the disk cache rather than compiled by NVRTC.
    pub from_cache: bool,
    pub(crate) key: String,
}

impl Compiled {
    /// Names of the kernels (entry points) in the CUBIN, read from its ELF symbol table: the
    /// global functions marked as CUDA entries. Empty if the image cannot be parsed.
    pub fn kernel_names(&self) -> Vec<String> {
        super::cubin::entry_points(&self.cubin).unwrap_or_default()
    }

    /// How many parameters kernel `name` takes, read from the CUBIN's `.nv.info.<name>`
    /// section; `None` when the image does not say (see [`super::cubin::param_count`]).
    pub fn param_count(&self, name: &str) -> Option<usize> {
        super::cubin::param_count(&self.cubin, name)
    }
}

/// NVRTC rejected a source: its log and the source lines it points at.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct CompileError {
    /// The source's file name ([`KernelSource::name`]).
    pub name: String,
    /// The architecture it was compiled for, e.g. `sm_90`.
    pub arch: String,
    /// NVRTC's log as it printed it.
    pub log: String,
    /// Each line the log reports an error on, with two lines of context either side.
    pub excerpt: String,
}

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "NVRTC could not compile {} for {}:\n{}",
            self.name,
            self.arch,
            self.log.trim_end()
        )?;
        if !self.excerpt.is_empty() {
            write!(f, "\n{}", self.excerpt.trim_end())?;
        }
        Ok(())
    }
}

/// Compiles `source` to a CUBIN for `arch` (e.g. `sm_90`), reusing `cache` when it holds the
/// same source, options, architecture and NVRTC version. NVRTC needs no GPU.
pub fn compile(source: &KernelSource, arch: &str, cache: &KernelCache) -> Result<Compiled> {
    let version = nvrtc_version()?;
    let options = source.nvrtc_options(arch);
    let key = KernelCache::key(&source.name, &source.expanded(), &options, &version);
    if let Some(cubin) = cache.load(&source.name, &key) {
        return Ok(Compiled {
            arch: arch.to_owned(),
            cubin,
            log: String::new(),
            from_cache: true,
            key,
        });
    }
    let (cubin, log) = run_nvrtc(source, arch, &options)?;
    cache.store(&source.name, &key, &cubin);
    Ok(Compiled {
        arch: arch.to_owned(),
        cubin,
        log,
        from_cache: false,
        key,
    })
}

/// Destroys the NVRTC program on every path out of [`run_nvrtc`].
struct Program(sys::nvrtcProgram);

impl Drop for Program {
    fn drop(&mut self) {
        // SAFETY: created by create_program and destroyed only here.
        let _ = unsafe { nvrtc::destroy_program(self.0) };
    }
}

fn c_string(what: &str, s: &str) -> Result<CString> {
    CString::new(s).map_err(|_| Error::Invalid(format!("{what} contains a NUL byte: {s:?}")))
}

fn run_nvrtc(source: &KernelSource, arch: &str, options: &[String]) -> Result<(Vec<u8>, String)> {
    let nvrtc_err = |step: &str, e: nvrtc::NvrtcError| {
        Error::Invalid(format!("NVRTC {step} failed for {}: {e:?}", source.name))
    };
    let code = c_string("kernel source", &source.expanded())?;
    let name = c_string("kernel name", &source.name)?;
    for o in options {
        c_string("NVRTC option", o)?;
    }
    let prog =
        Program(nvrtc::create_program(&code, Some(&name)).map_err(|e| nvrtc_err("create", e))?);
    // SAFETY: `prog` is a live program; options were checked to contain no NUL.
    let compiled = unsafe { nvrtc::compile_program(prog.0, options) };
    // SAFETY: as above.
    let log = unsafe { nvrtc::get_program_log(prog.0) }
        .map(|raw| {
            let bytes: Vec<u8> = raw
                .iter()
                .map(|&c| c as u8)
                .take_while(|&b| b != 0)
                .collect();
            String::from_utf8_lossy(&bytes).into_owned()
        })
        .unwrap_or_default();
    if compiled.is_err() {
        return Err(CompileError {
            name: source.name.to_string(),
            arch: arch.to_owned(),
            excerpt: excerpt(&source.name, &source.code, &log),
            log,
        }
        .into());
    }
    let mut size = 0usize;
    // SAFETY: `prog` compiled successfully; `size` is a valid out-pointer.
    unsafe { sys::nvrtcGetCUBINSize(prog.0, &mut size) }
        .result()
        .map_err(|e| nvrtc_err("cubin size", e))?;
    let mut cubin = vec![0u8; size];
    // SAFETY: `cubin` holds exactly the size NVRTC reported.
    unsafe { sys::nvrtcGetCUBIN(prog.0, cubin.as_mut_ptr().cast()) }
        .result()
        .map_err(|e| nvrtc_err("cubin", e))?;
    Ok((cubin, log.trim().to_owned()))
}

/// `code` with `//` and `/* */` comments replaced by spaces (string literals are not
/// special-cased: kernels do not put comment markers in strings).
fn strip_comments(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(pos) = rest.find(['/']) {
        out.push_str(&rest[..pos]);
        let tail = &rest[pos..];
        if let Some(line) = tail.strip_prefix("//") {
            rest = line.find('\n').map_or("", |e| &line[e..]);
            out.push(' ');
        } else if let Some(block) = tail.strip_prefix("/*") {
            rest = block.find("*/").map_or("", |e| &block[e + 2..]);
            out.push(' ');
        } else {
            out.push('/');
            rest = &tail[1..];
        }
    }
    out.push_str(rest);
    out
}

/// `code` without `#` directives (continuation lines included).
fn strip_preprocessor(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut continued = false;
    for line in code.lines() {
        let directive = continued || line.trim_start().starts_with('#');
        continued = directive && line.trim_end().ends_with('\\');
        if !directive {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

/// The source lines NVRTC's log reports errors on (`name(LINE): error: ...`), with context.
fn excerpt(name: &str, code: &str, log: &str) -> String {
    let lines: Vec<&str> = code.lines().collect();
    let mut reported: Vec<usize> = log
        .lines()
        .filter_map(|l| {
            let rest = l.strip_prefix(name)?.strip_prefix('(')?;
            let (num, tail) = rest.split_once(')')?;
            tail.starts_with(": error")
                .then(|| num.parse().ok())
                .flatten()
        })
        .collect();
    reported.sort_unstable();
    reported.dedup();
    let mut out = String::new();
    for &line in reported.iter().take(5) {
        out += &format!("  --> {name}:{line}\n");
        let first = line.saturating_sub(2).max(1);
        let last = (line + 2).min(lines.len());
        for n in first..=last {
            let mark = if n == line { '>' } else { ' ' };
            out += &format!("{mark} {n:5} | {}\n", lines[n - 1]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_are_inlined_once_with_line_directives() {
        let src =
            KernelSource::generated("k.cu", "#include \"a.cuh\"\nint x;\n#include \"a.cuh\"\n")
                .with_header("a.cuh", "#include \"b.cuh\"\nint a;")
                .with_header("b.cuh", "int b;");
        let code = src.expanded();
        assert_eq!(
            code,
            "#line 1 \"a.cuh\"\n#line 1 \"b.cuh\"\nint b;\n#line 2 \"a.cuh\"\nint a;\n\
             #line 2 \"k.cu\"\nint x;\n\n"
        );
        // Without headers the code is used as is.
        let plain = KernelSource::generated("p.cu", "#include \"a.cuh\"");
        assert_eq!(plain.expanded(), "#include \"a.cuh\"");
    }

    #[test]
    fn finds_entry_points() {
        let src = KernelSource::embedded(
            "k.cu",
            "extern \"C\" __global__ void a(float* x) {}\n\
             __device__ float helper(float y);\n\
             // extern \"C\" __global__ void commented_out(int n) {}\n\
             template <int N> __global__ void mangled(int n) {}\n\
             /* extern \"C\" __global__ void also_commented(int n) {} */\n\
             #define K(NAME) extern \"C\" __global__ void NAME(int n) {} \\\n    /* more */\n\
             extern \"C\"  __global__ void __launch_bounds__(256) b(int n) {}\n",
        );
        assert_eq!(src.entry_points(), vec!["a", "b"]);
    }

    #[test]
    fn excerpt_points_at_the_reported_line() {
        let code = "line1\nline2\nline3 bad\nline4\nline5\nline6";
        let log = "k.cu(3): error: identifier \"bad\" is undefined\n\
                   k.cu(1): warning: variable \"error_count\" was declared but never referenced\n\
                   k.cu(3): error: expected a \";\"\n2 errors detected";
        let ex = excerpt("k.cu", code, log);
        assert!(ex.contains("--> k.cu:3"), "{ex}");
        assert!(ex.contains(">     3 | line3 bad"), "{ex}");
        assert!(ex.contains("      5 | line5"), "{ex}");
        assert!(!ex.contains("line6"), "{ex}");
        assert_eq!(
            ex.matches("-->").count(),
            1,
            "warnings and repeats are not shown: {ex}"
        );
    }
}
