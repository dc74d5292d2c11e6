"""Packs from Python (SPEC §9.2): ``Registry.with_packs`` used by ``validate``, ``replay``,
``Replayer`` and ``TraceWriter`` — the packs' primitives looked up, their rules checked, traces
that record their packs (D619) and context rules in replay (D620); and the lock
(``with_packs(..., lock=..., locked=...)``): exactly the locked versions, P806 for a pack edited
since it was locked."""

import json
import pickle
import shutil
import subprocess

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
    # Without the pack path the graph's packs are not found, and P804 says how to give one from
    # Python (the package reads no primgraph.toml; docs/packs.md).
    p804 = [d for d in pg.validate(WIRE / "land-ok.graph.json").diagnostics if d["code"] == "P804"]
    assert p804 and all("Registry.builtin().with_packs(" in d["message"] for d in p804), p804
    assert not any("--pack" in d["message"] for d in p804), p804
    with pytest.raises(pg.GraphError, match="with_packs") as info:
        pg.Replayer(WIRE / "land-ok.graph.json")
    assert info.value.code == "P804", info.value


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


# ---- the lock (SPEC §9.2): `with_packs(..., lock=..., locked=...)` --------------------------


@pytest.fixture
def locked_project(cli, tmp_path):
    """A project whose `primgraph.lock` (written by the real `primgraph pack lock`) locks
    pyship 1.0.0, with a newer pyship 1.1.0 on the pack path beside it."""
    shutil.copytree(PATH / "pyship", tmp_path / "packs" / "pyship")
    (tmp_path / "graphs").mkdir()
    shutil.copy(WIRE / "land-ok.graph.json", tmp_path / "graphs" / "land-ok.graph.json")
    (tmp_path / "primgraph.toml").write_text("")
    done = subprocess.run(
        [str(cli), "pack", "lock", "graphs", "--pack", "packs"],
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr
    newer = tmp_path / "newer" / "pyship"
    shutil.copytree(PATH / "pyship", newer)
    manifest = json.loads((newer / "pack.json").read_text())
    manifest["version"] = "1.1.0"
    (newer / "pack.json").write_text(json.dumps(manifest))
    return tmp_path


def test_with_a_lock_exactly_the_locked_version_loads(locked_project):
    lock = locked_project / "primgraph.lock"
    digest = json.loads(lock.read_text())["packs"][0]["digest"]
    path = [locked_project / "newer", locked_project / "packs"]
    # Unlocked, the highest version on the path wins.
    assert [p[:2] for p in pg.Registry.builtin().with_packs(path).packs()] == [
        ("pyship", "1.1.0")
    ]
    packs = pg.Registry.builtin().with_packs(path, lock=lock)
    assert packs.packs() == [("pyship", "1.0.0", digest)]
    assert pg.validate(locked_project / "graphs" / "land-ok.graph.json", registry=packs).ok
    # The lock alone is enough: its paths are relative to its folder.
    assert pg.Registry.builtin().with_packs([], lock=str(lock)).packs() == packs.packs()
    # A locked registry pickles with its lock.
    again = pickle.loads(pickle.dumps(packs))
    assert again.packs() == packs.packs()


def test_a_pack_edited_after_locking_is_p806_in_the_lock(locked_project):
    lock = locked_project / "primgraph.lock"
    manifest = locked_project / "packs" / "pyship" / "pack.json"
    manifest.write_text(manifest.read_text().replace('"summary": "', '"summary": "Edited. ', 1))
    with pytest.raises(pg.RegistryError) as caught:
        pg.Registry.builtin().with_packs([locked_project / "packs"], lock=lock)
    error = caught.value
    assert error.code == "P806"
    assert error.file == str(lock) and error.line is not None
    assert "changed since it was locked" in error.message
    # Without the lock the edited pack loads.
    assert pg.Registry.builtin().with_packs([locked_project / "packs"]).packs()


def test_locked_without_a_lock_is_p806(locked_project):
    with pytest.raises(pg.RegistryError) as caught:
        pg.Registry.builtin().with_packs([locked_project / "packs"], locked=True)
    assert caught.value.code == "P806"
    assert "--locked, and there is no primgraph.lock" in caught.value.message


def test_a_lock_that_does_not_read_is_p806_located_in_it(tmp_path):
    lock = tmp_path / "primgraph.lock"
    lock.write_text('{"lock": 1, "packs": [}\n')
    with pytest.raises(pg.RegistryError) as caught:
        pg.Registry.builtin().with_packs([PATH], lock=lock)
    assert (caught.value.code, caught.value.file, caught.value.line) == ("P806", str(lock), 1)
    with pytest.raises(pg.RegistryError) as caught:
        pg.Registry.builtin().with_packs([PATH], lock=tmp_path / "missing.lock")
    assert caught.value.code == "P806"
