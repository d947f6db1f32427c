"""Every Python example of docs/python.md, of the README and of the
package's README (python/README.md) runs, and the Ray
examples of docs/scale.md and docs/bots.md without a cluster (the
documentation cannot drift from the API)."""

import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "python.md"
README = ROOT / "README.md"
PACKAGE_README = ROOT / "python" / "README.md"
SCALE = ROOT / "docs" / "scale.md"
BOTS = ROOT / "docs" / "bots.md"


def examples():
    found = []
    for path in (DOC, README, PACKAGE_README):
        if path.exists():
            found += re.findall(r"```python\n(.*?)```", path.read_text(), flags=re.S)
    for path in (SCALE, BOTS):
        if path.exists():
            found += [c for c in re.findall(r"```python\n(.*?)```", path.read_text(), flags=re.S) if "distributed" in c]
    return found


def test_the_doc_has_examples():
    if not DOC.exists():
        pytest.skip("docs/python.md is not next to this checkout")
    assert len(examples()) >= 7


@pytest.mark.parametrize("code", examples(), ids=lambda c: c.splitlines()[0][:40])
def test_example_runs(code, capsys):
    if "pyspiel" in code:
        pytest.importorskip("pyspiel")
    if "pettingzoo" in code:
        pytest.importorskip("pettingzoo")
    if "distributed" in code:
        ray = pytest.importorskip("ray")
        assert not ray.is_initialized(), "the example must start its own Ray, with no cluster"
    try:
        exec(compile(code, str(DOC), "exec"), {"__name__": "__doc_example__"})
    finally:
        if "distributed" in code:
            ray.shutdown()
