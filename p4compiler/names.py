"""Control-plane names of P4 objects, shared by the BMv2 JSON and P4Info back ends.

The switch maps P4Info names to BMv2 JSON names one to one, so both back ends must name
every table, action and extern instance the same way.  As in p4c: an object declared in
a control is `Control.object`; `@name("x")` renames it to `Control.x`, and
`@name(".x")` to the global `x`; the P4Info alias is the shortest dot-separated suffix
of the name that no other object shares.
"""

from __future__ import annotations

from p4compiler import ast


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


def expression_text(e: ast.Expression) -> str:
    """The source spelling of a key expression, which p4c uses as the key's name."""
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
