use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    // `helix-gate hook` runs on every matching tool call: skip building the whole
    // CLI definition for it (flags such as --help still go through clap).
    let mut args = std::env::args_os().skip(1);
    if args.next().is_some_and(|a| a == "hook") {
        let mut rest: Vec<String> = args.map(|a| a.to_string_lossy().into_owned()).collect();
        // `--scope user` is how `install claude --scope user` registers it.
        let user_scope = match rest.as_slice() {
            [.., flag, value] if flag == "--scope" && value == "user" => {
                rest.truncate(rest.len() - 2);
                true
            }
            [.., flag] if flag == "--scope=user" => {
                rest.truncate(rest.len() - 1);
                true
            }
            _ => false,
        };
        if rest.iter().all(|a| !a.starts_with('-')) {
            return helix_gate::cli::run_hook(user_scope).into();
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
