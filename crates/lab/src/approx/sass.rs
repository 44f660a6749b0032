//! The SFU / FP32 / FP64 instruction mix of compiled kernels, read from `cuobjdump -sass` (the
//! F/P/D columns of Li et al.'s SFU-approximation paper). The counts are static: every instruction
//! in the kernel once, slow paths included, loads, stores and index arithmetic counted under
//! `other`.

use serde::Serialize;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Instruction counts of one kernel by the unit that executes them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Mix {
    /// MUFU.* (the special-function unit).
    pub sfu: usize,
    /// FP32 arithmetic: FADD, FMUL, FFMA, FSETP, FSEL, FMNMX, FCHK, FRND, ….
    pub fp32: usize,
    /// FP64 arithmetic: DADD, DMUL, DFMA, DSETP, DMNMX.
    pub fp64: usize,
    /// Packed half arithmetic: HADD2, HMUL2, HFMA2, ….
    pub fp16: usize,
    /// Everything else (integer, conversion, memory, control).
    pub other: usize,
    /// The MUFU variants used, e.g. `MUFU.EX2`.
    pub sfu_ops: Vec<String>,
}

fn classify(mix: &mut Mix, opcode: &str) {
    let base = opcode.split('.').next().unwrap_or(opcode);
    match base {
        "MUFU" => {
            mix.sfu += 1;
            if !mix.sfu_ops.iter().any(|o| o == opcode) {
                mix.sfu_ops.push(opcode.to_owned());
            }
        }
        "FADD" | "FMUL" | "FFMA" | "FSETP" | "FSEL" | "FMNMX" | "FCHK" | "FRND" | "FSET"
        | "FSWZADD" | "FADD32I" | "FMUL32I" | "FFMA32I" => mix.fp32 += 1,
        "DADD" | "DMUL" | "DFMA" | "DSETP" | "DMNMX" | "DSET" => mix.fp64 += 1,
        b if b.starts_with('H') && b.ends_with('2') => mix.fp16 += 1,
        _ => mix.other += 1,
    }
}

/// Mixes per kernel from `cuobjdump -sass` text.
pub fn mixes(sass: &str) -> BTreeMap<String, Mix> {
    let mut out = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in sass.lines() {
        if let Some(name) = line.trim().strip_prefix("Function : ") {
            current = Some(name.trim().to_owned());
            out.insert(name.trim().to_owned(), Mix::default());
            continue;
        }
        let Some(name) = &current else { continue };
        // Instruction lines: `/*0040*/   @!P0 FFMA R3, R2, R5, R4 ;   /* 0x... */`.
        let Some(rest) = line.trim().strip_prefix("/*") else {
            continue;
        };
        let Some((addr, insn)) = rest.split_once("*/") else {
            continue;
        };
        if !addr.chars().all(|c| c.is_ascii_hexdigit()) {
            continue;
        }
        let mut tokens = insn.split_whitespace();
        let mut opcode = tokens.next().unwrap_or("");
        if opcode.starts_with('@') {
            opcode = tokens.next().unwrap_or("");
        }
        let opcode = opcode.trim_end_matches(';');
        if opcode.is_empty() || opcode.starts_with("/*") {
            continue;
        }
        if let Some(mix) = out.get_mut(name) {
            classify(mix, opcode);
        }
    }
    out
}

/// Where cuobjdump may be: `$PATH`, `$CUDA_HOME/bin`, `/usr/local/cuda/bin`.
fn cuobjdump() -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    for var in ["CUDA_HOME", "CUDA_PATH"] {
        if let Some(home) = std::env::var_os(var) {
            dirs.push(PathBuf::from(home).join("bin"));
        }
    }
    dirs.push("/usr/local/cuda/bin".into());
    dirs.into_iter()
        .map(|d| d.join("cuobjdump"))
        .find(|p| p.is_file())
}

/// Why a CUBIN image could not be disassembled (the SASS mix is then left out of a report).
#[derive(Debug, thiserror::Error)]
pub enum SassError {
    /// No cuobjdump on the search path.
    #[error("cuobjdump not found (PATH, $CUDA_HOME/bin, /usr/local/cuda/bin)")]
    NoCuobjdump,
    /// Writing the image or running the tool failed.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// cuobjdump ran and failed.
    #[error("{tool} -sass failed: {stderr}")]
    Failed {
        /// The tool's path.
        tool: String,
        /// What it printed on stderr.
        stderr: String,
    },
}

/// `cuobjdump -sass` of a CUBIN image, or why it could not be read.
pub fn disassemble(cubin: &[u8]) -> Result<String, SassError> {
    let io = |what: String| move |source| SassError::Io { what, source };
    let tool = cuobjdump().ok_or(SassError::NoCuobjdump)?;
    let dir = tempfile::tempdir().map_err(io("temporary directory".into()))?;
    let file = dir.path().join("kernels.cubin");
    std::fs::write(&file, cubin).map_err(io(format!("writing {}", file.display())))?;
    let out = std::process::Command::new(&tool)
        .arg("-sass")
        .arg(&file)
        .output()
        .map_err(io(format!("running {}", tool.display())))?;
    if !out.status.success() {
        return Err(SassError::Failed {
            tool: tool.display().to_string(),
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_units_per_function() {
        let text = "\n\tcode for sm_90\n\t\tFunction : k_apx\n\t.headerflags @\"EF\"\n\
            /*0000*/                   LDC R1, c[0x0][0x28] ;   /* 0x000 */\n\
            /*0010*/                   FMUL.FTZ R0, R2, 1.44 ;  /* 0x000 */\n\
            /*0020*/                   MUFU.EX2 R0, R0 ;        /* 0x000 */\n\
            /*0030*/              @!P0 BRA `(.L_x_0) ;         /* 0x000 */\n\
            \t\tFunction : k_acc\n\
            /*0000*/                   DFMA R2, R4, R6, R8 ;    /* 0x000 */\n\
            /*0010*/                   MUFU.RCP64H R3, R5 ;     /* 0x000 */\n\
            /*0020*/                   HFMA2.MMA R0, -RZ, RZ, 0 ; /* 0x000 */\n";
        let m = mixes(text);
        let apx = &m["k_apx"];
        assert_eq!((apx.sfu, apx.fp32, apx.fp64, apx.other), (1, 1, 0, 2));
        assert_eq!(apx.sfu_ops, vec!["MUFU.EX2"]);
        let acc = &m["k_acc"];
        assert_eq!((acc.sfu, acc.fp64, acc.fp16), (1, 1, 1));
    }
}
