"""BMv2's action-level register atomicity, and queue_snapshot.

While an action runs, every register array it references is locked (as
BMv2's RegisterSync does), so a read-modify-write inside one action is
atomic against the other pipeline thread: in real time ingress runs on the
caller's thread (inject) and egress, when the event loop takes the
departure, on that thread. The program below counts packets between
ingress and egress in `occupancy`: ingress adds one (read, spin, write, in
one action: the spin widens the window a lost update needs), egress takes
one away. Rust unit tests in dataplane/src/pipeline/registers.rs force the
interleaving and show the update lost with atomic_actions=False; here the
race is left to the threads, so only the locked case is asserted.

queue_snapshot reads a queue's depth and register cells at one instant."""

import json
import time

import pytest
from one_action import one_state_parser

from p4aqm.switch._dataplane import Dataplane

MASK = "0xffffffff"
RATE_PPS = 5000
REGISTERS = ["busy", "occupancy", "overlaps", "arrivals", "departures"]


def field(name: str) -> dict:
    return {"type": "field", "value": ["scalars", name]}


def hexstr(v: int | str) -> dict:
    return {"type": "hexstr", "value": v if isinstance(v, str) else hex(v)}


def expr(op: str, left: dict, right: dict) -> dict:
    return {"type": "expression", "value": {"op": op, "left": left, "right": right}}


def param(value: dict) -> dict:
    """A primitive parameter: an expression is wrapped once more (JSON_format.md)."""
    return {"type": "expression", "value": value} if value["type"] == "expression" else value


def masked(op: str, left: dict, right: dict) -> dict:
    return expr("&", expr(op, left, right), hexstr(MASK))


def read(dst: str, reg: str) -> dict:
    params = [field(dst), {"type": "register_array", "value": reg}, hexstr(0)]
    return {"op": "register_read", "parameters": params}


def write(reg: str, value: dict) -> dict:
    params = [{"type": "register_array", "value": reg}, hexstr(0), param(value)]
    return {"op": "register_write", "parameters": params}


def assign(dst: dict, value: dict) -> dict:
    return {"op": "assign", "parameters": [dst, param(value)]}


def spin(at: int, times: int) -> list[dict]:
    """Primitives at offset `at` of an action: count i up to `times`."""
    done = expr(">=", field("i"), hexstr(times))
    return [
        assign(field("i"), hexstr(0)),
        assign(field("i"), masked("+", field("i"), hexstr(1))),
        {"op": "_jump_if_zero", "parameters": [param(done), hexstr(at + 1)]},
    ]


def program(spin_steps: int) -> dict:
    """Ingress: busy = 1; occupancy += 1 and arrivals += 1 (one action);
    busy = 0; to port 2. Egress, one action: overlaps += busy (a packet
    was in ingress on the other thread); occupancy -= 1; departures += 1."""
    ingress_count = [
        read("x", "occupancy"),
        *spin(1, spin_steps),
        write("occupancy", masked("+", field("x"), hexstr(1))),
        read("y", "arrivals"),
        write("arrivals", masked("+", field("y"), hexstr(1))),
        assign({"type": "field", "value": ["standard_metadata", "egress_spec"]}, hexstr(2)),
    ]
    egress_count = [
        read("b", "busy"),
        read("o", "overlaps"),
        write("overlaps", masked("+", field("o"), field("b"))),
        read("x", "occupancy"),
        write("occupancy", masked("+", field("x"), hexstr(MASK))),
        read("d", "departures"),
        write("departures", masked("+", field("d"), hexstr(1))),
    ]
    actions = [
        ("ingress_start", [write("busy", hexstr(1))]),
        ("ingress_count", ingress_count),
        ("ingress_end", [write("busy", hexstr(0))]),
        ("egress_count", egress_count),
    ]

    def table(i: int, name: str, nxt: str | None) -> dict:
        return {
            "name": "t_" + name,
            "key": [],
            "match_type": "exact",
            "type": "simple",
            "max_size": 1,
            "action_ids": [i],
            "actions": [name],
            "next_tables": {name: nxt},
            "base_default_next": nxt,
            "direct_meters": None,
            "default_entry": {
                "action_id": i,
                "action_const": True,
                "action_data": [],
                "action_entry_const": True,
            },
        }

    return {
        "header_types": [
            {"name": "scalars_0", "fields": [[n, 32, False] for n in "xybodi"]},
            {
                "name": "standard_metadata",
                "fields": [
                    ["ingress_port", 9, False],
                    ["egress_spec", 9, False],
                    ["egress_port", 9, False],
                    ["packet_length", 32, False],
                ],
            },
            {"name": "h_t", "fields": [["tag", 8, False]]},
        ],
        "headers": [
            {"name": "scalars", "header_type": "scalars_0", "metadata": True},
            {"name": "standard_metadata", "header_type": "standard_metadata", "metadata": True},
            {"name": "h", "header_type": "h_t", "metadata": False},
        ],
        "parsers": one_state_parser(
            [{"op": "extract", "parameters": [{"type": "regular", "value": "h"}]}]
        ),
        "deparsers": [{"name": "deparser", "order": ["h"], "primitives": []}],
        "register_arrays": [
            {"name": n, "id": i, "size": 1, "bitwidth": 32} for i, n in enumerate(REGISTERS)
        ],
        "actions": [
            {"name": n, "id": i, "runtime_data": [], "primitives": prims}
            for i, (n, prims) in enumerate(actions)
        ],
        "pipelines": [
            {
                "name": "ingress",
                "init_table": "t_ingress_start",
                "tables": [
                    table(0, "ingress_start", "t_ingress_count"),
                    table(1, "ingress_count", "t_ingress_end"),
                    table(2, "ingress_end", None),
                ],
                "action_profiles": [],
                "conditionals": [],
            },
            {
                "name": "egress",
                "init_table": "t_egress_count",
                "tables": [table(3, "egress_count", None)],
                "action_profiles": [],
                "conditionals": [],
            },
        ],
    }


def switch(spin_steps: int, **kw) -> Dataplane:
    d = Dataplane(**kw)
    d.add_memory_port(1)
    d.add_memory_port(2)
    d.load_pipeline(json.dumps(program(spin_steps)).encode())
    return d


def snapshot(pkts: int, nbytes: int, registers: list[int], now_us: int) -> dict:
    return {"qdepth_pkts": pkts, "qdepth_bytes": nbytes, "registers": registers, "now_us": now_us}


def reg(d: Dataplane, name: str) -> int:
    return int.from_bytes(d.register_read(name, 0), "big")


def test_read_modify_write_in_one_action_is_atomic_across_threads() -> None:
    # Some 60-100 us of ingress per packet and a departure every 200 us: the
    # event loop often takes a departure while inject is in ingress.
    d = switch(3000)
    d.set_queue(2, rate_pps=RATE_PPS, depth_pkts=1_000_000)
    d.start()
    sent = out = 0
    try:
        deadline = time.monotonic() + 30
        # Not vacuous: egress must have run during ingress, on the other
        # thread, several times. That is rare: egress waits for the lock the
        # spinning action holds, and the ingress thread mostly takes it back
        # first (on a 2-core machine, about 7 overlaps a second).
        while reg(d, "overlaps") < 5:
            assert time.monotonic() < deadline, "egress never ran during an ingress"
            for _ in range(50):
                d.inject(1, bytes(64))
            sent += 50
        # The backlog drains at RATE_PPS.
        drained_by = time.monotonic() + sent / RATE_PPS + 10
        while out < sent and time.monotonic() < drained_by:
            out += len(d.take_output())
            time.sleep(0.005)
    finally:
        d.stop()
    assert out == sent
    assert reg(d, "arrivals") == reg(d, "departures") == sent
    assert reg(d, "occupancy") == 0


@pytest.mark.parametrize("atomic", [True, False])
def test_queue_snapshot_reads_depth_and_registers(atomic: bool) -> None:
    d = switch(10, virtual_time=True, priority_queues=2, atomic_actions=atomic)
    d.set_queue(2, rate_pps=1000)
    d.advance_time(7)
    for size in (60, 70, 80):
        d.inject(1, bytes(size))
    # The first found the queue idle and went through egress at once; the
    # others leave 1 ms apart.
    cells = [("occupancy", 0), ("arrivals", 0), ("departures", 0)]
    snap = d.queue_snapshot(2, registers=cells)
    assert snap == snapshot(2, 150, [2, 3, 1], 7)
    assert d.port_stats(2)["q0_qdepth_pkts"] == 2
    assert d.queue_snapshot(2, 1) == snapshot(0, 0, [], 7)
    assert d.queue_snapshot(5)["qdepth_pkts"] == 0
    d.advance_time(1000)
    assert d.queue_snapshot(2, 0, cells) == snapshot(1, 80, [1, 3, 2], 1007)
    d.register_write("busy", 0, b"\x01\x02")
    repeated = [("departures", 0), ("busy", 0), ("departures", 0)]
    assert d.queue_snapshot(2, registers=repeated)["registers"] == [2, 0x102, 2]
    d.advance_time(1000)
    snap = d.queue_snapshot(2, registers=cells)
    assert snap == snapshot(0, 0, [0, 3, 3], 2007)
    d.advance_time(1000)  # the last one's transmission
    assert [len(p) for _, p in d.take_output()] == [60, 70, 80]


def test_queue_snapshot_errors_name_the_culprit() -> None:
    d = switch(10, virtual_time=True, priority_queues=2)
    with pytest.raises(KeyError, match="unknown register 'nope'"):
        d.queue_snapshot(2, registers=[("occupancy", 0), ("nope", 0)])
    with pytest.raises(ValueError, match=r"register 'arrivals': index 1 out of range \(size 1\)"):
        d.queue_snapshot(2, registers=[("arrivals", 1)])
    with pytest.raises(ValueError, match="port 511 out of range"):
        d.queue_snapshot(511)
    with pytest.raises(ValueError, match="queue 2 out of range: the switch has 2 queue"):
        d.queue_snapshot(2, 2)
    empty = Dataplane(virtual_time=True)
    assert empty.queue_snapshot(1) == snapshot(0, 0, [], 0)
    with pytest.raises(ValueError, match="no pipeline loaded"):
        empty.queue_snapshot(1, registers=[("occupancy", 0)])
