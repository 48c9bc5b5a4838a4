"""The v1model parser as BMv2 parse states (behavioral-model JSON_format.md, parsers).

Statements become parser ops (`extract`, `set`, `advance`, `verify`, or a `primitive`);
a select becomes value/mask transitions on a key of fields and lookaheads.  BMv2 has no
ranges in transitions, so a range keyset is split into aligned value/mask blocks.
`ParserLowering` is a mixin of the builder: it uses the builder's storage and calls.
"""

from __future__ import annotations

from dataclasses import dataclass

from p4aqm.compiler import ast
from p4aqm.compiler import types as t
from p4aqm.compiler.backend import assignments, externs
from p4aqm.compiler.backend.expressions import (
    ExpressionEncoder,
    Json,
    const_int,
    hexstr,
    node,
    param,
)
from p4aqm.compiler.backend.storage import (
    SCALARS,
    FieldRef,
    HeaderRef,
    Layout,
    StackRef,
    UnionStackRef,
)
from p4aqm.compiler.diagnostics import CompileError
from p4aqm.compiler.names import expression_text, qualified_name
from p4aqm.compiler.rewrite import nodes
from p4aqm.compiler.typecheck import Symbol, const_value, value_set_fields


@dataclass
class ValueSetInfo:
    """A parser value set: its control-plane name and its members' fields (P4Info
    match fields: name, or None for a bit<W> set, width, and match kind)."""

    name: str
    decl: ast.ValueSetDeclaration
    fields: list[tuple[str | None, int]]
    size: int
    match_kinds: list[str]

    @property
    def bitwidth(self) -> int:
        return sum(w for _, w in self.fields)


class ParserLowering:
    # Provided by the builder that mixes this class in, with its `bind_local` and
    # `encoder`, and `call_primitives` of `ActionLowering`. (No stubs here: a stub would
    # shadow a sibling mixin's method that comes later in the builder's bases.)
    layout: Layout
    value_sets: list[ValueSetInfo]

    def extract(self, call: ast.Call, enc: ExpressionEncoder) -> Json:
        """`extract(hdr)`, or `extract(hdr, bits)` for a header with a varbit field,
        which BMv2 spells `extract_VL` with the length in bits as an expression."""
        arg = call.args[0].value
        if (
            isinstance(arg, ast.Member)
            and isinstance(arg.expr, ast.Member)
            and arg.expr.member == "next"
            and isinstance(stack := enc.locate(arg.expr.expr), UnionStackRef)
        ):
            # `u.next.m`: member m of the union stack's next element (JSON_format.md,
            # parser operations: extract of type union_stack; extract_VL for a member
            # with a varbit field, as BMv2's parser takes it and p4c's issue561-bmv2
            # parses TCP options).
            header = node("union_stack", [stack.name, arg.member])
            varbit = self._has_varbit(f"{stack.name}[0].{arg.member}")
        elif isinstance(arg, ast.Member) and arg.member == "next":
            stack = enc.locate(arg.expr)
            assert isinstance(stack, StackRef)
            # As p4c gives it: extract_VL of type "stack" for headers with a varbit.
            header = node("stack", stack.name)
            varbit = self._has_varbit(stack.name + "[0]")
        else:
            target = enc.locate(arg)
            if not isinstance(target, HeaderRef):
                raise CompileError(call.pos, "extract needs a header")
            header = node("regular", target.instance)
            varbit = self._has_varbit(target.instance)
        if len(call.args) == 1:
            if varbit:
                raise CompileError(
                    call.pos, "a header with a varbit field is extracted with extract(hdr, bits)"
                )
            return {"parameters": [header], "op": "extract"}
        if not varbit:
            raise CompileError(call.pos, "extract(hdr, bits) needs a header with a varbit field")
        # The length "must be of type expression" (JSON_format.md, parser operations):
        # whatever it is (field, constant or expression node), it is wrapped once.
        size = node("expression", enc.data(call.args[1].value))
        return {"parameters": [header, size], "op": "extract_VL"}

    def _has_varbit(self, instance: str) -> bool:
        header_type = next(i.header_type for i in self.layout.instances if i.name == instance)
        return any(w == "*" for _, w, _ in self.layout.header_types[header_type].fields)

    def parser(self, decl: ast.ParserDeclaration) -> Json:
        for local in decl.locals:
            if isinstance(local, ast.VariableDeclaration):
                self.bind_local(local, decl.name)
            elif isinstance(local, ast.ValueSetDeclaration):
                self.value_sets.append(value_set_info(local, decl))
            elif not isinstance(local, ast.ConstantDeclaration):
                raise CompileError(local.pos, "this parser local is not supported yet")
        enc = self.encoder()
        states = []
        for i, state in enumerate(decl.states):
            ops: list[Json] = []
            for local in decl.locals:
                if (
                    state.name == "start"
                    and isinstance(local, ast.VariableDeclaration)
                    and local.init is not None
                ):
                    ops += self.parser_assign(assignments.variable(local), local.init, enc)
            extracted: set[str] = set()
            for stmt in state.stmts:
                stack = _extracted_stack(stmt)
                if stack is None:
                    _next_as_last(stmt, extracted)
                ops.extend(self.parser_op(stmt, enc, decl.name))
                if stack is not None:
                    extracted.add(stack)
            _next_as_last(state.transition, extracted)
            transitions, key = self.transitions(state, enc, ops)
            states.append(
                {
                    "name": state.name,
                    "id": i,
                    "parser_ops": ops,
                    "transitions": transitions,
                    "transition_key": key,
                }
            )
        return {"name": "parser", "id": 0, "init_state": "start", "parse_states": states}

    @staticmethod
    def parser_assign(
        lhs: ast.Expression, rhs: ast.Expression, enc: ExpressionEncoder
    ) -> list[Json]:
        ty = rhs.type
        if _is_lookahead(rhs) and isinstance(ty, t.StructLike) and ty.kind != "header_union":
            return _peeked(lhs, ty, 0, enc)
        if (peek := _lookahead(rhs)) is not None:
            return [{"parameters": [enc.lvalue(lhs), peek], "op": "set"}]
        return assignments.as_parser_ops(assignments.assign(lhs, rhs, enc))

    def parser_op(self, stmt: ast.Statement, enc: ExpressionEncoder, owner: str) -> list[Json]:
        if isinstance(stmt, ast.BlockStatement):
            return [op for s in stmt.stmts for op in self.parser_op(s, enc, owner)]
        if isinstance(stmt, ast.EmptyStatement | ast.ConstantDeclaration):
            return []
        if isinstance(stmt, ast.VariableDeclaration):
            self.bind_local(stmt, owner)
            if stmt.init is None:
                return []
            return self.parser_assign(assignments.variable(stmt), stmt.init, enc)
        if isinstance(stmt, ast.Assignment):
            return self.parser_assign(stmt.lhs, stmt.rhs, enc)
        if isinstance(stmt, ast.MethodCallStatement):
            call = stmt.call
            sym = call.ref
            if (
                isinstance(sym, Symbol)
                and sym.kind == "method"
                and sym.name == "extract"
                and sym.decl.name == "packet_in"
            ):
                return [self.extract(call, enc)]
            if isinstance(sym, Symbol) and sym.kind == "method" and sym.name == "advance":
                bits = param(enc.data(call.args[0].value))
                return [{"parameters": [bits], "op": "advance"}]
            if isinstance(sym, Symbol) and sym.kind == "extern_function" and sym.name == "verify":
                args = [a.value for a in call.args]
                return [{"parameters": [enc.boolean(args[0]), enc.data(args[1])], "op": "verify"}]
            primitives = self.call_primitives(call, enc)
            if any(p["op"] in ("_jump", "_jump_if_zero") for p in primitives):
                # BMv2's parser ops run in order, with no jumps to branch by.
                raise CompileError(
                    stmt.pos, "a call that branches (a switch, or exit) in a parser state"
                )
            return [{"parameters": [p], "op": "primitive"} for p in primitives]
        raise CompileError(
            stmt.pos, f"{type(stmt).__name__} in a parser state is not supported yet"
        )

    def transitions(
        self, state: ast.ParserState, enc: ExpressionEncoder, ops: list[Json]
    ) -> tuple[list[Json], list[Json]]:
        """The state's transitions and key; `ops` gets what computes the key."""
        tr = state.transition
        if tr is None:
            # A state without a transition goes to reject implicitly (spec 13.5).
            return [self.transition("default", None, None, None)], []
        if isinstance(tr, ast.Name):
            return [self.transition("default", None, None, self.next_state(tr.name))], []
        assert isinstance(tr, ast.SelectExpression)
        key: list[Json] = []
        widths: list[int] = []
        for k in tr.keys:
            widths.append(t.width_of(k.type))
            # A key is a field, a stack_field, a union_stack_field or a lookahead
            # (JSON_format.md, parsers).
            peek = _lookahead(k) or enc.stack_last(k)
            if peek is not None and peek["type"] in (
                "lookahead",
                "stack_field",
                "union_stack_field",
            ):
                key.append(peek)
                continue
            loc = enc.locate(k) if enc.is_storage(k) else None
            if not isinstance(loc, FieldRef):
                # Anything else (`s.lastIndex`, an expression) is first computed into a
                # temporary field at the end of the state's ops (as p4c does).
                loc = FieldRef(SCALARS, self.layout.add_scalar("tmp_select", k.type, k.pos))
                target = node("field", [SCALARS, loc.field])
                ops.append({"parameters": [target, param(enc.data(k))], "op": "set"})
            key.append(node("field", [loc.instance, loc.field]))
        result = []
        for case in tr.cases:
            nxt = self.next_state(case.state)
            items = (
                case.keyset.items if isinstance(case.keyset, ast.ListExpression) else [case.keyset]
            )
            if len(items) == 1 and isinstance(items[0], ast.Default | ast.DontCare):
                result.append(self.transition("default", None, None, nxt))
                continue
            if (vset := _value_set(case.keyset)) is not None:
                name = next(v.name for v in self.value_sets if v.decl is vset)
                result.append(self.transition("parse_vset", name, None, nxt))
                continue
            # Each item matches a union of value/mask pairs (a range needs several); the
            # case matches their cross product, one BMv2 transition per combination.
            combos: list[tuple[list[str], list[str], bool]] = [([], [], False)]
            for item, w in zip(items, widths, strict=True):
                pairs = _keyset_masks(item, w)
                full = (1 << w) - 1
                combos = [
                    (
                        [*values, hexstr(v & m, w)[2:]],
                        [*masks, hexstr(m, w)[2:]],
                        masked or m != full or isinstance(item, ast.Mask),
                    )
                    for values, masks, masked in combos
                    for v, m in pairs
                ]
            for values, masks, masked in combos:
                mask = "0x" + "".join(masks) if masked else None
                result.append(self.transition("hexstr", "0x" + "".join(values), mask, nxt))
        return result, key

    @staticmethod
    def next_state(name: str) -> str | None:
        # BMv2 has no reject state: as with p4c, the parser stops there as on accept,
        # and the packet goes on to ingress (v1model never drops in the parser).
        return None if name in ("accept", "reject") else name

    @staticmethod
    def transition(kind: str, value: str | None, mask: str | None, nxt: str | None) -> Json:
        return {"type": kind, "value": value, "mask": mask, "next_state": nxt}


def _extracted_stack(stmt: ast.Statement) -> str | None:
    """The stack `extract(hs.next)` (or `extract(u.next.m)`, a union stack's) fills."""
    if not isinstance(stmt, ast.MethodCallStatement):
        return None
    sym = stmt.call.ref
    if not (isinstance(sym, Symbol) and sym.name == "extract" and stmt.call.args):
        return None
    arg = stmt.call.args[0].value
    if isinstance(arg, ast.Member) and isinstance(arg.expr, ast.Member):
        arg = arg.expr if arg.expr.member == "next" else arg
    if (
        isinstance(arg, ast.Member)
        and arg.member == "next"
        and isinstance(arg.expr.type, t.HeaderStack)
    ):
        return expression_text(arg.expr)
    return None


def _next_as_last(tree: object, extracted: set[str]) -> None:
    """`hs.next` read after the state's `extract(hs.next)` is the element just extracted,
    `hs.last`, as p4c's parser unrolling makes it (it gives `next` the index it had when
    the state began: p4c's issue692-bmv2 selects on `hs.next.y` right after extracting
    hs.next). BMv2 has no way to read `next` (JSON_format.md: stack_field is the last)."""
    if not extracted:
        return
    for n in nodes(tree):
        if (
            isinstance(n, ast.Member)
            and n.member == "next"
            and isinstance(n.expr.type, t.HeaderStack)
            and expression_text(n.expr) in extracted
        ):
            n.member = "last"


def value_set_info(decl: ast.ValueSetDeclaration, parser: ast.ParserDeclaration) -> ValueSetInfo:
    ty = decl.resolved
    widths = [t.width_of(ft) for ft in value_set_fields(ty) or []]
    if isinstance(ty, t.StructLike):
        leaves = _struct_leaves(ty, "")
        fields: list[tuple[str | None, int]] = [
            (name, w) for (name, _), w in zip(leaves, widths, strict=True)
        ]
        kinds = [kind for _, kind in leaves]
    else:
        fields = [(None, widths[0])]
        kinds = ["exact"]
    size = const_value(decl.size)
    assert isinstance(size, int)
    return ValueSetInfo(qualified_name(decl, parser), decl, fields, size, kinds)


def _struct_leaves(ty: t.StructLike, prefix: str) -> list[tuple[str, str]]:
    """(name, match kind) of each bit<W> field of a value set's struct, a nested
    struct's fields named by their path (`inner.x`)."""
    leaves = []
    for (name, ft), f in zip(ty.fields, ty.decl.fields, strict=True):
        if isinstance(ft, t.StructLike):
            leaves += _struct_leaves(ft, f"{prefix}{name}.")
        else:
            leaves.append((prefix + name, _match_kind(f)))
    return leaves


def _match_kind(f: ast.StructField) -> str:
    """A value set field's `@match(kind)`, exact without one (checked by the type
    checker)."""
    anno = ast.find_annotation(f.annotations, "match")
    kind = anno.exprs[0] if anno is not None and anno.exprs else None
    return kind.name if isinstance(kind, ast.Name) else "exact"


def _value_set(keyset: ast.Expression) -> ast.ValueSetDeclaration | None:
    """The value set a select case names, if it names one."""
    sym = keyset.ref if isinstance(keyset, ast.Name) else None
    if isinstance(sym, Symbol) and sym.kind == "value_set":
        return sym.decl
    return None


def _peeked(
    lhs: ast.Expression, ty: t.StructLike, offset: int, enc: ExpressionEncoder
) -> list[Json]:
    """A header or struct peeked at from `offset` bits ahead: each field set from its
    bits, a header made valid first."""
    ops = []
    if ty.kind == "header":
        ops = assignments.as_parser_ops(
            [externs.primitive("add_header", [enc.lvalue(lhs, run_time_index=True)])]
        )
    for name, ft in ty.fields:
        target = assignments.member(lhs, name, ft)
        if isinstance(ft, t.HeaderStack):
            for i in range(ft.size):
                element = assignments.element(target, i, ft)
                ops += _peeked(element, ft.element, offset + i * _peek_width(ft.element), enc)
        elif isinstance(ft, t.StructLike):
            ops += _peeked(target, ft, offset, enc)
        else:
            peek = node("lookahead", [offset, t.width_of(ft)])
            ops.append({"parameters": [enc.lvalue(target), peek], "op": "set"})
        offset += _peek_width(ft)
    return ops


def _peek_width(ty: t.Type) -> int:
    """Bits of the packet a peeked value of `ty` covers: a stack's elements too."""
    if isinstance(ty, t.HeaderStack):
        return ty.size * _peek_width(ty.element)
    if isinstance(ty, t.StructLike):
        return sum(_peek_width(ft) for _, ft in ty.fields)
    return t.width_of(ty)


def _is_lookahead(e: ast.Expression) -> bool:
    sym = e.ref if isinstance(e, ast.Call) else None
    return isinstance(sym, Symbol) and sym.kind == "method" and sym.name == "lookahead"


def _lookahead(e: ast.Expression) -> Json | None:
    """`pk.lookahead<bit<W>>()`, or a field of `pk.lookahead<H>()` for a header H, as
    BMv2's lookahead source: [bit offset, width]."""
    if isinstance(e, ast.Member) and _is_lookahead(e.expr):
        header = e.expr.type
        assert isinstance(header, t.StructLike)
        offset = 0
        for name, ft in header.fields:
            if name == e.member:
                return node("lookahead", [offset, t.width_of(ft)])
            offset += _peek_width(ft)
        raise CompileError(e.pos, f"{header} has no field '{e.member}'")
    if not _is_lookahead(e):
        return None
    if not isinstance(e.type, t.Bits):
        raise CompileError(
            e.pos, "lookahead of a header is only supported assigned to a header yet"
        )
    return node("lookahead", [0, e.type.width])


def _keyset_masks(item: ast.Expression, width: int) -> list[tuple[int, int]]:
    """The value/mask pairs whose union is one select keyset element."""
    full = (1 << width) - 1
    if isinstance(item, ast.Default | ast.DontCare):
        return [(0, 0)]
    if isinstance(item, ast.Mask):
        return [(const_int(item.value) & full, const_int(item.mask) & full)]
    if isinstance(item, ast.Range):
        return _range_masks(const_int(item.lo), const_int(item.hi), width)
    return [(const_int(item) & full, full)]


def _range_masks(lo: int, hi: int, width: int) -> list[tuple[int, int]]:
    """Cover lo..hi with aligned power-of-two blocks, each a value/mask pair."""
    full = (1 << width) - 1
    lo, hi = max(lo, 0), min(hi, full)
    pairs = []
    while lo <= hi:
        size = lo & -lo if lo else 1 << width
        while size > hi - lo + 1:
            size >>= 1
        pairs.append((lo, full & ~(size - 1)))
        lo += size
    return pairs
