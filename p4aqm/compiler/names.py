"""Control-plane names of P4 objects, shared by the BMv2 JSON and P4Info back ends.

The switch maps P4Info names to BMv2 JSON names one to one, so both back ends must name
every table, action and extern instance the same way.  As in p4c: an object declared in
a control is `Control.object`; `@name("x")` renames it to `Control.x`, and
`@name(".x")` to the global `x`; the P4Info alias is the shortest dot-separated suffix
of the name that no other object shares.
"""

from __future__ import annotations

from p4aqm.compiler import ast
from p4aqm.compiler import types as t
from p4aqm.compiler.diagnostics import CompileError


def annotated_name(annotations: list[ast.Annotation]) -> str | None:
    anno = ast.find_annotation(annotations, "name")
    if anno and anno.exprs and isinstance(anno.exprs[0], ast.StringLiteral):
        return anno.exprs[0].value
    return None


def qualified_name(decl: ast.Declaration, owner: ast.Declaration | None) -> str:
    name = annotated_name(decl.annotations) or decl.name
    if name.startswith("."):
        return name[1:]
    return f"{qualified_name(owner, None)}.{name}" if owner is not None else name


def local_name(decl: ast.Declaration, prefix: str) -> str:
    """The name of an object declared in the control instance named `prefix`; for a
    control instance, the path its own objects are named under (p4c's inliner takes
    the instance's @name too)."""
    name = annotated_name(decl.annotations) or decl.name
    return name[1:] if name.startswith(".") else f"{prefix}.{name}"


def aliases(names: list[str]) -> dict[str, str]:
    """Shortest unique suffix of each name (p4c's P4Info `alias`)."""
    result: dict[str, str] = {}
    for name in names:
        parts = name.split(".")
        for k in range(1, len(parts) + 1):
            suffix = ".".join(parts[-k:])
            clash = any(
                other != name and (other == suffix or other.endswith("." + suffix))
                for other in names
            )
            if not clash:
                result[name] = suffix
                break
        else:
            result[name] = name
    return result


def key_name(el: ast.KeyElement) -> str:
    """A table key's control-plane name (BMv2 JSON and P4Info), as p4c's front end
    (TableKeyNames) makes it: its `@name`, or else a name spelled from a path, members,
    indices, slices, constants and `&`, with `isValid()` of a header or union as
    `$valid$` (what P4Runtime expects); any other key needs a `@name`, as in p4c."""
    name = annotated_name(el.annotations)
    if name is not None:
        return name
    generated = _key_text(el.expr)
    if generated is None:
        raise CompileError(
            el.expr.pos,
            "Complex key expression requires a @name annotation (p4c names a key itself "
            "only when it is a path, member, index, slice, constant, '&' or isValid())",
        )
    return generated


# A constant's base: its prefix and Python's format code (p4c's Util::toString).
_BASES = {2: ("0b", "b"), 8: ("0o", "o"), 10: ("", "d"), 16: ("0x", "x")}


def _key_text(e: ast.Expression) -> str | None:
    if isinstance(e, ast.Name):
        return ("." if e.is_global else "") + e.name
    if isinstance(e, ast.Member):
        field = _member_name(e)
        if field.startswith("."):
            return field[1:]
        left = _key_text(e.expr)
        return None if left is None else f"{left}.{field}"
    if isinstance(e, ast.Call) and not e.args:
        method = _key_text(e.func)
        return method if method is not None and method.endswith("$valid$") else None
    if isinstance(e, ast.Index):
        left, index = _key_text(e.expr), _key_text(e.index)
        return None if left is None or index is None else f"{left}[{index}]"
    if isinstance(e, ast.Slice) and not e.run_time_start:
        parts = [_key_text(e.expr), _key_text(e.hi), _key_text(e.lo)]
        if None in parts:
            return None
        return f"{parts[0]}[{parts[1]}:{parts[2]}]"
    if isinstance(e, ast.IntLiteral):
        prefix, code = _BASES[e.base]
        return f"{'-' if e.value < 0 else ''}{prefix}{format(abs(e.value), code)}"
    if isinstance(e, ast.Binary) and e.op == "&":
        left, right = _key_text(e.left), _key_text(e.right)
        return None if left is None or right is None else f"{left} & {right}"
    return None


def _member_name(e: ast.Member) -> str:
    """The member's part of a key name: `$valid$` for isValid() of a header or union,
    else the field's `@name` if it has one."""
    owner = e.expr.type
    if not isinstance(owner, t.StructLike):
        return e.member
    if e.member == "isValid" and owner.kind in ("header", "header_union"):
        return "$valid$"
    decl_fields = getattr(owner.decl, "fields", None) or []
    field = next((f for f in decl_fields if f.name == e.member), None)
    named = annotated_name(field.annotations) if field is not None else None
    return named or e.member


def expression_text(e: ast.Expression) -> str:
    """The source spelling of an expression, for messages and comparisons."""
    if isinstance(e, ast.Name):
        return ("." if e.is_global else "") + e.name
    if isinstance(e, ast.Member):
        return f"{expression_text(e.expr)}.{e.member}"
    if isinstance(e, ast.Call) and not e.args:
        return f"{expression_text(e.func)}()"
    if isinstance(e, ast.Slice) and e.run_time_start:
        assert e.plus_width is not None
        start, width = expression_text(e.lo), expression_text(e.plus_width)
        return f"{expression_text(e.expr)}[{start} +: {width}]"
    if isinstance(e, ast.Slice):
        return f"{expression_text(e.expr)}[{expression_text(e.hi)}:{expression_text(e.lo)}]"
    if isinstance(e, ast.Index):
        return f"{expression_text(e.expr)}[{expression_text(e.index)}]"
    if isinstance(e, ast.IntLiteral):
        return str(e.value)
    return "key"
