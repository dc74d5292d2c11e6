"""Garbage passed to every public function and method: a TypeError, ValueError or
primgraph.Error naming the problem — never a panic across the FFI, never a crash."""

import math

import pytest

import primgraph as pg
from conftest import RUNS, RUNS_GRAPH

GARBAGE = [
    None,
    {"a": 1},
    {1, 2},
    [1, [2, {3}]],
    b"\xff\xfe",
    math.nan,
    float("inf"),
    2**200,
    -1,
    object(),
    "",
    "\x00",
    "no/such/path",
    pg.Summary(),
    lambda: 0,
]

ACCEPTED = (TypeError, ValueError, pg.Error)


def calls(tmp_path):
    reg = pg.Registry.builtin()
    replayer = pg.Replayer(RUNS_GRAPH)
    summary = pg.Summary()
    writer = pg.TraceWriter.create(tmp_path / "w.trace.jsonl", graph=RUNS_GRAPH, run="r")
    return [
        ("Registry.from_path", lambda g: pg.Registry.from_path(g)),
        ("Registry.from_bytes", lambda g: pg.Registry.from_bytes(g)),
        ("Registry.lookup", lambda g: reg.lookup(g)),
        ("validate(path)", lambda g: pg.validate(g)),
        ("validate(text)", lambda g: pg.validate(text=g)),
        ("validate(registry)", lambda g: pg.validate(text="{}", registry=g)),
        ("replay(graph)", lambda g: pg.replay(g, RUNS / "faithful-loop.trace.jsonl")),
        ("replay(trace)", lambda g: pg.replay(RUNS_GRAPH, g)),
        ("replay_corpus(paths)", lambda g: pg.replay_corpus(RUNS_GRAPH, g)),
        ("replay_corpus(jobs)", lambda g: pg.replay_corpus(RUNS_GRAPH, RUNS, jobs=g)),
        ("Replayer", lambda g: pg.Replayer(g)),
        ("Replayer.from_bytes", lambda g: pg.Replayer.from_bytes(g)),
        ("Replayer.replay", lambda g: replayer.replay(g)),
        ("Replayer.replay_batch", lambda g: replayer.replay_batch(g, g)),
        ("Summary.merge", lambda g: summary.merge(g)),
        ("Summary.from_json", lambda g: pg.Summary.from_json(g)),
        ("collect_trace_files", lambda g: pg.collect_trace_files(g)),
        ("TraceWriter.create(path)", lambda g: pg.TraceWriter.create(g, graph=RUNS_GRAPH, run="r", overwrite=True)),
        ("TraceWriter.create(run)", lambda g: pg.TraceWriter.create(tmp_path / "x", graph=RUNS_GRAPH, run=g, overwrite=True)),
        ("TraceWriter.create(input)", lambda g: pg.TraceWriter.create(tmp_path / "y", graph=RUNS_GRAPH, run="r", input=g, overwrite=True)),
        ("TraceWriter.step(node)", lambda g: writer.step(g, input={}, output={})),
        ("TraceWriter.step(input)", lambda g: writer.step("read_task", input=g, output={})),
        ("TraceWriter.step(output)", lambda g: writer.step("read_task", input={}, output=g)),
        ("TraceWriter.step(error)", lambda g: writer.step("read_task", input={}, error=g)),
        ("TraceWriter.step(outcome)", lambda g: writer.step("read_task", input={}, output={}, outcome=g)),
        ("TraceWriter.step(evidence)", lambda g: writer.step("read_task", input={}, output={}, evidence=g)),
        ("TraceWriter.step(cost)", lambda g: writer.step("read_task", input={}, output={}, cost=g)),
        ("TraceWriter.step(primitive)", lambda g: writer.step("read_task", input={}, output={}, primitive=g)),
        ("TraceWriter.end", lambda g: writer.end(g)),
    ]


def test_garbage_never_crosses_the_ffi_as_a_panic(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a garbage path that happens to be writable lands here
    for name, call in calls(tmp_path):
        for g in GARBAGE:
            try:
                call(g)
            except ACCEPTED as e:
                assert str(e), (name, g)
            except BaseException as e:  # a pyo3 PanicException is a BaseException
                pytest.fail(f"{name}({g!r}) raised {type(e).__name__}: {e}")
