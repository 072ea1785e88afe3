"""A wheel install, not an editable one: ``pip wheel`` builds dokosim, pip installs it with its
dependencies into a fresh virtual environment, and ``dokosim advise`` and ``dokosim study`` run
from a directory outside the checkout (issue 15, point 5: both failed with "the studies need
the repository checkout").

Cost: building the wheel in an isolated build environment (setuptools from the local index) and
installing the dependencies into the new environment (pip's local wheels) take about 30-60 s
here. The installed copy shares the suite's kernel cache (NUMBA_CACHE_DIR, set in conftest.py):
engine/jit.py keys the cache on the package's source, not on its place, so the installed copy
loads the kernels the suite compiled, and the test checks that it compiles nothing. conftest.py
starts this test first so that it runs beside the rest of the suite rather than after it."""
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.subprocess, pytest.mark.e2e]  # starts a dokosim process; end to end


REPO = Path(__file__).resolve().parents[2]
HAND = "QC QS QH JC JS TH AD TD KD AC TC AS"
BUILD_FILES = ("pyproject.toml", "README.md")


def run(cmd, cwd, env=None, timeout=900):
    """Run ``cmd``; its CompletedProcess (stdout and stderr as text)."""
    return subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)


def source_copy(dest: Path) -> Path:
    """What the wheel is built from, copied, so that no build/ directory of the checkout (or a
    stale file in it) goes into the wheel and the checkout stays untouched."""
    dest.mkdir()
    for name in BUILD_FILES:
        shutil.copy2(REPO / name, dest / name)
    shutil.copytree(REPO / "dokosim", dest / "dokosim",
                    ignore=shutil.ignore_patterns("__pycache__", "*.nbc", "*.nbi", "dokosim_entry_*"))
    return dest


def install(root: Path):
    """Build the wheel and install it into a fresh environment under ``root``: (its bin
    directory, a working directory outside the checkout, the environment for its commands)."""
    start = time.perf_counter()
    wheels = root / "wheels"
    built = run([sys.executable, "-m", "pip", "wheel", source_copy(root / "src"), "--no-deps", "-q",
                 "-w", wheels], cwd=root)
    assert built.returncode == 0, built.stderr[-3000:]
    (wheel,) = wheels.glob("dokosim-*.whl")
    venv = root / "venv"
    made = run([sys.executable, "-m", "venv", "--without-pip", venv], cwd=root)
    assert made.returncode == 0, made.stderr
    python = venv / "bin" / "python"
    # the running pip installs into the new environment (no pip of its own to bootstrap)
    inst = run([sys.executable, "-m", "pip", "--python", python, "install", "-q", wheel], cwd=root)
    assert inst.returncode == 0, inst.stderr[-3000:]
    seconds = time.perf_counter() - start
    outside = root / "elsewhere"
    outside.mkdir()
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "VIRTUAL_ENV", "DOKOSIM_STUDY_DATA", "PYTHONHOME")}
    # the suite's caches (conftest.py), which hold every built-in kernel by now
    env.update(NUMBA_CACHE_DIR=os.environ["NUMBA_CACHE_DIR"], DOKOSIM_CACHE_DIR=os.environ["DOKOSIM_CACHE_DIR"],
               PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}")
    print(f"wheel built and installed with its dependencies in {seconds:.0f} s", file=sys.stderr)
    return venv / "bin", outside, env


def test_wheel_install_has_working_advise_and_study(tmp_path):
    """One test (one build, one compile: a module fixture could be built once per xdist worker)."""
    bin_dir, outside, env = install(tmp_path)
    check_installed_package(bin_dir, outside, env)
    check_advise(bin_dir, outside, env)
    check_study(bin_dir, outside, env)


def check_installed_package(bin_dir, outside, env):
    """dokosim is imported from the new environment, with its package data."""
    r = run([bin_dir / "python", "-c", "import dokosim, dokosim.studies; print(dokosim.studies.__file__)"],
            cwd=outside, env=env)
    assert r.returncode == 0, r.stderr
    where = Path(r.stdout.strip())
    assert bin_dir.parent in where.parents and REPO not in where.parents
    assert (where.parent / "solo_odds_model.json").is_file()  # package data
    assert (where.parent.parent / "run" / "player_standings.json").is_file()  # what dokosim players lists
    r = run([bin_dir / "dokosim", "rules"], cwd=outside, env=env)  # names the shipped RULES.md
    shipped = [Path(line.split(":", 1)[1].strip()) for line in r.stdout.splitlines() if line.startswith("the r")]
    assert r.returncode == 0 and len(shipped) == 2 and all(p.is_file() and bin_dir.parent in p.parents
                                                           for p in shipped), r.stdout


def check_advise(bin_dir, outside, env):
    """dokosim advise runs (the strongest fast player by default, named first) and recommends."""
    r = run([bin_dir / "dokosim", "advise", "--hand", HAND], cwd=outside, env=env)
    assert r.returncode == 0, r.stdout + r.stderr[-3000:]
    lines = r.stdout.splitlines()
    assert lines[0].startswith("answered by net at every seat (the default")
    assert any(line.startswith("diamonds_solo") for line in lines)
    assert lines[-1].startswith("Recommendation: ")
    assert "no readable solo_odds model" not in r.stdout  # the model came with the package
    assert "Traceback" not in r.stderr
    # the installed copy found the kernels the checkout compiled (same source, other place)
    assert "dokosim: compiling" not in r.stderr, r.stderr


def check_study(bin_dir, outside, env):
    """dokosim study runs; the results and the datasets go to the current directory; the
    installed model is not rewritten by a study run outside the checkout."""
    model = next((bin_dir.parent / "lib").glob("python*/site-packages/dokosim/studies/solo_odds_model.json"))
    before = model.read_bytes()
    r = run([bin_dir / "dokosim", "study", "--deals", "1000", "solo_odds", "--quiet"], cwd=outside, env=env)
    assert r.returncode == 0, r.stdout + r.stderr[-3000:]
    out = outside / "results" / "solo_odds"
    for name in ("win_by_trumps.md", "model.json", "calibration.md", "win_vs_trumps.png"):
        assert (out / name).is_file(), name
    assert "1,000 deals per kind" in (out / "win_by_trumps.md").read_text()
    assert "dokosim study solo_odds --deals 1000" in (out / "calibration.md").read_text()
    assert any((outside / "data" / "studies" / "solo_odds").iterdir())
    assert model.read_bytes() == before
