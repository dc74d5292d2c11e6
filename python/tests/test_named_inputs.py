"""Every path handed to the package is read the way the CLI reads a named input (issue 21,
item 10): `validate`, `Registry.from_path`, `TraceWriter.create(sign_key=…)`, `replay` and
`replay_corpus` refuse a FIFO or a device at once with `InputError` (before, the read blocked
inside Rust, where Ctrl-C cannot stop it), and a file over its limit from its size, without
reading it.

Each call runs in a child interpreter with a time bound, so a regression fails the test instead
of hanging the session, and with a 1 GiB address-space limit, so reading the file is not an
option either."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from conftest import RUNS_GRAPH

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="FIFOs and /dev/zero are Unix")


def outcome(call: str, cwd) -> dict:
    """Run `call` (an expression using `pg`) in a child interpreter; what it raised or returned."""
    script = textwrap.dedent(
        f"""
        import json, resource, sys
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
        import primgraph as pg
        try:
            value = {call}
        except pg.InputError as e:
            print(json.dumps({{"raised": "InputError", "message": str(e), "file": e.file}}))
        else:
            print(json.dumps({{"returned": repr(value),
                               "codes": [d["code"] for d in getattr(value, "diagnostics", [])]}}))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def calls_naming(path: str) -> list[str]:
    graph = json.dumps(str(RUNS_GRAPH))
    return [
        f"pg.validate({path!r})",
        f"pg.Registry.from_path({path!r})",
        f"pg.replay({graph}, {path!r})",
        f"pg.replay_corpus({graph}, [{path!r}])",
        f"pg.TraceWriter.create('out.trace.jsonl', graph={graph}, run='r', sign_key={path!r})",
    ]


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_fifo_or_a_device_is_an_input_error_at_once(tmp_path, kind):
    if kind == "fifo":
        path = str(tmp_path / "named.graph.json")
        os.mkfifo(path)
        said = "FIFO"
    else:
        path = "/dev/zero"
        said = "character device"
    for call in calls_naming(path):
        got = outcome(call, tmp_path)
        assert got.get("raised") == "InputError", (call, got)
        assert said in got["message"] and got["file"] == path, (call, got)
    assert not (tmp_path / "out.trace.jsonl").exists()


def test_a_file_over_its_limit_is_refused_from_its_size(tmp_path):
    big = tmp_path / "big.graph.json"
    with open(big, "wb") as f:
        f.truncate(2 << 30)
    # A graph over 64 MiB is a G001 finding, as `primgraph validate` reports it.
    got = outcome(f"pg.validate({str(big)!r})", tmp_path)
    assert got.get("codes") == ["G001"], got
    # A registry over 16 MiB and a key over 4 KiB are input errors naming the limit.
    got = outcome(f"pg.Registry.from_path({str(big)!r})", tmp_path)
    assert got.get("raised") == "InputError", got
    assert f"over the limit of {16 << 20} bytes" in got["message"], got
    key = tmp_path / "big.key"
    with open(key, "wb") as f:
        f.truncate(4097)
    graph = json.dumps(str(RUNS_GRAPH))
    got = outcome(
        f"pg.TraceWriter.create('out.trace.jsonl', graph={graph}, run='r', sign_key={str(key)!r})",
        tmp_path,
    )
    assert got.get("raised") == "InputError", got
    assert "over the limit of 4096 bytes" in got["message"], got
    assert not (tmp_path / "out.trace.jsonl").exists()


def test_an_input_error_names_its_file_once(tmp_path):
    # The exception's text is `FILE: message`; the message does not repeat the path.
    missing = str(tmp_path / "missing.registry.json")
    got = outcome(f"pg.Registry.from_path({missing!r})", tmp_path)
    assert got.get("raised") == "InputError", got
    assert got["file"] == missing, got
    assert got["message"].count(missing) == 1, got
    assert "cannot read" in got["message"], got
