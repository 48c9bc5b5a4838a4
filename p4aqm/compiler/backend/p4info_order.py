"""The order of P4Info's tables and actions, as p4c writes them: by declaration, the
global actions first, then the objects of the ingress and egress controls, in that order,
each in the order its control declares them (an inlined control instance's objects where
the instance is declared).  core.p4's NoAction is first among the global actions when a
table names it; when it is only the default the compiler adds, it follows them (p4c's
outputs for flowlet_switching-bmv2 and gauntlet_exit_combination_19-bmv2)."""

from __future__ import annotations

from p4aqm.compiler import ast
from p4aqm.compiler import types as t
from p4aqm.compiler.names import local_name, qualified_name


def declaration_order(
    program: ast.Program, pipelines: list[ast.ControlDeclaration]
) -> dict[str, int]:
    """Each table's and action's name mapped to its rank."""
    order: dict[str, int] = {}
    named = _names_no_action(program)
    for decl in program.declarations:
        if isinstance(decl, ast.ActionDeclaration) and (decl.name != "NoAction" or named):
            order.setdefault(qualified_name(decl, None), len(order))
    order.setdefault("NoAction", len(order))
    for control in pipelines:
        _walk(control, qualified_name(control, None), order)
    return order


def _walk(control: ast.ControlDeclaration, prefix: str, order: dict[str, int]) -> None:
    for local in control.locals:
        if isinstance(local, ast.ActionDeclaration | ast.TableDeclaration):
            order.setdefault(local_name(local, prefix), len(order))
        elif isinstance(local, ast.Instantiation) and isinstance(local.resolved, t.BlockType):
            sub = local.resolved.decl
            if isinstance(sub, ast.ControlDeclaration):
                _walk(sub, local_name(local, prefix), order)


def _names_no_action(program: ast.Program) -> bool:
    """Whether a table lists NoAction among its actions or as its default."""
    for decl in program.declarations:
        for local in getattr(decl, "locals", None) or []:
            if not isinstance(local, ast.TableDeclaration):
                continue
            actions = local.property("actions")
            refs = actions.actions if isinstance(actions, ast.ActionsProperty) else []
            exprs = [r.expr for r in refs]
            default = local.property("default_action")
            if isinstance(default, ast.ValueProperty):
                exprs.append(default.value)
            if any(_callee(e) == "NoAction" for e in exprs):
                return True
    return False


def _callee(e: ast.Expression) -> str | None:
    if isinstance(e, ast.Call):
        e = e.func
    return e.name if isinstance(e, ast.Name) else None
