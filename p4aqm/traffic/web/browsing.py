"""What an emulated user does, after Mah's model as Christiansen et al. used it.

A user picks a server uniformly among the given ones and fetches pages from it: a page is
its main object, then its embedded objects (files per page - 1) over up to max_parallel
connections at once. After a page the user thinks (Mah's think time, truncated, see
traffic.mah). After as many pages as a draw from the server-stay distribution the user
moves to another server, uniformly among the others.

Users start staggered, by `start_policy`:
- "residual" (the default): at t = 0 each user is in the middle of a think time, with the
  time left drawn as the residual of a renewal process in equilibrium (a think time drawn
  with probability proportional to its length, times a uniform fraction). The load
  starts near its steady state instead of every user firing at once or ramping up.
- "ramp": user start times are uniform over [0, ramp_s), then a page right away. Short
  runs (tests, calibration sweeps that discard the start anyway) get going sooner.

Each user draws from its own numpy Generator (spawned from the run's seed), so what a
user does does not depend on how the event loop interleaves users.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, Literal, TypeVar

import numpy as np
from pydantic import Field

from p4aqm.traffic.mah import MahModel, ThinkTimeParams
from p4aqm.traffic.web.protocol import MIN_REQUEST_BYTES

StartPolicy = Literal["residual", "ramp"]
ServerT = TypeVar("ServerT")


class WebParams(ThinkTimeParams):
    """The traffic settings of the web users (what a load calibration holds for)."""

    max_parallel: int = Field(4, ge=1)
    start_policy: StartPolicy = "residual"
    ramp_s: float = Field(10.0, gt=0)
    request_timeout_s: float = Field(60.0, gt=0)
    late_threshold_ms: float = Field(100.0, gt=0)


@dataclass(frozen=True)
class WebObject:
    request_bytes: int
    reply_bytes: int


class Browser(Generic[ServerT]):
    """One user's draws."""

    def __init__(
        self, model: MahModel, servers: Sequence[ServerT], rng: np.random.Generator
    ) -> None:
        if not servers:
            raise ValueError("a user needs at least one server")
        self._model = model
        self._servers = servers
        self._rng = rng
        self._server: ServerT | None = None
        self._pages_left = 0

    def start_delay_s(self, params: WebParams) -> float:
        if params.start_policy == "ramp":
            return float(self._rng.uniform(0.0, params.ramp_s))
        think = self._model.think_time_s
        by_length = think.probabilities() * think.values
        length = self._rng.choice(think.values, p=by_length / by_length.sum())
        return float(length * self._rng.random())

    def server(self) -> ServerT:
        """The server of the next page."""
        if self._pages_left == 0:
            others = [s for s in self._servers if s != self._server] or list(self._servers)
            self._server = others[self._rng.integers(len(others))]
            self._pages_left = int(self._model.server_stay_pages.sample(self._rng))
        self._pages_left -= 1
        assert self._server is not None
        return self._server

    def page(self) -> list[WebObject]:
        """The objects of the next page, main object first."""
        files = int(self._model.files_per_page.sample(self._rng))
        requests = self._model.request_bytes.sample(self._rng, files)
        replies = self._model.reply_bytes.sample(self._rng, files)
        return [
            WebObject(max(int(request), MIN_REQUEST_BYTES), int(reply))
            for request, reply in zip(requests, replies, strict=True)
        ]

    def think_time_s(self) -> float:
        return float(self._model.think_time_s.sample(self._rng))
