//! A minimal LSP client for the tests: starts `primgraph lsp` as a child process, frames JSON-RPC
//! messages with `Content-Length` headers over its stdin/stdout (as an editor does), and waits for
//! messages with a generous bound so that a broken server fails the test instead of hanging it.

#![allow(dead_code)]

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

/// How long any one expected message may take (a hang guard, not a speed assertion).
pub const PATIENCE: Duration = Duration::from_secs(120);

pub struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    incoming: Receiver<Value>,
    /// Messages received while waiting for another one, in arrival order.
    pub backlog: Vec<Value>,
    next_id: i64,
}

pub fn uri(name: &str) -> String {
    format!("file:///primgraph-lsp-test/{name}")
}

impl Client {
    pub fn start(args: &[&str]) -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_primgraph"))
            .arg("lsp")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start primgraph lsp");
        let stdout = child.stdout.take().expect("stdout");
        let stdin = child.stdin.take();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut length = None;
                loop {
                    let mut line = String::new();
                    match reader.read_line(&mut line) {
                        Ok(0) | Err(_) => return,
                        Ok(_) => {}
                    }
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(n) = line.strip_prefix("Content-Length: ") {
                        length = n.parse::<usize>().ok();
                    }
                }
                let Some(length) = length else { return };
                let mut body = vec![0; length];
                if reader.read_exact(&mut body).is_err() {
                    return;
                }
                let value: Value = serde_json::from_slice(&body).expect("the server sends JSON");
                if tx.send(value).is_err() {
                    return;
                }
            }
        });
        Client {
            child,
            stdin,
            incoming: rx,
            backlog: Vec::new(),
            next_id: 1,
        }
    }

    pub fn send(&mut self, message: &Value) {
        let body = message.to_string();
        let stdin = self.stdin.as_mut().expect("stdin open");
        write!(stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).expect("write");
        stdin.flush().expect("flush");
    }

    /// Write `bytes` to the server's stdin as they are (no framing added).
    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("write");
        stdin.flush().expect("flush");
    }

    /// The server's process id (for reading its memory use from `/proc`).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Send a request and return its id (the response is awaited with [`Client::response`]).
    pub fn send_request(&mut self, method: &str, params: Value) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    /// Send a request and wait for its response message.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.send_request(method, params);
        self.response(id)
    }

    pub fn response(&mut self, id: i64) -> Value {
        self.wait_for(|m| m.get("id") == Some(&json!(id)) && m.get("method").is_none())
    }

    /// The first message (from the backlog, then from the stream) matching `matches`.
    pub fn wait_for(&mut self, matches: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.backlog.iter().position(&matches) {
            return self.backlog.remove(i);
        }
        let deadline = Instant::now() + PATIENCE;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.incoming.recv_timeout(left) {
                Ok(message) if matches(&message) => return message,
                Ok(message) => self.backlog.push(message),
                Err(RecvTimeoutError::Timeout) => panic!(
                    "no expected message within {PATIENCE:?}; received meanwhile: {:#?}",
                    self.backlog
                ),
                Err(RecvTimeoutError::Disconnected) => panic!(
                    "the server closed its output; received before: {:#?}",
                    self.backlog
                ),
            }
        }
    }

    /// The next `publishDiagnostics` for `uri` (any version).
    pub fn diagnostics(&mut self, uri: &str) -> Value {
        let uri = uri.to_string();
        self.wait_for(move |m| {
            m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri.as_str()
        })["params"]
            .clone()
    }

    pub fn initialize(&mut self) -> Value {
        let response = self.request(
            "initialize",
            json!({"processId": null, "rootUri": null, "capabilities": {}}),
        );
        self.notify("initialized", json!({}));
        response
    }

    pub fn open(&mut self, uri: &str, version: i32, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "json", "version": version, "text": text}}),
        );
    }

    pub fn change_all(&mut self, uri: &str, version: i32, text: &str) {
        self.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]}),
        );
    }

    /// Close stdin and wait for the process to end (bounded).
    pub fn finish(mut self) -> ExitStatus {
        drop(self.stdin.take());
        let deadline = Instant::now() + PATIENCE;
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("the server did not exit within {PATIENCE:?}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// The LSP position (UTF-16 line and character) of byte `offset` of `text`, computed here from
/// the text alone (the tests' own oracle, independent of the server's table).
pub fn position(text: &str, offset: usize) -> Value {
    let before = &text[..offset];
    let line = before.matches('\n').count();
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let character = text[line_start..offset].encode_utf16().count();
    json!({"line": line, "character": character})
}

/// The byte offset of an LSP position in `text` (the tests' own inverse of [`position`]).
pub fn offset(text: &str, position: &Value) -> usize {
    let line = position["line"].as_u64().expect("line") as usize;
    let character = position["character"].as_u64().expect("character") as usize;
    let line_start = text
        .split_inclusive('\n')
        .take(line)
        .map(str::len)
        .sum::<usize>();
    let mut units = 0;
    for (i, c) in text[line_start..].char_indices() {
        if units >= character || c == '\n' {
            return line_start + i;
        }
        units += c.len_utf16();
    }
    text.len()
}

/// Apply LSP text edits (non-overlapping) to `text`.
pub fn apply_edits(text: &str, edits: &[Value]) -> String {
    let mut located: Vec<(usize, usize, String)> = edits
        .iter()
        .map(|e| {
            (
                offset(text, &e["range"]["start"]),
                offset(text, &e["range"]["end"]),
                e["newText"].as_str().expect("newText").to_string(),
            )
        })
        .collect();
    located.sort_by_key(|e| std::cmp::Reverse(e.0));
    let mut out = text.to_string();
    for (start, end, new_text) in located {
        out.replace_range(start..end, &new_text);
    }
    out
}
