"""TraceWriter refuses what replay would refuse (issue 21 item 5): a step replay would call
malformed raises at `step()` naming the argument and writes nothing, so the trace stays
replayable; `create()` never replaces a file silently, and never the graph, registry or key it
is using."""

import math
import os
import shutil
import subprocess

import pytest

import primgraph as pg
from conftest import BUILTIN_REGISTRY, RUNS_GRAPH

#: The most a run may spend: u64::MAX nano-USD, summed exactly by replay.
MAX_USD = 18446744073.709551615


def writer(path, **kwargs):
    return pg.TraceWriter.create(path, graph=RUNS_GRAPH, run="r", input={}, **kwargs)


def one_step(w, **kwargs):
    return w.step("read_task", input={}, output={}, **kwargs)


def verdict_after_end(w, path):
    w.end("failure")
    return pg.replay(RUNS_GRAPH, path).verdict


@pytest.mark.parametrize("usd", [1e300, 1.9e10, 2.0**64 / 1e9, float(2**64)])
def test_a_cost_replay_cannot_sum_is_refused_naming_the_field(tmp_path, usd):
    path = tmp_path / "t.trace.jsonl"
    w = writer(path)
    before = path.read_bytes()
    with pytest.raises(ValueError, match="`cost.usd`"):
        one_step(w, cost={"usd": usd, "tokens": 1})
    assert path.read_bytes() == before
    # The writer goes on, and what it wrote replays (not malformed).
    one_step(w, cost={"usd": 0.5, "tokens": 1})
    assert verdict_after_end(w, path) != "malformed"


def test_a_spend_that_passes_the_sum_replay_can_hold_is_refused_at_the_step_that_passes_it(
    tmp_path,
):
    path = tmp_path / "t.trace.jsonl"
    w = writer(path)
    assert one_step(w, cost={"usd": 1e10, "tokens": 0}) == 1
    before = path.read_bytes()
    with pytest.raises(ValueError, match="`cost.usd`.*spend"):
        one_step(w, cost={"usd": 9e9, "tokens": 0})
    assert path.read_bytes() == before
    assert one_step(w, cost={"usd": 1.0, "tokens": 0}) == 2
    report = pg.replay(RUNS_GRAPH, path)  # no end yet: malformed only for that reason
    assert report.verdict == "malformed"
    assert all("cost" not in d["message"] for d in report.diagnostics), report.diagnostics
    assert verdict_after_end(w, path) != "malformed"


@pytest.mark.parametrize(
    "usd", [0.0, 5e-324, 1e-9, 0.1, 123.456, 1e9, MAX_USD / 2, 1.8e10, 1.84e10, 1.85e10, 1e20]
)
def test_accepted_iff_replay_accepts(tmp_path, usd):
    """Every amount the writer accepts replays (never malformed for its cost); every amount it
    refuses is one replay's own parser refuses."""
    path = tmp_path / "t.trace.jsonl"
    w = writer(path)
    try:
        one_step(w, cost={"usd": usd, "tokens": 1})
    except ValueError as e:
        assert "`cost.usd`" in str(e)
        assert usd * 1e9 >= 2.0**64
    else:
        assert usd * 1e9 < 2.0**64
        assert verdict_after_end(w, path) != "malformed"


def test_nesting_deeper_than_replay_reads_is_refused(tmp_path):
    path = tmp_path / "t.trace.jsonl"
    w = writer(path)
    deep = {}
    for _ in range(200):  # within the binding's own limit, past replay's parser's
        deep = {"d": deep}
    before = path.read_bytes()
    with pytest.raises(ValueError, match="argument `output`.*replay would refuse"):
        w.step("read_task", input={}, output=deep)
    assert path.read_bytes() == before
    with pytest.raises(ValueError, match="argument `input`.*replay would refuse"):
        pg.TraceWriter.create(tmp_path / "h.trace.jsonl", graph=RUNS_GRAPH, run="r", input=deep)
    assert not (tmp_path / "h.trace.jsonl").exists()
    one_step(w)
    assert verdict_after_end(w, path) != "malformed"


def test_nan_and_negative_costs_stay_refused(tmp_path):
    w = writer(tmp_path / "t.trace.jsonl")
    for usd in (math.nan, math.inf, -0.5):
        with pytest.raises(ValueError, match="`cost.usd`"):
            one_step(w, cost={"usd": usd, "tokens": 0})


def test_an_existing_path_needs_overwrite(tmp_path):
    path = tmp_path / "t.trace.jsonl"
    path.write_text("my notes\n")
    with pytest.raises(FileExistsError, match="overwrite=True"):
        writer(path)
    assert path.read_text() == "my notes\n"
    w = writer(path, overwrite=True)
    one_step(w)
    assert verdict_after_end(w, path) != "malformed"
    assert path.read_text() != "my notes\n"


def test_the_graph_in_use_is_never_the_trace(tmp_path):
    graph = tmp_path / "g.graph.json"
    shutil.copy(RUNS_GRAPH, graph)
    original = graph.read_bytes()
    (tmp_path / "sub").mkdir()
    os.symlink(graph, tmp_path / "link.json")
    os.link(graph, tmp_path / "hard.json")
    for spelling in (graph, str(graph), tmp_path / "sub" / ".." / "g.graph.json",
                     tmp_path / "link.json", tmp_path / "hard.json"):
        for overwrite in (False, True):
            with pytest.raises(ValueError, match="`path`.*graph"):
                pg.TraceWriter.create(spelling, graph=graph, run="r", overwrite=overwrite)
            assert graph.read_bytes() == original


def test_the_registry_and_key_in_use_are_never_the_trace(tmp_path, cli):
    registry_file = tmp_path / "registry.json"
    shutil.copy(BUILTIN_REGISTRY, registry_file)
    registry = pg.Registry.from_path(registry_file)
    original = registry_file.read_bytes()
    with pytest.raises(ValueError, match="`path`.*registry"):
        pg.TraceWriter.create(
            registry_file, graph=RUNS_GRAPH, run="r", registry=registry, overwrite=True
        )
    assert registry_file.read_bytes() == original

    private = tmp_path / "signing.key"
    subprocess.run([str(cli), "keygen", "--out", str(private)], check=True, capture_output=True)
    key_bytes = private.read_bytes()
    with pytest.raises(ValueError, match="`path`.*key"):
        pg.TraceWriter.create(
            private, graph=RUNS_GRAPH, run="r", sign_key=private, overwrite=True
        )
    assert private.read_bytes() == key_bytes
