"""BMv2 JSON for v1model programs, in the shape p4c-bm2-ss emits (format version 2.23).

One `Bmv2Builder` walks the checked program: storage first (`storage.Layout`), then the
parser, the two pipelines, the checksum controls and the deparser, and assembles the
JSON.  Each concern is a mixin of the builder, in a module of its own: parse states
(`parser_states.py`), actions (`actions.py`), control flow (`control_flow.py`), tables
(`tables.py`), checksums and deparser (`deparser.py`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from p4aqm.compiler import ast
from p4aqm.compiler import types as t
from p4aqm.compiler.backend import externs
from p4aqm.compiler.backend.actions import ActionInfo, ActionLowering, LoopJumps
from p4aqm.compiler.backend.control_flow import ControlFlowLowering
from p4aqm.compiler.backend.deparser import DeparserLowering
from p4aqm.compiler.backend.expressions import ExpressionEncoder, Json
from p4aqm.compiler.backend.parser_states import ParserLowering, ValueSetInfo
from p4aqm.compiler.backend.storage import HeaderType, Layout
from p4aqm.compiler.backend.tables import ProfileInfo, TableInfo, TableLowering
from p4aqm.compiler.diagnostics import CompileError
from p4aqm.compiler.names import qualified_name
from p4aqm.compiler.typecheck import CheckedProgram

JSON_VERSION = [2, 23]
COMPILER = "p4aqm"
# V1Switch parameter -> role of the block in BMv2.
V1MODEL_BLOCKS = {
    "p": "parser",
    "vr": "verify_checksum",
    "ig": "ingress",
    "eg": "egress",
    "ck": "compute_checksum",
    "dep": "deparser",
}


@dataclass
class Bmv2Program:
    json: Json
    tables: list[TableInfo] = field(default_factory=list)
    actions: list[ActionInfo] = field(default_factory=list)
    externs: externs.ExternTables = field(default_factory=externs.ExternTables)
    # The checked source, for P4Info objects that BMv2 does not see (controller headers).
    checked: CheckedProgram | None = None
    value_sets: list[ValueSetInfo] = field(default_factory=list)
    profiles: list[ProfileInfo] = field(default_factory=list)


class Bmv2Builder(
    ActionLowering, ControlFlowLowering, TableLowering, DeparserLowering, ParserLowering
):
    def __init__(self, checked: CheckedProgram, program_name: str) -> None:
        self.checked = checked
        self.program_name = program_name
        self.layout = Layout()
        self.roots: dict[int, Any] = {}  # id(Parameter or VariableDeclaration) -> layout root
        self.ext = externs.ExternTables()
        self.value_sets: list[ValueSetInfo] = []
        self.actions: list[ActionInfo] = []
        # (action name, text of the arguments bound to its directional parameters) ->
        # JSON id: one action per binding.
        self.action_ids: dict[tuple[str, tuple[str, ...]], int] = {}
        self.tables: list[TableInfo] = []
        # Tables placed so far, with the primitives computing their keys.
        self.applied: dict[str, list[Json]] = {}
        self.node_count = 0
        # Names taken by synthesized actions and tables; the program's own action names
        # are taken from the start so that a synthesized action never shadows one.
        self.action_names: set[str] = _action_names(checked.program)
        self.table_names: set[str] = set()
        self.checksums: list[Json] = []
        # The control being lowered, its instance path (`MyIngress`, `MyIngress.sub`) and
        # the arguments bound to its parameters when it is a control applied by another.
        # Then the tables and conditionals of the pipeline.
        self.control: Any = None
        self.prefix = ""
        self.bindings: dict[int, ast.Expression] = {}
        # `_jump` primitives of `return` statements, patched once the body's end is known,
        # and where the value of a `return e` goes in the function being inlined.
        self.return_jumps: list[Json] = []
        self.return_target: ast.Expression | None = None
        self.loop_jumps: list[LoopJumps] = []
        self.pipeline_tables: list[Json] = []
        # Action profiles of the pipeline; ids count over the whole program, as p4c's.
        self.pipeline_profiles: list[Json] = []
        self.profiles: list[ProfileInfo] = []
        self.conditionals: list[Json] = []
        # Conditional ids are unique in the whole file, not per pipeline (JSON_format.md).
        self.conditional_count = 0

    def build(self) -> Bmv2Program:
        blocks = self.v1model_blocks()
        self.bind_storage(blocks)
        self.top_level_instances()
        parsers, pipelines, deparsers = self.lower_blocks(blocks)
        self.ext.check_direct_meters()
        program = {
            **self.headers_json(),
            "field_lists": self.ext.field_lists,
            "errors": [[e, i] for i, e in enumerate(self.checked.errors)],
            "enums": [],
            "parsers": parsers,
            "parse_vsets": [
                {
                    "name": v.name,
                    "id": i,
                    "compressed_bitwidth": v.bitwidth,
                    "max_size": v.size,
                }
                for i, v in enumerate(self.value_sets)
            ],
            "deparsers": deparsers,
            "meter_arrays": self.ext.meter_arrays,
            "counter_arrays": self.ext.counter_arrays,
            "register_arrays": self.ext.register_arrays,
            "calculations": self.ext.calculations,
            "learn_lists": self.ext.learn_lists,
            "actions": [a.json for a in self.actions],
            "pipelines": pipelines,
            "checksums": self.checksums,
            "force_arith": [],
            "extern_instances": self.ext.extern_instances,
            "field_aliases": self.field_aliases(),
            "program": self.program_name,
            "__meta__": {"version": JSON_VERSION, "compiler": COMPILER},
        }
        return Bmv2Program(
            program,
            self.tables,
            self.actions,
            self.ext,
            self.checked,
            self.value_sets,
            self.profiles,
        )

    def v1model_blocks(self) -> dict[str, ast.ParserDeclaration | ast.ControlDeclaration]:
        """The package's blocks by their BMv2 role, once it is checked to be v1model's."""
        pkg = self.checked.package
        if pkg.name != "V1Switch":
            raise CompileError(pkg.pos, "only the v1model architecture (V1Switch) is supported")
        params = [b.param for b in self.checked.blocks]
        if sorted(params) != sorted(V1MODEL_BLOCKS):
            # A package of its own named V1Switch (p4c's issue1205-bmv2), not v1model's.
            raise CompileError(
                pkg.pos,
                f"V1Switch takes v1model's six blocks ({', '.join(V1MODEL_BLOCKS)}), "
                f"not ({', '.join(params)}): include <v1model.p4> and use its V1Switch",
            )
        return {V1MODEL_BLOCKS[b.param]: b.decl for b in self.checked.blocks}

    def lower_blocks(
        self, blocks: dict[str, ast.ParserDeclaration | ast.ControlDeclaration]
    ) -> tuple[list[Json], list[Json], list[Json]]:
        """The parsers, pipelines and deparsers of the JSON; the checksum controls go
        into `self.checksums`."""
        parser = blocks["parser"]
        assert isinstance(parser, ast.ParserDeclaration)
        parsers = [self.parser(parser)]
        pipelines = []
        for i, role in enumerate(("ingress", "egress")):
            control = blocks[role]
            assert isinstance(control, ast.ControlDeclaration)
            pipelines.append(self.pipeline(role, i, control))
        for role, verify in (("verify_checksum", True), ("compute_checksum", False)):
            control = blocks[role]
            assert isinstance(control, ast.ControlDeclaration)
            self.checksum_control(control, verify)
        deparser = blocks["deparser"]
        assert isinstance(deparser, ast.ControlDeclaration)
        deparsers = [self.deparser(deparser)]
        return parsers, pipelines, deparsers

    def headers_json(self) -> Json:
        """Header types and instances, header stacks and unions: the JSON's first keys."""
        scalars = self.layout.scalars_type()
        header_types = [scalars, *self.layout.header_types.values()]
        instances = [
            ("scalars", scalars.name, True),
            *((i.name, i.header_type, i.metadata) for i in self.layout.instances),
        ]
        header_ids = {name: i for i, (name, _, _) in enumerate(instances)}
        return {
            "header_types": [header_type_json(h, i) for i, h in enumerate(header_types)],
            "headers": [
                {"name": n, "id": i, "header_type": ht, "metadata": md, "pi_omit": True}
                for i, (n, ht, md) in enumerate(instances)
            ],
            "header_stacks": [
                {
                    "name": st.name,
                    "id": i,
                    "header_type": st.header_type,
                    "size": len(st.elements),
                    "header_ids": [header_ids[e] for e in st.elements],
                }
                for i, st in enumerate(self.layout.stacks)
            ],
            **self.unions_json(header_ids),
        }

    def unions_json(self, header_ids: dict[str, int]) -> Json:
        """Header union types, header unions and their stacks; `header_ids` numbers the
        header instances."""
        union_ids = {u.name: i for i, u in enumerate(self.layout.unions)}
        return {
            "header_union_types": [
                {"name": name, "id": i, "headers": [list(m) for m in members]}
                for i, (name, members) in enumerate(self.layout.union_types.items())
            ],
            "header_unions": [
                {
                    "name": u.name,
                    "id": i,
                    "union_type": u.union_type,
                    "header_ids": [header_ids[m] for m in u.members],
                    "pi_omit": True,
                }
                for i, u in enumerate(self.layout.unions)
            ],
            "header_union_stacks": [
                {
                    "name": st.name,
                    "id": i,
                    "union_type": st.union_type,
                    "size": len(st.unions),
                    "header_union_ids": [union_ids[u] for u in st.unions],
                }
                for i, st in enumerate(self.layout.union_stacks)
            ],
        }

    def bind_storage(
        self, blocks: dict[str, ast.ParserDeclaration | ast.ControlDeclaration]
    ) -> None:
        """Give the package's H, M and standard_metadata types their BMv2 instances."""
        parser = blocks["parser"]
        assert isinstance(parser, ast.ParserDeclaration)
        sm_sym = self.checked.globals.lookup("standard_metadata_t")
        assert sm_sym is not None and isinstance(sm_sym.type, t.StructLike)
        sm_type = sm_sym.type
        headers_type = self.param_type(parser.params[1])
        meta_type = self.param_type(parser.params[2])
        self.layout.bind_metadata_instance("SM", sm_type, "standard_metadata")
        self.layout.bind_struct("H", headers_type, "", "headers", parser.params[1].pos)
        self.layout.bind_struct(
            "M", meta_type, "userMetadata", "userMetadata", parser.params[2].pos
        )
        roles = {id(headers_type): "H", id(meta_type): "M", id(sm_type): "SM"}
        for block in blocks.values():
            for p in block.params:
                ty = self.param_type(p)
                if id(ty) in roles:
                    self.roots[id(p)] = roles[id(ty)]
        self.sm_type = sm_type
        if isinstance(meta_type, t.StructLike):
            self.ext.bind_field_lists(meta_type, self.layout)

    def top_level_instances(self) -> None:
        """Extern instances declared outside any control: one array each, named by the
        bare name as p4c names them and shared by every control that calls it."""
        self.ext.scope = externs.TOP_LEVEL
        for decl in self.checked.program.declarations:
            if isinstance(decl, ast.Instantiation) and isinstance(decl.resolved, t.Extern):
                externs.declare_instance(decl, qualified_name(decl, None), self.ext)

    @staticmethod
    def param_type(p: ast.Parameter) -> t.Type:
        if p.resolved is None:
            raise CompileError(p.pos, "internal: parameter was not type checked")
        return p.resolved

    def field_aliases(self) -> list[list[Any]]:
        result: list[list[Any]] = []
        for f in self.sm_type.decl.fields:
            alias = ast.find_annotation(f.annotations, "alias")
            if alias and alias.exprs and isinstance(alias.exprs[0], ast.StringLiteral):
                result.append([alias.exprs[0].value, ["standard_metadata", f.name]])
        return result

    def new_node_name(self) -> str:
        self.node_count += 1
        return f"node_{self.node_count}"

    def encoder(self, runtime_data: dict[int, int] | None = None) -> ExpressionEncoder:
        return ExpressionEncoder(self.layout, self.roots, runtime_data, self.bindings)

    def bind_local(self, decl: ast.VariableDeclaration, owner: str) -> None:
        if id(decl) in self.roots:
            return
        ty = decl.resolved
        if ty is None:
            raise CompileError(decl.pos, "internal: variable was not type checked")
        self.layout.bind_struct(
            id(decl), ty, f"{owner}.{decl.name}", f"{owner}.{decl.name}", decl.pos
        )
        self.roots[id(decl)] = id(decl)


def _action_names(program: ast.Program) -> set[str]:
    """Names of the actions declared at top level or in a control."""
    tops = program.declarations
    inner = [d for c in tops if isinstance(c, ast.ControlDeclaration) for d in c.locals]
    return {d.name for d in [*tops, *inner] if isinstance(d, ast.ActionDeclaration)}


def header_type_json(h: HeaderType, id_: int) -> Json:
    out: Json = {"name": h.name, "id": id_, "fields": [[n, w, s] for n, w, s in h.fields]}
    if h.max_length is not None:
        out["max_length"] = h.max_length
    return out


def build(checked: CheckedProgram, program_name: str) -> Bmv2Program:
    return Bmv2Builder(checked, program_name).build()
