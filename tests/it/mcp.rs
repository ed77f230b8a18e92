//! `helix-gate mcp`: the MCP server, spoken to at the protocol level over pipes
//! (initialize, tools/list, every tool, JSON-RPC errors, malformed lines, EOF), and used by
//! the real Claude Code as an MCP client (`--mcp-config`) against the fake Messages API.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::claude::{ClaudeRun, require_claude};
use crate::support::cli::*;
use crate::support::fake_api::{FakeApi, Script, Turn};
use crate::support::mcp::{McpServer, is_error, text};
use crate::support::repo::ScratchRepo;

/// The version Claude Code 2.1.329 asks for in `initialize` (after its `server/discover`
/// probe of 2026-07-28 is answered "method not found").
const VERSION: &str = "2025-11-25";

/// The passing fixture, numbered 002, without its `Dokumentation` section.
fn bad_adr() -> String {
    good_adr()
        .replace("adr_id: \"001\"", "adr_id: \"002\"")
        .replace("# ADR-001:", "# ADR-002:")
        .replace("## Dokumentation", "## Notizen")
}

/// A committed repository with the good ADR (001) and the bad one (002).
fn adr_repo() -> ScratchRepo {
    let repo = ScratchRepo::with_adr();
    repo.write("adr/002-bad.md", bad_adr());
    repo.commit_all("the bad ADR");
    repo
}

/// `helix-gate ARGS` in the repository: its stdout, and its exit code.
fn cli(repo: &ScratchRepo, args: &[&str]) -> (String, i32) {
    let out = repo.helix(args);
    (stdout(&out), code(&out))
}

/// The working tree as git sees it: nothing the read-only tools did may show here.
fn status(repo: &ScratchRepo) -> String {
    repo.git(&[
        "status",
        "--porcelain",
        "--ignored",
        "--untracked-files=all",
    ])
}

#[test]
fn initialize_answers_the_clients_version_and_lists_every_tool_with_a_schema() {
    let repo = adr_repo();
    let (mut server, init) = McpServer::initialized(repo.path(), VERSION);
    assert_eq!(init["protocolVersion"], VERSION);
    assert_eq!(init["capabilities"]["tools"], json!({"listChanged": false}));
    assert_eq!(init["serverInfo"]["name"], "helix-gate");
    assert!(
        init["instructions"]
            .as_str()
            .unwrap()
            .contains("validate_adr")
    );
    let tools = server.request("tools/list", json!({}))["result"]["tools"].clone();
    let names: Vec<&str> = tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "validate_adr",
            "explain_rule",
            "list_rules",
            "new_adr_template",
            "run_gate",
            "governing_adrs"
        ]
    );
    for tool in tools.as_array().unwrap() {
        let schema = &tool["inputSchema"];
        assert_eq!(schema["type"], "object", "{tool}");
        assert_eq!(schema["additionalProperties"], false, "{tool}");
        assert!(tool["description"].as_str().unwrap().len() > 40, "{tool}");
        // Only the template tool may write.
        assert_eq!(
            tool["annotations"]["readOnlyHint"],
            tool["name"] != "new_adr_template",
            "{tool}"
        );
        for required in schema["required"].as_array().into_iter().flatten() {
            assert!(
                schema["properties"]
                    .get(required.as_str().unwrap())
                    .is_some()
            );
        }
    }
    assert_eq!(server.request("ping", json!({}))["result"], json!({}));
    let (exit, stderr) = server.close();
    assert!(exit.success(), "{stderr}");
    assert_eq!(stderr, "");

    // An older client gets its version and no `structuredContent` (new in 2025-06-18); an
    // unknown one the newest version, which it may refuse.
    let (mut old, init) = McpServer::initialized(repo.path(), "2024-11-05");
    assert_eq!(init["protocolVersion"], "2024-11-05");
    let result = old.call("validate_adr", json!({"path": "adr/002-bad.md"}));
    assert!(result.get("structuredContent").is_none(), "{result}");
    assert!(text(&result).contains("section-missing"));
    let (_, init) = McpServer::initialized(repo.path(), "1999-01-01");
    assert_eq!(init["protocolVersion"], VERSION);
}

#[test]
fn validate_adr_gives_exactly_the_findings_of_validate() {
    let repo = adr_repo();
    repo.write("adr/003-dup.md", good_adr());
    let (mut server, _) = McpServer::initialized(repo.path(), VERSION);
    // One file: the text is `validate --format json`'s output, byte for byte.
    let result = server.call("validate_adr", json!({"path": "adr/002-bad.md"}));
    assert!(!is_error(&result), "{result}");
    let (expected, exit) = cli(&repo, &["validate", "--format", "json", "adr/002-bad.md"]);
    assert_eq!(exit, 1);
    assert_eq!(text(&result), expected);
    let doc: Value = serde_json::from_str(&expected).unwrap();
    assert_eq!(result["structuredContent"], doc);
    let finding = &doc["files"][0]["findings"][0];
    assert_eq!(finding["rule"], "section-missing");
    assert_eq!(finding["hint"], "add \"## Dokumentation\" with its content");
    // An absolute path inside the repository names the same file.
    let absolute = repo.join("adr/002-bad.md");
    let result = server.call("validate_adr", json!({"path": absolute}));
    assert_eq!(text(&result), expected);

    // A folder is an ADR directory, with the rules across ADRs (003 repeats 001's id).
    let result = server.call("validate_adr", json!({"path": "adr"}));
    let (expected, _) = cli(&repo, &["validate", "--format", "json", "adr"]);
    assert_eq!(text(&result), expected);
    assert!(expected.contains("adr-id-duplicate"), "{expected}");

    // Content is checked under the name `path` gives it (its number against `adr_id`),
    // and nothing is written.
    let result = server.call(
        "validate_adr",
        json!({"content": bad_adr(), "path": "adr/002-bad.md"}),
    );
    let (expected, _) = cli(&repo, &["validate", "--format", "json", "adr/002-bad.md"]);
    assert_eq!(text(&result), expected);
    let result = server.call(
        "validate_adr",
        json!({"content": good_adr(), "path": "adr/007-draft.md"}),
    );
    let doc = &result["structuredContent"];
    assert_eq!(doc["files"][0]["path"], "adr/007-draft.md");
    assert_eq!(
        doc["files"][0]["findings"][0]["rule"],
        "adr-id-file-name-mismatch"
    );
    assert!(!repo.join("adr/007-draft.md").exists());
    // Without a name: ADR.md in the working folder.
    let result = server.call("validate_adr", json!({"content": "# only a title\n"}));
    assert_eq!(result["structuredContent"]["files"][0]["path"], "ADR.md");
    assert_eq!(
        result["structuredContent"]["files"][0]["findings"][0]["rule"],
        "front-matter-missing"
    );
    let (exit, _) = server.close();
    assert!(exit.success());
    assert_eq!(status(&repo), "?? adr/003-dup.md");
}

#[test]
fn explain_rule_and_list_rules_read_as_the_commands_do() {
    let repo = adr_repo();
    let (mut server, _) = McpServer::initialized(repo.path(), VERSION);
    for id in [
        "section-missing",
        "major-needs-migration",
        "file-not-regular",
    ] {
        let result = server.call("explain_rule", json!({"id": id}));
        assert!(!is_error(&result), "{result}");
        let (expected, exit) = cli(&repo, &["explain", id]);
        assert_eq!(exit, 0);
        assert_eq!(text(&result), expected, "{id}");
    }
    let result = server.call("explain_rule", json!({"id": "no-such-rule"}));
    assert!(is_error(&result));
    assert!(
        text(&result).contains("no rule with id `no-such-rule`"),
        "{result}"
    );

    let result = server.call("list_rules", json!({}));
    let (expected, _) = cli(&repo, &["rules"]);
    assert_eq!(text(&result), expected);
    let list = &result["structuredContent"];
    let builtin = list["builtin"].as_array().unwrap();
    assert!(
        builtin
            .iter()
            .any(|r| r["id"] == "section-missing" && r["severity"] == "error")
    );
    assert!(
        list["contextual"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["id"] == "major-needs-migration")
    );
    let (exit, _) = server.close();
    assert!(exit.success());
    assert_eq!(status(&repo), "");
}

#[test]
fn new_adr_template_previews_and_writes_what_new_writes() {
    let repo = adr_repo();
    let twin = adr_repo();
    let (mut server, _) = McpServer::initialized(repo.path(), VERSION);
    let preview = server.call("new_adr_template", json!({"title": "Cache parsed rules"}));
    assert!(!is_error(&preview), "{preview}");
    let made = &preview["structuredContent"];
    assert_eq!(made["written"], false);
    assert_eq!(made["path"], "adr/003-cache-parsed-rules.md");
    assert_eq!(made["place"], "adr-directory");
    assert_eq!(made["next_number"], "003");
    assert_eq!(made["template"], "helix");
    assert!(text(&preview).starts_with("not written: save it as adr/003-cache-parsed-rules.md"));
    assert!(text(&preview).ends_with(made["text"].as_str().unwrap()));
    assert_eq!(status(&repo), "", "a preview writes nothing");

    let written = server.call(
        "new_adr_template",
        json!({"title": "Cache parsed rules", "write": true}),
    );
    assert_eq!(written["structuredContent"]["written"], true, "{written}");
    let (_, exit) = cli(&twin, &["new", "Cache parsed rules"]);
    assert_eq!(exit, 0);
    let file = "adr/003-cache-parsed-rules.md";
    assert_eq!(repo.read(file), twin.read(file), "the file `new` writes");
    assert_eq!(repo.read(file).unwrap(), made["text"].as_str().unwrap());
    // Another preset, as `new --preset madr` (its own folder and numbering).
    let other = server.call(
        "new_adr_template",
        json!({"title": "Use a queue", "preset": "madr"}),
    );
    assert_eq!(
        other["structuredContent"]["path"],
        "docs/decisions/0001-use-a-queue.md"
    );
    assert_eq!(other["structuredContent"]["template"], "madr");
    for bad in [
        json!({"title": ""}),
        json!({"title": "x", "preset": "adr-tools"}),
        json!({"title": "x", "write": "yes"}),
        json!({"title": "x", "overwrite": true}),
        json!({}),
    ] {
        let result = server.call("new_adr_template", bad.clone());
        assert!(is_error(&result), "{bad}: {result}");
    }
    let (exit, _) = server.close();
    assert!(exit.success());
    assert_eq!(status(&repo), format!("?? {file}"));

    // Inside a consultant session: a draft without a number, as `new` writes it there.
    let session = repo.join("projects/sessions/s1");
    std::fs::create_dir_all(&session).unwrap();
    let (mut server, _) = McpServer::initialized(&session, VERSION);
    let draft = server.call("new_adr_template", json!({"title": "Cache", "write": true}));
    let made = &draft["structuredContent"];
    assert_eq!(
        made["path"], "projects/sessions/s1/output/ADR-cache.md",
        "{draft}"
    );
    assert_eq!(made["place"], "session");
    assert_eq!(made["session"], "projects/sessions/s1");
    assert_eq!(made["next_number"], "004");
    assert!(
        repo.read("projects/sessions/s1/output/ADR-cache.md")
            .unwrap()
            .contains("adr_id: \"XXX\"")
    );
    // A draft is named by its title alone: never written over, in either mode.
    for write in [false, true] {
        let again = server.call(
            "new_adr_template",
            json!({"title": "Cache", "write": write}),
        );
        assert!(is_error(&again), "{again}");
        assert!(
            text(&again).contains("already exists; nothing was written"),
            "{again}"
        );
    }
}

/// A plan in the session folder: an `adr_complete` gate, a reviewed one and an approval.
const PLAN: &str = "phases:
  - id: consultant
    output: [output/ADR-cache.md]
    quality_gate: {type: adr_complete, file: output/ADR-*.md, semantic: false}
  - id: reviewed
    quality_gate: {type: adr_complete, file: output/ADR-*.md, semantic: true}
  - id: approval
    type: approval
    input: [output/ADR-cache.md]
";

/// MCP's lifecycle: before `initialize` is answered only `initialize` and `ping` are
/// served. A `tools/call` that would write (and `tools/list`) is refused with `-32002`
/// and writes nothing; a method the server does not have stays `-32601` (Claude Code's
/// `server/discover` probe); after `initialize` the same call writes the file.
#[test]
fn tools_are_refused_until_the_client_initialized() {
    let repo = adr_repo();
    let mut server = McpServer::start(repo.path(), &[]);
    let write = json!({"name": "new_adr_template", "arguments": {"title": "Early", "write": true}});
    for (method, params) in [("tools/call", write.clone()), ("tools/list", json!({}))] {
        let answer = server.request(method, params);
        assert_eq!(answer["error"]["code"], -32002, "{method}: {answer}");
        assert!(
            answer["error"]["message"]
                .as_str()
                .unwrap()
                .contains("server not initialized"),
            "{answer}"
        );
    }
    assert_eq!(
        status(&repo),
        "",
        "nothing may be written before initialize"
    );
    assert_eq!(server.request("ping", json!({}))["result"], json!({}));
    let probe = server.request("server/discover", json!({}));
    assert_eq!(probe["error"]["code"], -32601, "{probe}");

    let init = server.request(
        "initialize",
        json!({"protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}),
    );
    assert_eq!(init["result"]["protocolVersion"], VERSION, "{init}");
    server.notify("notifications/initialized", json!({}));
    let made = server.request("tools/call", write);
    assert!(!is_error(&made["result"]), "{made}");
    let path = made["result"]["structuredContent"]["path"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(repo.read(&path).is_some(), "{made}");
    let (exit, _) = server.close();
    assert!(exit.success());
}

#[test]
fn governing_adrs_answers_as_governs_does_and_stays_in_the_repository() {
    let repo = adr_repo();
    repo.write(
        "adr/003-pool.md",
        "---\nadr_id: \"003\"\ntitle: Pool\nstatus: Accepted\ngoverns: [\"src/**\", \"!src/gen/**\"]\n---\n# ADR-003: Pool\n",
    );
    repo.write("src/db.rs", "let s = \"ADR-002\"; // ADR-001\n");
    repo.commit_all("a governing ADR");
    let (mut server, _) = McpServer::initialized(repo.path(), VERSION);
    let result = server.call(
        "governing_adrs",
        json!({"paths": ["src/db.rs", "src/gen/x.rs"]}),
    );
    assert!(!is_error(&result), "{result}");
    let (expected, exit) = cli(
        &repo,
        &["governs", "src/db.rs", "src/gen/x.rs", "--format", "json"],
    );
    assert_eq!(exit, 0, "{expected}");
    assert_eq!(text(&result), expected.trim_end());
    let doc = &result["structuredContent"];
    assert_eq!(doc["paths"][0]["force"], "binding", "{doc:#}");
    let ids: Vec<(&str, &str)> = doc["paths"][0]["adrs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["id"].as_str().unwrap(), a["force"].as_str().unwrap()))
        .collect();
    // ADR-002 is named only inside a string: no link.
    assert_eq!(ids, [("ADR-003", "binding"), ("ADR-001", "context")]);
    assert_eq!(doc["paths"][1]["adrs"], json!([]));

    let outside = server.call("governing_adrs", json!({"paths": ["../x.rs"]}));
    assert!(is_error(&outside), "{outside}");
    let none = server.call("governing_adrs", json!({"paths": []}));
    assert!(is_error(&none), "{none}");
    let (exit, _) = server.close();
    assert!(exit.success());
}

#[test]
fn run_gate_runs_a_phase_as_gate_does_and_never_starts_the_reviewer() {
    let repo = adr_repo();
    repo.write("src/lib.rs", "");
    repo.write("projects/sessions/s1/output/ADR-cache.md", good_adr());
    repo.write("projects/sessions/s1/output/phases.yaml", PLAN);
    repo.commit_all("a session");
    let plan = "projects/sessions/s1/output/phases.yaml";
    let (mut server, _) = McpServer::initialized(repo.path(), VERSION);
    let result = server.call("run_gate", json!({"phases": plan, "phase": "consultant"}));
    assert!(!is_error(&result), "{result}");
    let (expected, exit) = cli(&repo, &["gate", "--phases", plan, "--phase", "consultant"]);
    assert_eq!(exit, 0, "{expected}");
    assert_eq!(text(&result), expected);
    assert_eq!(result["structuredContent"]["passed"], true);

    // A gate that needs the reviewer could not run here, and says where to run it.
    for phase in ["reviewed", "approval"] {
        let result = server.call("run_gate", json!({"phases": plan, "phase": phase}));
        let doc = &result["structuredContent"];
        assert_eq!(doc["outcome"], "error", "{phase}: {doc:#}");
        let message = doc["gates"][0]["message"].as_str().unwrap();
        assert!(message.contains("never starts the reviewer"), "{message}");
    }
    let result = server.call("run_gate", json!({"phases": plan, "phase": "nope"}));
    assert!(
        result["structuredContent"]["message"]
            .as_str()
            .unwrap()
            .contains("has no phase `nope`")
    );
    let missing = server.call(
        "run_gate",
        json!({"phases": "output/phases.yaml", "phase": "x"}),
    );
    assert!(is_error(&missing), "{missing}");
    let (exit, _) = server.close();
    assert!(exit.success());
    assert_eq!(
        status(&repo),
        "",
        "no approval cache, history or result was written"
    );
}

#[test]
#[cfg(unix)]
fn paths_outside_links_out_fifos_and_huge_files_are_tool_errors_never_a_hang() {
    let repo = adr_repo();
    repo.write("config/helix-gate.yaml", "adr:\n  max_file_size: 20000\n");
    let outside = repo.base().join("secret.md");
    std::fs::write(&outside, good_adr()).unwrap();
    std::os::unix::fs::symlink(&outside, repo.join("adr/004-link.md")).unwrap();
    std::os::unix::fs::symlink(repo.base(), repo.join("adr/out")).unwrap();
    let fifo = repo.join("adr/005-fifo.md");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    repo.write("adr/006-huge.md", "x".repeat(20001));
    let (mut server, _) = McpServer::initialized(repo.path(), VERSION);
    let refused = |server: &mut McpServer, args: Value, why: &str| {
        let result = server.call("validate_adr", args.clone());
        assert!(is_error(&result), "{args}: {result}");
        assert!(text(&result).contains(why), "{args}: {}", text(&result));
        assert!(result.get("structuredContent").is_none());
    };
    refused(
        &mut server,
        json!({"path": outside}),
        "outside the repository",
    );
    refused(
        &mut server,
        json!({"path": "../secret.md"}),
        "outside the repository",
    );
    refused(
        &mut server,
        json!({"path": "/etc/passwd"}),
        "outside the repository",
    );
    refused(
        &mut server,
        json!({"path": "adr/004-link.md"}),
        "symbolic link",
    );
    refused(
        &mut server,
        json!({"path": "adr/out/secret.md"}),
        "symbolic link",
    );
    refused(
        &mut server,
        json!({"path": "adr/005-fifo.md"}),
        "named pipe (FIFO)",
    );
    refused(
        &mut server,
        json!({"path": "adr/006-huge.md"}),
        "larger than adr.max_file_size",
    );
    refused(
        &mut server,
        json!({"path": "adr/999-none.md"}),
        "no such file",
    );
    refused(
        &mut server,
        json!({"content": "x".repeat(20001)}),
        "larger than adr.max_file_size",
    );
    refused(
        &mut server,
        json!({"content": "x", "path": "../elsewhere.md"}),
        "outside the repository",
    );
    refused(&mut server, json!({}), "needs `path`");
    refused(&mut server, json!({"path": 7}), "must be a string");
    refused(&mut server, json!({"paths": "adr"}), "no argument `paths`");
    let gate = server.call(
        "run_gate",
        json!({"phases": "adr/005-fifo.md", "phase": "x"}),
    );
    assert!(
        is_error(&gate) && text(&gate).contains("named pipe"),
        "{gate}"
    );
    let new = server.call("new_adr_template", json!({"title": "x", "write": true}));
    assert!(!is_error(&new), "{new}");
    // The secret's text was never sent.
    assert!(!text(&new).contains("secret"));
    let (exit, stderr) = server.close();
    assert!(exit.success(), "{stderr}");
}

#[test]
fn malformed_input_gets_json_rpc_errors_and_the_server_keeps_answering_until_eof() {
    let repo = adr_repo();
    let (mut server, _) = McpServer::initialized(repo.path(), VERSION);
    let error = |server: &mut McpServer, line: &[u8]| -> (Value, i64) {
        server.send_raw(line);
        let answer = server.receive();
        assert_eq!(answer["jsonrpc"], "2.0", "{answer}");
        assert!(answer.get("result").is_none(), "{answer}");
        (
            answer["id"].clone(),
            answer["error"]["code"].as_i64().unwrap(),
        )
    };
    for (line, id, code) in [
        (&b"not json\n"[..], Value::Null, -32700),
        (b"{\"jsonrpc\":\"2.0\",\"id\":1,\n", Value::Null, -32700),
        (b"\xff\xfe\n", Value::Null, -32700),
        (b"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]\n", Value::Null, -32600),
        (b"42\n", Value::Null, -32600),
        (b"{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}\n", Value::Null, -32600),
        (b"{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}\n", Value::Null, -32600),
        (b"{\"id\":5,\"method\":\"ping\"}\n", json!(5), -32600),
        (b"{\"jsonrpc\":\"2.0\",\"id\":\"s\",\"method\":[]}\n", json!("s"), -32600),
        (b"{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"resources/list\"}\n", json!(6), -32601),
        (b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"server/discover\",\"params\":{}}\n", json!(7), -32601),
        (b"{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\"}\n", json!(8), -32602),
        (b"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":1}}\n", json!(9), -32602),
        (b"{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"tools/call\",\"params\":{\"name\":\"list_rules\",\"arguments\":[]}}\n", json!(10), -32602),
        (b"{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"tools/call\",\"params\":{\"name\":\"rm_rf\",\"arguments\":{}}}\n", json!(11), -32602),
    ] {
        assert_eq!(
            error(&mut server, line),
            (id, code),
            "{}",
            String::from_utf8_lossy(line)
        );
    }
    // Notifications are never answered (known, unknown or malformed), nor are responses,
    // blank lines or a `\r` before the line break; the next request is.
    for line in [
        &b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":3}}\n"[..],
        b"{\"jsonrpc\":\"2.0\",\"method\":\"no/such\"}\n",
        b"{\"method\":17}\n",
        b"{\"jsonrpc\":\"2.0\",\"id\":99,\"result\":{}}\n",
        b"\n   \n\r\n",
    ] {
        server.send_raw(line);
    }
    assert!(server.silent_for(Duration::from_millis(300)));
    server.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":\"p\",\"method\":\"ping\"}\r\n");
    assert_eq!(
        server.receive(),
        json!({"jsonrpc": "2.0", "id": "p", "result": {}})
    );

    // A line over the limit is skipped without being kept; its id is read from its end.
    let mut huge = br#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"validate_adr","arguments":{"content":""#.to_vec();
    huge.extend(std::iter::repeat_n(b'a', 17 * 1024 * 1024));
    huge.extend_from_slice(br#""}},"id":"big"}"#);
    huge.push(b'\n');
    let (id, code) = error(&mut server, &huge);
    assert_eq!((id, code), (json!("big"), -32600));
    assert_eq!(server.request("ping", json!({}))["result"], json!({}));

    // The end of the input ends the server: exit 0, nothing on stderr. A last line
    // without a line break is still answered.
    server.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":\"last\",\"method\":\"ping\"}");
    server.close_stdin();
    assert_eq!(server.receive()["id"], "last");
    let (status, stderr) = server.close();
    assert!(status.success(), "{stderr}");
    assert_eq!(stderr, "");
}

/// Claude Code with `helix-gate mcp` registered by `--mcp-config`: the scripted model
/// calls `mcp__helix-gate__validate_adr` (on a bad ADR, then on a path outside the
/// repository), and the next request to the model carries each tool result.
#[test]
fn claude_code_calls_the_validate_tool_and_its_next_request_carries_the_findings() {
    let Some(claude) = require_claude() else {
        return;
    };
    let repo = adr_repo();
    let config = repo.base().join("mcp.json");
    std::fs::write(
        &config,
        json!({"mcpServers": {"helix-gate": {"command": bin(), "args": ["mcp"]}}}).to_string(),
    )
    .unwrap();
    let api = FakeApi::start(Script::new([
        Turn::text("Checking the ADR.").with_tool(
            "mcp__helix-gate__validate_adr",
            json!({"path": "adr/002-bad.md"}),
        ),
        Turn::text("And a file outside.").with_tool(
            "mcp__helix-gate__validate_adr",
            json!({"path": "/etc/passwd"}),
        ),
        Turn::text("ADR-002 lacks its Dokumentation section."),
    ]));
    let outcome = ClaudeRun::new(&claude, &api, repo.path(), "Validate adr/002-bad.md.")
        .arg("--mcp-config")
        .arg(&config)
        .args([
            "--strict-mcp-config",
            "--allowedTools",
            "mcp__helix-gate__validate_adr",
        ])
        .run();
    outcome.assert_success();
    let requests = api.main_requests();
    assert_eq!(requests.len(), 3, "{}", outcome.describe());
    // The first tool result is in the second request, and it is the findings document
    // (Claude Code hands the model the `structuredContent`, as compact JSON).
    let first = requests[1].tool_results();
    assert_eq!(first.len(), 1, "{first:?}");
    assert!(!first[0].is_error, "{first:?}");
    let doc: Value = serde_json::from_str(&first[0].content)
        .unwrap_or_else(|e| panic!("not the JSON document ({e}): {}", first[0].content));
    let (expected, _) = cli(&repo, &["validate", "--format", "json", "adr/002-bad.md"]);
    assert_eq!(doc, serde_json::from_str::<Value>(&expected).unwrap());
    let finding = &doc["files"][0]["findings"][0];
    assert_eq!(finding["rule"], "section-missing");
    assert_eq!(
        finding["message"],
        "required section \"Dokumentation\" is missing"
    );
    assert_eq!(finding["hint"], "add \"## Dokumentation\" with its content");
    // The refusal reaches the model as an error result it can act on.
    let second: Vec<_> = requests[2]
        .tool_results()
        .into_iter()
        .filter(|r| r.tool_use_id != first[0].tool_use_id)
        .collect();
    assert_eq!(second.len(), 1, "{second:?}");
    assert!(second[0].is_error, "{second:?}");
    assert!(
        second[0].content.contains("outside the repository"),
        "{}",
        second[0].content
    );
    assert!(
        !second[0].content.contains("root:"),
        "no line of /etc/passwd"
    );
    assert_eq!(status(&repo), "", "the server wrote nothing");
}

/// The project form: `.mcp.json` at the repository root is enough for `claude -p`
/// (2.1.329 starts a project's servers in print mode without asking).
#[test]
fn a_project_mcp_json_registers_the_server_for_claude_code() {
    let Some(claude) = require_claude() else {
        return;
    };
    let repo = adr_repo();
    repo.write(
        ".mcp.json",
        json!({"mcpServers": {"helix-gate": {"command": bin(), "args": ["mcp"]}}}).to_string(),
    );
    let api = FakeApi::start(Script::new([
        Turn::text("Checking.").with_tool(
            "mcp__helix-gate__validate_adr",
            json!({"content": bad_adr(), "path": "adr/002-bad.md"}),
        ),
        Turn::text("done"),
    ]));
    let outcome = ClaudeRun::new(&claude, &api, repo.path(), "Check my draft.")
        .args(["--allowedTools", "mcp__helix-gate__validate_adr"])
        .run();
    outcome.assert_success();
    let requests = api.main_requests();
    let results = requests.last().expect("requests").tool_results();
    assert_eq!(results.len(), 1, "{}", outcome.describe());
    assert!(!results[0].is_error, "{results:?}");
    assert!(
        results[0].content.contains("\"rule\":\"section-missing\""),
        "{results:?}"
    );
}
