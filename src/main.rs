use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = helix_gate::cli::Cli::parse();
    match helix_gate::cli::run(cli) {
        Ok(status) => status.into(),
        Err(err) => {
            eprintln!("helix-gate: error: {err:#}");
            ExitCode::from(2)
        }
    }
}
