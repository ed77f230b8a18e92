//! The one HTTP server under the fake model APIs of Codex, Gemini and Copilot CLI
//! ([`super::fake_responses`], [`super::fake_gemini`], [`super::fake_chat`]): each
//! gives the route it serves, how it records a request and how it answers one.
//!
//! Std only (plus `serde_json`): one accept thread, one thread per connection,
//! one request per connection (`connection: close`); a responder that panics is
//! an error the test can read, and dropping the server stops it without hanging.

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use serde_json::Value;

type Route = Box<dyn Fn(&str) -> bool + Send + Sync>;
type Record<R> = Box<dyn Fn(usize, String, Value) -> R + Send + Sync>;
type Answer<R> = Box<dyn Fn(&R) -> Vec<u8> + Send + Sync>;

struct Shared<R> {
    route: Route,
    record: Record<R>,
    answer: Answer<R>,
    shutdown: AtomicBool,
    requests: Mutex<Vec<R>>,
    errors: Mutex<Vec<String>>,
}

/// A running fake model API on 127.0.0.1; stops on drop.
pub(crate) struct FakeServer<R> {
    addr: SocketAddr,
    shared: Arc<Shared<R>>,
    accept: Option<JoinHandle<()>>,
}

impl<R: Clone + Send + 'static> FakeServer<R> {
    /// Serve the requests whose target `route` accepts: each is recorded as
    /// `record(index, target, JSON body)` and answered with the HTTP response
    /// `answer` makes of it; any other target is a 404 and an error.
    pub(crate) fn start(
        route: impl Fn(&str) -> bool + Send + Sync + 'static,
        record: impl Fn(usize, String, Value) -> R + Send + Sync + 'static,
        answer: impl Fn(&R) -> Vec<u8> + Send + Sync + 'static,
    ) -> FakeServer<R> {
        let listener = TcpListener::bind("127.0.0.1:0").expect("fake server: bind");
        let addr = listener.local_addr().expect("fake server: addr");
        let shared = Arc::new(Shared {
            route: Box::new(route),
            record: Box::new(record),
            answer: Box::new(answer),
            shutdown: AtomicBool::new(false),
            requests: Mutex::new(Vec::new()),
            errors: Mutex::new(Vec::new()),
        });
        let accept_shared = Arc::clone(&shared);
        let accept = thread::spawn(move || {
            for stream in listener.incoming() {
                if accept_shared.shutdown.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let conn = Arc::clone(&accept_shared);
                thread::spawn(move || serve(stream, &conn));
            }
        });
        FakeServer {
            addr,
            shared,
            accept: Some(accept),
        }
    }

    pub(crate) fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Every request so far, in arrival order.
    pub(crate) fn requests(&self) -> Vec<R> {
        self.shared
            .requests
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Problems the server hit (a responder panic, a request it could not route).
    pub(crate) fn errors(&self) -> Vec<String> {
        self.shared
            .errors
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl<R> Drop for FakeServer<R> {
    fn drop(&mut self) {
        self.shared.shutdown.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
        if let Some(accept) = self.accept.take() {
            let _ = accept.join();
        }
    }
}

fn error<R>(shared: &Shared<R>, message: String) {
    shared
        .errors
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(message);
}

fn serve<R: Clone>(mut stream: TcpStream, shared: &Shared<R>) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let Some((path, body)) = read_request(&mut stream) else {
        return;
    };
    let response = if (shared.route)(&path) {
        let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        let (index, request) = {
            let mut requests = shared
                .requests
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            let index = requests.len();
            let request = (shared.record)(index, path, body);
            requests.push(request.clone());
            (index, request)
        };
        if let Ok(response) = catch_unwind(AssertUnwindSafe(|| (shared.answer)(&request))) {
            response
        } else {
            error(shared, format!("responder panicked on request {index}"));
            http(
                400,
                "application/json",
                b"{\"error\":{\"message\":\"responder panicked\"}}",
            )
        }
    } else {
        error(shared, format!("no route for {path}"));
        http(404, "application/json", b"{}")
    };
    let _ = stream.write_all(&response);
    let _ = stream.flush();
    let _ = stream.shutdown(Shutdown::Write);
    let mut sink = [0u8; 1024];
    let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
    while matches!(stream.read(&mut sink), Ok(n) if n > 0) {}
}

/// The request target and body (`Content-Length` or chunked).
pub(crate) fn read_request(stream: &mut TcpStream) -> Option<(String, Vec<u8>)> {
    let mut buf = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    let head_end = loop {
        if let Some(pos) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break pos;
        }
        let n = stream.read(&mut chunk).ok().filter(|n| *n > 0)?;
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut body = buf[head_end + 4..].to_vec();
    let mut lines = head.split("\r\n");
    let path = lines.next()?.split_whitespace().nth(1)?.to_owned();
    let header = |name: &str| {
        head.split("\r\n").skip(1).find_map(|line| {
            let (n, v) = line.split_once(':')?;
            n.trim()
                .eq_ignore_ascii_case(name)
                .then(|| v.trim().to_owned())
        })
    };
    if header("expect").is_some_and(|v| v.eq_ignore_ascii_case("100-continue")) {
        stream.write_all(b"HTTP/1.1 100 Continue\r\n\r\n").ok()?;
    }
    if header("transfer-encoding").is_some_and(|v| v.to_ascii_lowercase().contains("chunked")) {
        return Some((path, dechunk(stream, body)?));
    }
    let length: usize = header("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    while body.len() < length {
        let n = stream.read(&mut chunk).ok().filter(|n| *n > 0)?;
        body.extend_from_slice(&chunk[..n]);
    }
    body.truncate(length);
    Some((path, body))
}

/// A chunked body: read until the terminating zero-size chunk.
fn dechunk(stream: &mut TcpStream, mut raw: Vec<u8>) -> Option<Vec<u8>> {
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        if let Some(body) = try_dechunk(&raw) {
            return Some(body);
        }
        let n = stream.read(&mut chunk).ok().filter(|n| *n > 0)?;
        raw.extend_from_slice(&chunk[..n]);
    }
}

fn try_dechunk(raw: &[u8]) -> Option<Vec<u8>> {
    let mut body = Vec::new();
    let mut at = 0;
    loop {
        let line_end = at + raw[at..].windows(2).position(|w| w == b"\r\n")?;
        let size_text = String::from_utf8_lossy(&raw[at..line_end]);
        let size = usize::from_str_radix(size_text.split(';').next()?.trim(), 16).ok()?;
        at = line_end + 2;
        if size == 0 {
            return Some(body);
        }
        if raw.len() < at + size + 2 {
            return None;
        }
        body.extend_from_slice(&raw[at..at + size]);
        at += size + 2;
    }
}

pub(crate) fn http(status: u16, content_type: &str, body: &[u8]) -> Vec<u8> {
    let reason = if status == 200 { "OK" } else { "Error" };
    let mut out = format!(
        "HTTP/1.1 {status} {reason}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    out.extend_from_slice(body);
    out
}
