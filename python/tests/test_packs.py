"""Packs from Python (SPEC §9.2): ``Registry.with_packs`` used by ``validate``, ``replay``,
``Replayer`` and ``TraceWriter`` — the packs' primitives looked up, their rules checked, traces
that record their packs (D619) and context rules in replay (D620)."""

import json
import pickle

import pytest

import primgraph as pg
from conftest import REPO

WIRE = REPO / "tests" / "fixtures" / "pack-wire"
PATH = WIRE / "path"


@pytest.fixture(scope="module")
def packs():
    return pg.Registry.builtin().with_packs([PATH])


def codes(report):
    return [d["code"] for d in report.diagnostics]


def test_with_packs_sees_the_pack_primitives(packs):
    assert "pyship.land" in packs
    assert packs.lookup("PYSHIP_LAND")["id"] == "pyship.land"
    assert len(packs) == len(pg.Registry.builtin()) + 3
    assert [p[:2] for p in packs.packs()] == [("pyship", "1.0.0"), ("pyship-bad", "0.1.0")]
    assert packs.packs()[0][2].startswith("sha256:")
    assert "pyship.land" not in pg.Registry.builtin()
    assert pg.Registry.builtin().packs() == []


def test_validate_runs_the_pack_rules(packs):
    report = pg.validate(WIRE / "land-untested.graph.json", registry=packs)
    assert not report.ok
    rule = [d for d in report.diagnostics if d["code"] == "pyship/land-after-tests"]
    assert len(rule) == 1 and rule[0]["line"] == 11 and rule[0]["severity"] == "error"
    assert pg.validate(WIRE / "land-ok.graph.json", registry=packs).ok
    # Without the pack path the graph's packs are not found.
    assert "P804" in codes(pg.validate(WIRE / "land-ok.graph.json"))


def test_invalid_rules_are_located_in_pack_json(packs):
    report = pg.validate(WIRE / "uses-bad.graph.json", registry=packs)
    p840 = [d for d in report.diagnostics if d["code"] == "P840"]
    assert len(p840) == 1
    assert p840[0]["file"].endswith("pyship-bad/pack.json") and p840[0]["line"] == 11


def test_replay_with_packs_reports_d619_and_d620(packs):
    graph = WIRE / "land-ok.graph.json"
    assert pg.replay(graph, WIRE / "recorded.trace.jsonl", registry=packs).verdict == "faithful"
    d619 = pg.replay(graph, WIRE / "d619.trace.jsonl", registry=packs)
    assert d619.verdict == "faithful"
    assert [d["code"] for d in d619.diagnostics] == ["D619"]
    d620 = pg.Replayer(graph, registry=packs).replay(WIRE / "d620.trace.jsonl")
    assert d620.verdict == "violated"
    assert [(d["code"], d["line"]) for d in d620.diagnostics] == [("D620", 2)]
    with pytest.raises(pg.GraphError):
        pg.replay(graph, WIRE / "recorded.trace.jsonl")


def test_the_writer_records_the_packs_and_its_run_replays_faithfully(packs, tmp_path):
    graph = WIRE / "land-ok.graph.json"
    path = tmp_path / "run.trace.jsonl"
    report = {"passed": 3, "failed": 0}
    with pg.TraceWriter.create(path, graph=graph, run="r1", registry=packs) as w:
        w.step("test", input={"target": "tests/test_x.py"}, output={"report": report},
               evidence=[{"kind": "test_log", "digest": "sha256:" + "1" * 64}])
        w.step("decide", input={"report": report}, output={"verdict": "pass"}, outcome="pass")
        w.step("land", input={"message": "fix the parser"}, output={"commit": "abc"},
               evidence=[{"kind": "diff", "digest": "sha256:" + "2" * 64}])
        w.step("done", input={"summary": "landed"}, output={"status": "success"},
               evidence=[{"kind": "run_record", "digest": "sha256:" + "3" * 64}])
        w.end("success")
    header = json.loads(path.read_text().splitlines()[0])
    assert header["packs"] == [
        {"name": "pyship", "version": "1.0.0", "digest": packs.packs()[0][2]}
    ]
    result = pg.replay(graph, path, registry=packs)
    assert result.verdict == "faithful", result.diagnostics


def test_a_registry_with_packs_pickles(packs):
    again = pickle.loads(pickle.dumps(packs))
    assert "pyship.land" in again
    assert again.packs() == packs.packs()


def test_with_packs_refuses_what_is_not_a_folder():
    with pytest.raises(pg.InputError):
        pg.Registry.builtin().with_packs([WIRE / "no-such-folder"])
