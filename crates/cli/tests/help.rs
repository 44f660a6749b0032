//! Every argument of every subcommand has help text, and the help speaks to a user: no
//! internal shorthand such as "the seed" (the paper a feature follows is named instead).

use clap::CommandFactory;
use sigpu_cli::cli::Cli;

/// Every (command path, argument id, help text) of the command tree.
fn walk(cmd: &clap::Command, path: &str, out: &mut Vec<(String, String, String)>) {
    let help = |s: Option<&clap::builder::StyledStr>| s.map(|h| h.to_string()).unwrap_or_default();
    out.push((
        path.to_owned(),
        "(about)".into(),
        help(cmd.get_about()) + &help(cmd.get_long_about()),
    ));
    for arg in cmd.get_arguments() {
        let id = arg.get_id().as_str();
        if id == "help" || id == "version" {
            continue;
        }
        let text = help(arg.get_help()) + &help(arg.get_long_help());
        out.push((path.to_owned(), id.to_owned(), text));
    }
    for sub in cmd.get_subcommands() {
        if sub.get_name() == "help" {
            continue;
        }
        walk(sub, &format!("{path} {}", sub.get_name()), out);
    }
}

fn everything() -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    walk(&Cli::command(), "sigpu", &mut out);
    out
}

#[test]
fn every_argument_and_command_has_help() {
    let all = everything();
    assert!(all.len() > 100, "the walk found only {} entries", all.len());
    let missing: Vec<String> = all
        .iter()
        .filter(|(_, _, text)| text.trim().is_empty())
        .map(|(path, id, _)| format!("{path} --{id}"))
        .collect();
    assert!(missing.is_empty(), "no help text: {missing:#?}");
}

#[test]
fn help_names_papers_not_the_seed() {
    let bad: Vec<String> = everything()
        .iter()
        .filter(|(_, _, text)| text.to_lowercase().contains("seed's") || text.contains("the seed"))
        .map(|(path, id, text)| format!("{path} {id}: {text}"))
        .collect();
    assert!(bad.is_empty(), "{bad:#?}");
}

#[test]
fn the_device_policy_is_stated_once() {
    // --device is global: its help repeats under every subcommand, so it stays one line and
    // the policy (defaults, exceptions, `all`) is in the top-level help only.
    let cmd = Cli::command();
    let device = cmd
        .get_arguments()
        .find(|a| a.get_id() == "device")
        .expect("--device");
    let help = device
        .get_help()
        .map(ToString::to_string)
        .unwrap_or_default();
    assert!(!help.contains("ldpc") && !help.contains('\n'), "{help}");
    let shown = device
        .get_value_names()
        .map(|v| v.join(" "))
        .unwrap_or_default();
    assert!(
        !shown.contains("all"),
        "`all` is for `ldpc simulate` only: {shown}"
    );
    let after = cmd
        .get_after_help()
        .map(ToString::to_string)
        .unwrap_or_default();
    assert!(
        after.contains("--device all") && after.contains("ldpc decode"),
        "{after}"
    );
}
