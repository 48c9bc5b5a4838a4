"""A study's claims, as the experiment file's `findings:` section states them, each with
the checks that decide whether our results reproduce it (`p4aqm report` evaluates them,
p4aqm/report/findings.py).

    findings:
      - claim: "Below 90 % load, RED is about the same as FIFO"
        note: "what differs in our setup, shown beside the verdict"
        checks:
          - metric: response_time_median_ms      # a column of the report's summary
            where: {traffic.web.load_percent: 80}
            a: {topology.right_to_left_aqm: {discipline: red, min_th: 30}}
            b: {topology.right_to_left_aqm: {discipline: droptail, limit_pkts: 190}}
            expect: same                         # within `percent` of b
            percent: 10

Points are selected by their resolved experiment's fields (dotted paths, as a sweep
names them): a mapping matches when its given keys match, so `{discipline: red, min_th:
30}` needs no other RED parameter. `a` is the configuration the claim is about, `b` its
baseline. Each side's value is the metric's mean over its points (repetitions), shown
with their min and max.
"""

from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, model_validator

# lower/higher: a below/above b by at least `percent` % of b; differ: either way.
# same: a within `percent` % of b; at_most: a no more than `percent` % above b.
# about: a (or a - b, when b is given) within `within` of `about`.
# crossover: the response-time distributions of a and b cross (each faster somewhere).
# larger_gain: b - a over the `requests` subset exceeds b - a over the `versus` subset.
Expect = Literal[
    "lower", "higher", "differ", "same", "at_most", "about", "crossover", "larger_gain"
]
NEEDS_B = frozenset(get_args(Expect)) - {"about"}


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Requests(Strict):
    """Which completed web requests a web metric counts: by reply size (bytes, 1 KB = 1000)
    and by the base round-trip time of the client-server pair (the link delays, no
    queueing)."""

    reply_bytes_above: int = Field(0, ge=0)
    reply_bytes_up_to: int | None = Field(None, gt=0)
    rtt_ms: tuple[float, float] | None = None

    @model_validator(mode="after")
    def ranges_ordered(self) -> "Requests":
        if self.reply_bytes_up_to is not None and self.reply_bytes_up_to <= self.reply_bytes_above:
            raise ValueError("reply_bytes_up_to must exceed reply_bytes_above")
        if self.rtt_ms is not None and self.rtt_ms[0] > self.rtt_ms[1]:
            raise ValueError("rtt_ms: [lowest, highest]")
        return self


class Check(Strict):
    metric: str = Field(min_length=1)
    a: dict[str, Any] = Field(min_length=1)
    b: dict[str, Any] = {}
    where: dict[str, Any] = {}
    # Sweep fields: the check is made once per value (combination) the points take.
    for_each: list[str] = []
    # A web metric (response_time_median_ms, _p90_ms, _p99_ms, requests_ok) over a subset.
    requests: Requests | None = None
    expect: Expect
    percent: float = Field(5.0, ge=0)
    about: float | None = None
    within: float | None = Field(None, ge=0)
    versus: Requests | None = None
    label: str | None = None

    @model_validator(mode="after")
    def complete(self) -> "Check":
        if self.expect in NEEDS_B and not self.b:
            raise ValueError(f"expect {self.expect} compares a with b: give b")
        if self.expect == "about" and (self.about is None or self.within is None):
            raise ValueError("expect about needs `about` and `within`")
        if self.expect == "larger_gain" and (self.requests is None or self.versus is None):
            raise ValueError("expect larger_gain needs `requests` and `versus` subsets")
        return self


class Claim(Strict):
    claim: str = Field(min_length=1)
    checks: list[Check] = Field(min_length=1)
    note: str = ""
