"""The CLI package has no import cycles: a command module imports only the shared helpers (options, show_text) and
the library, never another command module or dokosim.cli itself; options imports no command.
Read with ast (nothing is compiled), plus a check that every command module is registered."""
import ast
import subprocess
import sys
from pathlib import Path

import pytest

CLI = Path(__file__).resolve().parents[2] / "dokosim" / "cli"
PACKAGE = "dokosim.cli"
HELPERS = {"options", "show_text"}  # modules the commands share: parsing, the text of a deal
NOT_COMMANDS = {"__init__", "__main__", *HELPERS}
COMMANDS = sorted(p.stem for p in CLI.glob("*.py") if p.stem not in NOT_COMMANDS)


def imported(path: Path) -> set[str]:
    """The modules the import statements anywhere in ``path`` load, as absolute names
    (``from dokosim.cli import show`` loads dokosim.cli.show, ``from dokosim.cli import main``
    dokosim.cli itself)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = PACKAGE.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1])
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module
            for alias in node.names:
                submodule = module == PACKAGE and (CLI / f"{alias.name}.py").exists()
                names.add(f"{module}.{alias.name}" if submodule else module)
    return names


def cli_modules(names: set[str]) -> set[str]:
    """The dokosim.cli modules among ``names`` by file name ("" for the package itself)."""
    return {n[len(PACKAGE):].lstrip(".").split(".")[0]
            for n in names if n == PACKAGE or n.startswith(PACKAGE + ".")}


def test_there_are_command_modules():
    assert {"score", "show", "simulate", "rules_cmd", "tournament", "session", "probe_calls", "study",
            "advise"} <= set(COMMANDS)


@pytest.mark.parametrize("name", COMMANDS)
def test_a_command_module_imports_only_options_from_the_cli(name):
    assert cli_modules(imported(CLI / f"{name}.py")) <= HELPERS


def test_options_imports_no_command_module():
    assert cli_modules(imported(CLI / "options.py")) == set()


def test_the_resolver_sees_relative_and_absolute_imports(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("from . import show\nfrom .options import parse_params\nimport dokosim.cli.score\n"
                     "def f():\n    from dokosim.cli import main\n    from ..simulate import simulate\n")
    assert cli_modules(imported(probe)) == {"", "show", "options", "score"}
    assert "dokosim.simulate" in imported(probe)


@pytest.mark.subprocess
def test_every_command_module_is_registered_and_the_group_is_light():
    code = ("import sys, dokosim.cli as c; "
            "print(sorted({k.callback.__module__ for k in c.main.commands.values()})); "
            "print(sorted(m for m in ('numba', 'polars', 'orjson', 'dokosim.run.simulate', 'dokosim.records.record') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=CLI.parents[1]).stdout.splitlines()
    assert out[0] == str([f"{PACKAGE}.{name}" for name in COMMANDS])
    assert out[1] == "[]"  # the kernels are imported inside the commands, not by `dokosim --help`
