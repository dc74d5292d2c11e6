//! The language server's byte stream: reading `Content-Length`-framed JSON-RPC messages with
//! limits, and writing the server's messages. This module owns everything between the client's
//! bytes and the main loop's [`Connection`]: a reader thread turns frames into [`Message`]s for
//! the loop, a writer thread writes what the loop (and the validation worker) send.
//!
//! Every frame is read in bounded memory: a header line is at most
//! [`FrameLimits::max_header_line`] bytes (a longer one is drained to its end, not buffered), a
//! header at most [`FrameLimits::max_header_lines`] lines, a body at most
//! [`FrameLimits::max_body`] bytes (a larger announced body is answered at once, then drained and
//! discarded in chunks, never allocated). A frame the server cannot take is answered and skipped, and the server goes
//! on reading the next one (only `exit` or the end of the stream ends a session):
//!
//! - a malformed header (a line too long, too many lines, a line without `:`, no or an unreadable
//!   `Content-Length`) or a body that is not JSON (or not UTF-8): `-32700` Parse error, id `null`;
//! - a body over the limit, or JSON that is not a JSON-RPC message (an array — LSP has no
//!   batches —, a request whose id is neither an integer nor a string, …): `-32600` Invalid
//!   Request, with the request's id when one can be read (echoed as sent), else `null`.
//!
//! The refusals go straight to the writer, which writes each before any message the loop sends
//! after it was read, so an answer never overtakes the error about the frame before it.

use crossbeam_channel::{Receiver, Sender, bounded, never, select};
use lsp_server::{Connection, ErrorCode, Message};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::sync::{Arc, Mutex, PoisonError};

/// The size of the largest document the server validates (`json::Limits::default().max_bytes`).
const DOCUMENT_BYTES: usize = 64 * 1024 * 1024;

/// The limits on one frame of the client's stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameLimits {
    /// The longest header line, in bytes (its line end included).
    pub max_header_line: usize,
    /// The most header lines of one frame (LSP defines two headers).
    pub max_header_lines: usize,
    /// The largest body, in bytes.
    pub max_body: usize,
}

impl Default for FrameLimits {
    /// Header lines of 4 KiB, 32 of them, and a body of twice the largest document the server
    /// validates plus 1 MiB: a `didOpen` carries the text JSON-escaped (every quote and
    /// backslash doubled) inside the message's other fields.
    fn default() -> FrameLimits {
        FrameLimits {
            max_header_line: 4096,
            max_header_lines: 32,
            max_body: 2 * DOCUMENT_BYTES + 1024 * 1024,
        }
    }
}

/// A frame the server does not take, and the error it answers it with.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    /// The request's id as sent, or `null` when none could be read.
    pub id: serde_json::Value,
    pub code: i32,
    pub message: String,
}

impl Refusal {
    fn parse_error(message: String) -> Refusal {
        Refusal {
            id: serde_json::Value::Null,
            code: ErrorCode::ParseError as i32,
            message,
        }
    }

    fn invalid_request(id: serde_json::Value, message: String) -> Refusal {
        Refusal {
            id,
            code: ErrorCode::InvalidRequest as i32,
            message,
        }
    }

    /// The JSON-RPC error response, as the body of a frame.
    pub fn to_json(&self) -> String {
        serde_json::json!({
            "jsonrpc": "2.0",
            "id": self.id,
            "error": {"code": self.code, "message": self.message},
        })
        .to_string()
    }
}

/// One frame of the client's stream.
#[derive(Debug)]
pub enum Frame {
    Message(Message),
    Refused(Refusal),
}

/// How a header line ended.
enum HeaderLine {
    /// The line is in the buffer (its line end included).
    Complete,
    /// The line was longer than the limit: it was read to its end and dropped.
    TooLong,
    /// The stream ended (a partial line is dropped with it).
    End,
}

/// Reads frames from a byte stream, within [`FrameLimits`].
pub struct FrameReader<R> {
    input: R,
    limits: FrameLimits,
    line: Vec<u8>,
    /// The bytes of a refused frame's body still to skip: its refusal is answered first, so a
    /// client hears about an oversized message before the server reads it.
    unread_body: u64,
}

impl<R: BufRead> FrameReader<R> {
    pub fn new(input: R, limits: FrameLimits) -> FrameReader<R> {
        FrameReader {
            input,
            limits,
            line: Vec::new(),
            unread_body: 0,
        }
    }

    /// The next frame, or `None` at the end of the stream (a frame cut short by the end is
    /// dropped: nobody is left to answer).
    pub fn next_frame(&mut self) -> io::Result<Option<Frame>> {
        if self.unread_body > 0 {
            let length = std::mem::take(&mut self.unread_body);
            let skipped = io::copy(&mut (&mut self.input).take(length), &mut io::sink())?;
            if skipped < length {
                return Ok(None);
            }
        }
        let mut length: Option<u64> = None;
        let mut problem: Option<String> = None;
        let mut lines = 0usize;
        loop {
            match self.header_line()? {
                HeaderLine::End => return Ok(None),
                HeaderLine::TooLong => {
                    problem.get_or_insert_with(|| {
                        format!(
                            "a header line is longer than {} bytes",
                            self.limits.max_header_line
                        )
                    });
                    lines += 1;
                    continue;
                }
                HeaderLine::Complete => {}
            }
            let line = trim_line_end(&self.line);
            if line.is_empty() {
                if lines == 0 {
                    continue; // blank lines between frames carry nothing
                }
                break;
            }
            lines += 1;
            // Lines past the limit are still read one by one (each within its own limit), so
            // that a Content-Length among them lets the body be skipped.
            if lines > self.limits.max_header_lines {
                problem.get_or_insert_with(|| {
                    format!(
                        "the header has more than {} lines",
                        self.limits.max_header_lines
                    )
                });
            }
            let parsed = std::str::from_utf8(line)
                .ok()
                .and_then(|line| line.split_once(':'));
            let Some((name, value)) = parsed else {
                problem.get_or_insert_with(|| {
                    format!(
                        "malformed header line {:?} (expected `Name: value`)",
                        String::from_utf8_lossy(&line[..line.len().min(80)])
                    )
                });
                continue;
            };
            if !name.trim().eq_ignore_ascii_case("Content-Length") {
                continue; // Content-Type, or a header of a later protocol version
            }
            match value.trim().parse::<u64>() {
                Ok(n) if length.is_none_or(|m| m == n) => length = Some(n),
                Ok(_) => {
                    problem.get_or_insert_with(|| "two different Content-Length headers".into());
                }
                Err(_) => {
                    problem.get_or_insert_with(|| {
                        format!(
                            "Content-Length {:?} is not a number of bytes",
                            &value.trim()[..value.trim().len().min(40)]
                        )
                    });
                }
            }
        }
        let Some(length) = length else {
            let problem = problem.unwrap_or_else(|| "no Content-Length header".into());
            return Ok(Some(Frame::Refused(Refusal::parse_error(format!(
                "unreadable message header: {problem}"
            )))));
        };
        // A body whose length is known is skipped whatever else is wrong: the next frame
        // starts after it.
        if let Some(problem) = problem {
            self.unread_body = length;
            return Ok(Some(Frame::Refused(Refusal::parse_error(format!(
                "unreadable message header: {problem}"
            )))));
        }
        if length > self.limits.max_body as u64 {
            self.unread_body = length;
            return Ok(Some(Frame::Refused(Refusal::invalid_request(
                serde_json::Value::Null,
                format!(
                    "the message is {length} bytes, over the limit of {} bytes (its body is \
                     skipped)",
                    self.limits.max_body
                ),
            ))));
        }
        let mut body = Vec::with_capacity((length as usize).min(64 * 1024));
        (&mut self.input).take(length).read_to_end(&mut body)?;
        if (body.len() as u64) < length {
            return Ok(None);
        }
        Ok(Some(decode(&body)))
    }

    /// Read one header line into `self.line`, buffering at most the limit.
    fn header_line(&mut self) -> io::Result<HeaderLine> {
        self.line.clear();
        let mut too_long = false;
        loop {
            let available = match self.input.fill_buf() {
                Ok(available) => available,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if available.is_empty() {
                return Ok(HeaderLine::End);
            }
            let (chunk, ends) = match memchr::memchr(b'\n', available) {
                Some(i) => (&available[..=i], true),
                None => (available, false),
            };
            let taken = chunk.len();
            if !too_long {
                if self.line.len() + taken > self.limits.max_header_line {
                    too_long = true;
                    self.line.clear();
                } else {
                    self.line.extend_from_slice(chunk);
                }
            }
            self.input.consume(taken);
            if ends {
                return Ok(if too_long {
                    HeaderLine::TooLong
                } else {
                    HeaderLine::Complete
                });
            }
        }
    }
}

/// A line without its `\r\n` (or bare `\n`).
fn trim_line_end(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// A frame's body as a message, or the refusal that answers it.
fn decode(body: &[u8]) -> Frame {
    let value: serde_json::Value = match serde_json::from_slice(body) {
        Ok(value) => value,
        Err(e) => {
            let what = if std::str::from_utf8(body).is_err() {
                "not UTF-8"
            } else {
                "not JSON"
            };
            return Frame::Refused(Refusal::parse_error(format!(
                "the message body is {what}: {e}"
            )));
        }
    };
    let id = match value.get("id") {
        Some(id @ (serde_json::Value::Number(_) | serde_json::Value::String(_))) => id.clone(),
        _ => serde_json::Value::Null,
    };
    let Some(object) = value.as_object() else {
        return Frame::Refused(Refusal::invalid_request(
            id,
            "a message is a JSON object (batches are not part of LSP)".into(),
        ));
    };
    // Which kind of message is decided here, not by trying each in turn: a request whose id is
    // unusable would otherwise be taken for a notification, and never answered.
    let decoded = if object.contains_key("method") {
        if object.contains_key("id") {
            serde_json::from_value::<lsp_server::Request>(value).map(Message::Request)
        } else {
            serde_json::from_value::<lsp_server::Notification>(value).map(Message::Notification)
        }
    } else if object.contains_key("result") || object.contains_key("error") {
        serde_json::from_value::<lsp_server::Response>(value).map(Message::Response)
    } else {
        return Frame::Refused(Refusal::invalid_request(
            id,
            "a message has a `method` (a request or notification) or a `result` or `error` \
             (a response)"
                .into(),
        ));
    };
    match decoded {
        Ok(message) => Frame::Message(message),
        Err(e) => Frame::Refused(Refusal::invalid_request(
            id,
            format!(
                "not a JSON-RPC message ({e}): a request's id is an integer of 32 bits or a \
                 string, a method is a string"
            ),
        )),
    }
}

/// The reader thread: frames to the loop, refusals to the writer; ends after `exit`, at the end
/// of the stream, or when nobody listens any more. A read error is kept in `failure`.
fn read_frames(
    input: impl Read,
    limits: FrameLimits,
    to_loop: &Sender<Message>,
    refusals: &Sender<Refusal>,
    failure: &Mutex<Option<io::Error>>,
) {
    let mut reader = FrameReader::new(BufReader::with_capacity(64 * 1024, input), limits);
    loop {
        match reader.next_frame() {
            Ok(None) => return,
            Ok(Some(Frame::Message(message))) => {
                let exit = matches!(&message, Message::Notification(n) if n.method == "exit");
                if to_loop.send(message).is_err() || exit {
                    return;
                }
            }
            Ok(Some(Frame::Refused(refusal))) => {
                if refusals.send(refusal).is_err() {
                    return;
                }
            }
            Err(e) => {
                *failure.lock().unwrap_or_else(PoisonError::into_inner) = Some(e);
                return;
            }
        }
    }
}

/// The writer thread: every message and refusal as a frame, until the last sender of messages
/// is gone. A refusal waiting is written before the message at hand (it was read before the
/// loop could have answered anything after it).
fn write_frames(
    output: impl Write,
    messages: &Receiver<Message>,
    refusals: Receiver<Refusal>,
) -> io::Result<()> {
    let mut out = io::BufWriter::new(output);
    let mut refusals = refusals;
    let write_refusal = |out: &mut io::BufWriter<_>, refusal: Refusal| -> io::Result<()> {
        let body = refusal.to_json();
        write!(out, "Content-Length: {}\r\n\r\n{body}", body.len())?;
        out.flush()
    };
    loop {
        for refusal in refusals.try_iter() {
            write_refusal(&mut out, refusal)?;
        }
        select! {
            recv(refusals) -> refusal => match refusal {
                Ok(refusal) => write_refusal(&mut out, refusal)?,
                // The reader is done: only messages are left.
                Err(_) => refusals = never(),
            },
            recv(messages) -> message => match message {
                Ok(message) => {
                    for refusal in refusals.try_iter() {
                        write_refusal(&mut out, refusal)?;
                    }
                    message.write(&mut out)?;
                }
                Err(_) => return out.flush(),
            },
        }
    }
}

/// Serve one session over a byte stream (stdio for `primgraph lsp`, memory for tests and the
/// fuzzer): `input` is read on a thread of its own, `output` written on another; returns when
/// the session ends and everything sent is written. The reader thread is not waited for (it may
/// be blocked on a client that keeps its end open after `exit`); it ends with its stream.
pub fn serve_io(
    input: impl Read + Send + 'static,
    output: impl Write + Send + 'static,
    options: super::ServerOptions,
) -> Result<super::Exit, String> {
    let limits = options.frame_limits;
    let (to_loop, from_reader) = bounded::<Message>(0);
    let (refusal_tx, refusal_rx) = bounded::<Refusal>(0);
    let (to_client, for_writer) = bounded::<Message>(0);
    let failure = Arc::new(Mutex::new(None));
    let reader_failure = failure.clone();
    std::thread::Builder::new()
        .name("primgraph-lsp-read".into())
        .spawn(move || read_frames(input, limits, &to_loop, &refusal_tx, &reader_failure))
        .map_err(|e| format!("cannot start the reading thread: {e}"))?;
    let writer = std::thread::Builder::new()
        .name("primgraph-lsp-write".into())
        .spawn(move || write_frames(output, &for_writer, refusal_rx))
        .map_err(|e| format!("cannot start the writing thread: {e}"))?;
    let connection = Connection {
        sender: to_client,
        receiver: from_reader,
    };
    let exit = super::serve(&connection, options);
    drop(connection);
    let written = writer
        .join()
        .map_err(|_| "the writing thread panicked".to_string())?;
    let exit = exit?;
    // The reader stored its error before it let go of the loop's channel, which the loop saw.
    if let Some(e) = failure
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .take()
    {
        return Err(format!("reading from the client failed: {e}"));
    }
    written.map_err(|e| format!("writing to the client failed: {e}"))?;
    Ok(exit)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(bytes: &[u8], limits: FrameLimits) -> Vec<Frame> {
        let mut reader = FrameReader::new(bytes, limits);
        std::iter::from_fn(|| reader.next_frame().unwrap()).collect()
    }

    fn frame(body: &str) -> String {
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    }

    const SHUTDOWN: &str = r#"{"jsonrpc":"2.0","id":7,"method":"shutdown"}"#;

    fn is_shutdown(frame: &Frame) -> bool {
        matches!(frame, Frame::Message(Message::Request(r)) if r.method == "shutdown")
    }

    fn refusal(frame: &Frame) -> &Refusal {
        match frame {
            Frame::Refused(refusal) => refusal,
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn the_default_body_limit_holds_an_escaped_document_of_the_validation_limit() {
        assert_eq!(DOCUMENT_BYTES, crate::json::Limits::default().max_bytes);
        assert!(FrameLimits::default().max_body > 2 * DOCUMENT_BYTES);
    }

    #[test]
    fn an_oversized_body_is_refused_skipped_and_the_next_frame_read() {
        let limits = FrameLimits {
            max_body: SHUTDOWN.len(),
            ..FrameLimits::default()
        };
        let oversized = "x".repeat(SHUTDOWN.len() + 1);
        let input = format!("{}{}", frame(&oversized), frame(SHUTDOWN));
        let got = frames(input.as_bytes(), limits);
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!(refusal(&got[0]).code, -32600);
        let expected = format!(
            "{} bytes, over the limit of {}",
            oversized.len(),
            SHUTDOWN.len()
        );
        assert!(refusal(&got[0]).message.contains(&expected), "{got:?}");
        assert!(is_shutdown(&got[1]));
    }

    #[test]
    fn a_huge_announced_length_is_refused_at_once_and_its_body_skipped_to_the_end() {
        let input = b"Content-Length: 99999999999999\r\n\r\n{\"jsonrpc\":\"2.0\"}";
        let got = frames(input, FrameLimits::default());
        assert_eq!(got.len(), 1, "{got:?}");
        assert!(
            refusal(&got[0])
                .message
                .contains("99999999999999 bytes, over the limit")
        );
    }

    #[test]
    fn a_header_line_over_the_limit_is_drained_not_buffered() {
        let limits = FrameLimits {
            max_header_line: 64,
            ..FrameLimits::default()
        };
        // The long line belongs to the first frame, whose body is skipped with it.
        let input = format!(
            "X-Junk: {}\r\n{}{}",
            "a".repeat(10_000),
            frame(SHUTDOWN),
            frame(SHUTDOWN)
        );
        let mut reader = FrameReader::new(input.as_bytes(), limits);
        let first = reader.next_frame().unwrap().unwrap();
        assert_eq!(refusal(&first).code, -32700);
        assert!(refusal(&first).message.contains("longer than 64 bytes"));
        assert!(reader.line.capacity() <= 1024, "{}", reader.line.capacity());
        assert!(is_shutdown(&reader.next_frame().unwrap().unwrap()));
        assert!(reader.next_frame().unwrap().is_none());
    }

    #[test]
    fn bodies_that_are_not_json_or_not_utf8_get_parse_errors_with_a_null_id() {
        let mut input = frame("{not json").into_bytes();
        input.extend_from_slice(b"Content-Length: 4\r\n\r\n\"\xff\xfe\"");
        input.extend_from_slice(frame(SHUTDOWN).as_bytes());
        let got = frames(&input, FrameLimits::default());
        assert_eq!(got.len(), 3, "{got:?}");
        for (refused, what) in [(&got[0], "not JSON"), (&got[1], "not UTF-8")] {
            let refused = refusal(refused);
            assert_eq!(
                (refused.code, &refused.id),
                (-32700, &serde_json::Value::Null)
            );
            assert!(refused.message.contains(what), "{}", refused.message);
        }
        assert!(is_shutdown(&got[2]));
    }

    #[test]
    fn json_that_is_no_message_is_an_invalid_request_with_its_id_echoed() {
        let input = [
            frame("[1,2]"),
            frame(r#"{"jsonrpc":"2.0","id":12345678901,"method":"hover"}"#),
            frame(r#"{"jsonrpc":"2.0","id":"a","method":5}"#),
            frame(SHUTDOWN),
        ]
        .concat();
        let got = frames(input.as_bytes(), FrameLimits::default());
        assert_eq!(got.len(), 4, "{got:?}");
        let ids: Vec<_> = got[..3].iter().map(|f| refusal(f).id.clone()).collect();
        assert_eq!(
            ids,
            [
                serde_json::Value::Null,
                serde_json::json!(12345678901u64),
                serde_json::json!("a")
            ]
        );
        assert!(got[..3].iter().all(|f| refusal(f).code == -32600));
        assert!(is_shutdown(&got[3]));
    }

    #[test]
    fn header_faults_are_parse_errors_and_a_known_length_is_still_skipped() {
        let input = [
            "Content-Type: x\r\n\r\n".to_string(),
            "Content-Length: abc\r\n\r\n".to_string(),
            "no colon here\r\nContent-Length: 3\r\n\r\n{}x".to_string(),
            // The first length is taken to skip the body.
            "Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}".to_string(),
            frame(SHUTDOWN),
        ]
        .concat();
        let got = frames(input.as_bytes(), FrameLimits::default());
        assert_eq!(got.len(), 5, "{got:?}");
        let messages: Vec<_> = got[..4]
            .iter()
            .map(|f| refusal(f).message.clone())
            .collect();
        assert!(messages[0].contains("no Content-Length"), "{messages:?}");
        assert!(messages[1].contains("not a number"), "{messages:?}");
        assert!(
            messages[2].contains("malformed header line"),
            "{messages:?}"
        );
        assert!(messages[3].contains("two different"), "{messages:?}");
        assert!(got[..4].iter().all(|f| refusal(f).code == -32700));
        assert!(is_shutdown(&got[4]));
    }

    #[test]
    fn too_many_header_lines_are_refused() {
        let limits = FrameLimits {
            max_header_lines: 3,
            ..FrameLimits::default()
        };
        let input = format!(
            "{}{}{}",
            "A: b\r\n".repeat(5),
            frame(SHUTDOWN),
            frame(SHUTDOWN)
        );
        let got = frames(input.as_bytes(), limits);
        assert_eq!(got.len(), 2, "{got:?}");
        assert!(refusal(&got[0]).message.contains("more than 3 lines"));
        assert!(is_shutdown(&got[1]));
    }
}
