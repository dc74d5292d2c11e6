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
//! Run (seeds: a whole session, and the frames of issue 21 that once ended the server):
//! `cd fuzz && mkdir -p corpus/lsp_frames && RUSTC_BOOTSTRAP=1 cargo fuzz run lsp_frames
//! corpus/lsp_frames seeds/lsp_frames -- -max_total_time=600`
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

fuzz_target!(|data: &[u8]| {
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
    assert!(exit.is_ok(), "{exit:?}");
    let written = output.0.lock().unwrap().clone();
    check_framing(&written);
});
