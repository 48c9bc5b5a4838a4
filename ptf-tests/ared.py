"""PTF tests for p4src/ared.p4: Adaptive RED on port 2 of a switch whose queue drains slowly.

Test parameters (ptf --test-params):
  config   path of a controller YAML config for ared.p4 (pipeline, switch, routes)

Each test applies that config with a drain rate and ARED for port 2, then zeroes port
2's registers over P4Runtime (the controller keeps the pipeline, and with it the state
the previous test left).
It offers traffic from port 1 for a while and reads max_p back from the ared_max_p
register over P4Runtime: the value must be one of the model's iterates of the
adaptation, in the expected direction. The adaptation interval is short (0.1 s) so
that two seconds of traffic give about twenty adaptations.

On BMv2 these tests skip, saying why: its P4Runtime server neither reads nor writes
registers (PI issue #376). It refuses the reset's Write as P4Runtime reports a batch
that failed: status UNKNOWN, each register update's p4.v1.Error UNIMPLEMENTED ("Register
writes are not supported yet").
"""

import asyncio
import time

import finsy as fy
from aqm_base import AQM_PORT, AqmTest, frame_to_port2
from finsy.grpcutil import GRPCStatusCode
from ptf import testutils
from scapy.layers.inet import UDP

from p4aqm.controller.config import ControllerConfig, PortConfig, QueueConfig
from p4aqm.controller.disciplines.ared import AredConfig
from p4aqm.models.ared import AredTables, adapted

DRAIN_PPS = 500
ARED = {"discipline": "ared", "min_th": 5, "max_th": 15, "w_q": 1 / 4, "limit_pkts": 40}
INTERVAL_S = 0.1
PROB_ONE = 1 << 24  # max_p is held in 2^-24
REGISTERS = (
    "aqm_occupancy",
    "red_avg",
    "red_count",
    "red_q_r",
    "aqm_idle_since",
    "ared_max_p",
    "ared_next_adapt",
)


def _options(config: ControllerConfig) -> fy.SwitchOptions:
    # Without p4force, finsy keeps the pipeline apply_config pushed (the cookies match),
    # and with it the routes.
    return fy.SwitchOptions(
        p4info=config.pipeline.p4info,
        p4blob=config.pipeline.bmv2_json,
        device_id=config.switch.device_id,
        initial_election_id=config.switch.election_id,
    )


async def _reset(config: ControllerConfig) -> None:
    """Start port 2 afresh: ARED's registers to 0, as a new pipeline has them."""
    async with fy.Switch("ared-ptf", config.switch.grpc_addr, _options(config)) as switch:
        await switch.modify(
            [fy.P4RegisterEntry(name, index=AQM_PORT, data=0) for name in REGISTERS]
        )


def refusal(exc: fy.P4ClientError) -> str | None:
    """The switch's reason if it refused the request as unimplemented, else None: a
    refused Write is UNKNOWN with the reason in each failed update's error."""
    if exc.code == GRPCStatusCode.UNIMPLEMENTED:
        return exc.message
    errors = list(exc.details.values())  # finsy keeps only the updates that failed
    unimplemented = [e for e in errors if e.canonical_code == GRPCStatusCode.UNIMPLEMENTED]
    return unimplemented[0].message if unimplemented else None


def client_errors(exc: BaseException) -> list[fy.P4ClientError]:
    """The P4Runtime errors in exc: itself, or those of an exception group (a failure
    inside `async with fy.Switch` can arrive wrapped by its task group)."""
    if isinstance(exc, fy.P4ClientError):
        return [exc]
    if isinstance(exc, BaseExceptionGroup):
        return [e for sub in exc.exceptions for e in client_errors(sub)]
    return []


def reset_registers(config: ControllerConfig) -> str | None:
    """Zero port 2's registers; None, or the switch's reason for refusing to."""
    try:
        asyncio.run(_reset(config))
    except (fy.P4ClientError, BaseExceptionGroup) as exc:
        reasons = [refusal(e) for e in client_errors(exc)]
        if not reasons or None in reasons:
            raise
        return reasons[0]
    return None


async def _read_register(config: ControllerConfig, name: str) -> int:
    async with fy.Switch("ared-ptf", config.switch.grpc_addr, _options(config)) as switch:
        async for entry in switch.read(fy.P4RegisterEntry(name, index=AQM_PORT)):
            return int(entry.data)
    raise AssertionError(f"no {name}[{AQM_PORT}] in the switch's answer")


class AredTest(AqmTest):
    initial_max_p = 0.1

    @property
    def ared(self) -> AredConfig:
        return AredConfig(**ARED, max_p=self.initial_max_p, interval_s=INTERVAL_S)

    def port_config(self) -> PortConfig:
        return PortConfig(queue=QueueConfig(rate_pps=DRAIN_PPS, depth_pkts=200), aqm=self.ared)

    def setUp(self) -> None:
        super().setUp()
        if (reason := reset_registers(self.config)) is not None:
            self.skipTest(
                f"the switch does not write registers over P4Runtime ({reason!r}; BMv2:"
                " PI issue #376), and these tests reset ARED's registers and read max_p"
            )

    def max_p(self) -> int:
        """max_p from its register, in 2^-24."""
        return asyncio.run(_read_register(self.config, "ared_max_p"))

    def adaptations(self, max_p: int, avg: int) -> int:
        """How many adaptations at average avg take the initial max_p to max_p: the
        register must hold one of the model's iterates, or the test fails."""
        tables = AredTables.from_params(self.ared.params())
        value = tables.max_p_init
        for steps in range(1000):
            if value == max_p:
                return steps
            value = adapted(tables, value, avg)
        self.fail(f"max_p {max_p / PROB_ONE:.6f} is no iterate of the adaptation")

    def offer(self, rate_pps: float, duration_s: float) -> None:
        """UDP packets from port 1 to port 2 at about rate_pps, for duration_s."""
        frame = frame_to_port2(UDP(sport=5000, dport=5001) / (b"p" * 64))
        start = time.monotonic()
        sent = 0
        while (elapsed := time.monotonic() - start) < duration_s:
            if sent < elapsed * rate_pps:
                testutils.send_packet(self, 1, frame)
                sent += 1
            else:
                time.sleep(1 / rate_pps / 4)
        # Wait for the queue to empty: the next test zeroes the occupancy, and a packet
        # still queued would then leave and take itself off a count that no longer holds it.
        self.received(timeout_s=0.3)
        self.dataplane.flush()


class MaxPRisesUnderOverload(AredTest):
    """Three times the drain rate holds the average above the target band (RED's drops
    cannot bring it down with a small max_p): max_p climbs, additively, by the model's
    steps, once per interval."""

    initial_max_p = 0.02

    def runTest(self) -> None:
        self.offer(rate_pps=3 * DRAIN_PPS, duration_s=2.0)
        steps = self.adaptations(self.max_p(), avg=1 << 30)
        # 2 s of 0.1 s intervals: 19 or 20 adaptations, fewer if the sender stalled.
        self.assertGreaterEqual(steps, 10)
        self.assertLessEqual(steps, 20)


class MaxPFallsWhenUnderloaded(AredTest):
    """A fifth of the drain rate keeps the average below the target band: max_p falls,
    multiplicatively, from a high start, by the model's steps, once per interval."""

    initial_max_p = 0.3

    def runTest(self) -> None:
        self.offer(rate_pps=DRAIN_PPS / 5, duration_s=2.0)
        steps = self.adaptations(self.max_p(), avg=0)
        self.assertGreaterEqual(steps, 10)
        self.assertLessEqual(steps, 20)
