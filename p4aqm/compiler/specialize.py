"""Controls whose constructor takes a control, specialised per instance before type
checking.

`control Outer(inout h_t h)(Inner i) { apply { i.apply(h); } }` instantiated as
`Outer(Inner(3)) o;` becomes a copy of Outer, `Outer_o`, without that constructor
parameter and with `Inner(3) i;` among its locals; the instance is `Outer_o() o;`. The
back end then inlines `i` as any control a control instantiates, so control-plane names
follow the instances (o.i.t), as p4c's do. An instance passed by name (`C1() c1;
C2(c1) c2;`) is shared: the copy's `i` names its externs under `c1`. The same applies to
the controls passed to the main package. The parser passed to it with constructor
arguments, `MyParser(8w4)`, has its constructor parameters bound as constants.
"""

import copy

from p4aqm.compiler import ast
from p4aqm.compiler.diagnostics import CompileError, SourcePos
from p4aqm.compiler.rewrite import fresh_names


class Specializer:
    def __init__(self, program: ast.Program) -> None:
        self.program = program
        self.controls = {
            d.name: d for d in program.declarations if isinstance(d, ast.ControlDeclaration)
        }
        self.control_types = set(self.controls) | {
            d.name for d in program.declarations if isinstance(d, ast.ControlTypeDeclaration)
        }
        self.names = fresh_names(program)
        self.parsers = {
            d.name: d for d in program.declarations if isinstance(d, ast.ParserDeclaration)
        }

    def control_param(self, param: ast.Parameter) -> bool:
        ref = param.type_ref
        return isinstance(ref, ast.NamedTypeRef) and ref.name in self.control_types

    def specialize(
        self,
        type_name: str,
        args: list[ast.Argument],
        instance: str,
        pos: SourcePos,
        before: ast.Declaration,
    ) -> tuple[str, list[ast.Argument]]:
        """The control to instantiate and its remaining arguments."""
        decl = self.controls.get(type_name)
        if decl is None or not any(self.control_param(p) for p in decl.ctor_params):
            return type_name, args
        if len(args) != len(decl.ctor_params) or any(a.name for a in args):
            raise CompileError(
                pos, f"'{type_name}' takes {len(decl.ctor_params)} constructor arguments"
            )
        special = copy.deepcopy(decl)
        special.name = self.names.fresh().replace("tmp", f"{decl.name}_{instance}")
        kept_params, kept_args, locals_ = [], [], []
        for param, argument in zip(decl.ctor_params, args, strict=True):
            if not self.control_param(param):
                kept_params.append(copy.deepcopy(param))
                kept_args.append(argument)
                continue
            value = argument.value
            shares = None
            if isinstance(value, ast.Name):
                value, shares = self.instance_named(value, before)
            if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)):
                raise CompileError(
                    argument.pos, f"'{param.name}' needs a control instance, e.g. C()"
                )
            inner = ast.Instantiation(
                value.pos, param.name, ast.NamedTypeRef(value.pos, value.func.name), value.args
            )
            inner.shares = shares
            locals_.append(inner)
        special.ctor_params = kept_params
        special.locals = [*locals_, *special.locals]
        index = self.program.declarations.index(before)
        self.program.declarations.insert(index, special)
        self.controls[special.name] = special
        self.control_types.add(special.name)
        self.locals_of(special)  # its new instances may take controls too
        return special.name, kept_args

    def instance_named(
        self, name: ast.Name, where: ast.Declaration
    ) -> tuple[ast.Expression, tuple[int, str] | None]:
        """An instance declared before, passed by name (`C1() c1; C2(c1) c2;`), as the
        constructor call it was made with. The instance made from it shares its
        externs (the back end names them under `c1`, see `Instantiation.shares`); a
        table cannot be shared, since BMv2 places each table once in its pipeline."""
        locals_ = where.locals if isinstance(where, ast.ControlDeclaration) else []
        found = next(
            (d for d in locals_ if isinstance(d, ast.Instantiation) and d.name == name.name),
            None,
        )
        if found is None or not isinstance(found.type_ref, ast.NamedTypeRef):
            return name, None
        control = self.controls.get(found.type_ref.name)
        if control is None or any(
            isinstance(d, ast.TableDeclaration)
            or (
                isinstance(d, ast.Instantiation)
                and isinstance(d.type_ref, ast.NamedTypeRef)
                and d.type_ref.name in self.control_types
            )
            for d in control.locals
        ):
            raise CompileError(
                name.pos,
                f"'{name.name}' has tables, which one instance passed to several controls "
                "would apply from several places; BMv2 places a table once: pass a new "
                "instance",
            )
        call = ast.Call(name.pos, ast.Name(name.pos, found.type_ref.name), [], found.args)
        # Passed on again from a specialised control, it still names the first instance.
        levels, shared = found.shares or (0, found.name)
        return call, (levels + 1, shared)

    def locals_of(self, control: ast.ControlDeclaration) -> None:
        for local in control.locals:
            if isinstance(local, ast.Instantiation) and isinstance(
                local.type_ref, ast.NamedTypeRef
            ):
                name, args = self.specialize(
                    local.type_ref.name, local.args, local.name, local.pos, control
                )
                local.type_ref.name, local.args = name, args

    def main_arguments(self, main: ast.Instantiation) -> None:
        for argument in main.args:
            value = argument.value
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
                parser = self.parsers.get(value.func.name)
                if parser is not None and parser.ctor_params:
                    _bind_parser_constructor(parser, value)
                    continue
                name, args = self.specialize(
                    value.func.name, value.args, value.func.name, value.pos, main
                )
                value.func.name, value.args = name, args


def _bind_parser_constructor(parser: ast.ParserDeclaration, call: ast.Call) -> None:
    """The parser given to the main package with constructor arguments, `P(8w4)`: each
    constructor parameter becomes a constant of the parser bound to its argument (a
    parameter left out takes its default). Sub-parser instances are inlined already, so
    this instance is the declaration's only one."""
    params = parser.ctor_params
    given = call.args
    if len(given) > len(params) or any(a.name for a in given):
        raise CompileError(
            call.pos,
            f"parser '{parser.name}' takes {len(params)} constructor arguments, by position",
        )
    constants: list[ast.Declaration] = []
    for i, param in enumerate(params):
        value = given[i].value if i < len(given) else param.default
        if value is None:
            raise CompileError(
                call.pos, f"parser '{parser.name}' needs an argument for '{param.name}'"
            )
        constants.append(ast.ConstantDeclaration(param.pos, param.name, param.type_ref, value))
    parser.locals[:0] = constants
    parser.ctor_params = []
    call.args = []


def specialize_control_arguments(program: ast.Program) -> ast.Program:
    """program with every control that takes a control specialised per instance (in
    place; returned for chaining)."""
    specializer = Specializer(program)
    for decl in list(program.declarations):
        # A control taking a control is done in its copies, where the argument is known.
        generic = isinstance(decl, ast.ControlDeclaration) and any(
            specializer.control_param(p) for p in decl.ctor_params
        )
        if isinstance(decl, ast.ControlDeclaration) and not generic:
            specializer.locals_of(decl)
        elif isinstance(decl, ast.Instantiation) and decl.name == "main":
            specializer.main_arguments(decl)
    # Every instance now uses a copy: the generic declarations go, their copies checked.
    program.declarations = [
        d
        for d in program.declarations
        if not (
            isinstance(d, ast.ControlDeclaration)
            and any(specializer.control_param(p) for p in d.ctor_params)
        )
    ]
    return program
