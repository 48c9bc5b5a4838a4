"""p4src/ared.p4 on the dataplane in virtual time, with its state read back per packet.

ared.p4 keeps RED's registers and counters under RED's names, so red_switch's readers
serve for them; this module adds its tables and its two registers.
"""

from pathlib import Path

from red_switch import OUT_PORT, routed_dataplane, u

from p4aqm.models.ared import AredConfig
from p4switch._dataplane import Dataplane
from programs import P4SRC, compile_program


def compile_ared(out_dir: Path) -> bytes:
    return compile_program(P4SRC / "ared.p4", out_dir).json_path.read_bytes()


def ared_dataplane(bmv2_json: bytes, config: AredConfig, rate_pps: float, seed: int) -> Dataplane:
    red = config.red
    dp = routed_dataplane(bmv2_json, seed)
    dp.table_add(
        "MyIngress.ared_config",
        [("exact", u(OUT_PORT, 2))],
        "MyIngress.ared_set_params",
        [
            u(red.k, 1),
            u(red.min_th, 4),
            u(red.ramp_end, 4),
            u(red.limit_pkts, 4),
            u(int(red.ecn), 1),
            u(config.band_low, 4),
            u(config.band_high, 4),
            u(config.interval_us, 6),
            u(config.max_p_init, 4),
            u(config.max_p_top, 4),
            u(config.max_p_bottom, 4),
            u(config.alpha, 4),
            u(config.beta, 4),
        ],
        0,
    )
    for entry in config.ramp:
        keys = [("exact", u(OUT_PORT, 2)), ("range", u(entry.low, 8), u(entry.high, 8))]
        dp.table_add(
            "MyIngress.ared_ramp",
            keys,
            "MyIngress.ared_set_ramp",
            [u(entry.a, 4), u(entry.b, 4)],
            1,
        )
    for entry in red.decay_table:
        keys = [("exact", u(OUT_PORT, 2)), ("range", u(entry.low, 8), u(entry.high, 8))]
        dp.table_add("MyIngress.red_decay", keys, "MyIngress.red_set_decay", [u(entry.value, 4)], 1)
    # The traffic manager's own queue is deeper than ARED's limit: only ARED drops.
    dp.set_queue(OUT_PORT, rate_pps=rate_pps, depth_packets=red.limit_pkts + 64)
    return dp


def read_adaptation(dp: Dataplane) -> tuple[int, int]:
    """(max_p, next_adapt_us) of the output port."""
    max_p = int.from_bytes(dp.register_read("ared_max_p", OUT_PORT), "big")
    next_adapt = int.from_bytes(dp.register_read("ared_next_adapt", OUT_PORT), "big")
    return max_p, next_adapt
