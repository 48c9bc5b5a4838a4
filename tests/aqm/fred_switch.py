"""p4src/fred.p4 on the dataplane in virtual time, with its state read back per packet."""

from dataclasses import dataclass
from pathlib import Path

from red_switch import OUT_PORT, install_range, routed_dataplane, u

from p4aqm.models.fred import FredConfig
from p4switch._dataplane import Dataplane
from programs import P4SRC, compile_program

PORT_REGISTERS = ("fred_avg", "fred_count", "fred_q_r", "fred_qlen", "fred_nactive")
FRED_COUNTERS = (
    "MyIngress.fred_flow_drops",
    "MyIngress.fred_early_drops",
    "MyIngress.fred_forced_drops",
    "MyIngress.fred_overflow_drops",
)


def compile_fred(out_dir: Path) -> bytes:
    return compile_program(P4SRC / "fred.p4", out_dir).json_path.read_bytes()


def fred_dataplane(bmv2_json: bytes, config: FredConfig, rate_pps: float, seed: int) -> Dataplane:
    dp = routed_dataplane(bmv2_json, seed)
    red = config.red
    dp.table_add(
        "MyIngress.fred_config",
        [("exact", u(OUT_PORT, 2))],
        "MyIngress.fred_set_params",
        [
            u(red.k, 1),
            u(red.min_th, 4),
            u(red.max_th, 4),
            u(red.limit_pkts, 4),
            u(config.min_q, 4),
            u(config.max_q, 4),
            u(config.slot_base, 4),
            u(config.slot_mask, 4),
        ],
        0,
    )
    install_range(dp, "MyIngress.fred_ramp", "MyIngress.fred_set_p_b", red.p_b_table)
    install_range(dp, "MyIngress.fred_decay", "MyIngress.fred_set_decay", red.decay_table)
    for nactive, recip in config.share_table:
        keys = [("exact", u(OUT_PORT, 2)), ("exact", u(nactive, 4))]
        dp.table_add("MyIngress.fred_share", keys, "MyIngress.fred_set_share", [u(recip, 4)], 0)
    # The traffic manager's own queue is deeper than FRED's limit: only FRED drops.
    dp.set_queue(OUT_PORT, rate_pps=rate_pps, depth_packets=red.limit_pkts + 64)
    return dp


@dataclass(frozen=True)
class FredState:
    avg: int
    count: int
    q_r: int
    qlen: int
    nactive: int


def _read(dp: Dataplane, name: str, index: int) -> int:
    return int.from_bytes(dp.register_read(name, index), "big")


def read_state(dp: Dataplane) -> FredState:
    avg, count, q_r, qlen, nactive = (_read(dp, name, OUT_PORT) for name in PORT_REGISTERS)
    # count is -1 in the model and 0xffffffff in the 32-bit register.
    return FredState(avg, count - (1 << 32) if count >> 31 else count, q_r, qlen, nactive)


def read_flow(dp: Dataplane, slot: int) -> tuple[int, int]:
    """(qlen, strikes) of one flow slot."""
    return _read(dp, "fred_flow_qlen", slot), _read(dp, "fred_flow_strikes", slot)


def read_idle_since(dp: Dataplane) -> int:
    return _read(dp, "fred_idle_since", OUT_PORT)


def read_counters(dp: Dataplane) -> tuple[int, ...]:
    return tuple(dp.counter_read(name, OUT_PORT)[1] for name in FRED_COUNTERS)
