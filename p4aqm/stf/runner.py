"""Runs STF commands on our switch's dataplane through in-memory ports.

Semantics follow p4c's BMv2 runner: packets are injected in file order; at the end,
each port's output is compared with that port's `expect`s in order (a prefix match
unless the pattern ends in `$`, `*` matching any nibble); a bare `expect PORT` accepts
whatever that port sends; every other port must send nothing. `check_counter` is checked
where it stands, after the packets before it.
"""

import json
import operator
from collections import defaultdict
from dataclasses import dataclass, field

from p4aqm.stf import values
from p4aqm.stf.commands import (
    Add,
    CheckCounter,
    Command,
    Expect,
    McGroupCreate,
    McNodeAssociate,
    McNodeCreate,
    MirroringAdd,
    Packet,
    RegisterWrite,
    RemoveAll,
    SetDefault,
    Wait,
)
from p4aqm.stf.program import Program, ProgramError
from p4aqm.switch._dataplane import Dataplane

_COMPARE = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}

# Ports that exist even if the test never names them, so a packet sent to a port
# the test did not expect is seen and reported rather than lost.
MIN_PORTS = 16


class StfError(Exception):
    """A command the program cannot take: unknown table, bad value. Names the line."""


@dataclass
class StfResult:
    failures: list[str] = field(default_factory=list)
    packets_in: int = 0
    packets_out: int = 0

    @property
    def passed(self) -> bool:
        return not self.failures


def _action_data(names: tuple[tuple[str, int], ...], given: dict[str, str]) -> list[bytes]:
    missing = [name for name, _ in names if name not in given]
    if missing:
        raise ValueError(f"missing action argument(s): {', '.join(missing)}")
    extra = sorted(set(given) - {name for name, _ in names})
    if extra:
        raise ValueError(f"unknown action argument(s): {', '.join(extra)}")
    return [values.number(given[name], width) for name, width in names]


class StfRunner:
    def __init__(
        self, bmv2_json: bytes, json_name: str, seed: int = 0, trace: bool = False
    ) -> None:
        self.json_name = json_name
        try:
            self.program = Program(json.loads(bmv2_json))
        except (ValueError, KeyError, TypeError, IndexError) as exc:
            raise StfError(f"{json_name}: error: not a BMv2 JSON program: {exc!r}") from None
        self.bmv2_json = bmv2_json
        self.seed = seed
        self.trace = trace
        # The multicast nodes made so far, by handle: (rid, ports); and each group's.
        self.mc_nodes: list[tuple[int, tuple[int, ...]]] = []
        self.mc_groups: dict[int, list[int]] = {}
        self.source = json_name

    def run(self, commands: list[Command], source: str) -> StfResult:
        ports = {c.port for c in commands if isinstance(c, Packet | Expect)}
        dataplane = Dataplane(seed=self.seed)
        for port in sorted(ports | set(range(MIN_PORTS))):
            dataplane.add_memory_port(port)
        try:
            dataplane.load_pipeline(self.bmv2_json)
        except ValueError as exc:
            raise StfError(f"{self.json_name}: error: the switch rejects it: {exc}") from None
        dataplane.set_trace(self.trace)

        result = StfResult()
        self.source = source
        expects: dict[int, list[Expect]] = defaultdict(list)
        for command in commands:
            try:
                self._apply(dataplane, command, expects, result)
            except (ProgramError, ValueError, KeyError) as exc:
                message = exc.args[0] if exc.args else str(exc)
                raise StfError(f"{source}:{command.line}: error: {message}") from None
        outputs: dict[int, list[bytes]] = defaultdict(list)
        for port, packet in dataplane.take_output():
            outputs[port].append(packet)
            result.packets_out += 1
        result.failures += _compare(expects, outputs, source)
        return result

    def _apply(
        self,
        dataplane: Dataplane,
        command: Command,
        expects: dict[int, list[Expect]],
        result: StfResult,
    ) -> None:
        match command:
            case Add():
                table = self.program.table(command.table)
                given = {self.program.key_field(table, n): v for n, v in command.keys}
                keys = [
                    values.key(k, given[k]) if k in given else values.wildcard_key(k)
                    for k in table.keys
                ]
                action = self.program.action(table, command.action)
                data = _action_data(action.params, dict(command.args))
                dataplane.table_add(table.name, keys, action.name, data, command.priority or 0)
            case SetDefault():
                table = self.program.table(command.table)
                action = self.program.action(table, command.action)
                data = _action_data(action.params, dict(command.args))
                dataplane.table_set_default(table.name, action.name, data)
            case Packet() if not command.data:
                pass  # a frame of no bytes cannot be sent; BMv2's runs show nothing leave
            case Packet():
                dataplane.inject(command.port, command.data)
                result.packets_in += 1
            case Expect():
                expects[command.port].append(command)
            case RemoveAll():
                for name in self.program.tables:
                    dataplane.table_clear(name)
            case Wait():
                pass  # injection is synchronous: every earlier packet is already out
            case MirroringAdd():
                dataplane.clone_session_set(command.session, [(command.port, 0)])
            case McGroupCreate() | McNodeCreate() | McNodeAssociate():
                self._multicast(dataplane, command)
            case RegisterWrite():
                name, width = self.program.register(command.register)
                dataplane.register_write(name, command.index, values.number(command.value, width))
            case CheckCounter():
                why = self._check_counter(dataplane, command)
                if why:
                    result.failures.append(f"{self.source}:{command.line}: check_counter: {why}")

    def _multicast(
        self, dataplane: Dataplane, command: McGroupCreate | McNodeCreate | McNodeAssociate
    ) -> None:
        """BMv2's PRE as its CLI builds it: groups of nodes, a node being a replication
        id and its ports; the switch takes each group as its (port, rid) copies."""
        if isinstance(command, McNodeCreate):
            self.mc_nodes.append((command.rid, command.ports))
            return
        if isinstance(command, McGroupCreate):
            self.mc_groups[command.group] = []
        else:
            if command.group not in self.mc_groups:
                raise ValueError(f"multicast group {command.group} was not created")
            if not 0 <= command.node < len(self.mc_nodes):
                raise ValueError(f"no multicast node with handle {command.node}")
            self.mc_groups[command.group].append(command.node)
        replicas = [
            (port, rid)
            for node in self.mc_groups[command.group]
            for rid, ports in [self.mc_nodes[node]]
            for port in ports
        ]
        dataplane.mc_group_set(command.group, replicas)

    def _check_counter(self, dataplane: Dataplane, command: CheckCounter) -> str | None:
        byte_count, packet_count = dataplane.counter_read(
            self.program.counter(command.counter), command.index
        )
        if command.count_type is None:
            return None
        assert command.op is not None and command.value is not None
        got = packet_count if command.count_type == "packets" else byte_count
        if _COMPARE[command.op](got, command.value):
            return None
        return (
            f"{command.counter}({command.index}) has {got} {command.count_type}, "
            f"expected {command.op} {command.value}"
        )


def _matches(pattern: str, packet: bytes, exact_length: bool) -> str | None:
    """None if the packet matches, else why not."""
    received = packet.hex().upper()
    if len(received) < len(pattern):
        return f"packet too short: {len(packet)} bytes, expected at least {len(pattern) // 2}"
    if exact_length and len(received) != len(pattern):
        return f"packet is {len(packet)} bytes, expected exactly {len(pattern) // 2}"
    for index, (want, got) in enumerate(zip(pattern, received, strict=False)):
        if want not in ("*", got):
            return f"differs at nibble {index}: expected {want}, got {got}"
    return None


def _compare(
    expects: dict[int, list[Expect]], outputs: dict[int, list[bytes]], source: str
) -> list[str]:
    failures = []
    for port in sorted(set(expects) | set(outputs)):
        wanted = expects.get(port, [])
        got = outputs.get(port, [])
        if any(e.pattern is None for e in wanted):
            continue
        if len(wanted) != len(got):
            lines = ", ".join(str(e.line) for e in wanted) or "none"
            failures.append(
                f"{source}: port {port}: expected {len(wanted)} packet(s) (lines {lines}), "
                f"got {len(got)}" + "".join(f"\n    got {p.hex().upper()}" for p in got)
            )
            continue
        for expect, packet in zip(wanted, got, strict=True):
            assert expect.pattern is not None
            why = _matches(expect.pattern, packet, expect.exact_length)
            if why:
                failures.append(
                    f"{source}:{expect.line}: port {port}: {why}\n"
                    f"    expected {expect.pattern}\n    got      {packet.hex().upper()}"
                )
    return failures
