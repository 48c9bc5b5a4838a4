"""RED's table entries for p4src/red.p4, computed from a port's config by the model.

The data plane cannot divide or raise to a power, so everything it needs arrives as
integers: the thresholds in 2^-16 packets, w_q as a shift, and two range tables, p_b
over the average and the idle decay over the idle time (p4aqm/models/red.py).
"""

import finsy as fy

from controller.config import RedConfig
from p4aqm.models.red import RangeEntry
from p4aqm.models.red import RedConfig as RedTables

PORT_KEY = "standard_metadata.egress_spec"
# Range tables need a priority in P4Runtime; their ranges never overlap, so one will do.
RANGE_PRIORITY = 1


def _range_entries(
    table: str, key: str, action: str, param: str, port: int, entries: tuple[RangeEntry, ...]
) -> list[fy.P4TableEntry]:
    return [
        fy.P4TableEntry(
            table,
            match=fy.Match({PORT_KEY: port, key: f"{e.low}...{e.high}"}),
            action=fy.Action(action, **{param: e.value}),
            priority=RANGE_PRIORITY,
        )
        for e in entries
    ]


def red_entries(port: int, config: RedConfig) -> list[fy.P4TableEntry]:
    tables = RedTables.from_params(config.params())
    params = fy.P4TableEntry(
        "MyIngress.red_config",
        match=fy.Match({PORT_KEY: port}),
        action=fy.Action(
            "MyIngress.red_set_params",
            w_shift=tables.k,
            min_th=tables.min_th,
            ramp_end=tables.ramp_end,
            limit_pkts=tables.limit_pkts,
            ecn_enabled=int(tables.ecn),
        ),
    )
    ramp = _range_entries(
        "MyIngress.red_ramp", "meta.avg", "MyIngress.red_set_p_b", "p_b", port, tables.p_b_table
    )
    decay = _range_entries(
        "MyIngress.red_decay",
        "meta.idle_us",
        "MyIngress.red_set_decay",
        "decay",
        port,
        tables.decay_table,
    )
    return [params, *ramp, *decay]
