"""No import cycles inside the project's Python packages.

The graph has one node per module of a package and an edge for every import of another
module of the same package, wherever it is written: at module level or inside a
function (a function-level import is often how a cycle is hidden, and it still fails
when the function runs during the other module's import).  Imports under
`if TYPE_CHECKING:` are left out: they never run.  Importing `a.b.c` also runs the
package `a.b`'s `__init__`, but that implicit edge is not counted: a package's
`__init__` re-exporting names of its own submodules is not a cycle at run time.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ["p4compiler", "p4switch", "controller", "topologies", "traffic", "experiments", "p4aqm"]

Graph = dict[str, set[str]]


def module_names(package_dir: Path) -> dict[str, Path]:
    """Dotted module name -> file, for every module of the package (a package's name
    stands for its `__init__.py`)."""
    base = package_dir.parent
    result = {}
    for path in sorted(package_dir.rglob("*.py")):
        parts = list(path.relative_to(base).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        result[".".join(parts)] = path
    return result


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_nodes(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement of the tree, except those under `if TYPE_CHECKING:`."""
    found: list[ast.Import | ast.ImportFrom] = []
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        elif isinstance(node, ast.If) and _is_type_checking(node):
            stack.extend(node.orelse)
            continue
        stack.extend(ast.iter_child_nodes(node))
    return found


def _known(name: str, modules: set[str]) -> str | None:
    """The longest prefix of dotted `name` that is a module of the graph."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in modules:
            return candidate
    return None


def imports_of(module: str, path: Path, modules: set[str]) -> set[str]:
    """The modules of `modules` that `module` (the file `path`) imports."""
    is_package = path.name == "__init__.py"
    result: set[str] = set()
    for node in _import_nodes(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            if node.level:
                # Relative to the module's package (a package is its own).
                package = module.split(".")
                if not is_package:
                    package.pop()
                package = package[: len(package) - (node.level - 1)]
                origin = ".".join([*package, *([node.module] if node.module else [])])
            else:
                origin = node.module or ""
            # `from pkg import name`: `name` is a submodule, or a name defined in `pkg`.
            targets = [
                f"{origin}.{a.name}" if f"{origin}.{a.name}" in modules else origin
                for a in node.names
            ]
        for target in targets:
            known = _known(target, modules)
            if known is not None and known != module:
                result.add(known)
    return result


def import_graph(package_dir: Path) -> Graph:
    modules = module_names(package_dir)
    names = set(modules)
    return {m: imports_of(m, path, names) for m, path in modules.items()}


def find_cycle(graph: Graph) -> list[str] | None:
    """One import cycle as a path that ends where it starts, or None (depth-first
    search; nodes in sorted order so that the cycle reported is stable)."""
    done: set[str] = set()
    path: list[str] = []
    on_path: set[str] = set()

    def visit(node: str) -> list[str] | None:
        path.append(node)
        on_path.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt in on_path:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in done:
                cycle = visit(nxt)
                if cycle is not None:
                    return cycle
        path.pop()
        on_path.discard(node)
        done.add(node)
        return None

    for start in sorted(graph):
        if start not in done:
            cycle = visit(start)
            if cycle is not None:
                return cycle
    return None


@pytest.mark.parametrize("package", PACKAGES)
def test_no_import_cycle(package: str) -> None:
    cycle = find_cycle(import_graph(ROOT / package))
    assert cycle is None, f"import cycle in {package}: {' -> '.join(cycle or [])}"


def test_the_compiler_graph_has_its_edges() -> None:
    """The graph sees the imports it must see: absolute, of a submodule by `from
    package import module`, and of a name re-exported by a package."""
    graph = import_graph(ROOT / "p4compiler")
    assert "p4compiler.typecheck" in graph["p4compiler.backend.actions"]
    assert "p4compiler.backend.externs" in graph["p4compiler.backend.bmv2_json"]
    assert "p4compiler.typecheck.checker" in graph["p4compiler.typecheck"]


def test_find_cycle_on_synthetic_graphs() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"b"}}) == ["b", "b"]
    # A diamond is not a cycle.
    assert find_cycle({"a": {"b", "c"}, "b": {"d"}, "c": {"d"}, "d": set()}) is None


def test_imports_found_in_a_synthetic_package(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("from .b import thing\n")
    (pkg / "a.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from pkg import c\n"
        "def f():\n"
        "    from .sub import b\n"
    )
    (pkg / "c.py").write_text("import pkg.a\n")
    (pkg / "sub" / "b.py").write_text("from .. import c\nfrom ..a import f\n")
    graph = import_graph(pkg)
    assert graph["pkg.a"] == {"pkg.sub.b"}  # function-level counted, TYPE_CHECKING not
    assert graph["pkg.sub"] == {"pkg.sub.b"}
    assert graph["pkg.sub.b"] == {"pkg.c", "pkg.a"}
    assert graph["pkg.c"] == {"pkg.a"}
    assert find_cycle(graph) == ["pkg.a", "pkg.sub.b", "pkg.a"]
