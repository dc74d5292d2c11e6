"""primgraph.Registry: the embedded registry, files linted on load, lookup, pickling."""

import json
import pickle

import pytest

import primgraph as pg
from conftest import BUILTIN_REGISTRY


def frozen_file() -> dict:
    return json.loads(BUILTIN_REGISTRY.read_text())


def test_builtin_lookup_by_id_and_alias_returns_the_files_contract():
    reg = pg.Registry.builtin()
    entries = frozen_file()["primitives"]
    assert len(reg) == len(entries) == 191
    assert reg.abi == pg.ABI == "1.0.0"
    for index, entry in enumerate(entries):
        by_id = reg.lookup(entry["id"])
        assert by_id is not None
        assert by_id["index"] == index
        assert {k: v for k, v in by_id.items() if k in entry} == entry
        assert reg.lookup(entry["alias"]) == by_id
    assert reg.ids() == [e["id"] for e in entries]


def test_lookup_misses_are_none():
    reg = pg.Registry.builtin()
    assert reg.lookup("mut.apply_patc") is None
    assert reg.lookup("") is None
    assert reg.lookup("apply_patch") is None  # aliases are upper snake
    assert "APPLY_PATCH" in reg and "nope" not in reg and 3 not in reg


def test_from_path_loads_the_same_contracts(tmp_path):
    loaded = pg.Registry.from_path(BUILTIN_REGISTRY)
    assert loaded.origin == str(BUILTIN_REGISTRY)
    assert loaded.lookup("APPLY_PATCH") == pg.Registry.builtin().lookup("APPLY_PATCH")
    again = pg.Registry.from_bytes(BUILTIN_REGISTRY.read_bytes(), "copy")
    assert again.ids() == loaded.ids()


def line_col(text: str, needle: str, nth: int = 1):
    at = -1
    for _ in range(nth):
        at = text.index(needle, at + 1)
    line = text.count("\n", 0, at) + 1
    column = at - (text.rfind("\n", 0, at) + 1) + 1
    return line, column


def test_a_registry_that_fails_its_lint_raises_with_code_and_location(tmp_path):
    doc = frozen_file()
    # Give the second primitive the first one's alias: L501 at the second occurrence.
    doc["primitives"][1]["alias"] = doc["primitives"][0]["alias"]
    text = json.dumps(doc, indent=1)
    path = tmp_path / "dup.json"
    path.write_text(text)
    with pytest.raises(pg.RegistryError) as caught:
        pg.Registry.from_path(path)
    e = caught.value
    assert isinstance(e, pg.Error)
    assert e.code == "L501"
    assert e.file == str(path)
    alias = doc["primitives"][0]["alias"]
    line, _ = line_col(text, f'"alias": "{alias}"', nth=2)
    assert e.line == line
    assert e.column is not None and e.column >= 1
    assert f"{path}:{e.line}:{e.column}: L501: " in str(e)


def test_a_file_that_is_not_json_raises_with_its_location(tmp_path):
    path = tmp_path / "broken.json"
    text = '{\n  "abi": "1.0.0",\n  "families": [,]\n}\n'
    path.write_text(text)
    with pytest.raises(pg.RegistryError) as caught:
        pg.Registry.from_path(path)
    line, column = line_col(text, ",]")
    assert (caught.value.file, caught.value.line, caught.value.column) == (str(path), line, column)


def test_a_missing_registry_file_is_an_input_error(tmp_path):
    missing = tmp_path / "nope.json"
    with pytest.raises(pg.InputError) as caught:
        pg.Registry.from_path(missing)
    assert caught.value.file == str(missing)


def test_registries_pickle():
    builtin = pickle.loads(pickle.dumps(pg.Registry.builtin()))
    assert builtin.origin == "<builtin>" and len(builtin) == 191
    loaded = pg.Registry.from_bytes(BUILTIN_REGISTRY.read_bytes(), "mine")
    back = pickle.loads(pickle.dumps(loaded))
    assert back.origin == "mine" and back.ids() == loaded.ids()


def test_wrong_types_name_the_argument():
    with pytest.raises(TypeError, match="`path`"):
        pg.Registry.from_path({"a": 1})
    with pytest.raises(TypeError, match="`data`"):
        pg.Registry.from_bytes("not bytes")
    with pytest.raises(TypeError, match="`key`"):
        pg.Registry.builtin().lookup(None)
