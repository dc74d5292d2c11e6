"""primgraph.validate: a path or text to §3.1 diagnostics, the same as the CLI's JSON."""

import json

import pytest

import primgraph as pg
from conftest import FIX_GRAPH, GRAPHS, run_cli


def test_the_example_graphs_validate_clean():
    for path in sorted(GRAPHS.glob("*.graph.json")):
        report = pg.validate(path)
        assert report.ok, (path, report.errors)
        assert report.errors == []
        assert report.file == str(path)
        assert report.graph == json.loads(path.read_text())["graph"]


def broken_graph_text() -> str:
    doc = json.loads(FIX_GRAPH.read_text())
    # Point the first node's `next` at a node that does not exist (S202), and add an unknown
    # primitive (R101).
    doc["nodes"][0]["next"] = "nowhere"
    doc["nodes"][1]["primitive"] = "mut.apply_patchh"
    return json.dumps(doc, indent=2)


def test_text_gives_the_diagnostics_the_cli_prints(cli, tmp_path):
    text = broken_graph_text()
    path = tmp_path / "broken.graph.json"
    path.write_text(text)
    from_text = pg.validate(text=text, file=str(path))
    from_path = pg.validate(path)
    assert not from_text.ok and not from_path.ok
    printed = json.loads(run_cli(cli, "validate", "--format", "json", str(path)).stdout)
    expected = printed["files"][0]["diagnostics"]
    assert from_text.diagnostics == expected
    assert from_path.diagnostics == expected
    assert {d["code"] for d in from_text.errors} >= {"S202", "R101"}
    assert json.loads(from_path.to_json()) == printed
    for d in from_text.diagnostics:
        assert d["line"] >= 1 and d["column"] >= 1 and d["pointer"].startswith("/")


def test_text_as_bytes_and_a_syntax_error_located():
    report = pg.validate(text=b'{\n  "graph": ,\n}')
    assert not report.ok
    (d,) = report.diagnostics
    assert (d["code"], d["line"], d["column"]) == ("G001", 2, 12)
    assert report.file == "<text>"
    assert not bool(report)


def test_a_registry_is_used(tmp_path):
    reg = pg.Registry.from_path(GRAPHS.parent / "registry" / "kernel-abi-1.0.0.json")
    assert pg.validate(FIX_GRAPH, registry=reg).ok


def test_bad_calls():
    with pytest.raises(TypeError, match="not both"):
        pg.validate(FIX_GRAPH, text="{}")
    with pytest.raises(TypeError, match="needs a path"):
        pg.validate()
    with pytest.raises(TypeError, match="`path`"):
        pg.validate({"graph": "x"})
    with pytest.raises(TypeError, match="`text`"):
        pg.validate(text=["x"])
    with pytest.raises(TypeError, match="`registry`"):
        pg.validate(FIX_GRAPH, registry="builtin")
    with pytest.raises(pg.InputError) as caught:
        pg.validate("/no/such/file.graph.json")
    assert caught.value.file == "/no/such/file.graph.json"
