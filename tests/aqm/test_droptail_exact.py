"""droptail.p4 on our switch against its model, decision by decision, in virtual time."""

import random
from collections.abc import Callable

import pytest
from aqm_switch import OUT_PORT, aqm_dataplane, read_register
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether
from schedule import DepartureSchedule

from p4aqm.controller.disciplines import DropTailConfig
from p4aqm.models.droptail import DropTailQueue
from p4aqm.switch._dataplane import Dataplane
from programs import CompiledProgram

PACKETS = 100_000
SERVICE_US = 1000
LIMIT = 20


@pytest.fixture(scope="module")
def droptail(p4src_program: Callable[[str], CompiledProgram]) -> Dataplane:
    aqm = DropTailConfig(discipline="droptail", limit_pkts=LIMIT)
    return aqm_dataplane(p4src_program("droptail"), aqm, rate_pps=1e6 / SERVICE_US, seed=1)


def test_program_matches_model(droptail: Dataplane) -> None:
    dp, model, schedule = droptail, DropTailQueue(LIMIT), DepartureSchedule(SERVICE_US)
    frame = bytes(Ether() / IP(dst="10.0.2.1") / UDP() / (b"x" * 18))
    rng = random.Random(5)
    drops = dp.counter_read("MyIngress.droptail_drops", OUT_PORT)[1]
    now_us = dropped = 0
    for index in range(PACKETS):
        # Bursts above the drain rate alternating with quiet spells.
        now_us += max(1, round(rng.expovariate(1 / (600 if (index // 500) % 2 else 1500))))
        dp.advance_time(now_us - dp.now_us())
        dp.take_output()
        for _ in schedule.due(now_us):
            model.depart()
        dp.inject(1, frame)
        admitted = model.arrive()
        if admitted:
            schedule.admit(now_us)
            for _ in schedule.due(now_us):
                model.depart()
        now_drops = dp.counter_read("MyIngress.droptail_drops", OUT_PORT)[1]
        assert (now_drops == drops) == admitted, f"packet {index}"
        drops = now_drops
        dropped += not admitted
        occupancy = read_register(dp, "aqm_occupancy", OUT_PORT)
        assert occupancy == model.occupancy, f"packet {index}"
    assert 0 < dropped < PACKETS // 2
