"""What the checker leaves to do after its walk: each checked `...` becomes the default
value built for it, and each name of a constant of struct, header or tuple type a copy
of the initializer it stands for, so the back end sees values, not names of them."""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

from p4aqm.compiler import ast
from p4aqm.compiler.diagnostics import CompileError
from p4aqm.compiler.typecheck.symbols import Symbol


def replace_values(node: Any) -> Any:  # noqa: ANN401 - any AST node or list of them
    """node with `...` and names of aggregate constants replaced (in place where it
    can be; the result is what to store)."""
    if isinstance(node, ast.Dots):
        if node.value is None:
            raise CompileError(
                node.pos, "'...' (a default value) needs a type from what it initializes"
            )
        return node.value
    if isinstance(node, ast.ListExpression | ast.StructExpression) and node.dots:
        raise CompileError(
            node.pos, "'...' in an initializer needs a type from what it initializes"
        )
    if isinstance(node, ast.Name) and _is_aggregate_constant(node.ref):
        return replace_values(copy.deepcopy(node.ref.value))
    if isinstance(node, list):
        return [replace_values(item) for item in node]
    if isinstance(node, tuple):
        return tuple(replace_values(item) for item in node)
    if isinstance(node, ast.Node):
        for f in dataclasses.fields(node):
            if f.compare:
                setattr(node, f.name, replace_values(getattr(node, f.name)))
    return node


def _is_aggregate_constant(sym: Any) -> bool:  # noqa: ANN401 - a name's ref
    return isinstance(sym, Symbol) and sym.kind == "const" and isinstance(sym.value, ast.Expression)
