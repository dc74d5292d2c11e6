"""primgraph.TraceWriter: a run recorded from Python replays faithful; a bad step raises
before anything is written; misuse closes the trace without an end event."""

import json
import math
import subprocess

import pytest

import primgraph as pg
from conftest import RUNS, RUNS_GRAPH, read_events

RECORDED = RUNS / "faithful-loop.trace.jsonl"


def record(path, events, *, graph=RUNS_GRAPH):
    """Re-record the steps of a recorded run through the Python writer."""
    header, *steps = events
    with pg.TraceWriter.create(
        path, graph=graph, run=header["run"], input=header["input"]
    ) as w:
        for e in steps:
            if "end" in e:
                assert w.end(e["end"]) == e["seq"]
                continue
            kwargs = {k: e[k] for k in ("output", "error", "outcome", "evidence", "cost") if k in e}
            assert w.step(e["node"], input=e["input"], **kwargs) == e["seq"]
    return w


def record_first_step_only(path):
    """Record the first step of the recorded run and close the writer without an end event;
    returns that step as recorded."""
    header, first, *_ = read_events(RECORDED)
    with pg.TraceWriter.create(path, graph=RUNS_GRAPH, run="r", input=header["input"]) as w:
        w.step("read_task", input=first["input"], output=first["output"],
               evidence=first["evidence"], cost=first["cost"])
    return first


def test_a_recorded_run_replays_faithful_and_matches_the_original_bytes(tmp_path):
    out = tmp_path / "again.trace.jsonl"
    w = record(out, read_events(RECORDED))
    assert w.ended and w.closed
    report = pg.replay(RUNS_GRAPH, out)
    assert report.verdict == "faithful", report.diagnostics
    assert report.end == "success" and report.first_divergence is None
    # The writer is deterministic: the same events give the same chain, byte for byte, as the
    # recorder that wrote the fixture.
    assert out.read_bytes() == RECORDED.read_bytes()


def test_an_edited_byte_is_not_faithful(tmp_path):
    out = tmp_path / "edited.trace.jsonl"
    record(out, read_events(RECORDED))
    data = bytearray(out.read_bytes())
    lines = data.split(b"\n")
    at = data.index(b'"output":{', len(lines[0]) + len(lines[1]) + 2) + len(b'"output":{"')
    data[at] = ord("X") if data[at] != ord("X") else ord("Y")
    report = pg.replay(RUNS_GRAPH, bytes(data))
    assert report.verdict != "faithful"
    assert report.first_divergence is not None
    assert report.first_divergence["code"] in {"D615", "D616", "D607"}


def test_the_primitive_comes_from_the_graph(tmp_path):
    out = tmp_path / "one.trace.jsonl"
    first = record_first_step_only(out)
    line = json.loads(out.read_text().splitlines()[1])
    assert line["primitive"] == first["primitive"] == "intake.parse_issue"


def bad_steps(first):
    good = dict(input=first["input"], output=first["output"], evidence=first["evidence"])
    return [
        (TypeError, "`output`", dict(good, output={"tags": {1, 2}})),
        (ValueError, "`cost.usd`", dict(good, cost={"usd": math.nan, "tokens": 1})),
        (ValueError, "`output`", dict(good, output={"x": float("inf")})),
        (TypeError, "`input`", dict(good, input=["not", "a", "dict"])),
        (TypeError, "not both", dict(good, error="timeout")),
        (TypeError, "needs output", dict(input=first["input"])),
        (TypeError, "`evidence", dict(good, evidence=[{"kind": "x"}])),
        (TypeError, "`evidence`", dict(good, evidence="task_record")),
        (ValueError, "`cost.tokens`", dict(good, cost={"usd": 0.1, "tokens": -1})),
        (TypeError, "`cost`", dict(good, cost={"dollars": 1})),
        (TypeError, "keys are strings", dict(good, output={1: "x"})),
        (ValueError, "64 bits", dict(good, output={"n": 2**70})),
    ]


def test_a_bad_step_raises_before_anything_is_written(tmp_path):
    out = tmp_path / "bad.trace.jsonl"
    header, first, *_ = read_events(RECORDED)
    w = pg.TraceWriter.create(out, graph=RUNS_GRAPH, run="r", input=header["input"])
    before = out.read_bytes()
    for error, message, kwargs in bad_steps(first):
        with pytest.raises(error, match=message):
            w.step("read_task", **kwargs)
        assert out.read_bytes() == before
    with pytest.raises(pg.TraceFormatError) as caught:
        w.step("no_such_node", input={}, output={})
    assert (caught.value.file, caught.value.line) == (str(out), 2)
    with pytest.raises(pg.TraceFormatError):
        w.step("read_task", input={}, error={"mode": ""})  # empty failure mode
    assert out.read_bytes() == before
    # The writer is still usable after refusals.
    assert w.step("read_task", input=first["input"], output=first["output"],
                  evidence=first["evidence"], cost=first["cost"]) == 1
    w.close()


def test_an_exception_in_the_with_block_leaves_a_malformed_trace_with_everything_before(tmp_path):
    out = tmp_path / "crash.trace.jsonl"
    events = read_events(RECORDED)
    header, steps = events[0], events[1:4]
    with pytest.raises(RuntimeError, match="agent crashed"):
        with pg.TraceWriter.create(out, graph=RUNS_GRAPH, run="r", input=header["input"]) as w:
            for e in steps:
                kwargs = {k: e[k] for k in ("output", "error", "outcome", "evidence", "cost") if k in e}
                w.step(e["node"], input=e["input"], **kwargs)
            raise RuntimeError("agent crashed")
    assert w.closed and not w.ended
    assert len(out.read_text().splitlines()) == 1 + len(steps)
    report = pg.replay(RUNS_GRAPH, out)
    assert report.verdict != "faithful"
    assert report.end is None and report.steps == len(steps)
    with pytest.raises(pg.WriterClosedError) as caught:
        w.step("read_task", input={}, output={})
    assert caught.value.file == str(out) and caught.value.line == 2 + len(steps)
    with pytest.raises(pg.WriterClosedError):
        w.end("success")


ENGINE_WITHOUT_D616_AT_EOF = pg.replay(
    RUNS_GRAPH, b"".join((RUNS / "faithful-loop.trace.jsonl").read_bytes().splitlines(True)[:3])
).verdict != "malformed"


@pytest.mark.xfail(
    ENGINE_WITHOUT_D616_AT_EOF,
    strict=True,
    reason="SPEC §4.2: a trace without an end event is malformed (D616 at the end of the file); "
    "the engine of this branch still reports D614 (issue 10 changes it)",
)
def test_a_trace_closed_without_end_replays_malformed(tmp_path):
    out = tmp_path / "cut.trace.jsonl"
    record_first_step_only(out)
    report = pg.replay(RUNS_GRAPH, out)
    assert report.verdict == "malformed"
    assert report.first_divergence["code"] == "D616"


def test_after_end_nothing_may_follow(tmp_path):
    out = tmp_path / "ended.trace.jsonl"
    w = record(out, read_events(RECORDED))
    before = out.read_bytes()
    with pytest.raises(pg.WriterClosedError, match="ended"):
        w.step("read_task", input={}, output={})
    with pytest.raises(pg.WriterClosedError):
        w.end("failure")
    assert out.read_bytes() == before
    assert pg.replay(RUNS_GRAPH, out).verdict == "faithful"


def test_create_refuses_bad_arguments_without_creating_the_file(tmp_path):
    out = tmp_path / "never.trace.jsonl"
    with pytest.raises(TypeError, match="`input`"):
        pg.TraceWriter.create(out, graph=RUNS_GRAPH, run="r", input={"s": {1}})
    with pytest.raises(ValueError, match="`run`"):
        pg.TraceWriter.create(out, graph=RUNS_GRAPH, run="")
    with pytest.raises(TypeError, match="`graph`"):
        pg.TraceWriter.create(out, graph={"graph": "x"}, run="r")
    with pytest.raises(pg.InputError):
        pg.TraceWriter.create(out, graph=tmp_path / "missing.graph.json", run="r")
    assert not out.exists()
    with pytest.raises(ValueError, match="`status`"):
        w = pg.TraceWriter.create(out, graph=RUNS_GRAPH, run="r")
        w.end("ok")


def test_a_graph_that_does_not_load_raises_graph_error_with_its_location(tmp_path):
    bad = tmp_path / "bad.graph.json"
    bad.write_text('{"graph": "x",\n "graph": "y"}')
    with pytest.raises(pg.GraphError) as caught:
        pg.TraceWriter.create(tmp_path / "t.trace.jsonl", graph=bad, run="r")
    e = caught.value
    assert (e.code, e.file, e.line, e.column) == ("G002", str(bad), 2, 2)


def record_sealed(path, events, key):
    header, *steps = events
    with pg.TraceWriter.create(
        path, graph=RUNS_GRAPH, run=header["run"], input=header["input"], sign_key=key
    ) as w:
        for e in steps:
            if "end" in e:
                w.end(e["end"])
                continue
            kwargs = {k: e[k] for k in ("output", "error", "outcome", "evidence", "cost") if k in e}
            w.step(e["node"], input=e["input"], **kwargs)


def test_a_run_sealed_from_python_verifies_under_trust_and_an_edit_of_its_end_does_not(
    tmp_path, cli
):
    key = tmp_path / "recorder.key"
    subprocess.run([str(cli), "keygen", "--out", str(key)], check=True, capture_output=True)
    out = tmp_path / "sealed.trace.jsonl"
    record_sealed(out, read_events(RECORDED), key)
    end = json.loads(out.read_bytes().rstrip(b"\n").split(b"\n")[-1])
    public = (tmp_path / "recorder.key.pub").read_text().strip()
    assert end["signer"] == "ed25519:" + public.removeprefix("ed25519:").lower()
    assert end["sig"].startswith("ed25519:") and len(end["sig"]) == len("ed25519:") + 128

    trusted = [str(cli), "replay", "--graph", str(RUNS_GRAPH), "--format", "json"]
    trusted += ["--trust", str(tmp_path / "recorder.key.pub")]
    ok = subprocess.run(trusted + [str(out)], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert json.loads(ok.stdout)["runs"][0]["seal"] == "verified"

    # The end line is the one the chain leaves open: the seal covers it.
    edited = tmp_path / "edited.trace.jsonl"
    edited.write_bytes(out.read_bytes().replace(b'"end":"success"', b'"end":"failure"'))
    bad = subprocess.run(trusted + [str(edited)], capture_output=True, text=True)
    assert bad.returncode == 1
    codes = {d["code"] for d in json.loads(bad.stdout)["runs"][0]["diagnostics"]}
    assert "D618" in codes


def test_an_unreadable_sign_key_raises_before_the_trace_is_created(tmp_path):
    out = tmp_path / "never.trace.jsonl"
    with pytest.raises(pg.Error) as raised:
        pg.TraceWriter.create(
            out, graph=RUNS_GRAPH, run="r-1", input={}, sign_key=tmp_path / "missing.key"
        )
    assert raised.value.file.endswith("missing.key")
    assert not out.exists()
