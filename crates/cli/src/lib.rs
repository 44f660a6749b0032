//! The `sigpu` command line: [`cli::Cli`] (every flag, parsed by clap) and [`cli::run`]. Each
//! subcommand parses its arguments, resolves its device once, calls the libraries or the lab
//! and prints what they return (text, or JSON with `--json`). A library target so that tests
//! can walk the command tree.

pub mod cli;
mod cmd;
