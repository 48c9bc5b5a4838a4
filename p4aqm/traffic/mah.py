"""Bruce Mah's empirical HTTP distributions (ns-2's tcl/http/data), shipped in p4aqm/traffic/data.

Think time has a tail up to ~24 h (p90 794 s, mean 1804 s), which a lab run cannot use:
a user thinking for hours is a user who has left. We truncate at `think_time_cap_s`
(default 600 s), which cuts 10.7 % of Mah's think times, in one of two ways:

- "redraw" (the default): draw again until the think time is <= the cap, i.e. sample the
  distribution conditioned on <= cap (mean 42.3 s). Longer gaps are taken as the end of a
  browsing session, which a fixed population of users does not model, and the measured
  shape below the cap is kept without a spike.
- "clip": min(think time, cap) (mean 102.1 s). Keeps how often users pause long, but puts
  10.7 % of all think times exactly on the cap, a spike no measurement has.

Either way the load per user is calibrated on the real network (traffic.calibration). For
scale: a page is on average 2.84 objects of 7231 bytes (164 kbit); at ~45 s per page with
"redraw" that is ~3.6 kbit/s per user, ~2800 users for 10 Mbit/s, the order of the ~3500
emulated browsers Christiansen et al. needed for 10 Mbit/s.
"""

from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from p4aqm.traffic.empirical import EmpiricalDistribution, load_cdf

ThinkTimePolicy = Literal["redraw", "clip"]

DATA_DIR = Path(str(resources.files("p4aqm.traffic") / "data" / "mah-http"))


class ThinkTimeParams(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    think_time_cap_s: float = Field(600.0, gt=0)
    think_time_policy: ThinkTimePolicy = "redraw"


@dataclass(frozen=True)
class MahModel:
    request_bytes: EmpiricalDistribution
    reply_bytes: EmpiricalDistribution
    files_per_page: EmpiricalDistribution
    server_stay_pages: EmpiricalDistribution
    think_time_s: EmpiricalDistribution
    """Already truncated by the ThinkTimeParams the model was loaded with."""


def load_mah(think: ThinkTimeParams | None = None, data_dir: Path = DATA_DIR) -> MahModel:
    think = think or ThinkTimeParams()
    raw_think = load_cdf(data_dir / "HttpThinkTime.cdf")
    return MahModel(
        request_bytes=load_cdf(data_dir / "HttpRequestLength.cdf"),
        reply_bytes=load_cdf(data_dir / "HttpReplyLength.cdf"),
        files_per_page=load_cdf(data_dir / "HttpConnections.cdf"),
        server_stay_pages=load_cdf(data_dir / "HttpServerStay.cdf"),
        think_time_s=truncate_think_time(raw_think, think),
    )


def truncate_think_time(
    think_time_s: EmpiricalDistribution, think: ThinkTimeParams
) -> EmpiricalDistribution:
    cap = think.think_time_cap_s
    if cap >= think_time_s.values[-1]:
        return think_time_s
    if think.think_time_policy == "redraw":
        return think_time_s.at_most(cap)
    # Clipping moves the probability of every value above the cap onto the cap itself.
    keep = think_time_s.values < cap
    values = np.append(think_time_s.values[keep], cap)
    cumulative = np.append(think_time_s.cumulative[keep], 1.0)
    return EmpiricalDistribution(values, cumulative, f"{think_time_s.source} (clipped at {cap})")
