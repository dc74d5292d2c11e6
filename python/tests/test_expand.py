"""pg.expand: a graph that uses fragments (SPEC §9.3) as its expanded document."""

from pathlib import Path

import pytest

import primgraph as pg

ROOT = Path(__file__).resolve().parents[2]
FRAGMENTS = ROOT / "tests" / "fixtures" / "fragments"
PACKS = [FRAGMENTS / "path"]


def test_expand_replaces_a_use_by_the_fragment_nodes():
    doc = pg.expand(FRAGMENTS / "ship.graph.json", packs=PACKS)
    ids = [n["id"] for n in doc["nodes"]]
    assert ids == ["intake", "draft", "ship/gate", "ship/apply", "ship/clean", "ship/test", "done", "give_up"]
    test = doc["nodes"][5]
    assert test["max_visits"] == 3
    assert test["inputs"]["test_ids"] == {"from": "intake", "at": "/test_ids"}


def test_a_graph_without_uses_is_its_own_expansion():
    path = ROOT / "graphs" / "fix-failing-test.graph.json"
    import json

    assert pg.expand(path) == json.loads(path.read_text())


def test_a_use_that_does_not_expand_raises_graph_error_located():
    with pytest.raises(pg.GraphError) as info:
        pg.expand(FRAGMENTS / "p821.graph.json", packs=PACKS)
    assert info.value.code == "P821"
    assert info.value.line == 12


def test_a_finding_in_a_fragment_file_names_that_file():
    with pytest.raises(pg.GraphError) as info:
        pg.expand(FRAGMENTS / "p827.graph.json", packs=PACKS)
    assert info.value.code == "P827"
    assert info.value.file.endswith("badport.fragment.json")
    assert info.value.line == 7
