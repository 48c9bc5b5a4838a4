"""Instantiations: extern instances, control instances with constructor arguments, and
the `main` package with the parsers and controls bound to its parameters."""

from __future__ import annotations

from typing import Any

from p4aqm.compiler import ast
from p4aqm.compiler import types as t
from p4aqm.compiler.diagnostics import CompileError
from p4aqm.compiler.typecheck.calls import bind_arguments
from p4aqm.compiler.typecheck.constants import const_value
from p4aqm.compiler.typecheck.symbols import BlockInstance, Scope, Symbol


class Instances:
    """A mixin of `Checker`."""

    owner: Any
    blocks: list[BlockInstance]
    main: ast.Instantiation | None
    package: ast.PackageTypeDeclaration | None

    def instantiation(self, decl: ast.Instantiation, scope: Scope) -> None:
        ty = self.resolve_type(decl.type_ref, scope)
        decl.resolved = ty
        if decl.initializer is not None:
            raise CompileError(decl.pos, "abstract method implementations are not supported yet")
        if isinstance(ty, t.Extern):
            ctors = [m for m in ty.decl.methods if m.return_type is None]
            self.call_args(decl.args, ctors, decl.pos, scope, dict(ty.type_args), ty.decl.name)
        elif (
            isinstance(ty, t.BlockType)
            and ty.kind == "control"
            and isinstance(ty.decl, ast.ControlDeclaration)
            and isinstance(self.owner, ast.ControlDeclaration)
        ):
            self.ctor_args(decl, ty.decl, scope)
        elif isinstance(ty, t.BlockType) and ty.kind == "package":
            if decl.name != "main" or scope.parent is not None:
                raise CompileError(
                    decl.pos, "only the top-level 'main' package instance is supported"
                )
            self.package_instance(decl, ty, scope)
        else:
            raise CompileError(decl.type_ref.pos, f"cannot instantiate {ty}")
        self.declare(scope, Symbol("instance", decl.name, ty, decl, owner=self.owner), decl.pos)

    def ctor_args(
        self, decl: ast.Instantiation, control: ast.ControlDeclaration, scope: Scope
    ) -> None:
        bound = bind_arguments(decl.args, control.ctor_params, decl.pos)
        if bound is None:
            raise CompileError(
                decl.pos,
                f"'{control.name}' takes {len(control.ctor_params)} constructor arguments",
            )
        decl.args[:] = bound
        for p, a in zip(control.ctor_params, decl.args, strict=True):
            self.expr(a.value, scope)
            self.coerce(a.value, p.resolved)
            if const_value(a.value) is None:
                raise CompileError(a.pos, "a constructor argument must be a compile-time constant")

    def package_instance(self, decl: ast.Instantiation, ty: t.BlockType, scope: Scope) -> None:
        pkg: ast.PackageTypeDeclaration = ty.decl
        bound = bind_arguments(decl.args, pkg.params, decl.pos)
        if bound is None:
            raise CompileError(
                decl.pos,
                f"package {pkg.name} takes the arguments {', '.join(p.name for p in pkg.params)}",
            )
        decl.args[:] = bound
        for param, arg in zip(pkg.params, decl.args, strict=True):
            value = arg.value
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.args:
                # p4c specialises such a control into a copy under a new name, and which
                # control-plane names its tables then take in P4Info is not documented.
                raise CompileError(
                    value.pos,
                    f"constructor arguments of '{value.func.name}' given to {pkg.name} are "
                    "not supported yet (only the parser's are)",
                )
            if not (
                isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and not value.args
            ):
                raise CompileError(
                    value.pos, "expected a parser or control instance such as 'MyParser()'"
                )
            sym = scope.lookup(value.func.name)
            if sym is None or not isinstance(
                sym.decl, ast.ParserDeclaration | ast.ControlDeclaration
            ):
                raise CompileError(value.pos, f"'{value.func.name}' is not a parser or control")
            want = self.resolve_type(
                param.type_ref, scope, {n: t.DontCareType() for n in pkg.type_params}
            )
            got = sym.type
            if not isinstance(want, t.BlockType) or want.kind != got.kind:
                raise CompileError(
                    value.pos,
                    f"argument '{param.name}' of {pkg.name} must be a "
                    f"{getattr(want, 'kind', want)}, not {got}",
                )
            if len(sym.decl.params) != len(want.decl.params):
                raise CompileError(
                    value.pos,
                    f"'{sym.name}' must have {len(want.decl.params)} parameters like {want.name}",
                )
            for mine, theirs in zip(sym.decl.params, want.decl.params, strict=True):
                if mine.direction != theirs.direction:
                    raise CompileError(
                        mine.pos,
                        f"parameter '{mine.name}' must be "
                        f"'{theirs.direction or 'directionless'}' as in {want.name}",
                    )
            value.ref = sym
            value.func.ref = sym
            value.type = got
            self.blocks.append(BlockInstance(param.name, sym.decl))
        self.main = decl
        self.package = pkg
