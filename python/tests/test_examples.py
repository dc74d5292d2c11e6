"""The README's toy agent loop (python/examples/toy_agent.py) records a run that replays
faithful."""

import importlib.util
import json
import pathlib

import primgraph as pg

EXAMPLE = pathlib.Path(__file__).resolve().parents[1] / "examples" / "toy_agent.py"


def test_the_toy_agent_records_a_faithful_run(tmp_path):
    spec = importlib.util.spec_from_file_location("toy_agent", EXAMPLE)
    toy = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(toy)
    trace = tmp_path / "toy.trace.jsonl"
    toy.run_agent(trace)
    report = pg.replay(toy.GRAPH, trace)
    assert report.verdict == "faithful", report.diagnostics
    assert (report.steps, report.end) == (11, "success")
    lines = [json.loads(line) for line in trace.read_text().splitlines()]
    assert [e.get("node") for e in lines[1:-1]].count("draft") == 2  # the loop ran twice
    assert lines[-1]["end"] == "success"
