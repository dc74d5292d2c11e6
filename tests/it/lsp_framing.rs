//! The language server's framing (issue 21, item 9), driven over the real `primgraph lsp`'s
//! pipes: an absurd `Content-Length`, a body over the limit, a header line of 200 MiB without a
//! line end, and bodies that are not JSON, not UTF-8 or not a message are each answered with a
//! JSON-RPC error, in bounded memory, and the server goes on serving — a normal initialize,
//! shutdown and exit after them is answered and ends with exit code 0.

use crate::lsp_client;

use lsp_client::Client;
use primgraph::lsp::transport::FrameLimits;
use serde_json::{Value, json};

/// Bytes written to the server per `write` when streaming a large input.
const CHUNK: usize = 1 << 20;

/// The next error response the server sends (in arrival order).
fn next_error(client: &mut Client) -> Value {
    client.wait_for(|m| m.get("error").is_some())
}

/// Initialize, shut down and exit: every request answered, exit code 0.
fn a_normal_session_still_works(mut client: Client) {
    let init = client.initialize();
    assert!(init["result"]["capabilities"].is_object(), "{init}");
    let shutdown = client.request("shutdown", Value::Null);
    assert_eq!(shutdown["result"], Value::Null, "{shutdown}");
    assert!(shutdown.get("error").is_none(), "{shutdown}");
    client.notify("exit", Value::Null);
    let status = client.finish();
    assert_eq!(status.code(), Some(0), "{status:?}");
}

/// The server's peak resident memory so far, in bytes (Linux `/proc`).
#[cfg(target_os = "linux")]
fn peak_memory(client: &Client) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{}/status", client.pid()))
        .expect("the server's /proc status");
    let kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().strip_suffix("kB"))
        .and_then(|v| v.trim().parse().ok())
        .expect("VmHWM in /proc status");
    kib * 1024
}

#[cfg(not(target_os = "linux"))]
fn peak_memory(_: &Client) -> u64 {
    0
}

/// Far below what buffering any of the large inputs here would cost (129 MiB and more).
const MEMORY_BOUND: u64 = 96 << 20;

#[test]
fn an_absurd_content_length_is_refused_at_once_without_allocating_it() {
    for length in ["99999999999999", "2000000000"] {
        let mut client = Client::start(&[]);
        client.send_raw(format!("Content-Length: {length}\r\n\r\n").as_bytes());
        let error = next_error(&mut client);
        assert_eq!(error["id"], Value::Null, "{error}");
        assert_eq!(error["error"]["code"], -32600, "{error}");
        let message = error["error"]["message"].as_str().unwrap();
        assert!(
            message.contains(&format!("{length} bytes, over the limit")),
            "{message}"
        );
        let peak = peak_memory(&client);
        assert!(peak < MEMORY_BOUND, "{length}: peak {peak} bytes");
        // The announced body never comes: closing the stream ends the session (exit code 1,
        // not a signal).
        let status = client.finish();
        assert_eq!(status.code(), Some(1), "{length}: {status:?}");
    }
}

#[test]
fn a_body_over_the_limit_is_skipped_in_bounded_memory_and_the_session_goes_on() {
    let length = FrameLimits::default().max_body + 1;
    let mut client = Client::start(&[]);
    client.send_raw(format!("Content-Length: {length}\r\n\r\n").as_bytes());
    let error = next_error(&mut client);
    assert_eq!(error["error"]["code"], -32600, "{error}");
    let chunk = vec![b'x'; CHUNK];
    let mut left = length;
    while left > 0 {
        let n = left.min(CHUNK);
        client.send_raw(&chunk[..n]);
        left -= n;
    }
    // The request after the skipped body is read as the next frame.
    let id = client.send_request("no/such/method", json!({}));
    let answer = client.response(id);
    assert_eq!(answer["error"]["code"], -32002, "{answer}"); // before `initialize`
    let peak = peak_memory(&client);
    assert!(
        peak < MEMORY_BOUND,
        "peak {peak} bytes for a {length}-byte body"
    );
    a_normal_session_still_works(client);
}

#[test]
fn a_header_line_of_200_mib_is_drained_not_buffered() {
    let mut client = Client::start(&[]);
    client.send_raw(b"X-Junk: ");
    let chunk = vec![b'a'; CHUNK];
    for _ in 0..200 {
        client.send_raw(&chunk);
    }
    client.send_raw(b"\r\n\r\n");
    let error = next_error(&mut client);
    assert_eq!(error["id"], Value::Null, "{error}");
    assert_eq!(error["error"]["code"], -32700, "{error}");
    let message = error["error"]["message"].as_str().unwrap();
    assert!(message.contains("header line is longer than"), "{message}");
    let peak = peak_memory(&client);
    assert!(peak < MEMORY_BOUND, "peak {peak} bytes");
    a_normal_session_still_works(client);
}

#[test]
fn bodies_that_are_not_json_utf8_or_a_message_are_answered_and_serving_goes_on() {
    let mut client = Client::start(&[]);
    let frame = |body: &[u8]| {
        let mut framed = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
        framed.extend_from_slice(body);
        framed
    };
    client.send_raw(&frame(b"{not json"));
    client.send_raw(&frame(b"\"\xff\xfe\""));
    client.send_raw(&frame(
        br#"{"jsonrpc":"2.0","id":1099511627776,"method":"initialize","params":{}}"#,
    ));
    client.send_raw(&frame(b"[]"));
    client.send_raw(b"Content-Type: application/vscode-jsonrpc\r\n\r\n");
    let expected = [
        (-32700, Value::Null, "not JSON"),
        (-32700, Value::Null, "not UTF-8"),
        (-32600, json!(1099511627776u64), "32 bits"),
        (-32600, Value::Null, "batches"),
        (-32700, Value::Null, "no Content-Length"),
    ];
    for (code, id, words) in expected {
        let error = next_error(&mut client);
        assert_eq!(error["error"]["code"], code, "{error}");
        assert_eq!(error["id"], id, "{error}");
        let message = error["error"]["message"].as_str().unwrap();
        assert!(message.contains(words), "expected {words:?}: {message}");
    }
    a_normal_session_still_works(client);
}
