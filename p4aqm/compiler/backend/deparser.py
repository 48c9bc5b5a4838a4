"""The checksum controls and the deparser, v1model blocks that are lists of calls: the
checksums become BMv2 `checksums` with their calculations, the emits the deparser's
header order (JSON_format.md) and its extern function calls the deparser's primitives.
`DeparserLowering` is a mixin of the builder (`bmv2_json.Bmv2Builder`)."""

from __future__ import annotations

from p4aqm.compiler import ast
from p4aqm.compiler.backend import externs
from p4aqm.compiler.backend.expressions import ExpressionEncoder, Json, node
from p4aqm.compiler.backend.storage import (
    DynamicHeaderRef,
    DynamicUnionRef,
    FieldRef,
    HeaderRef,
    Layout,
    StackRef,
    StructRef,
    UnionRef,
    UnionStackRef,
)
from p4aqm.compiler.diagnostics import CompileError
from p4aqm.compiler.names import qualified_name
from p4aqm.compiler.typecheck import Symbol, const_value


class DeparserLowering:
    # State of the builder that mixes this class in.
    layout: Layout
    ext: externs.ExternTables
    bindings: dict[int, ast.Expression]
    checksums: list[Json]

    def checksum_control(self, control: ast.ControlDeclaration, verify: bool) -> None:
        self.bindings = {}
        self.enter(control, qualified_name(control, None))
        if control.locals:
            raise CompileError(
                control.locals[0].pos, "locals in checksum controls are not supported yet"
            )
        enc = self.encoder()
        for s in _flatten(control.body.stmts):
            call = s.call if isinstance(s, ast.MethodCallStatement) else None
            sym = call.ref if call else None
            wanted = "verify_checksum" if verify else "update_checksum"
            if call is None or sym is None or sym.name not in (wanted, f"{wanted}_with_payload"):
                raise CompileError(
                    s.pos,
                    f"only {wanted}() and {wanted}_with_payload() calls are supported "
                    "in this control yet",
                )
            args = [a.value for a in call.args]
            inputs = externs.field_list(enc, args[1])
            if sym.name.endswith("_with_payload"):
                # The payload follows the fields in the checksum (JSON_format.md).
                inputs.append(node("payload", None))
            calc = self.ext.new_calculation(externs.hash_algorithm(call.args[3]), inputs)
            target = enc.locate(args[2])
            if not isinstance(target, FieldRef):
                raise CompileError(args[2].pos, "the checksum must be a field")
            name = "cksum" if not self.checksums else f"cksum_{len(self.checksums) - 1}"
            self.checksums.append(
                {
                    "name": name,
                    "id": len(self.checksums),
                    "target": [target.instance, target.field],
                    "type": "generic",
                    "calculation": calc,
                    "verify": verify,
                    "update": not verify,
                    # null means "always", as for p4c when the condition is `true`.
                    "if_cond": None if const_value(args[0]) is True else enc.boolean(args[0]),
                }
            )

    def deparser(self, control: ast.ControlDeclaration) -> Json:
        """The emits become the header order; extern function calls (`log_msg`, ...)
        become the deparser's primitives, which BMv2 runs after the checksum update and
        before it emits.  As in p4c, a `return` or `exit` ends the body."""
        enc = self.encoder()
        order: list[str] = []
        prims: list[Json] = []
        for s in _flatten(control.body.stmts):
            if isinstance(s, ast.ReturnStatement | ast.ExitStatement):
                break
            sym = s.call.ref if isinstance(s, ast.MethodCallStatement) else None
            if not isinstance(sym, Symbol) or sym.kind not in ("method", "extern_function"):
                raise CompileError(
                    s.pos,
                    "only packet.emit() and extern function calls are supported in the "
                    "deparser (BMv2 runs no other statement there)",
                )
            assert isinstance(s, ast.MethodCallStatement)
            if sym.kind == "extern_function":
                prims += externs.call_primitives(s.call, enc, self.ext)
            elif sym.name == "emit":
                order += self.emitted(s.call.args[0].value, enc)
            else:
                raise CompileError(s.pos, f"method '{sym.name}' is not supported in the deparser")
        return {"name": "deparser", "id": 0, "order": order, "primitives": prims}

    def emitted(self, e: ast.Expression, enc: ExpressionEncoder) -> list[str]:
        loc = enc.locate(e)
        if isinstance(loc, HeaderRef):
            return [loc.instance]
        if isinstance(loc, StackRef):
            return [f"{loc.name}[{i}]" for i in range(loc.size)]
        if isinstance(loc, UnionRef):
            # At most one member is valid; BMv2 emits only valid headers.
            return next(u.members for u in self.layout.unions if u.name == loc.name)
        if isinstance(loc, UnionStackRef):
            # Each element in order, as a union (JSON_format.md, deparsers).
            stack = next(s for s in self.layout.union_stacks if s.name == loc.name)
            members = {u.name: u.members for u in self.layout.unions}
            return [m for u in stack.unions for m in members[u]]
        if isinstance(loc, StructRef):
            # Emitting a struct emits its headers in field order (spec 15.3).
            prefix_len = len(loc.path)
            return [
                v.instance
                for (root, path), v in self.layout.locations.items()
                if root == loc.root and path[:prefix_len] == loc.path and isinstance(v, HeaderRef)
            ]
        if isinstance(loc, DynamicHeaderRef | DynamicUnionRef):
            raise CompileError(
                e.pos,
                "emit of a stack element chosen at run time is not supported: BMv2's "
                "deparser emits a fixed list of headers",
            )
        raise CompileError(e.pos, "emit needs a header or a struct of headers")


def _flatten(stmts: list[ast.Statement]) -> list[ast.Statement]:
    result: list[ast.Statement] = []
    for s in stmts:
        if isinstance(s, ast.BlockStatement):
            result += _flatten(s.stmts)
        elif not isinstance(s, ast.EmptyStatement):
            result.append(s)
    return result
