"""p4src/red.p4 on the dataplane in virtual time, with its state read back per packet."""

from dataclasses import dataclass

from p4aqm.models.red import RangeEntry, RedConfig
from p4switch._dataplane import Dataplane

IN_PORT, OUT_PORT = 1, 2
ROUTE = ("lpm", bytes([10, 0, 2, 0]), 24)
RED_REGISTERS = ("red_avg", "red_count", "red_q_r", "red_qlen", "red_idle_since")
RED_COUNTERS = (
    "MyIngress.red_marks",
    "MyIngress.red_early_drops",
    "MyIngress.red_forced_drops",
    "MyIngress.red_overflow_drops",
)


def u(value: int, width_bytes: int) -> bytes:
    return value.to_bytes(width_bytes, "big")


def install_range(dp: Dataplane, table: str, action: str, entries: tuple[RangeEntry, ...]) -> None:
    for entry in entries:
        keys = [("exact", u(OUT_PORT, 2)), ("range", u(entry.low, 8), u(entry.high, 8))]
        dp.table_add(table, keys, action, [u(entry.value, 4)], 1)


def routed_dataplane(bmv2_json: bytes, seed: int) -> Dataplane:
    """A virtual-time dataplane running the program, with 10.0.2.0/24 routed to OUT_PORT."""
    dp = Dataplane(seed=seed, virtual_time=True)
    dp.add_memory_port(IN_PORT)
    dp.add_memory_port(OUT_PORT)
    dp.load_pipeline(bmv2_json)
    dp.table_add(
        "MyIngress.ipv4_lpm",
        [ROUTE],
        "MyIngress.ipv4_forward",
        [bytes(6), bytes(6), u(OUT_PORT, 2)],
        0,
    )
    return dp


def red_dataplane(bmv2_json: bytes, config: RedConfig, rate_pps: float, seed: int) -> Dataplane:
    dp = routed_dataplane(bmv2_json, seed)
    dp.table_add(
        "MyIngress.red_config",
        [("exact", u(OUT_PORT, 2))],
        "MyIngress.red_set_params",
        [
            u(config.k, 1),
            u(config.min_th, 4),
            u(config.ramp_end, 4),
            u(config.limit_pkts, 4),
            u(int(config.ecn), 1),
        ],
        0,
    )
    install_range(dp, "MyIngress.red_ramp", "MyIngress.red_set_p_b", config.p_b_table)
    install_range(dp, "MyIngress.red_decay", "MyIngress.red_set_decay", config.decay_table)
    # The traffic manager's own queue is deeper than RED's limit: only RED drops.
    dp.set_queue(OUT_PORT, rate_pps=rate_pps, depth_packets=config.limit_pkts + 64)
    return dp


@dataclass(frozen=True)
class RedState:
    avg: int
    count: int
    q_r: int
    qlen: int
    idle_since_us: int


def read_state(dp: Dataplane) -> RedState:
    values = [int.from_bytes(dp.register_read(name, OUT_PORT), "big") for name in RED_REGISTERS]
    avg, count, q_r, qlen, idle_since = values
    # count is -1 in the model and 0xffffffff in the 32-bit register.
    return RedState(avg, count - (1 << 32) if count >> 31 else count, q_r, qlen, idle_since)


def read_counters(dp: Dataplane) -> tuple[int, ...]:
    return tuple(dp.counter_read(name, OUT_PORT)[1] for name in RED_COUNTERS)
