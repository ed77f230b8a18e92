//! Reading one hook event's bytes from stdin, bounded in size and time; the
//! agent's decoder (`crate::agent`) makes the event of them.

use std::time::Instant;

use crate::agent::event::{DecodeError, MAX_STDIN_BYTES, decode};

/// How much room each read of stdin has at least (half of it) and grows by.
const READ_CHUNK: usize = 16 * 1024;

/// Read stdin to its end, bounded in size and in total time (until `deadline`):
/// a stdin that never closes, or trickles, cannot hang the hook. `poll(2)` waits
/// for each chunk with what is left of the deadline, on this thread: the hook
/// runs on every matching tool call, and a reader thread would cost every one.
#[cfg(unix)]
pub(super) fn read_stdin(deadline: Instant) -> Result<Vec<u8>, DecodeError> {
    use rustix::event::{PollFd, PollFlags, Timespec, poll};
    use std::os::fd::AsFd as _;
    let stdin = std::io::stdin();
    let fd = stdin.as_fd();
    // Read straight into the buffer's spare room: a zeroed scratch chunk would
    // cost every call the page faults of touching it (16 of a no-op's ~90).
    let mut buffer = Vec::with_capacity(READ_CHUNK);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let timeout = Timespec::try_from(left).map_err(|e| DecodeError::Io(e.to_string()))?;
        let mut fds = [PollFd::new(&fd, PollFlags::IN)];
        match poll(&mut fds, Some(&timeout)) {
            Ok(0) => {
                // Still open: accept what arrived if it is a complete event.
                return if decode(&buffer).is_ok() {
                    Ok(buffer)
                } else {
                    Err(DecodeError::Timeout)
                };
            }
            Ok(_) => {}
            Err(rustix::io::Errno::INTR) => continue,
            Err(e) => return Err(DecodeError::Io(e.to_string())),
        }
        if buffer.capacity() - buffer.len() < READ_CHUNK / 2 {
            buffer.reserve(READ_CHUNK);
        }
        match rustix::io::read(fd, rustix::buffer::spare_capacity(&mut buffer)) {
            Ok(0) => return Ok(buffer),
            Ok(_) => {
                if buffer.len() > MAX_STDIN_BYTES {
                    return Err(DecodeError::TooLarge);
                }
            }
            Err(rustix::io::Errno::INTR | rustix::io::Errno::AGAIN) => {}
            Err(e) => return Err(DecodeError::Io(e.to_string())),
        }
    }
}

/// Windows has no `poll(2)` on a pipe: a thread reads stdin to its end (at most
/// one byte over the limit) and this one waits for it until `deadline`. On a
/// timeout the thread is left blocked in its read; the hook ends right after.
#[cfg(windows)]
pub(super) fn read_stdin(deadline: Instant) -> Result<Vec<u8>, DecodeError> {
    use std::io::Read as _;
    use std::sync::{Arc, Mutex, PoisonError, mpsc};
    let buffer = Arc::new(Mutex::new(Vec::with_capacity(READ_CHUNK)));
    let (tx, rx) = mpsc::channel();
    let shared = Arc::clone(&buffer);
    std::thread::spawn(move || {
        let mut stdin = std::io::stdin().lock();
        let mut chunk = vec![0u8; READ_CHUNK];
        let result = loop {
            match stdin.read(&mut chunk) {
                Ok(0) => break Ok(()),
                Ok(n) => {
                    let mut bytes = shared.lock().unwrap_or_else(PoisonError::into_inner);
                    bytes.extend_from_slice(&chunk[..n]);
                    if bytes.len() > MAX_STDIN_BYTES {
                        break Err(DecodeError::TooLarge);
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => break Err(DecodeError::Io(e.to_string())),
            }
        };
        let _ = tx.send(result);
    });
    let left = deadline.saturating_duration_since(Instant::now());
    let take = || std::mem::take(&mut *buffer.lock().unwrap_or_else(PoisonError::into_inner));
    match rx.recv_timeout(left) {
        Ok(Ok(())) => Ok(take()),
        Ok(Err(e)) => Err(e),
        Err(_) => {
            // Still open: accept what arrived if it is a complete event.
            let bytes = take();
            if decode(&bytes).is_ok() {
                Ok(bytes)
            } else {
                Err(DecodeError::Timeout)
            }
        }
    }
}
