//! Fuzz the language server's byte stream: any bytes are a client's whole stdin, served by
//! `primgraph::lsp::serve_io` (the framing reader, the main loop, every request handler and the
//! validation of opened documents) until `exit` or the end of the input. The session must end
//! without a panic or an error, within the fuzzer's time limit, and everything the server wrote
//! must be well framed: `Content-Length: N` headers, then N bytes of a JSON-RPC 2.0 object —
//! the client's framing checked here by hand, independently of the server's reader.
//!
//! The frame limits are small (header lines of 256 bytes, 8 header lines, bodies of 4 KiB) so
//! that the fuzzer's short inputs reach every refusal: a line too long, too many lines, a body
//! over the limit, a body that is not JSON or not a message.
//!
//! Run (seeds: a whole session, and the frames of issue 21 that once ended the server; the
//! committed corpus, minimized with `cargo fuzz cmin`, is what earlier runs found):
//! `cd fuzz && RUSTC_BOOTSTRAP=1 nice -n 19 cargo fuzz run lsp_frames corpus/lsp_frames
//! seeds/lsp_frames -- -jobs=1 -max_total_time=1800`
#![no_main]

use libfuzzer_sys::fuzz_target;
use primgraph::lsp::transport::FrameLimits;
use primgraph::lsp::{ServerOptions, serve_io};
use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The server's output, shared with the test after the session.
#[derive(Clone, Default)]
struct Output(Arc<Mutex<Vec<u8>>>);

impl Write for Output {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Split the server's output into frames; panics on anything but well-framed JSON-RPC objects.
fn check_framing(mut out: &[u8]) {
    while !out.is_empty() {
        let end = out
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .expect("a header ends with an empty line");
        let header = std::str::from_utf8(&out[..end]).expect("the header is text");
        let length: usize = header
            .strip_prefix("Content-Length: ")
            .expect("the one header is Content-Length")
            .parse()
            .expect("Content-Length is a number");
        let body = &out[end + 4..end + 4 + length];
        let value: serde_json::Value = serde_json::from_slice(body).expect("the body is JSON");
        assert_eq!(value["jsonrpc"], "2.0", "{value}");
        if let Some(error) = value.get("error") {
            assert!(error["code"].is_i64() && error["message"].is_string(), "{value}");
        }
        out = &out[end + 4 + length..];
    }
}

/// The threads of this process (Linux: `/proc/self/task`).
fn threads() -> usize {
    std::fs::read_dir("/proc/self/task").map_or(0, |tasks| tasks.count())
}

/// Wait until the session's threads have ended: `serve_io` does not wait for its reader thread
/// or the validation worker (in an editor `exit` must not wait for them), but with the input at
/// its end both must end. Without this wait, LeakSanitizer checks while a detached thread is
/// still exiting and reports its thread-exit record (`__cxa_thread_atexit_impl`, 32 bytes) as
/// leaked. A thread still alive after a minute is a finding: something kept serving after the
/// client's stream ended.
fn wait_for_session_threads(before: usize) {
    let start = std::time::Instant::now();
    while threads() > before {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "{} thread(s) outlived the session",
            threads() - before
        );
        std::thread::sleep(Duration::from_millis(1));
    }
}

fuzz_target!(|data: &[u8]| {
    let before = threads();
    let output = Output::default();
    let options = ServerOptions {
        config: None,
        debounce: Duration::ZERO,
        frame_limits: FrameLimits {
            max_header_line: 256,
            max_header_lines: 8,
            max_body: 4096,
        },
    };
    let exit = serve_io(std::io::Cursor::new(data.to_vec()), output.clone(), options);
    wait_for_session_threads(before);
    assert!(exit.is_ok(), "{exit:?}");
    let written = output.0.lock().unwrap().clone();
    check_framing(&written);
});
