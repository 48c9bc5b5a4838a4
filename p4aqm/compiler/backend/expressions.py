"""P4 expressions as BMv2 JSON expression trees (behavioral-model JSON_format.md).

BMv2 computes on arbitrary-precision integers, so every operation that can overflow its
P4 width is masked back (`&` with 2^W-1, or `two_comp_mod` for signed values), as p4c
does.  Booleans are a separate kind in BMv2 expressions: a bool stored in a field is
data and is read through `d2b`; a boolean written to a field goes through `b2d`.
"""

from __future__ import annotations

from typing import Any

from p4aqm.compiler import ast
from p4aqm.compiler import types as t
from p4aqm.compiler.backend.storage import (
    DynamicFieldRef,
    DynamicHeaderRef,
    DynamicUnionRef,
    FieldRef,
    HeaderRef,
    HeaderStructRef,
    Layout,
    Location,
    StackRef,
    StructRef,
    UnionRef,
    UnionStackRef,
    nested_field,
)
from p4aqm.compiler.diagnostics import CompileError
from p4aqm.compiler.typecheck import Symbol, const_value

Json = dict[str, Any]

_WRAPPED = ("+", "-", "*", "<<")
_COMPARE = ("==", "!=", "<", ">", "<=", ">=")


def hexstr(value: int, width: int | None) -> str:
    """p4c's spelling: whole bytes of hex digits, a leading '-' for negative values."""
    digits = max(1, ((width or max(abs(value).bit_length(), 1)) + 7) // 8) * 2
    sign = "-" if value < 0 else ""
    return f"{sign}0x{abs(value):0{digits}x}"


def const_int(e: ast.Expression) -> int:
    """The value of a compile-time integer constant; a positioned error otherwise."""
    v = const_value(e)
    if not isinstance(v, int):
        raise CompileError(e.pos, "expected a compile-time constant")
    return int(v)


def node(kind: str, value: Any) -> Json:
    return {"type": kind, "value": value}


def op(name: str, left: Json | None, right: Json | None, **extra: Json) -> Json:
    """An expression node (JSON_format.md, "The type value object").  Inside an
    expression an action parameter is a `local`, not `runtime_data` (which only a
    primitive's parameter may be): operands are converted here, as p4c does."""
    operands = {"left": _local(left), "right": _local(right)}
    return node(
        "expression",
        {"op": name, **operands, **{k: _local(v) for k, v in extra.items()}},
    )


def _local(operand: Json | None) -> Json | None:
    if operand is not None and operand.get("type") == "runtime_data":
        return node("local", operand["value"])
    return operand


def param(value: Json) -> Json:
    """`value` as a parameter of a primitive or of a parser `set`/`advance`
    (JSON_format.md, "actions": a parameter of type `expression` holds a whole type
    value object, so an expression node is wrapped once more).  A `stack_field` is
    wrapped too, as p4c wraps it: a parser `set` takes no bare stack_field source.
    Other parameter types (field, hexstr, runtime_data, header, ...) stand as they are;
    a `parameters_vector` (log_msg) holds parameters."""
    if value.get("type") in ("expression", "stack_field"):
        return node("expression", value)
    if value.get("type") == "parameters_vector":
        return node("parameters_vector", [param(v) for v in value["value"]])
    return value


def field_node(ref: FieldRef) -> Json:
    return node("field", [ref.instance, ref.field])


def dynamic_json(loc: DynamicHeaderRef | DynamicFieldRef | DynamicUnionRef) -> Json:
    """The expression yielding a header, union or field chosen by a run-time index."""
    if isinstance(loc, DynamicFieldRef):
        access = {"op": "access_field", "left": loc.header.expression, "right": loc.offset}
        return node("expression", access)
    return loc.expression


class ExpressionEncoder:
    def __init__(
        self,
        layout: Layout,
        roots: dict[int, Any],
        runtime_data: dict[int, int] | None = None,
        bindings: dict[int, ast.Expression] | None = None,
    ) -> None:
        self.layout = layout
        # id(Parameter or VariableDeclaration) -> root key in the layout.
        self.roots = roots
        self.runtime_data = runtime_data or {}
        # id(Parameter) -> argument, for the parameters of an inlined action call.
        self.bindings = bindings or {}

    def with_bindings(self, bindings: dict[int, ast.Expression]) -> ExpressionEncoder:
        return ExpressionEncoder(
            self.layout, self.roots, self.runtime_data, {**self.bindings, **bindings}
        )

    def bound(self, e: ast.Expression) -> ast.Expression | None:
        if isinstance(e, ast.Name) and isinstance(e.ref, Symbol):
            return self.bindings.get(id(e.ref.decl))
        return None

    # ---- locations -----------------------------------------------------------------

    def locate(self, e: ast.Expression) -> Location | int:
        """Storage of an l-value; an int is an index into the action's runtime data."""
        if (arg := self.bound(e)) is not None:
            return self.locate(arg)
        if isinstance(e, ast.Name) and isinstance(e.ref, Symbol):
            # Storage is keyed by the declaring node, which all uses of a name share.
            key = id(e.ref.decl)
            if key in self.runtime_data:
                return self.runtime_data[key]
            if key in self.roots:
                return self._lookup(self.roots[key], (), e)
        if isinstance(e, ast.Index):
            stack = self.locate(e.expr)
            index = const_value(e.index)
            if isinstance(stack, StackRef) and isinstance(index, int):
                return HeaderRef(f"{stack.name}[{index}]")
            if isinstance(stack, StructRef | UnionStackRef) and isinstance(index, int):
                # A tuple's element, or a union stack's (a union).
                return self._lookup(stack.root, (*stack.path, f"[{index}]"), e)
            if isinstance(stack, StackRef | UnionStackRef):
                return self._element_at(stack, e.index)
        if isinstance(e, ast.Member) and e.ref is None:
            base = self.locate(e.expr)
            if isinstance(base, DynamicHeaderRef | DynamicUnionRef):
                return self._member_at(base, e)
            if isinstance(base, StackRef | UnionStackRef) and e.member == "last":
                # The element extracted last as a whole (p4c's issue1607-bmv2): the
                # element at lastIndex, which BMv2 computes as last_stack_index.
                last_index = ast.Member(e.pos, e.expr, "lastIndex")
                last_index.ref = Symbol("builtin", "lastIndex", t.Bits(32))
                last_index.type = t.Bits(32)
                return self._element_at(base, last_index)
            if isinstance(base, StackRef | UnionStackRef):
                raise CompileError(
                    e.pos, f"'{e.member}' of a stack is only supported in extract and reads"
                )
            if isinstance(base, HeaderRef | HeaderStructRef) and (
                isinstance(e.type, t.StructLike) and e.type.kind == "struct"
            ):
                if isinstance(base, HeaderStructRef):
                    return HeaderStructRef(base.instance, nested_field(base.prefix, e.member))
                return HeaderStructRef(base.instance, e.member)
            if isinstance(base, HeaderStructRef):
                return FieldRef(base.instance, nested_field(base.prefix, e.member))
            if isinstance(base, HeaderRef):
                return FieldRef(base.instance, e.member)
            if isinstance(base, StructRef | UnionRef):
                return self._lookup(base.root, (*base.path, e.member), e)
        raise CompileError(e.pos, "this expression is not supported here yet")

    def _element_at(self, stack: StackRef | UnionStackRef, index: ast.Expression) -> Location:
        """`s[i]` with `i` known only at run time, in the form p4c gives it."""
        if isinstance(stack, StackRef):
            [declared] = [s for s in self.layout.stacks if s.name == stack.name]
            deref = op(
                "dereference_header_stack", node("header_stack", stack.name), self.data(index)
            )
            return DynamicHeaderRef(deref, declared.header_type)
        [union_stack] = [s for s in self.layout.union_stacks if s.name == stack.name]
        deref = op(
            "dereference_union_stack", node("header_union_stack", stack.name), self.data(index)
        )
        return DynamicUnionRef(deref, union_stack.union_type)

    def _member_at(
        self, base: DynamicHeaderRef | DynamicUnionRef, e: ast.Member
    ) -> DynamicHeaderRef | DynamicFieldRef:
        """A member of a header or union chosen at run time: BMv2 names it by its offset
        (`access_union_header`, `access_field`)."""
        if isinstance(base, DynamicUnionRef):
            members = [m for m, _ in self.layout.union_types[base.union_type]]
            k = members.index(e.member)
            header_type = self.layout.union_types[base.union_type][k][1]
            access = node(
                "expression", {"op": "access_union_header", "left": base.expression, "right": k}
            )
            return DynamicHeaderRef(access, header_type)
        if isinstance(e.type, t.StructLike | t.Varbit):
            raise CompileError(
                e.pos,
                "a struct or varbit field of a stack element chosen at run time is not "
                "supported yet",
            )
        fields = [f for f, _, _ in self.layout.header_types[base.header_type].fields]
        return DynamicFieldRef(base, fields.index(e.member))

    def _lookup(self, root: Any, path: tuple[str, ...], e: ast.Expression) -> Location:
        loc = self.layout.locations.get((root, path))
        if loc is None:
            raise CompileError(e.pos, "this value has no storage in the BMv2 program")
        return loc

    def is_storage(self, e: ast.Expression) -> bool:
        """A variable, parameter or field (as opposed to a computed value)."""
        if (arg := self.bound(e)) is not None:
            return self.is_storage(arg)
        if isinstance(e, ast.Name):
            return isinstance(e.ref, Symbol) and e.ref.kind in ("param", "var")
        if isinstance(e, ast.Index):
            return self.is_storage(e.expr)
        return isinstance(e, ast.Member) and e.ref is None and self.is_storage(e.expr)

    def lvalue(self, e: ast.Expression, run_time_index: bool = False) -> Json:
        """The JSON a primitive writes through; a header, union or field chosen by a
        run-time stack index only where the caller writes it with a core primitive
        (`run_time_index`), which BMv2 resolves from an expression parameter."""
        loc = self.locate(e)
        if isinstance(loc, DynamicHeaderRef | DynamicFieldRef | DynamicUnionRef):
            if not run_time_index:
                raise CompileError(
                    e.pos,
                    "this cannot write into a stack element chosen at run time yet: "
                    "write to a local variable, then assign it",
                )
            return dynamic_json(loc)
        if isinstance(loc, FieldRef):
            return field_node(loc)
        if isinstance(loc, HeaderRef):
            return node("header", loc.instance)
        if isinstance(loc, StackRef):
            return node("header_stack", loc.name)
        if isinstance(loc, UnionStackRef):
            return node("header_union_stack", loc.name)
        raise CompileError(e.pos, "cannot assign to this expression")

    # ---- values --------------------------------------------------------------------

    def data(self, e: ast.Expression) -> Json:
        """`e` as data (integers; a bool becomes 0 or 1)."""
        if (arg := self.bound(e)) is not None:
            return self.data(arg)
        if isinstance(e.type, t.Bool):
            if self.is_storage(e):
                loc = self.locate(e)
                if isinstance(loc, FieldRef):
                    return field_node(loc)
                if isinstance(loc, DynamicFieldRef):
                    return dynamic_json(loc)
            return op("b2d", None, self.boolean(e))
        return self.value(e)

    def literal(self, e: ast.Expression) -> bool:
        """e is a list or struct expression (through bindings, casts and members of one)."""
        while (arg := self.bound(e)) is not None:
            e = arg
        e = self.component(e) or e
        if isinstance(e, ast.Cast):
            e = e.expr
        return isinstance(e, ast.ListExpression | ast.StructExpression)

    def component(self, e: ast.Expression) -> ast.Expression | None:
        """For a member of a list or struct expression (`{a, {b, c}}.y.z`, as when an
        inlined function reads a member of a parameter given such an argument), the
        expression of that member; None for any other expression."""
        if not (isinstance(e, ast.Member) and e.ref is None):
            return None
        base = e.expr
        while (arg := self.bound(base)) is not None:
            base = arg
        base = self.component(base) or base
        if isinstance(base, ast.Cast):
            base = base.expr
        ty = e.expr.type
        if isinstance(base, ast.StructExpression):
            return dict(base.fields).get(e.member)
        if isinstance(base, ast.ListExpression) and isinstance(ty, t.StructLike):
            names = [n for n, _ in ty.fields]
            if e.member in names and len(base.items) == len(names):
                return base.items[names.index(e.member)]
        return None

    def varbit(self, e: ast.Expression) -> Json:
        """A varbit value, which BMv2 copies (`assign_VL`) and compares only as a field."""
        if (arg := self.bound(e)) is not None:
            return self.varbit(arg)
        loc = self.locate(e) if self.is_storage(e) else None
        if not isinstance(loc, FieldRef):
            raise CompileError(
                e.pos,
                "a varbit value is read only from a varbit field or variable: BMv2 copies "
                "and compares varbits as fields",
            )
        return field_node(loc)

    def boolean(self, e: ast.Expression) -> Json:
        if not isinstance(e.type, t.Bool):
            raise CompileError(e.pos, f"expected a bool, found {e.type}")
        return self.value(e)

    def stack_last(self, e: ast.Expression) -> Json | None:
        """`s.last.f` (BMv2's stack_field), `u.last.m.f` of a union stack
        (union_stack_field) and `s.lastIndex`, the parser's views of the element
        extracted last; None for any other expression."""
        if not isinstance(e, ast.Member):
            return None
        inner = e.expr
        if isinstance(e.ref, Symbol) and e.ref.name == "lastIndex":
            stack = self.locate(inner)
            if isinstance(stack, UnionStackRef):
                return op("last_stack_index", None, node("header_union_stack", stack.name))
            assert isinstance(stack, StackRef)
            return op("last_stack_index", None, node("header_stack", stack.name))
        if e.ref is None and isinstance(inner, ast.Member) and inner.member == "last":
            stack = self.locate(inner.expr)
            if isinstance(stack, StackRef):
                return node("stack_field", [stack.name, e.member])
        if (
            e.ref is None
            and isinstance(inner, ast.Member)
            and isinstance(inner.expr, ast.Member)
            and inner.expr.member == "last"
        ):
            stack = self.locate(inner.expr.expr)
            if isinstance(stack, UnionStackRef):
                return node("union_stack_field", [stack.name, inner.member, e.member])
        return None

    def value(self, e: ast.Expression) -> Json:
        if (arg := self.bound(e)) is not None:
            return self.value(arg)
        if isinstance(e.type, t.Varbit):
            raise CompileError(
                e.pos, "a varbit value can only be assigned, or compared with == or !="
            )
        if (part := self.component(e)) is not None:
            return self.value(part)
        if (last := self.stack_last(e)) is not None:
            if last["type"] == "union_stack_field":
                # BMv2 reads it only as a parse state's key (JSON_format.md).
                raise CompileError(
                    e.pos, "'last' of a header union stack can only be read in a select key"
                )
            return last
        ty = e.type
        c = const_value(e)
        if c is not None:
            if isinstance(c, bool):
                return node("bool", c)
            return node(
                "hexstr", hexstr(c, t.width_of(ty) if not isinstance(ty, t.InfInt) else None)
            )
        if self.is_storage(e):
            loc = self.locate(e)
            if isinstance(loc, int):
                return node("runtime_data", loc)
            if isinstance(loc, HeaderRef):
                return node("header", loc.instance)
            if isinstance(loc, StackRef):
                return node("header_stack", loc.name)
            if isinstance(loc, UnionStackRef):
                return node("header_union_stack", loc.name)
            if isinstance(loc, StructRef | HeaderStructRef):
                raise CompileError(e.pos, "struct values are not supported here yet")
            if isinstance(loc, DynamicHeaderRef | DynamicUnionRef):
                return dynamic_json(loc)
            f = dynamic_json(loc) if isinstance(loc, DynamicFieldRef) else field_node(loc)
            return op("d2b", None, f) if isinstance(ty, t.Bool) else f
        if isinstance(e, ast.Call):
            return self.call(e)
        if isinstance(e, ast.Binary):
            return self.binary(e)
        if isinstance(e, ast.Unary):
            return self.unary(e)
        if isinstance(e, ast.Ternary):
            then, otherwise = self.data(e.then), self.data(e.otherwise)
            if isinstance(ty, t.Bool):
                then, otherwise = self.value(e.then), self.value(e.otherwise)
            return op("?", then, otherwise, cond=self.boolean(e.cond))
        if isinstance(e, ast.Cast):
            return self.cast(e)
        if isinstance(e, ast.Slice):
            assert isinstance(ty, t.Bits)
            if e.run_time_start:
                return self.wrap(op(">>", self.data(e.expr), self.data(e.lo)), ty)
            lo = const_value(e.lo)
            assert isinstance(lo, int)
            shifted = (
                op(">>", self.data(e.expr), node("hexstr", hexstr(lo, 32)))
                if lo
                else self.data(e.expr)
            )
            return self.wrap(shifted, ty)
        raise CompileError(e.pos, f"{type(e).__name__} is not supported in BMv2 expressions yet")

    def call(self, e: ast.Call) -> Json:
        sym = e.ref
        if isinstance(sym, Symbol) and sym.kind == "builtin" and sym.name == "isValid":
            assert isinstance(e.func, ast.Member)
            loc = self.locate(e.func.expr)
            if isinstance(loc, DynamicHeaderRef):
                return op("valid", None, loc.expression)
            if isinstance(loc, DynamicUnionRef):
                return op("valid_union", None, loc.expression)
            if isinstance(loc, UnionRef):
                return op("valid_union", None, node("header_union", loc.name))
            if not isinstance(loc, HeaderRef):
                raise CompileError(e.pos, "isValid() of this expression is not supported yet")
            return op("d2b", None, node("field", [loc.instance, "$valid$"]))
        if isinstance(sym, Symbol) and sym.kind == "function":
            # A function whose body is `return expr;` is inlined as that expression.
            decl: ast.FunctionDeclaration = sym.decl
            body = decl.body.stmts
            params = decl.prototype.params
            if (
                len(body) == 1
                and isinstance(body[0], ast.ReturnStatement)
                and body[0].value is not None
                and all(p.direction in ("", "in") for p in params)
            ):
                bindings = {id(p): a.value for p, a in zip(params, e.args, strict=True)}
                return self.with_bindings(bindings).value(body[0].value)
            raise CompileError(
                e.pos,
                "a function with more than `return expression;` can only be called as a "
                "statement or as `x = f(...);` yet",
            )
        raise CompileError(e.pos, "calls with a value are not supported in expressions yet")

    def wrap(self, n: Json, ty: t.Type) -> Json:
        if not isinstance(ty, t.Bits):
            return n
        if ty.signed:
            return op("two_comp_mod", n, node("hexstr", hexstr(ty.width, 32)))
        return op("&", n, node("hexstr", hexstr((1 << ty.width) - 1, ty.width)))

    def binary(self, e: ast.Binary) -> Json:
        if e.op in ("&&", "||"):
            return op("and" if e.op == "&&" else "or", self.boolean(e.left), self.boolean(e.right))
        if e.op in ("==", "!=") and isinstance(e.left.type, t.StructLike):
            equal = self.equal(e.left, e.right, e.left.type)
            return equal if e.op == "==" else op("not", None, equal)
        if e.op in ("==", "!=") and isinstance(e.left.type, t.Varbit):
            return op(e.op, self.varbit(e.left), self.varbit(e.right))
        if e.op in ("==", "!=") and isinstance(e.left.type, t.HeaderStack):
            equal = self.equal_stacks(e.left, e.right, e.left.type)
            return equal if e.op == "==" else op("not", None, equal)
        if e.op in ("==", "!=") and isinstance(e.left.type, t.Tuple):
            equal = self.equal_items(self.items(e.left), self.items(e.right))
            return equal if e.op == "==" else op("not", None, equal)
        left, right = self.data(e.left), self.data(e.right)
        if e.op in ("|+|", "|-|") and isinstance(e.type, t.Bits):
            # BMv2 computes the exact sum or difference, then clamps it to the type's range.
            exact = op("+" if e.op == "|+|" else "-", left, right)
            cast = "sat_cast" if e.type.signed else "usat_cast"
            return op(cast, exact, node("hexstr", hexstr(e.type.width, 32)))
        if e.op == "++":
            lt, rt = e.left.type, e.right.type
            assert isinstance(lt, t.Bits) and isinstance(rt, t.Bits)
            shifted = op("<<", left, node("hexstr", hexstr(rt.width, 32)))
            return op(
                "|",
                self.wrap(shifted, t.Bits(lt.width + rt.width)),
                self.wrap(right, t.Bits(rt.width)),
            )
        result = op(e.op, left, right)
        if e.op in _COMPARE:
            return result
        if e.op in _WRAPPED:
            return self.wrap(result, e.type)
        return result

    def equal(self, a: ast.Expression, b: ast.Expression, ty: t.StructLike) -> Json:
        """`a == b` of structs (every field equal), headers (both invalid, or both
        valid with every field equal) or header unions (every member equal as headers:
        all invalid in both, or the same one valid and equal), as the spec defines them,
        from field comparisons any BMv2 evaluates."""
        for side in (a, b):
            if not (self.is_storage(side) or self.literal(side)):
                raise CompileError(
                    side.pos, f"comparing {ty} values computed by expressions is not supported yet"
                )
        result: Json = node("bool", True)
        for name, ft in ty.fields:
            fa, fb = _member(a, name, ft), _member(b, name, ft)
            if isinstance(ft, t.StructLike):
                same = self.equal(fa, fb, ft)
            elif isinstance(ft, t.Varbit):
                same = op("==", self.varbit(fa), self.varbit(fb))
            else:
                same = op("==", self.data(fa), self.data(fb))
            result = same if result == node("bool", True) else op("and", result, same)
        if ty.kind != "header":
            return result
        # A header made from a list or struct expression is valid (spec 8.26).
        valid_a, valid_b = (
            node("bool", True) if self.literal(x) else self.header_valid(x) for x in (a, b)
        )
        neither = op("and", op("not", None, valid_a), op("not", None, valid_b))
        return op("or", neither, op("and", op("and", valid_a, valid_b), result))

    def equal_stacks(self, a: ast.Expression, b: ast.Expression, ty: t.HeaderStack) -> Json:
        """Stacks of one type are equal when every element is (spec, operations on header
        stacks), compared pairwise as headers."""
        element = ty.element
        if not isinstance(element, t.StructLike):
            raise CompileError(a.pos, f"comparing stacks of {element} is not supported")
        result: Json = node("bool", True)
        for i in range(ty.size):
            same = self.equal(_index(a, i, element), _index(b, i, element), element)
            result = same if i == 0 else op("and", result, same)
        return result

    def items(self, e: ast.Expression) -> list[ast.Expression]:
        """A tuple's elements: a list's items, or a stored tuple's by index."""
        if isinstance(e, ast.ListExpression):
            return list(e.items)
        ty = e.type
        if not (isinstance(ty, t.Tuple) and self.is_storage(e)):
            raise CompileError(
                e.pos, "comparing tuples computed by expressions is not supported yet"
            )
        result = []
        for i, item in enumerate(ty.items):
            index = ast.IntLiteral(e.pos, i, None, False)
            index.type = t.InfInt()
            element = ast.Index(e.pos, e, index)
            element.type = item
            result.append(element)
        return result

    def equal_items(self, a: list[ast.Expression], b: list[ast.Expression]) -> Json:
        """Lists or tuples equal element by element (spec: operations on tuples)."""
        result: Json = node("bool", True)
        for x, y in zip(a, b, strict=True):
            if isinstance(x.type, t.StructLike):
                same = self.equal(x, y, x.type)
            elif isinstance(x.type, t.Tuple):
                same = self.equal_items(self.items(x), self.items(y))
            else:
                same = op("==", self.data(x), self.data(y))
            result = same if result == node("bool", True) else op("and", result, same)
        return result

    def header_valid(self, e: ast.Expression) -> Json:
        loc = self.locate(e)
        if isinstance(loc, DynamicHeaderRef):
            return op("valid", None, loc.expression)
        if not isinstance(loc, HeaderRef):
            raise CompileError(e.pos, "comparing this header is not supported yet")
        return op("d2b", None, node("field", [loc.instance, "$valid$"]))

    def unary(self, e: ast.Unary) -> Json:
        if e.op == "!":
            return op("not", None, self.boolean(e.operand))
        if e.op == "+":
            return self.data(e.operand)
        if e.op == "~":
            return self.wrap(op("~", None, self.data(e.operand)), e.type)
        zero = node("hexstr", hexstr(0, t.width_of(e.type)))
        return self.wrap(op("-", zero, self.data(e.operand)), e.type)

    def cast(self, e: ast.Cast) -> Json:
        src, dst = e.expr.type, e.type
        if isinstance(dst, t.Bool):
            return op("d2b", None, self.data(e.expr))
        if isinstance(src, t.Bool):
            return op("b2d", None, self.boolean(e.expr))
        inner = self.data(e.expr)
        if (
            isinstance(src, t.Bits)
            and isinstance(dst, t.Bits)
            and (dst.width < src.width or dst.signed != src.signed)
        ):
            return self.wrap(inner, dst)
        return inner


def _index(base: ast.Expression, i: int, ty: t.Type) -> ast.Index:
    literal = ast.IntLiteral(base.pos, i, None, False)
    literal.type = t.InfInt()
    element = ast.Index(base.pos, base, literal)
    element.type = ty
    return element


def _member(base: ast.Expression, name: str, ty: t.Type) -> ast.Member:
    """`base.name` made by the back end, typed as the checker would."""
    m = ast.Member(base.pos, base, name)
    m.type = ty
    return m
