"""Functions by parameter count: how many of dokosim's functions take ``--min`` or more
parameters (issue 43's measure of loose-array plumbing), and which.

    python scripts/count_params.py [--min 10] [--list] [PATH ...]

Counts every ``def`` (module level, nested and methods; ``self``/``cls`` included, as the
parameter lists are written) under PATH (default: the ``dokosim`` package, generated strategy
entry modules excluded since they are not in the tree). Also prints the functions longer than
``--max-lines`` lines outside ``dokosim/solver/`` and the files over ``--max-file`` lines in
``dokosim/loop/`` and ``dokosim/solver/`` (the issue's other two size limits).
"""
from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def functions(path: Path):
    """(qualified name, parameter count, line count, line) of every function in ``path``."""
    tree = ast.parse(path.read_text(), filename=str(path))

    def walk(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                a = child.args
                n = len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs) + (a.vararg is not None) \
                    + (a.kwarg is not None)
                name = f"{prefix}{child.name}"
                yield name, n, child.end_lineno - child.lineno + 1, child.lineno
                yield from walk(child, name + ".")
            elif isinstance(child, ast.ClassDef):
                yield from walk(child, f"{prefix}{child.name}.")
            else:
                yield from walk(child, prefix)

    yield from walk(tree, "")


def main(argv=None) -> int:
    """Print the counts; exit 0."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path, default=[ROOT / "dokosim"])
    parser.add_argument("--min", type=int, default=10, help="parameters that count as many (default 10)")
    parser.add_argument("--max-lines", type=int, default=150, help="longest function outside solver/")
    parser.add_argument("--max-file", type=int, default=400, help="longest file in loop/ and solver/")
    parser.add_argument("--list", action="store_true", help="list the functions counted")
    args = parser.parse_args(argv)
    files = sorted(p for root in args.paths for p in ([root] if root.is_file() else root.rglob("*.py")))
    total = many = 0
    listed, long_functions, long_files = [], [], []
    for path in files:
        rel = path.resolve().relative_to(ROOT).as_posix() if path.resolve().is_relative_to(ROOT) else str(path)
        n_lines = len(path.read_text().splitlines())
        if (rel.startswith("dokosim/loop/") or rel.startswith("dokosim/solver/")) and n_lines > args.max_file:
            long_files.append((n_lines, rel))
        for name, n, length, line in functions(path):
            total += 1
            if n >= args.min:
                many += 1
                listed.append((n, f"{rel}:{line} {name}"))
            if length > args.max_lines and not rel.startswith("dokosim/solver/"):
                long_functions.append((length, f"{rel}:{line} {name}"))
    print(f"{many} of {total} functions take {args.min} or more parameters")
    if args.list:
        for n, where in sorted(listed, reverse=True):
            print(f"  {n:3d}  {where}")
    print(f"{len(long_functions)} functions outside dokosim/solver/ over {args.max_lines} lines"
          + "".join(f"\n  {n:4d}  {w}" for n, w in sorted(long_functions, reverse=True)))
    print(f"{len(long_files)} files in dokosim/loop/ and dokosim/solver/ over {args.max_file} lines"
          + "".join(f"\n  {n:4d}  {w}" for n, w in sorted(long_files, reverse=True)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
