"""Assignments as BMv2 primitives, including values BMv2 cannot copy in one step.

BMv2 assigns scalars (`assign`), varbits (`assign_VL`) and whole headers
(`assign_header`); a struct is a group of instances and scalars with no storage of its
own, so assigning one is a sequence of per-member assignments (as p4c does).
Initializers `{...}` assign member by member, and making a header from one sets it
valid; `{#}` makes a header invalid (spec 8.12, 8.26).
"""

from __future__ import annotations

from p4aqm.compiler import ast
from p4aqm.compiler import types as t
from p4aqm.compiler.backend.expressions import ExpressionEncoder, Json, hexstr, node, op
from p4aqm.compiler.backend.externs import primitive
from p4aqm.compiler.backend.storage import SCALARS
from p4aqm.compiler.diagnostics import CompileError
from p4aqm.compiler.typecheck import Symbol, const_value


def variable(decl: ast.VariableDeclaration) -> ast.Name:
    """A name referring to `decl`, as the target of its initializer."""
    name = ast.Name(decl.pos, decl.name)
    name.ref = Symbol("var", decl.name, decl.resolved, decl)
    name.type = decl.resolved
    return name


def assign(lhs: ast.Expression, rhs: ast.Expression, enc: ExpressionEncoder) -> list[Json]:
    # A parameter of an inlined call stands for its argument: written, it may be a
    # slice; read, a list or struct expression.
    while (bound := enc.bound(lhs)) is not None:
        lhs = bound
    while (bound := enc.bound(rhs)) is not None:
        rhs = bound
    ty = lhs.type
    if isinstance(rhs, ast.Cast) and isinstance(rhs.type, t.StructLike):
        rhs = rhs.expr
    if isinstance(rhs, ast.InvalidHeader):
        # `{#}`, or the default value of a header, union or stack.
        return uninitialized(lhs, ty, enc)
    if isinstance(ty, t.StructLike) and isinstance(rhs, ast.ListExpression | ast.StructExpression):
        values = (
            dict(rhs.fields)
            if isinstance(rhs, ast.StructExpression)
            else dict(zip((n for n, _ in ty.fields), rhs.items, strict=True))
        )
        # All values are read before any member is written (`p = {p.y, p.x}` swaps):
        # when several may read the target, they are first copied to temporaries.
        computed = [n for n, ft in ty.fields if const_value(values[n]) is None]
        prims: list[Json] = []
        copies: list[tuple[str, t.Type, str]] = []
        for name, ft in ty.fields:
            if len(computed) > 1 and name in computed and isinstance(ft, t.Bits | t.Bool):
                tmp = enc.layout.add_scalar("tmp", ft, values[name].pos)
                prims.append(
                    primitive("assign", [node("field", [SCALARS, tmp]), enc.data(values[name])])
                )
                copies.append((name, ft, tmp))
        if ty.kind == "header":
            prims.append(primitive("add_header", [enc.lvalue(lhs, run_time_index=True)]))
        copied = {name for name, _, _ in copies}
        for name, ft in ty.fields:
            if name not in copied:
                prims += assign(member(lhs, name, ft), values[name], enc)
        for name, ft, tmp in copies:
            target = enc.lvalue(member(lhs, name, ft), run_time_index=True)
            prims.append(primitive("assign", [target, node("field", [SCALARS, tmp])]))
        return prims
    if isinstance(ty, t.Tuple):
        return _assign_tuple(lhs, rhs, ty, enc)
    if isinstance(ty, t.StructLike) and ty.kind == "header":
        return [primitive("assign_header", [enc.lvalue(lhs, run_time_index=True), enc.value(rhs)])]
    if isinstance(ty, t.StructLike):
        if not enc.is_storage(rhs):
            raise CompileError(
                rhs.pos, "struct values computed by expressions are not supported yet"
            )
        prims = []
        for name, ft in ty.fields:
            prims += assign(member(lhs, name, ft), member(rhs, name, ft), enc)
        return prims
    if isinstance(ty, t.HeaderStack):
        if not enc.is_storage(rhs):
            raise CompileError(
                rhs.pos, "stack values computed by expressions are not supported yet"
            )
        if isinstance(ty.element, t.StructLike) and ty.element.kind == "header_union":
            # As p4c: one primitive, which copies the next index too.
            return [
                primitive(
                    "assign_union_stack", [enc.lvalue(lhs, run_time_index=True), enc.value(rhs)]
                )
            ]
        return [
            prim
            for i in range(ty.size)
            for prim in assign(element(lhs, i, ty), element(rhs, i, ty), enc)
        ]
    if isinstance(ty, t.Varbit):
        return [primitive("assign_VL", [enc.lvalue(lhs), enc.varbit(rhs)])]
    if isinstance(lhs, ast.Slice):
        return [_slice(lhs, rhs, enc)]
    return [primitive("assign", [enc.lvalue(lhs, run_time_index=True), enc.data(rhs)])]


def uninitialized(target: ast.Expression, ty: t.Type, enc: ExpressionEncoder) -> list[Json]:
    """Primitives leaving every header in `target` invalid, as an out parameter or a
    local declared without a value starts (spec 6.8: a stack also gets nextIndex 0,
    which `pop` of its size gives); other values are left as they are (unspecified)."""
    if isinstance(ty, t.StructLike) and ty.kind == "header":
        return [primitive("remove_header", [enc.lvalue(target, run_time_index=True)])]
    if isinstance(ty, t.HeaderStack):
        return [primitive("pop", [enc.lvalue(target), node("hexstr", hexstr(ty.size, 32))])]
    if isinstance(ty, t.StructLike):
        return [p for n, ft in ty.fields for p in uninitialized(member(target, n, ft), ft, enc)]
    if isinstance(ty, t.Tuple):
        elements = [element(target, i, item) for i, item in enumerate(ty.items)]
        return [p for e in elements for p in uninitialized(e, e.type, enc)]
    return []


def _assign_tuple(
    lhs: ast.Expression, rhs: ast.Expression, ty: t.Tuple, enc: ExpressionEncoder
) -> list[Json]:
    """A tuple variable from a list `{a, b}` or another tuple, element by element; as for
    structs, every value is read before any element is written (`p = {p[1], p[0]}`)."""
    if isinstance(rhs, ast.ListExpression):
        values = list(rhs.items)
    elif enc.is_storage(rhs):
        values = [element(rhs, i, item) for i, item in enumerate(ty.items)]
    else:
        raise CompileError(rhs.pos, "tuple values computed by expressions are not supported yet")
    computed = [i for i, v in enumerate(values) if const_value(v) is None]
    prims: list[Json] = []
    copies: dict[int, str] = {}
    for i, item in enumerate(ty.items):
        if len(computed) > 1 and i in computed and isinstance(item, t.Bits | t.Bool):
            tmp = enc.layout.add_scalar("tmp", item, values[i].pos)
            prims.append(primitive("assign", [node("field", [SCALARS, tmp]), enc.data(values[i])]))
            copies[i] = tmp
    for i, item in enumerate(ty.items):
        if i in copies:
            target = enc.lvalue(element(lhs, i, item), run_time_index=True)
            prims.append(primitive("assign", [target, node("field", [SCALARS, copies[i]])]))
        else:
            prims += assign(element(lhs, i, item), values[i], enc)
    return prims


def as_parser_ops(prims: list[Json]) -> list[Json]:
    """Primitives inside a parser state: `assign` to a field is the parser's `set` op,
    the others are wrapped in a `primitive` op (JSON_format.md, parser_ops), as is an
    `assign` through a run-time stack index, since `set` writes only a named field.
    `assign_VL` stays a primitive too: BMv2's `set` copies a varbit's value but not its
    length (p4c emits `set` there)."""
    return [
        {"op": "set", "parameters": p["parameters"]}
        if p["op"] == "assign" and p["parameters"][0]["type"] == "field"
        else {"op": "primitive", "parameters": [p]}
        for p in prims
    ]


def member(base: ast.Expression, name: str, ty: t.Type) -> ast.Member:
    m = ast.Member(base.pos, base, name)
    m.type = ty
    return m


def element(base: ast.Expression, index: int, ty: t.HeaderStack | t.Type) -> ast.Index:
    """`base[index]` of a stack (its element type) or of a tuple (ty: the element's)."""
    literal = ast.IntLiteral(base.pos, index, None, False)
    literal.type = t.InfInt()
    e = ast.Index(base.pos, base, literal)
    e.type = ty.element if isinstance(ty, t.HeaderStack) else ty
    return e


_NESTED_RUN_TIME_SLICE = (
    "assigning to a slice of a slice is supported only when both starts are constants"
)


def _slice(sl: ast.Slice, rhs: ast.Expression, enc: ExpressionEncoder) -> Json:
    # f[hi:lo] = v  is  f = (f & ~mask) | ((v << lo) & mask); a slice of a slice,
    # f[h1:l1][h2:l2], is f[l1 + h2 : l1 + l2].
    if sl.run_time_start:
        return _run_time_slice(sl, rhs, enc)
    hi, lo = const_value(sl.hi), const_value(sl.lo)
    assert isinstance(hi, int) and isinstance(lo, int)
    base = sl.expr
    while isinstance(base, ast.Slice):
        if base.run_time_start:
            raise CompileError(base.pos, _NESTED_RUN_TIME_SLICE)
        outer_lo = const_value(base.lo)
        assert isinstance(outer_lo, int)
        hi, lo, base = hi + outer_lo, lo + outer_lo, base.expr
    base_ty = base.type
    assert isinstance(base_ty, t.Bits)
    w = base_ty.width
    mask = ((1 << (hi - lo + 1)) - 1) << lo
    target = enc.lvalue(base, run_time_index=True)
    keep = op("&", target, node("hexstr", hexstr(~mask & ((1 << w) - 1), w)))
    shifted = op("<<", enc.data(rhs), node("hexstr", hexstr(lo, 32)))
    new = op("&", shifted, node("hexstr", hexstr(mask, w)))
    return primitive("assign", [target, op("|", keep, new)])


def _run_time_slice(sl: ast.Slice, rhs: ast.Expression, enc: ExpressionEncoder) -> Json:
    """f[L +: W] = v with L known at run time: f = (f & ~(m << L)) | ((v & m) << L)
    for m the W low bits, cut to f's width, so bits past f's top are dropped.  The
    complement is an exclusive or with f's ones, as BMv2's `~` gives no width."""
    base = sl.expr
    if isinstance(base, ast.Slice):
        raise CompileError(sl.pos, _NESTED_RUN_TIME_SLICE)
    base_ty = base.type
    assert isinstance(base_ty, t.Bits) and isinstance(sl.type, t.Bits)
    w = base_ty.width
    ones = node("hexstr", hexstr((1 << w) - 1, w))
    low_bits = node("hexstr", hexstr((1 << sl.type.width) - 1, w))
    start = enc.data(sl.lo)
    target = enc.lvalue(base, run_time_index=True)
    keep = op("&", target, op("^", op("<<", low_bits, start), ones))
    new = op("<<", op("&", enc.data(rhs), low_bits), start)
    return primitive("assign", [target, op("&", op("|", keep, new), ones)])
