"""A study's claims, as the experiment file's `findings:` section states them, each with
the checks that decide whether our results reproduce it (`p4aqm report` evaluates them,
p4aqm/report/findings.py; the verdict rules are p4aqm/report/verdicts.py).

    findings:
      - claim: "Below 90 % load, RED is about the same as FIFO"
        note: "what differs in our setup, shown beside the verdict"
        checks:
          - metric: response_time_median_ms      # a column of the report's summary
            where: {traffic.web.load_percent: 80}
            a: {topology.right_to_left_aqm: {discipline: red, min_th: 30}}
            b: {topology.right_to_left_aqm: {discipline: droptail, limit_pkts: 190}}
            expect: same                         # a - b within ±10 % of b
            percent: 10
            reason: "the paper: RED has a 'minimal effect' below 90 % load"

Points are selected by their resolved experiment's fields (dotted paths, as a sweep
names them): a mapping matches when its given keys match, so `{discipline: red, min_th:
30}` needs no other RED parameter. `a` is the configuration the claim is about, `b` its
baseline. Each side's value is one number per run (point); a and b are compared run by
run where their runs share seeds (the same repetition of one experiment), with a
confidence interval over the runs (p4aqm/report/intervals.py).

A threshold or margin is either `percent` (a - b per run, in percent of b) or `by` (a - b
in the metric's own unit: ms, or percentage points for a metric in %). Every nonzero
threshold, margin, or `about` value needs its `reason`: where the number comes from in the
paper (its words or a figure), never from our results.
"""

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

# lower/higher: a - b below -threshold / above +threshold (threshold 0: the sign only).
# differ: beyond ±threshold either way. same: within ±margin. at_most: a - b below the
# bound. about: a (or a - b, when b is given) within `within` of `about`, in the metric's
# unit. crossover: a faster than b at some response-time percentiles, slower at others.
# larger_gain: a's gain over b (b - a) is larger under the check's own condition than
# under the `versus` requests subset or the `versus_where` selection.
Expect = Literal[
    "lower", "higher", "differ", "same", "at_most", "about", "crossover", "larger_gain"
]
# Which kinds take a threshold (lower, higher, larger_gain: optional, 0 by default) and
# which need a positive one (a margin, or differ's size, without which they cannot fail).
THRESHOLD_KINDS = frozenset({"lower", "higher", "differ", "same", "at_most", "larger_gain"})
NEEDS_THRESHOLD = frozenset({"differ", "same"})
NEEDS_B = THRESHOLD_KINDS | {"crossover"}


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
    # The threshold (or same's margin): in percent of b, or in the metric's unit.
    percent: float | None = Field(None, ge=0)
    by: float | None = Field(None, ge=0)
    about: float | None = None
    within: float | None = Field(None, gt=0)
    # larger_gain's other condition: a requests subset, and/or other selected points.
    versus: Requests | None = None
    versus_where: dict[str, Any] = {}
    # Where the threshold, margin or value comes from (the paper's words or figure).
    reason: str = ""
    label: str | None = None

    @property
    def threshold(self) -> float:
        return self.percent if self.percent is not None else (self.by or 0.0)

    @property
    def relative(self) -> bool:
        """a - b in percent of b (the default), unless the threshold is given `by`."""
        return self.by is None and self.expect != "about"

    @model_validator(mode="after")
    def complete(self) -> "Check":
        for problem in (self._sides(), self._threshold(), self._reason()):
            if problem:
                raise ValueError(problem)
        return self

    def _sides(self) -> str:
        if self.expect in NEEDS_B and not self.b:
            return f"b: expect {self.expect} compares a with b: give b"
        if self.expect == "about" and (self.about is None or self.within is None):
            return "about, within: expect about needs `about` and `within`"
        if self.expect == "larger_gain" and self.versus is None and not self.versus_where:
            return (
                "versus: expect larger_gain needs `versus` (a requests subset) or"
                " `versus_where` (other points) to compare a's gain with"
            )
        if self.expect != "larger_gain" and (self.versus is not None or self.versus_where):
            return "versus: only expect larger_gain compares with another condition"
        return ""

    def _threshold(self) -> str:
        if self.percent is not None and self.by is not None:
            return "percent, by: give the threshold in `percent` of b or `by` units, not both"
        given = self.percent is not None or self.by is not None
        if given and self.expect not in THRESHOLD_KINDS:
            return f"percent, by: expect {self.expect} takes no threshold"
        if self.expect in NEEDS_THRESHOLD and not self.threshold:
            what = "a margin" if self.expect == "same" else "a size"
            return (
                f"percent, by: expect {self.expect} needs {what} above 0, in `percent` of b"
                " or `by` the metric's unit (without it the check cannot fail)"
            )
        if self.expect == "at_most" and not given:
            return "percent, by: expect at_most needs its bound, in `percent` of b or `by`"
        return ""

    def _reason(self) -> str:
        if self.reason.strip() or not (self.threshold or self.expect == "about"):
            return ""
        return (
            "reason: say where the threshold comes from (the paper's words or figure;"
            " never our results)"
        )


class Claim(Strict):
    claim: str = Field(min_length=1)
    checks: list[Check] = Field(min_length=1)
    note: str = ""
