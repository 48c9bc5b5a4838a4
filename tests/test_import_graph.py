"""No import cycles in the p4aqm package, and its subpackages in layers.

The graph has one node per module of p4aqm and an edge for every import of another of its
modules, wherever it is written: at module level, inside a function (a function-level
import is often how a cycle is hidden, and it still fails when the function runs during
the other module's import) or under `if TYPE_CHECKING:` (it never runs, but it is still a
dependency on the other module, and the layers are about dependencies).  Importing
`a.b.c` also runs the package `a.b`'s `__init__`, but that implicit edge is not counted:
a package's `__init__` re-exporting names of its own submodules is not a cycle at run
time.

Each subpackage or top-level module of p4aqm (a unit) has a layer, and an import from one
unit to another must point to a lower layer: to one of the same layer is sideways, and
refused like one upward.  The package root, p4aqm/__init__.py, imports none of our
modules.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "p4aqm"

Graph = dict[str, set[str]]

# Bottom to top.
LAYERS = {
    "p4aqm.schema": 0,
    "p4aqm.yaml_lines": 0,
    "p4aqm.compiler": 1,
    "p4aqm.models": 1,
    "p4aqm.switch": 2,
    "p4aqm.stf": 3,
    "p4aqm.controller": 3,
    "p4aqm.traffic": 3,
    "p4aqm.topology": 4,
    "p4aqm.tuning": 3,
    "p4aqm.experiments": 5,
    "p4aqm.report": 6,
    "p4aqm.cli": 7,
}


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


def _known(name: str, modules: set[str]) -> str | None:
    """The longest prefix of dotted `name` that is a module of the graph."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in modules:
            return candidate
    return None


def _targets(node: ast.Import | ast.ImportFrom, module: str, is_package: bool) -> list[str]:
    """The dotted names an import statement of `module` refers to."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level:
        # Relative to the module's package (a package is its own).
        package = module.split(".")
        if not is_package:
            package.pop()
        package = package[: len(package) - (node.level - 1)]
        origin = ".".join([*package, *([node.module] if node.module else [])])
    else:
        origin = node.module or ""
    # `from pkg import name`: `name` is a submodule, or a name defined in `pkg`; both are
    # resolved against the graph's modules by the caller.
    return [f"{origin}.{alias.name}" for alias in node.names]


def imports_of(module: str, path: Path, modules: set[str]) -> set[str]:
    """The modules of `modules` that `module` (the file `path`) imports."""
    result: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if not isinstance(node, ast.Import | ast.ImportFrom):
            continue
        for target in _targets(node, module, path.name == "__init__.py"):
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


def unit_of(module: str) -> str:
    """The subpackage or top-level module `module` belongs to (`a.b` for `a.b.c.d`); the
    package root is its own."""
    return ".".join(module.split(".")[:2])


def layer_violations(graph: Graph, layers: dict[str, int]) -> list[str]:
    """`module -> imported (why)` for each import of the package root and each import
    between two units that does not point down the layers."""
    found = []
    for module in sorted(graph):
        src = unit_of(module)
        for imported in sorted(graph[module]):
            dst = unit_of(imported)
            if "." not in src:
                found.append(f"{module} -> {imported} (the package root imports nothing)")
                continue
            # Importing nothing, the root is below every layer: any unit may import it.
            if src == dst or "." not in dst:
                continue
            # A unit without a layer is test_every_subpackage_has_a_layer's to report.
            if src not in layers or dst not in layers:
                continue
            if layers[dst] > layers[src]:
                found.append(f"{module} -> {imported} (upward: {layers[src]} -> {layers[dst]})")
            elif layers[dst] == layers[src]:
                found.append(f"{module} -> {imported} (sideways: layer {layers[src]})")
    return found


def test_no_import_cycle() -> None:
    cycle = find_cycle(import_graph(ROOT / PACKAGE))
    assert cycle is None, f"import cycle in {PACKAGE}: {' -> '.join(cycle or [])}"


def test_every_subpackage_has_a_layer() -> None:
    units = {unit_of(m) for m in import_graph(ROOT / PACKAGE)} - {PACKAGE}
    missing = sorted(units - LAYERS.keys())
    assert not missing, f"subpackages or modules of {PACKAGE} without a layer: {missing}"


def test_imports_point_down_the_layers() -> None:
    found = layer_violations(import_graph(ROOT / PACKAGE), LAYERS)
    assert not found, "imports against the layers:\n" + "\n".join(found)


def test_the_compiler_graph_has_its_edges() -> None:
    """The graph sees the imports it must see: absolute, of a submodule by `from
    package import module`, and of a name re-exported by a package."""
    graph = import_graph(ROOT / PACKAGE)
    assert "p4aqm.compiler.typecheck" in graph["p4aqm.compiler.backend.actions"]
    assert "p4aqm.compiler.backend.externs" in graph["p4aqm.compiler.backend.bmv2_json"]
    assert "p4aqm.compiler.typecheck.checker" in graph["p4aqm.compiler.typecheck"]


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
    assert graph["pkg.a"] == {"pkg.sub.b", "pkg.c"}  # function-level and TYPE_CHECKING
    assert graph["pkg.sub"] == {"pkg.sub.b"}
    assert graph["pkg.sub.b"] == {"pkg.c", "pkg.a"}
    assert graph["pkg.c"] == {"pkg.a"}
    # Through the import under TYPE_CHECKING.
    assert find_cycle(graph) == ["pkg.a", "pkg.c", "pkg.a"]


SYNTHETIC_LAYERS = {"pkg.low": 0, "pkg.mid": 1, "pkg.side": 1, "pkg.top": 2}


def test_imports_down_the_layers_pass() -> None:
    graph = {
        "pkg": set(),
        "pkg.top": {"pkg.mid.x", "pkg.low", "pkg"},
        "pkg.mid.x": {"pkg.mid.y", "pkg.low"},  # within its own unit, and down
        "pkg.mid.y": set(),
        "pkg.low": set(),
    }
    assert layer_violations(graph, SYNTHETIC_LAYERS) == []


def test_an_upward_import_is_reported() -> None:
    graph = {"pkg.low": {"pkg.top"}, "pkg.top": set()}
    assert layer_violations(graph, SYNTHETIC_LAYERS) == ["pkg.low -> pkg.top (upward: 0 -> 2)"]


def test_a_sideways_import_is_reported() -> None:
    graph = {"pkg.mid.x": {"pkg.side.z"}, "pkg.side.z": set()}
    assert layer_violations(graph, SYNTHETIC_LAYERS) == [
        "pkg.mid.x -> pkg.side.z (sideways: layer 1)"
    ]


def test_an_import_by_the_package_root_is_reported() -> None:
    graph = {"pkg": {"pkg.low"}, "pkg.low": set()}
    assert layer_violations(graph, SYNTHETIC_LAYERS) == [
        "pkg -> pkg.low (the package root imports nothing)"
    ]
