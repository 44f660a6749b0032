//! `sigpu lns calc`: a calculator over LNS words, one `a op b` per line of stdin.

use anyhow::{Context, Result};
use clap::Args;
use sigpu_lns::{Accurate, Format};
use std::io::BufRead;
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct CalcArgs {
    /// lns16, lns32 or i<I>f<F>.
    #[arg(long, default_value = "lns16")]
    pub format: Format,
}

/// One calculator line: `a op b`.
fn calc_line(format: Format, line: &str) -> Result<u32, String> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let [a, op, b] = tokens[..] else {
        return Err(format!("expected `a op b`, got {:?}", line.trim()));
    };
    let num = |t: &str| -> Result<u32, String> {
        t.parse::<f64>()
            .map(|x| format.from_f64(x))
            .map_err(|_| format!("{t:?} is not a number"))
    };
    let (a, b) = (num(a)?, num(b)?);
    let m = Accurate(format);
    Ok(match op {
        "+" => format.add(&m, a, b),
        "-" => format.sub(&m, a, b),
        "*" => format.mul(a, b),
        "/" => format.div(a, b),
        other => return Err(format!("unknown operator {other:?}: use + - * /")),
    })
}

#[derive(serde::Serialize)]
struct CalcResult {
    line: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    value: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    word: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

pub fn run(json: bool, args: &CalcArgs) -> Result<ExitCode> {
    let format = args.format;
    let digits = (format.word_bits() as usize).div_ceil(4);
    let mut failed = false;
    for (i, line) in std::io::stdin().lock().lines().enumerate() {
        let line = line.context("reading stdin")?;
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let result = match calc_line(format, &line) {
            Ok(w) => CalcResult {
                line: i + 1,
                value: Some(format.to_f64(w)),
                word: Some(format!("0x{w:0digits$x}")),
                error: None,
            },
            Err(e) => {
                failed = true;
                CalcResult {
                    line: i + 1,
                    value: None,
                    word: None,
                    error: Some(e),
                }
            }
        };
        match (json, &result.error) {
            (true, _) => println!("{}", serde_json::to_string(&result)?),
            (false, None) => println!(
                "{}  {}",
                result.value.unwrap_or(f64::NAN),
                result.word.as_deref().unwrap_or("")
            ),
            (false, Some(e)) => eprintln!("line {}: {e}", result.line),
        }
    }
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
