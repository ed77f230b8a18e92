//! The `helix-gate` binary: reads how it was called and hands over to `cli`.
//!
//! `main` is the C entry point (`no_main`), not Rust's: std's runtime set-up before a Rust
//! `main` finds the main thread's stack (glibc reads `/proc/self/maps` for it), maps and
//! installs a stack-overflow handler on an alternate signal stack, and checks the three
//! standard descriptors. On the hook's no-op path that was a tenth of the whole process's
//! time (issue 20: 0.34 ms against 0.30 ms for the same stdin reader, static C 0.28 ms).
//! What of it matters is done here:
//! - the arguments are read from C's `argc`/`argv` on unix ([`arguments`]): std's own list
//!   (`std::env::args_os`) is filled on glibc by an initialiser glibc runs before any
//!   `main`, but on musl only by the start-up code `no_main` skips, so a musl build would
//!   see no arguments at all. Elsewhere (Windows) std reads them from the system on demand,
//!   and the list is std's;
//! - a closed standard descriptor is reopened on `/dev/null` (so no file helix-gate opens
//!   can become its stdout), and SIGPIPE is ignored (a closed pipe is an `EPIPE` error the
//!   printers handle, as under std's runtime).
//!
//! Without the handler a stack overflow ends the process with SIGSEGV instead of an abort:
//! either way a signal, which every agent treats as "proceed" (the hook fails open). Rust's
//! runtime does not flush stdout at exit here: every printer flushes, and `main` flushes
//! once more. The arguments go to clap (`Cli::parse_from`), except for `helix-gate hook` in
//! the forms the installers write, which [`hook_flags`] reads without building the CLI.

// Under `cargo test` the test harness brings its own `main`.
#![cfg_attr(not(test), no_main)]

#[cfg(not(test))]
use std::ffi::OsString;

#[cfg(not(test))]
#[expect(unsafe_code, reason = "the C entry point must have an unmangled name")]
#[unsafe(no_mangle)]
extern "C" fn main(
    count: std::ffi::c_int,
    strings: *const *const std::ffi::c_char,
) -> std::ffi::c_int {
    startup();
    let code = run(arguments(count, strings));
    let _ = std::io::Write::flush(&mut std::io::stdout());
    std::ffi::c_int::from(code)
}

/// The command line as C's `main` got it (`argc` and `argv`: `count` strings), each
/// copied once, as `std::env::args_os` copies std's list.
#[cfg(all(unix, not(test)))]
#[expect(unsafe_code, reason = "argv is a C array of C strings")]
fn arguments(count: std::ffi::c_int, strings: *const *const std::ffi::c_char) -> Vec<OsString> {
    use std::os::unix::ffi::OsStrExt as _;
    let count = usize::try_from(count).unwrap_or(0);
    let mut list = Vec::with_capacity(count);
    for at in 0..count {
        // SAFETY: the C runtime passes `main` `count` pointers (then a null one), each to
        // a NUL-terminated string that lives for the whole process; a null pointer before
        // `count` ends the list.
        let arg = unsafe { *strings.add(at) };
        if arg.is_null() {
            break;
        }
        // SAFETY: as above, `arg` is a valid NUL-terminated string.
        let bytes = unsafe { std::ffi::CStr::from_ptr(arg) }.to_bytes();
        list.push(std::ffi::OsStr::from_bytes(bytes).to_os_string());
    }
    list
}

/// Not unix: C's `argv` is in the ANSI code page (Windows); std reads the real command line.
#[cfg(all(not(unix), not(test)))]
fn arguments(_count: std::ffi::c_int, _strings: *const *const std::ffi::c_char) -> Vec<OsString> {
    std::env::args_os().collect()
}

/// What std's runtime does before a Rust `main` that helix-gate relies on (see the module
/// doc): standard descriptors that are closed point at `/dev/null`, SIGPIPE is ignored.
#[cfg(all(unix, not(test)))]
#[expect(unsafe_code, reason = "std has no safe poll or signal disposition")]
fn startup() {
    let mut fds = [0, 1, 2].map(|fd| libc::pollfd {
        fd,
        events: 0,
        revents: 0,
    });
    // SAFETY: `fds` is a valid array of three pollfd for the call's duration; `open` gets a
    // NUL-terminated path; `signal` installs the predefined SIG_IGN disposition.
    unsafe {
        if libc::poll(fds.as_mut_ptr(), 3, 0) != -1 {
            for fd in &fds {
                if fd.revents & libc::POLLNVAL != 0
                    && libc::open(c"/dev/null".as_ptr(), libc::O_RDWR) == -1
                {
                    libc::abort();
                }
            }
        }
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
    one_malloc_arena();
}

/// glibc gives each thread that allocates its own arena, grown one page at a
/// time with an `mprotect` each: the hook decides on a thread (its deadline),
/// and checking a 20 KB file under a thousand rules took 48 of them. One arena
/// for the few threads helix-gate starts grows like the main heap, 128 KiB at a
/// time.
#[cfg(all(target_os = "linux", target_env = "gnu", not(test)))]
#[expect(unsafe_code, reason = "std has no safe mallopt")]
fn one_malloc_arena() {
    // SAFETY: mallopt takes two integers and changes a malloc parameter only; it is
    // called before the process starts a thread.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
    }
}

#[cfg(all(unix, not(all(target_os = "linux", target_env = "gnu")), not(test)))]
fn one_malloc_arena() {}

#[cfg(all(not(unix), not(test)))]
fn startup() {}

/// The exit code of the command line `args` (the program's name first).
#[cfg(not(test))]
fn run(args: Vec<OsString>) -> u8 {
    // `helix-gate hook` runs on every matching tool call: skip building the whole
    // CLI definition for it (flags such as --help still go through clap).
    if args.get(1).is_some_and(|a| a == "hook") {
        let rest: Vec<String> = args[2..]
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        if let Some((user_scope, agent)) = hook_flags(&rest) {
            return helix_gate::cli::run_hook(user_scope, agent).code();
        }
    }
    let cli = <helix_gate::cli::Cli as clap::Parser>::parse_from(args);
    match helix_gate::cli::run(cli) {
        Ok(status) => status.code(),
        Err(err) => {
            // Causes may quote paths and values from the repository; their own line breaks
            // (a list of config problems) stay.
            let text = format!("{err:#}");
            let text = helix_gate::text::escape_controls_multiline(&text);
            let text = helix_gate::text::defuse_workflow_commands(&text);
            eprintln!("helix-gate: error: {text}");
            2
        }
    }
}

/// The flags of `helix-gate hook` in the forms the installers write (`--agent
/// NAME`, any agent's name, `--scope user|project`, an event label), read without clap;
/// `None` for anything else (clap parses it, and answers `--help`).
fn hook_flags(args: &[String]) -> Option<(bool, helix_gate::agent::Agent)> {
    let mut user_scope = false;
    let mut agent = helix_gate::agent::Agent::Claude;
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
                    agent = helix_gate::agent::Agent::from_name(value)?;
                }
            }
            label if !label.starts_with('-') => {}
            _ => return None,
        }
    }
    Some((user_scope, agent))
}

#[cfg(test)]
mod tests {
    use super::hook_flags;
    use helix_gate::agent::Agent;

    fn flags(args: &[&str]) -> Option<(bool, Agent)> {
        hook_flags(&args.iter().map(|a| (*a).to_owned()).collect::<Vec<_>>())
    }

    #[test]
    fn the_forms_the_installers_write_are_read_without_clap() {
        assert_eq!(flags(&[]), Some((false, Agent::Claude)));
        assert_eq!(flags(&["--scope", "user"]), Some((true, Agent::Claude)));
        assert_eq!(flags(&["--scope=project"]), Some((false, Agent::Claude)));
        assert_eq!(
            flags(&["--agent", "codex", "--scope=user"]),
            Some((true, Agent::Codex))
        );
        // An event label (the installers add one for readability) is ignored.
        assert_eq!(
            flags(&["--agent=gemini", "PostToolUse"]),
            Some((false, Agent::Gemini))
        );
    }

    #[test]
    fn anything_else_goes_to_clap() {
        for args in [
            &["--help"][..],
            &["--scope", "everyone"],
            &["--agent", "vim"],
            &["--scope"],
            &["-x"],
        ] {
            assert_eq!(flags(args), None, "{args:?}");
        }
    }
}
