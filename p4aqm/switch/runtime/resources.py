"""The P4Info externs a client addresses by id: registers, counters, meters (indexed and
direct), digests and the @controller_header packet metadata.

Names are P4Info preamble names, which p4c makes equal to the BMv2 JSON names that the
dataplane takes.
"""

from dataclasses import dataclass
from typing import Any, TypeVar

from finsy.proto import p4i, p4t

from p4aqm.switch.runtime.errors import invalid, not_found

_T = TypeVar("_T")


@dataclass(frozen=True)
class ArrayInfo:
    """A register, counter or meter array: `size` cells addressed by index."""

    id: int
    name: str
    size: int
    # Registers: the bitwidth of a cell. Counters and meters: 0.
    bitwidth: int = 0


@dataclass(frozen=True)
class DirectInfo:
    """A direct counter or meter: one cell per entry of the table it is attached to."""

    id: int
    name: str
    table_id: int


@dataclass(frozen=True)
class MetadataField:
    id: int
    name: str
    bitwidth: int


@dataclass(frozen=True)
class ControllerHeader:
    """A @controller_header("packet_in"/"packet_out") header, fields in header order."""

    id: int
    name: str
    fields: tuple[MetadataField, ...]

    @property
    def bitwidth(self) -> int:
        return sum(f.bitwidth for f in self.fields)

    @property
    def size_bytes(self) -> int:
        """The bytes the header takes on the wire. Older p4c (2.7) padded a header such as
        `bit<9> ingress_port` to 2 bytes in the JSON but listed only its fields in the
        P4Info; as PI does, the fields come first and the padding bits are 0."""
        return (self.bitwidth + 7) // 8


@dataclass(frozen=True)
class DigestInfo:
    id: int
    name: str
    # The P4Info type_spec's kind: a struct digest's samples are P4Data structs, a
    # tuple digest's (a list `{a, b}` in P4) tuples, any other type's a single value.
    kind: str | None


def _by_id(items: list[Any], what: str) -> dict[int, Any]:
    result = {}
    for item in items:
        if item.id in result:
            raise invalid(f"P4Info: duplicate {what} id {item.id}")
        result[item.id] = item
    return result


def _lookup(table: dict[int, _T], item_id: int, what: str) -> _T:
    try:
        return table[item_id]
    except KeyError:
        raise not_found(f"no {what} with id {item_id} in the P4Info") from None


class Resources:
    """The externs of one P4Info, indexed by id."""

    def __init__(self, p4info: p4i.P4Info) -> None:
        self.registers: dict[int, ArrayInfo] = _by_id(
            [_register(r, p4info.type_info) for r in p4info.registers], "register"
        )
        self.counters: dict[int, ArrayInfo] = _by_id(
            [ArrayInfo(c.preamble.id, c.preamble.name, c.size) for c in p4info.counters],
            "counter",
        )
        self.meters: dict[int, ArrayInfo] = _by_id(
            [ArrayInfo(m.preamble.id, m.preamble.name, m.size) for m in p4info.meters],
            "meter",
        )
        self.direct_counters: dict[int, DirectInfo] = _by_id(
            [
                DirectInfo(c.preamble.id, c.preamble.name, c.direct_table_id)
                for c in p4info.direct_counters
            ],
            "direct counter",
        )
        self.direct_meters: dict[int, DirectInfo] = _by_id(
            [
                DirectInfo(m.preamble.id, m.preamble.name, m.direct_table_id)
                for m in p4info.direct_meters
            ],
            "direct meter",
        )
        headers = [_controller_header(h) for h in p4info.controller_packet_metadata]
        self.packet_in = next((h for h in headers if h.name == "packet_in"), None)
        self.packet_out = next((h for h in headers if h.name == "packet_out"), None)
        self.digests: dict[int, DigestInfo] = _by_id(
            [
                DigestInfo(d.preamble.id, d.preamble.name, d.type_spec.WhichOneof("type_spec"))
                for d in p4info.digests
            ],
            "digest",
        )

    def register(self, register_id: int) -> ArrayInfo:
        return _lookup(self.registers, register_id, "register")

    def counter(self, counter_id: int) -> ArrayInfo:
        return _lookup(self.counters, counter_id, "counter")

    def meter(self, meter_id: int) -> ArrayInfo:
        return _lookup(self.meters, meter_id, "meter")

    def direct_counter_of(self, table_id: int, table_name: str) -> DirectInfo:
        return self._direct(self.direct_counters, table_id, table_name, "direct counter")

    def direct_meter_of(self, table_id: int, table_name: str) -> DirectInfo:
        return self._direct(self.direct_meters, table_id, table_name, "direct meter")

    @staticmethod
    def _direct(
        items: dict[int, DirectInfo], table_id: int, table_name: str, what: str
    ) -> DirectInfo:
        found = next((d for d in items.values() if d.table_id == table_id), None)
        if found is None:
            raise invalid(f"table '{table_name}' has no {what}")
        return found


def _bitstring_width(spec: p4t.P4DataTypeSpec) -> int:
    """The bitwidth of a bit<W> or int<W> type, 0 for any other type."""
    if spec.WhichOneof("type_spec") != "bitstring":
        return 0
    kind = spec.bitstring.WhichOneof("type_spec")
    return getattr(spec.bitstring, kind).bitwidth if kind in ("bit", "int") else 0


def _register(register: p4i.Register, type_info: p4t.P4TypeInfo) -> ArrayInfo:
    name = register.preamble.name
    bitwidth = _bitstring_width(register.type_spec)
    if register.type_spec.WhichOneof("type_spec") == "serializable_enum":
        # Cells of a serializable enum are its underlying bits (p4c's register-serenum).
        enum_name = register.type_spec.serializable_enum.name
        if enum_name not in type_info.serializable_enums:
            raise invalid(f"register '{name}': type_info has no serializable enum '{enum_name}'")
        bitwidth = type_info.serializable_enums[enum_name].underlying_type.bitwidth
    if bitwidth == 0:
        # BMv2 registers are arrays of bit<W>; other cell types have no dataplane form.
        raise invalid(
            f"register '{name}': only bit<W>, int<W> and serializable enum cells are supported"
        )
    return ArrayInfo(register.preamble.id, name, register.size, bitwidth=bitwidth)


def _controller_header(header: p4i.ControllerPacketMetadata) -> ControllerHeader:
    name = header.preamble.name
    ids = [m.id for m in header.metadata]
    if len(set(ids)) != len(ids):
        raise invalid(f"P4Info: controller header '{name}' has duplicate metadata ids")
    fields = tuple(MetadataField(m.id, m.name, m.bitwidth) for m in header.metadata)
    if any(f.bitwidth <= 0 for f in fields):
        raise invalid(f"P4Info: controller header '{name}' has a field without a bitwidth")
    return ControllerHeader(header.preamble.id, name, fields)
