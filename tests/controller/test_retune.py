"""A live retune: running the controller again with new RED parameters changes the
switch in place, takes effect within one sampling period, and loses no packet."""

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from p4aqm.controller.config import load_config
from p4aqm.controller.sampler import Sampler
from p4aqm.controller.session import apply_config
from p4aqm.models.fixed_point import packets_to_avg
from p4aqm.schema import Column
from p4aqm.switch._dataplane import Dataplane
from p4aqm.switch.runtime.server import P4RuntimeService, ServerThread
from programs import CompiledProgram

PERIOD_S = 0.02
HELD_AVG_PKTS = 10  # between config A's thresholds (5, 15), below config B's min_th (30)


@pytest.fixture
def switch() -> Iterator[tuple[Any, str]]:
    dataplane = Dataplane(seed=1)
    for port in (1, 2):
        dataplane.add_memory_port(port)
    dataplane.start()
    server = ServerThread(P4RuntimeService(dataplane, device_id=0))
    port = server.start()
    yield dataplane, f"127.0.0.1:{port}"
    server.stop()
    dataplane.stop()


def config_file(tmp: Path, program: CompiledProgram, address: str, min_th: int) -> Path:
    red = {"discipline": "red", "min_th": min_th, "max_th": 3 * min_th, "max_p": 0.1}
    config = {
        "switch": {"grpc_addr": address},
        "pipeline": {"p4info": str(program.p4info_path), "bmv2_json": str(program.json_path)},
        "routes": [
            {
                "prefix": "10.0.2.0/24",
                "port": 2,
                "dst_mac": "00:00:00:00:02:02",
                "src_mac": "00:00:00:00:02:ff",
            }
        ],
        "ports": {2: {"aqm": red}},
    }
    path = tmp / f"red-{min_th}.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def test_retune_in_place(
    switch: tuple[Any, str], red_program: CompiledProgram, tmp_path: Path
) -> None:
    dataplane, address = switch
    config_a = load_config(config_file(tmp_path, red_program, address, min_th=5))
    config_b = load_config(config_file(tmp_path, red_program, address, min_th=30))
    first = apply_config(config_a)
    assert first[0] > 0 and first[1:] == (0, 0)

    sampler = Sampler(address, 0, config_a.pipeline.p4info, {2: config_a.ports[2].aqm.probes()})
    samples: list[tuple[float, float]] = []
    stop = threading.Event()
    start = time.monotonic()

    def sample() -> None:
        while not stop.wait(PERIOD_S):
            row = sampler.read(round((time.monotonic() - start) * 1e6), time.time_ns())[0]
            samples.append((row[Column.ELAPSED_US] / 1e6, row[Column.EARLY_DROPS_DELTA]))

    frame = bytes(Ether() / IP(dst="10.0.2.1") / UDP() / (b"x" * 18))
    held_occupancy = HELD_AVG_PKTS.to_bytes(4, "big")
    held_avg = packets_to_avg(HELD_AVG_PKTS).to_bytes(4, "big")
    injected = delivered = 0

    def inject_until(done: Callable[[], bool]) -> None:
        """Inject until `done()`, however slow the machine; only a hang hits the deadline."""
        nonlocal injected, delivered
        deadline = time.monotonic() + 60
        while not done() and time.monotonic() < deadline:
            dataplane.register_write("aqm_occupancy", 2, held_occupancy)
            dataplane.register_write("red_avg", 2, held_avg)
            dataplane.inject(1, frame)
            injected += 1
            time.sleep(0.0002)
            delivered += len(dataplane.take_output())

    def dropping(since: float) -> bool:
        # Drops after the first sample since then: each sample's are since the one before.
        return sum([d for t, d in samples if t >= since][1:]) > 0

    sampling = threading.Thread(target=sample)
    sampling.start()
    inject_until(lambda: dropping(0.0))
    retune = apply_config(config_b)
    retuned_at = time.monotonic() - start
    inject_until(lambda: len([t for t, _ in samples if t >= retuned_at + PERIOD_S]) > 10)
    stop.set()
    sampling.join()
    sampler.close()
    delivered += len(dataplane.take_output())

    # In place: only RED's parameter entry changed and its range tables were redrawn.
    assert retune[1] == 1
    before = [d for t, d in samples if t < retuned_at]
    after = [d for t, d in samples if t >= retuned_at + PERIOD_S]
    assert sum(before[1:]) > 0, "config A should drop at the held average"
    assert len(after) > 5 and not any(after[1:]), "config B should not drop"
    drops = dataplane.counter_read("MyIngress.red_enqueue.early_drops", 2)[1]
    assert delivered + drops == injected, "packets lost beyond RED's own drops"
