"""Inspect's chunked sample layout imported from Python (SPEC §10, issue 26 item 1).

The real Inspect AI (`.ci/requirements-import.txt`) writes an `.eval` log with its
`mockllm/model`, then converts it with its own converter (`convert_eval_logs_to_chunked`, what
`inspect log convert-chunked` runs; 3 items per chunk, so a sample's events span several
chunks). `primgraph.import_runs` must read the chunked log to the same traces as the log it was
converted from: the same runs, steps, nodes, inputs and outputs, a long tool result Inspect
moved out to an attachment resolved to its text. A damaged
events chunk is an error located in that chunk's entry, and the other samples still import.
"""

from __future__ import annotations

import json
import os
import pathlib
import sys
import zipfile

os.environ.setdefault("INSPECT_DISABLE_TELEMETRY", "1")
os.environ.setdefault("TIKTOKEN_CACHE_DIR", "/nonexistent-offline")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import pytest

import primgraph as pg

from conftest import REPO

inspect_ai = pytest.importorskip("inspect_ai")

sys.path.insert(0, str(REPO / "tests" / "fixtures" / "import"))
import make_chunked  # noqa: E402  (the fixture generator: the same task, the same tools)

LONG = make_chunked.LONG  # over Inspect's 100 characters: stored as an attachment

GRAPH = REPO / "tests" / "fixtures" / "import" / "lookup.graph.json"
MAP = '[tools]\ngrep = "search"\n\n[final]\nnode = "answer"\n'


def _logs(tmp_path: pathlib.Path) -> tuple[pathlib.Path, pathlib.Path]:
    """(the log Inspect wrote, the same log converted by Inspect to chunked samples): the
    fixture generator's task (`tests/fixtures/import/make_chunked.py`) over two questions."""
    from inspect_ai.dataset import Sample

    return make_chunked.write_logs(
        tmp_path,
        [
            Sample(id="main", input="where is main?", target="src/lib.rs"),
            Sample(id="else", input="where is it elsewhere?", target="nowhere"),
        ],
        query_of=lambda question: question,
    )


def _steps(trace: pathlib.Path) -> list:
    """A trace's steps: node, input, output, error (what the import mapped)."""
    lines = [json.loads(line) for line in trace.read_text().splitlines()]
    return [
        (l.get("node"), l.get("input"), l.get("output"), l.get("error"))
        for l in lines
        if "seq" in l and "end" not in l
    ]


def _import(log: pathlib.Path, out: pathlib.Path, mapping: pathlib.Path, **kw) -> dict:
    return pg.import_runs("inspect", [log], graph=GRAPH, map=mapping, out=out, **kw)


def test_inspects_chunked_layout_imports_as_the_log_it_was_converted_from(tmp_path):
    from inspect_ai.log import read_eval_log

    monolith, chunked = _logs(tmp_path)
    names = zipfile.ZipFile(chunked).namelist()
    # Really the chunked layout: a shell per sample, events in several chunks, no
    # `samples/ID_epoch_N.json`.
    assert "samples/main_epoch_1/sample.json" in names, names
    assert sum(n.startswith("samples/main_epoch_1/events/") for n in names) >= 2, names
    assert not any(n.endswith("_epoch_1.json") for n in names), names
    # (inspect-ai 0.3.285's `read_eval_log` cannot read this layout back yet: it takes the
    # chunk sidecars for samples. Its monolith log is what the import is checked against.)
    assert len(read_eval_log(str(monolith)).samples) == 4

    mapping = tmp_path / "map.toml"
    mapping.write_text(MAP)
    whole = _import(monolith, tmp_path / "monolith", mapping)
    parts = _import(chunked, tmp_path / "chunked-out", mapping)
    assert parts["summary"] == whole["summary"], parts
    assert parts["summary"]["runs"] == 4 and parts["summary"]["errors"] == 0, parts
    assert parts["summary"]["steps"] == 12, parts
    traces = sorted(pathlib.Path(r["trace"]).name for r in parts["runs"])
    assert traces == sorted(pathlib.Path(r["trace"]).name for r in whole["runs"])
    assert traces == [f"{s}_epoch_{e}.trace.jsonl" for s in ("else", "main") for e in (1, 2)]
    for name in traces:
        steps = _steps(tmp_path / "chunked-out" / name)
        assert steps == _steps(tmp_path / "monolith" / name), name
        assert [s[0] for s in steps] == ["search", "read", "answer"], steps
        # The grep result, an attachment in the chunk, is its text in the trace.
        assert steps[0][2]["context"] == LONG, steps[0]
        assert steps[2][2] == {"text": "main is in src/lib.rs"}, steps[2]
        header = json.loads((tmp_path / "chunked-out" / name).read_text().splitlines()[0])
        assert header["imported"]["format"] == "inspect"
        assert header["input"] == {"input": "where is main?"} or header["input"] == {
            "input": "where is it elsewhere?"
        }, header


def test_a_damaged_chunk_is_located_in_its_entry_and_the_rest_imports(tmp_path):
    _, chunked = _logs(tmp_path)
    source = zipfile.ZipFile(chunked)
    events = sorted(
        n for n in source.namelist() if n.startswith("samples/main_epoch_2/events/")
        and n.split("/")[-1][0].isdigit()
    )
    broken = events[-1]
    damaged = tmp_path / "damaged.eval"
    # Rewritten with deflate (Inspect's zstd entries read through its own zipfile patch).
    with zipfile.ZipFile(damaged, "w", zipfile.ZIP_DEFLATED) as out:
        for name in source.namelist():
            data = source.read(name)
            out.writestr(name, b'[{"event": "tool", "function": ' if name == broken else data)
    mapping = tmp_path / "map.toml"
    mapping.write_text(MAP)
    with pytest.raises(pg.InputError) as info:
        _import(damaged, tmp_path / "out", mapping)
    err = info.value
    assert err.code == "I901" and err.file == str(damaged), err
    assert err.entry == broken and err.sample == "main epoch 2", (err.entry, err.sample)
    # strict=False: the same finding in the report, and the other three runs written.
    report = _import(damaged, tmp_path / "out", mapping, strict=False)
    assert report["summary"]["errors"] == 1 and report["summary"]["runs"] == 3, report
    assert report["diagnostics"][0]["entry"] == broken, report["diagnostics"]
    written = sorted(p.name for p in (tmp_path / "out").glob("*.trace.jsonl"))
    assert "main_epoch_2.trace.jsonl" not in written and len(written) == 3, written
