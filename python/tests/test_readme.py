"""The README's Python quick start, run as it stands (from the repository root, with `/tmp/`
replaced by a fresh folder), so the example cannot drift from the package: its `assert`s state
what the README promises (the example runs' verdicts, exact merging, the JSON round trip)."""

import os
import re

from conftest import REPO


def quick_start() -> str:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("### Python quick start", 1)[1]
    blocks = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    block = next(b for b in blocks if "import primgraph as pg" in b)
    return block


def test_the_readme_quick_start_runs_and_its_asserts_hold(tmp_path):
    source = quick_start().replace("/tmp/", f"{tmp_path}/")
    assert "assert summary.by_verdict ==" in source
    cwd = os.getcwd()
    os.chdir(REPO)
    try:
        namespace: dict = {}
        exec(compile(source, "README.md (Python quick start)", "exec"), namespace)
    finally:
        os.chdir(cwd)
    assert (tmp_path / "run.trace.jsonl").exists()
    assert namespace["run"].verdict in ("faithful", "diverged", "violated", "malformed")
