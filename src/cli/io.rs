//! What every subcommand shares at the process boundary: printing to stdout (a closed pipe —
//! `primgraph … | head -1` — ends the process quietly with exit 0, as ripgrep does, instead of
//! a panic and exit 101), reading a named input (regular files only, size-capped before reading:
//! `primgraph::input`), `--jobs` (clamped to `primgraph::workers::MAX_JOBS`, said on stderr),
//! and whether a stream may be coloured (a terminal, `NO_COLOR` unset or empty, `TERM` not
//! `dumb`).

use std::io::{ErrorKind, IsTerminal, Write};
use std::process::ExitCode;

/// Write `text` to stdout and flush. A closed pipe exits 0 at once without a message; any
/// other write failure exits 2 with one.
pub fn print(text: &str) {
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        std::process::exit(i32::from(write_failed_code(&e)));
    }
}

/// `print` with a newline.
pub fn println(text: &str) {
    let mut line = String::with_capacity(text.len() + 1);
    line.push_str(text);
    line.push('\n');
    print(&line);
}

/// The exit status for a failed write to stdout: 0 quietly for a closed pipe (the reader has
/// what it wanted), 2 with a message otherwise.
pub fn write_failed(error: &std::io::Error) -> ExitCode {
    ExitCode::from(write_failed_code(error))
}

fn write_failed_code(error: &std::io::Error) -> u8 {
    if error.kind() == ErrorKind::BrokenPipe {
        0
    } else {
        eprintln!("error: cannot write the output: {error}");
        2
    }
}

/// Read a named input file (see `primgraph::input::read_capped`): the message names the path.
pub fn read_input(path: &std::path::Path, limit: usize) -> Result<Vec<u8>, String> {
    primgraph::input::read_capped(path, limit).map_err(|e| e.to_string())
}

/// The thread count for `--jobs N`, saying on stderr when the request is clamped.
pub fn jobs(requested: usize) -> usize {
    let jobs = primgraph::workers::effective_jobs(requested);
    if requested > primgraph::workers::MAX_JOBS {
        eprintln!(
            "warning: --jobs {requested} is over the maximum of {}; using {jobs} threads",
            primgraph::workers::MAX_JOBS
        );
    }
    jobs
}

/// Whether output to a stream may carry colour: only to a terminal, and neither `NO_COLOR`
/// (any non-empty value, no-color.org) nor `TERM=dumb` is set.
pub fn color(stream_is_terminal: bool) -> bool {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let term = std::env::var_os("TERM");
    wants_color(
        stream_is_terminal,
        no_color,
        term.as_deref().and_then(|t| t.to_str()),
    )
}

/// Colour for stdout.
pub fn color_stdout() -> bool {
    color(std::io::stdout().is_terminal())
}

/// Colour for stderr.
pub fn color_stderr() -> bool {
    color(std::io::stderr().is_terminal())
}

fn wants_color(terminal: bool, no_color: bool, term: Option<&str>) -> bool {
    terminal && !no_color && term != Some("dumb")
}

#[cfg(test)]
mod tests {
    use super::wants_color;

    #[test]
    fn colour_only_on_a_terminal_without_no_color_or_a_dumb_term() {
        assert!(wants_color(true, false, Some("xterm-256color")));
        assert!(wants_color(true, false, None));
        assert!(!wants_color(false, false, Some("xterm")));
        assert!(!wants_color(true, true, Some("xterm")));
        assert!(!wants_color(true, false, Some("dumb")));
    }
}
