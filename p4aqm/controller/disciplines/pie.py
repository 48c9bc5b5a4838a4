"""PIE on a port (p4src/pie.p4): its config, and the table entry the model computes.

    aqm:
      discipline: pie
      target_us: 15000
      t_update_us: 15000
      alpha: 0.125
      beta: 1.25
      max_burst_us: 150000
      ecn: false
      limit_pkts: 1000

alpha and beta are per second, as in RFC 8033; the data plane takes them in 2^-40 of
probability per microsecond (p4aqm/models/pie.py). Everything else, the update of the
drop probability included, runs in the data plane. Values the program's registers cannot
hold are refused when the config is loaded, naming the field.
"""

from typing import Literal

import finsy as fy
from pydantic import Field, model_validator

from p4aqm.controller.disciplines.red import OCCUPANCY_PROBE, port_entry
from p4aqm.controller.sampler import Probe
from p4aqm.controller.schema import StrictModel
from p4aqm.models.pie import PROB_BITS, PieParams, PieTables
from p4aqm.schema import Column


class PieConfig(StrictModel):
    """PIE on a port's queue, RFC 8033's defaults."""

    discipline: Literal["pie"] = "pie"
    target_us: int = Field(default=15_000, ge=1)
    t_update_us: int = Field(default=15_000, ge=1)
    alpha: float = Field(default=0.125, ge=0)
    beta: float = Field(default=1.25, ge=0)
    max_burst_us: int = Field(default=150_000, ge=0)
    ecn: bool = False
    limit_pkts: int = Field(default=1000, ge=1)

    @model_validator(mode="after")
    def _valid_pie(self) -> "PieConfig":
        self.params()  # the model's own checks, reported at this field
        return self

    def params(self) -> PieParams:
        return PieParams(
            target_us=self.target_us,
            t_update_us=self.t_update_us,
            alpha=self.alpha,
            beta=self.beta,
            max_burst_us=self.max_burst_us,
            ecn=self.ecn,
            limit_pkts=self.limit_pkts,
        )

    def probes(self) -> list[Probe]:
        """The drop probability, the last queueing delay, marks and drops."""
        return [
            OCCUPANCY_PROBE,
            Probe(Column.DROP_PROB, "register", "pie_drop_prob", 2.0**-PROB_BITS),
            Probe(Column.QDELAY_US, "register", "pie_qdelay_us"),
            *(
                Probe(counter, "counter", f"MyIngress.{counter}")
                for counter in ("marks", "early_drops", "overflow_drops")
            ),
        ]

    def entries(self, port: int) -> list[fy.P4TableEntry]:
        tables = PieTables.from_params(self.params())
        return [
            port_entry(
                "MyIngress.pie_config",
                "MyIngress.pie_set_params",
                port,
                target_us=tables.target_us,
                t_update_us=tables.t_update_us,
                alpha=tables.alpha,
                beta=tables.beta,
                max_burst_us=tables.max_burst_us,
                limit_pkts=tables.limit_pkts,
                ecn_enabled=int(tables.ecn),
            )
        ]
