"""FRED on a port (p4src/fred.p4): its config, and the table entries the model computes.

Everything RED's entries carry (thresholds, w_q as a shift, the p_b and idle-decay range
tables), plus FRED's: min_q and max_q, the port's region of flow slots, and the
reciprocals 2^16 / nactive that stand in for the division avg / nactive
(p4aqm/models/fred.py).
"""

from typing import Literal

import finsy as fy
from pydantic import Field, model_validator

from p4aqm.controller.disciplines.red import (
    AVG_PROBE,
    OCCUPANCY_PROBE,
    PORT_KEY,
    RedSettings,
    decay_entries,
    port_entry,
    ramp_entries,
)
from p4aqm.controller.sampler import Probe
from p4aqm.models.fred import FredParams, FredTables
from p4aqm.schema import Column


class FredConfig(RedSettings):
    """FRED on a port's queue, in packets, probabilities and seconds.

    Each FRED port owns flow_slots registers from slot_base on; ports must not overlap.
    """

    discipline: Literal["fred"] = "fred"
    # Packets a flow may always queue without an early drop (the paper: 2, or 4 for
    # large buffers), and at most (the paper: max_th, the default).
    min_q: float = Field(default=2.0, ge=0)
    max_q: int | None = Field(default=None, ge=1)
    flow_slots: int = Field(default=256, ge=1)
    slot_base: int = Field(default=0, ge=0)

    @model_validator(mode="after")
    def _valid_fred(self) -> "FredConfig":
        self.params()  # the model's own checks, reported at this field
        return self

    def params(self) -> FredParams:
        return FredParams(
            self.red_params(),
            min_q_pkts=self.min_q,
            max_q_pkts=self.max_q,
            flow_slots=self.flow_slots,
            slot_base=self.slot_base,
        )

    def probes(self) -> list[Probe]:
        """What the sampler reads for this port: occupancy, average, active flows, drops."""
        return [
            OCCUPANCY_PROBE,
            AVG_PROBE,
            Probe(Column.ACTIVE_FLOWS, "register", "fred_nactive"),
            Probe("flow_drops", "counter", "MyIngress.fred_flow_drops"),
            Probe("early_drops", "counter", "MyIngress.fred_early_drops"),
            Probe("forced_drops", "counter", "MyIngress.fred_forced_drops"),
            Probe("overflow_drops", "counter", "MyIngress.fred_overflow_drops"),
        ]

    def entries(self, port: int) -> list[fy.P4TableEntry]:
        tables = FredTables.from_params(self.params())
        red = tables.red
        params = port_entry(
            "MyIngress.fred_config",
            "MyIngress.fred_set_params",
            port,
            w_shift=red.w_shift,
            min_th=red.min_th_q16,
            max_th=red.max_th_q16,
            limit_pkts=red.limit_pkts,
            min_q=tables.min_q,
            max_q=tables.max_q,
            slot_base=tables.slot_base,
            slot_mask=tables.slot_mask,
        )
        share = [
            fy.P4TableEntry(
                "MyIngress.fred_share",
                match=fy.Match({PORT_KEY: port, "meta.nactive": nactive}),
                action=fy.Action("MyIngress.fred_set_share", recip=recip),
            )
            for nactive, recip in tables.share_table
        ]
        return [params, *ramp_entries(port, red), *decay_entries(port, red), *share]
