"""droptail.p4 on our switch against its model, decision by decision, in virtual time."""

import random

import pytest
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether
from schedule import DepartureSchedule

from p4aqm.models.droptail import DropTailQueue
from p4switch._dataplane import Dataplane
from programs import P4SRC, compile_program

PACKETS = 100_000
SERVICE_US = 1000
LIMIT = 20
OUT_PORT = 2


@pytest.fixture(scope="module")
def droptail(tmp_path_factory: pytest.TempPathFactory) -> Dataplane:
    program = compile_program(P4SRC / "droptail.p4", tmp_path_factory.mktemp("droptail"))
    dp = Dataplane(seed=1, virtual_time=True)
    for port in (1, OUT_PORT):
        dp.add_memory_port(port)
    dp.load_pipeline(program.json_path.read_bytes())
    dp.table_add(
        "MyIngress.ipv4_lpm",
        [("lpm", bytes([10, 0, 2, 0]), 24)],
        "MyIngress.ipv4_forward",
        [bytes(6), bytes(6), OUT_PORT.to_bytes(2, "big")],
        0,
    )
    dp.table_add(
        "MyIngress.droptail_config",
        [("exact", OUT_PORT.to_bytes(2, "big"))],
        "MyIngress.droptail_set_limit",
        [LIMIT.to_bytes(4, "big")],
        0,
    )
    dp.set_queue(OUT_PORT, rate_pps=1e6 / SERVICE_US, depth_packets=LIMIT + 64)
    return dp


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
        qlen = int.from_bytes(dp.register_read("droptail_qlen", OUT_PORT), "big")
        assert qlen == model.qlen, f"packet {index}"
    assert 0 < dropped < PACKETS // 2
