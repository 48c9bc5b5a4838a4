"""RegisterEntry: reads and writes of register cells as P4Data bitstrings."""

from collections.abc import Iterator
from typing import Protocol

from finsy.proto import p4d, p4r

from p4aqm.switch.runtime.codec import canonical, encode_uint
from p4aqm.switch.runtime.errors import call_dataplane, invalid
from p4aqm.switch.runtime.indexes import cells, check_modify
from p4aqm.switch.runtime.resources import ArrayInfo, Resources


class RegisterApi(Protocol):
    def register_read(self, name: str, index: int) -> bytes: ...

    def register_write(self, name: str, index: int, value: bytes) -> None: ...


class Registers:
    def __init__(self, dataplane: RegisterApi, resources: Resources) -> None:
        self._dp = dataplane
        self._resources = resources

    def write(self, update_type: int, entry: p4r.RegisterEntry) -> None:
        check_modify(update_type, "register")
        if entry.register_id == 0:
            raise invalid("register write: register_id 0 (all registers) cannot be written")
        register = self._resources.register(entry.register_id)
        value = _bitstring(register, entry)
        for index in cells(register, entry.HasField("index"), entry.index.index, "register"):
            call_dataplane(self._dp.register_write, register.name, index, value)

    def read(self, query: p4r.RegisterEntry) -> Iterator[p4r.RegisterEntry]:
        if query.register_id == 0:
            if query.HasField("index"):
                raise invalid("register read: an index needs a register_id")
            registers = list(self._resources.registers.values())
        else:
            registers = [self._resources.register(query.register_id)]
        for register in registers:
            for index in cells(register, query.HasField("index"), query.index.index, "register"):
                value = call_dataplane(self._dp.register_read, register.name, index)
                yield p4r.RegisterEntry(
                    register_id=register.id,
                    index=p4r.Index(index=index),
                    data=p4d.P4Data(bitstring=encode_uint(int.from_bytes(value, "big"))),
                )


def _bitstring(register: ArrayInfo, entry: p4r.RegisterEntry) -> bytes:
    what = f"register '{register.name}'"
    kind = entry.data.WhichOneof("data") if entry.HasField("data") else None
    if kind != "bitstring":
        raise invalid(
            f"{what} holds bit<{register.bitwidth}>: send data as a P4Data bitstring, "
            f"got {kind or 'no data'}"
        )
    return canonical(entry.data.bitstring, register.bitwidth, what)
