"""Compile once: a plug-in strategy compiles its own code and nothing else (issue 12).

The checks count compilations in a fresh interpreter that shares the test session's kernel
cache: numba's dispatcher statistics (cache hits and misses) for every dokosim kernel, the
cache hits of the strategies' C entry points, and the announcements on stderr.
"""
import json
import os
import re
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"

COUNT_COMPILATIONS = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import numba
from numba.core.registry import CPUDispatcher
import dokosim
from dokosim.run.simulate import simulate
from dokosim.loop import registry

registry.register_path("my_bots.greedy")
df = simulate(2000, seed=5, strategy="greedy,heuristic,simple,random")
misses = {}
for name, module in list(sys.modules.items()):
    if not name.startswith("dokosim"):
        continue
    for attr, value in vars(module).items():
        if isinstance(value, CPUDispatcher) and value.stats.cache_misses:
            misses[f"{name}.{attr}"] = value.stats.cache_misses
entries = {path: [e.cache_hits for e in compiled[1]] for path, compiled in registry._COMPILED.items()}
print(json.dumps({"rows": df.height, "misses": misses, "entries": entries}))
"""


def _plugin(tmp_path: Path) -> Path:
    text = (DOCS / "strategies.md").read_text()
    block = re.search(r"```python\n(# file: my_bots/greedy.py\n.*?)```", text, re.S).group(1)
    package = tmp_path / "my_bots"
    package.mkdir()
    (package / "__init__.py").write_text("")
    # a source of its own, so that no earlier run of the docs' example left it in the cache
    (package / "greedy.py").write_text(block + f"\n# {uuid.uuid4()}\n")
    return tmp_path


@pytest.mark.subprocess
def test_a_plugin_strategy_compiles_its_own_code_and_nothing_else(tmp_path):
    from dokosim.run.simulate import simulate
    simulate(10, seed=1, strategy="heuristic,simple,random,simple")  # the built-ins, cached
    proc = subprocess.run([sys.executable, "-c", COUNT_COMPILATIONS, str(_plugin(tmp_path))],
                          capture_output=True, text=True, env={**os.environ, "DOKOSIM_QUIET_COMPILE": ""})
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["rows"] == 2000
    assert report["misses"] == {}, "built-in kernels compiled again"
    # heuristic's four entry points came from the cache; the plug-in's were compiled
    assert report["entries"]["dokosim.strategies.heuristic"] == [1, 1, 1, 1]
    assert report["entries"]["my_bots.greedy"] == [0, 0, 0, 0]
    assert set(report["entries"]) == {"dokosim.strategies.heuristic", "my_bots.greedy"}  # random, simple inlined
    # the user is told what compiles, and only that
    said = [line for line in proc.stderr.splitlines() if line.startswith("dokosim: compiling")]
    assert len(said) == 1 and "the greedy strategy" in said[0], proc.stderr


def test_any_seating_of_compiled_strategies_reuses_the_kernels():
    from dokosim.loop import sim_loop
    from dokosim.run.simulate import simulate
    from dokosim.loop import registry
    simulate(10, seed=1, strategy="heuristic,simple,random,simple")
    compiled = dict(registry._COMPILED)
    signatures = list(sim_loop.run_chunk.signatures)
    for strategy in ("simple,heuristic,heuristic,random", "random", "heuristic", "simple,random,simple,simple"):
        simulate(10, seed=2, strategy=strategy)
        simulate(10, seed=2, strategy=strategy, contract="queens_solo", declarer=1)
    assert sim_loop.run_chunk.signatures == signatures  # one specialisation for every seating
    assert registry._COMPILED.keys() == compiled.keys()
    assert all(registry._COMPILED[k] is compiled[k] for k in compiled)


@pytest.mark.subprocess
def test_dokosim_compile_reports_every_kernel():
    from dokosim.kernels import KERNELS
    proc = subprocess.run([sys.executable, "-m", "dokosim.cli", "compile", "--jobs", "1", "--quiet"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert f"compiled {len(KERNELS)} kernels in" in proc.stdout
    assert "Traceback" not in proc.stderr


def test_a_plugin_of_plain_python_functions_is_refused_before_compiling(tmp_path, monkeypatch):
    import pytest

    from dokosim.loop.registry import StrategyError, register_path
    (tmp_path / "plain_bot.py").write_text(
        "def reserve(*a):\n    return 0\n\n\ndef call(*a):\n    return 0\n\n\ndef card(*a):\n    return 0\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(StrategyError, match=r"reserve, call, card must be numba functions"):
        register_path("plain_bot")


FORCED_SOLO_AFTER_A_RUN = r"""
import json
from dokosim.engine import replay
from dokosim.run.simulate import simulate
simulate(10, seed=1, strategy="simple")
ready = len(replay.contract_error.signatures)
simulate(10, seed=1, strategy="simple", contract="queens_solo", declarer=2)
print(json.dumps({"ready": ready, "signatures": len(replay.contract_error.signatures)}))
"""


@pytest.mark.subprocess
def test_a_forced_solo_after_a_run_needs_no_kernel_of_its_own():
    """The forced-contract check (what advise's solos go through) is compiled or loaded with the deal
    loop, so the coldstart table's advise after the README main job compiles nothing: in a fresh
    interpreter, it is ready after a plain run and a forced solo adds no specialisation."""
    proc = subprocess.run([sys.executable, "-c", FORCED_SOLO_AFTER_A_RUN], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report == {"ready": 1, "signatures": 1}


@pytest.mark.subprocess
def test_an_edit_outside_the_kernel_folders_recompiles_nothing(tmp_path):
    """A copy of the package with a docstring of cli/simulate.py and of records/record.py edited
    runs the README's main job (smaller) from the suite's kernel cache: no kernel compiles (the
    stamp covers the kernel folders only, engine/jit.py). An edit inside them changes the stamp."""
    import shutil

    import dokosim
    from dokosim.engine.jit import PACKAGE_DIGEST
    copy = tmp_path / "dokosim"
    shutil.copytree(Path(dokosim.__file__).parent, copy, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("cli/simulate.py", "records/record.py"):
        path = copy / name
        path.write_text(path.read_text().replace('"""', '"""An edited docstring. ', 1))
    code = ("import sys, dokosim; from dokosim.engine.jit import PACKAGE_DIGEST; "
            "print(dokosim.__file__); print(PACKAGE_DIGEST); from dokosim.cli import main; "
            "main(['simulate', '--deals', '2000', '--strategy', 'heuristic,simple,heuristic,simple'])")
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "DOKOSIM_QUIET_COMPILE": ""}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    where, digest = proc.stdout.splitlines()[:2]
    assert where == str(copy / "__init__.py") and digest == PACKAGE_DIGEST
    assert "dokosim: compiling" not in proc.stderr, proc.stderr
    layout = copy / "engine" / "layout.py"
    layout.write_text(layout.read_text() + "\n# an edit inside a kernel folder\n")
    stamp = subprocess.run([sys.executable, "-c", "from dokosim.engine.jit import PACKAGE_DIGEST as d; print(d)"],
                           capture_output=True, text=True, env=env, cwd=tmp_path, check=True).stdout.strip()
    assert stamp != PACKAGE_DIGEST
