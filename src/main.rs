use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    // `helix-gate hook` runs on every matching tool call: skip building the whole
    // CLI definition for it (flags such as --help still go through clap).
    let mut args = std::env::args_os().skip(1);
    if args.next().is_some_and(|a| a == "hook") {
        let rest: Vec<String> = args.map(|a| a.to_string_lossy().into_owned()).collect();
        if let Some((user_scope, agent)) = hook_flags(&rest) {
            return helix_gate::cli::run_hook(user_scope, agent).into();
        }
    }
    let cli = helix_gate::cli::Cli::parse();
    match helix_gate::cli::run(cli) {
        Ok(status) => status.into(),
        Err(err) => {
            // Causes may quote paths and values from the repository; their own line breaks
            // (a list of config problems) stay.
            let text = format!("{err:#}");
            let text = helix_gate::text::escape_controls_multiline(&text);
            let text = helix_gate::text::defuse_workflow_commands(&text);
            eprintln!("helix-gate: error: {text}");
            ExitCode::from(2)
        }
    }
}

/// The flags of `helix-gate hook` in the forms the installers write (`--agent
/// claude|codex|gemini|copilot`, `--scope user|project`, an event label), read without clap;
/// `None` for anything else (clap parses it, and answers `--help`).
fn hook_flags(args: &[String]) -> Option<(bool, helix_gate::cli::AgentArg)> {
    let mut user_scope = false;
    let mut agent = helix_gate::cli::AgentArg::Claude;
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        let (flag, value) = match arg.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => (flag, Some(value)),
            _ => (arg.as_str(), None),
        };
        match flag {
            "--scope" | "--agent" => {
                let value = match value {
                    Some(value) => value,
                    None => rest.next()?.as_str(),
                };
                if flag == "--scope" {
                    user_scope = match value {
                        "user" => true,
                        "project" => false,
                        _ => return None,
                    };
                } else {
                    agent = helix_gate::cli::AgentArg::from_name(value)?;
                }
            }
            label if !label.starts_with('-') => {}
            _ => return None,
        }
    }
    Some((user_scope, agent))
}
