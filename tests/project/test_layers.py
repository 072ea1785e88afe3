"""The package's folders are its layers: every import (inside functions too) points down the
declared order or stays in its own layer, and no modules import each other in a cycle.

The order, lowest first, is ``LAYERS``; docs/internals.md says what each layer does. A module at
the package root other than those named in ``LAYERS`` fails the test, as does a root with more
than ``MAX_ROOT_MODULES`` modules.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "dokosim"

# Lowest first: a module may import from its own layer and from layers before it, never after.
LAYERS = ("version", "spec", "stats", "validation", "engine", "rules", "solver", "strategies", "loop",
          "records", "game", "run", "dd", "train", "studies", "kernels", "cli", "dokosim")
# Folders that share another's layer: the two front ends, the command line and the web pages (web
# reads the commands' defaults, `dokosim serve` starts the web app); the cycle check still holds.
SAME_LAYER = {"web": "cli"}
MAX_ROOT_MODULES = 8  # counting __init__.py


# a string that names a package module (importlib.import_module("dokosim.x.y"), "dokosim.x.y:Name")
MODULE_STRING = re.compile(r"dokosim(\.[A-Za-z_][A-Za-z0-9_]*)+(:[A-Za-z_][A-Za-z0-9_.]*)?")


def module_names() -> dict[str, Path]:
    """Every module of the package by its dotted name (a package by its own name)."""
    modules = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules[".".join(parts)] = path
    return modules


def _target(module: str, node: ast.ImportFrom, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[:len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports_of(module: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The package's modules that ``module`` imports anywhere in its source (function bodies too),
    each named as the most specific module that exists."""
    def known(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _target(module, node, path.name == "__init__.py")
            names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                     for alias in node.names]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and MODULE_STRING.fullmatch(node.value) \
                and node.value.partition(":")[0] in modules:
            names = [node.value.partition(":")[0]]  # "dokosim.x.y" or "dokosim.x.y:Name": imported by name
        else:
            continue
        for name in names:
            if name.split(".")[0] == "dokosim" and (hit := known(name)) and hit != module:
                found.add(hit)
    return found


def layer_of(module: str) -> str:
    """The layer a module belongs to: its folder under dokosim/, or its own name at the root."""
    parts = module.split(".")
    return SAME_LAYER.get(parts[1], parts[1]) if len(parts) > 1 else "dokosim"


def graph() -> dict[str, set[str]]:
    """module -> the package modules it imports."""
    modules = module_names()
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def upward(edges: dict[str, set[str]]) -> list[str]:
    """Imports from a layer to a later one, as 'importer -> imported'."""
    rank = {layer: i for i, layer in enumerate(LAYERS)}
    return sorted(f"{a} -> {b}" for a, targets in edges.items() for b in targets
                  if rank[layer_of(b)] > rank[layer_of(a)])


def test_every_module_has_a_declared_layer():
    unknown = sorted(m for m in module_names() if layer_of(m) not in LAYERS)
    assert unknown == []


def test_the_package_root_holds_few_modules():
    root = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(root) <= MAX_ROOT_MODULES, root


def test_no_import_points_up_the_layers():
    assert upward(graph()) == []


def test_no_import_cycle():
    assert cycles(graph()) == []


def test_every_folder_says_its_job():
    for init in PACKAGE.glob("*/__init__.py"):
        doc = ast.get_docstring(ast.parse(init.read_text()))
        assert doc and len(doc) > 20, f"{init.parent.name}/__init__.py has no docstring saying its job"


def test_the_checks_find_what_they_look_for():
    """The walker sees function-level and relative imports, the checks flag a cycle and an
    upward import (a test that could not fail would prove nothing)."""
    edges = {"dokosim.engine.a": {"dokosim.cli.b"}, "dokosim.cli.b": {"dokosim.engine.a"}}
    assert cycles(edges) == [["dokosim.cli.b", "dokosim.engine.a"]]
    assert upward(edges) == ["dokosim.engine.a -> dokosim.cli.b"]
    sim = imports_of("dokosim.run.simulate", PACKAGE / "run" / "simulate.py", module_names())
    assert "dokosim.engine.layout" in sim  # a relative import at module level
    registry = imports_of("dokosim.loop.registry", PACKAGE / "loop" / "registry.py", module_names())
    assert "dokosim.strategies.heuristic" in registry  # a module named by a string


def test_entry_points_point_down_from_where_they_are_used(tmp_path):
    """dokosim's own entry points (pyproject.toml) name modules that exist; the agents' group is
    read by game/agents.py, so its targets may sit above the game layer (a plug-in registration,
    not an import)."""
    import tomllib
    project = tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text())["project"]
    modules = module_names()
    targets = [v for group in project.get("entry-points", {}).values() for v in group.values()]
    targets += list(project.get("scripts", {}).values())
    assert targets and all(t.partition(":")[0] in modules for t in targets), targets


# ---------------------------------------------------------------- kernels and their cache stamp

JIT_DECORATORS = {"kernel", "parallel_kernel", "inline_kernel", "decision_kernel", "njit", "jit", "cfunc",
                  "generated_jit", "vectorize", "guvectorize", "stencil"}
# Python-only modules that kernel folders may import (argument checks): no kernel reads them.
KERNEL_FOLDER_MAY_IMPORT = {"dokosim.validation"}


def jitted_functions(path: Path) -> list[str]:
    """Names of the functions ``path`` defines under a numba decorator (``@kernel``, ``@njit(...)``,
    ``@numba.njit``, ...; JAX's ``@jax.jit`` in the training code is not numba's)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for deco in node.decorator_list:
                target = deco.func if isinstance(deco, ast.Call) else deco
                if isinstance(target, ast.Attribute) and getattr(target.value, "id", "") == "jax":
                    continue
                name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
                if name in JIT_DECORATORS:
                    found.append(node.name)
    return found


def test_only_the_kernel_folders_define_kernels():
    from dokosim.engine.jit import KERNEL_FOLDERS
    outside = {str(path.relative_to(PACKAGE)): names for path in PACKAGE.rglob("*.py")
               if path.relative_to(PACKAGE).parts[0] not in KERNEL_FOLDERS and (names := jitted_functions(path))}
    assert outside == {}
    inside = sum(len(jitted_functions(p)) for folder in KERNEL_FOLDERS for p in (PACKAGE / folder).rglob("*.py"))
    assert inside > 100  # the walker does find kernels where they are


def test_kernel_folders_import_only_kernel_folders():
    """What a kernel reads at compile time (constants, callees) is inside the stamped folders."""
    from dokosim.engine.jit import KERNEL_FOLDERS
    leaks = sorted(f"{a} -> {b}" for a, targets in graph().items() if layer_of(a) in KERNEL_FOLDERS
                   for b in targets if layer_of(b) not in KERNEL_FOLDERS and b not in KERNEL_FOLDER_MAY_IMPORT)
    assert leaks == []
