"""`p4aqm controller --sample` over P4Runtime reads, the way for switches without our
queue monitor (BMv2; the monitor's own tests are test_monitor_sampling.py): 3 ms
sampling of RED's state into CSV or Parquet, and a file that is complete when the run
is interrupted."""

import csv
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pandas as pd
import pytest
import yaml
from sample_configs import interrupted_when, red_config
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether
from switch_process import SwitchProcess  # on sys.path from conftest.py

from p4aqm.controller.config import load_config
from p4aqm.controller.recording import MonitorRecording
from p4aqm.controller.sample_file import read_metadata
from p4aqm.controller.sampler import Sampler
from p4aqm.controller.session import apply_config
from p4aqm.schema import COUNTER_DELTAS, Column, class_column
from p4aqm.switch._dataplane import Dataplane
from p4aqm.switch.runtime.server import P4RuntimeService, ServerThread
from programs import P4SRC, CompiledProgram, compile_program

COLUMNS = [
    Column.REALTIME_NS,
    Column.ELAPSED_US,
    Column.EGRESS_PORT,
    Column.OCCUPANCY_PKTS,
    Column.AVG_PKTS,
    Column.MARKS_DELTA,
    Column.EARLY_DROPS_DELTA,
    Column.FORCED_DROPS_DELTA,
    Column.OVERFLOW_DROPS_DELTA,
]


@pytest.fixture
def polling_switch() -> Iterator[str]:
    """A P4Runtime server without gNMI, so without the monitor: the sampler polls."""
    server = ServerThread(P4RuntimeService(Dataplane(seed=1), device_id=0))
    yield f"127.0.0.1:{server.start()}"
    server.stop()


def test_csv_is_complete_after_an_interrupt(
    polling_switch: str, red_program: CompiledProgram, tmp_path: Path
) -> None:
    out = tmp_path / "samples.csv"
    config = red_config(tmp_path, red_program, polling_switch)
    result = interrupted_when(
        config, out, lambda: out.read_text().count("\n") > 200, "200 sample rows"
    )
    assert result.returncode == 0, result.stderr
    text = out.read_text()
    assert text.endswith("\n")
    rows = list(csv.DictReader(text.splitlines()))
    assert list(rows[0]) == COLUMNS
    assert all(None not in row.values() and "" not in row.values() for row in rows)
    assert f"{len(rows)} sample row(s)" in result.stdout
    assert len(rows) >= 200
    # Each tick writes one row per port, in port order, at one time.
    ticks = [rows[i : i + 2] for i in range(0, len(rows), 2)]
    assert all([r[Column.EGRESS_PORT] for r in tick] == ["2", "3"] for tick in ticks)
    assert all(tick[0][Column.ELAPSED_US] == tick[1][Column.ELAPSED_US] for tick in ticks)
    times = [int(tick[0][Column.ELAPSED_US]) for tick in ticks]
    assert all(a < b for a, b in zip(times, times[1:], strict=False))
    # Ticks are on the 3 ms grid from the start, a late one skipping grid points: the
    # j-th tick is never before j periods (elapsed_us is rounded to the microsecond).
    # However slow the machine, the sampler never samples faster than its period.
    assert all(t >= j * 3000 - 1 for j, t in enumerate(times)), times
    # Wall-clock stamps move with the run's own clock.
    stamps = [int(tick[0][Column.REALTIME_NS]) for tick in ticks]
    assert all(a < b for a, b in zip(stamps, stamps[1:], strict=False))


def test_parquet_is_complete_after_an_interrupt(
    polling_switch: str, red_program: CompiledProgram, tmp_path: Path
) -> None:
    out = tmp_path / "samples.parquet"
    config = red_config(tmp_path, red_program, polling_switch)
    # The writer opens the file with its 4-byte magic and adds a row group every
    # ROW_GROUP_S: a longer file holds samples.
    result = interrupted_when(config, out, lambda: out.stat().st_size > 4, "a row group")
    assert result.returncode == 0, result.stderr
    frame = pd.read_parquet(out)
    assert list(frame.columns) == COLUMNS
    assert f"{len(frame)} sample row(s)" in result.stdout
    assert len(frame) > 0
    # Integers stay integers; only fixed point scaled to packets is a float.
    expected = {c: "int64" for c in COLUMNS} | {Column.AVG_PKTS: "float64"}
    assert {c: str(t) for c, t in frame.dtypes.items()} == expected
    # Counters are deltas per period, as the monitor's: the first row of each port is 0.
    counters = [Column.MARKS_DELTA, Column.EARLY_DROPS_DELTA]
    assert (frame.groupby(Column.EGRESS_PORT).first()[counters] == 0).all().all()
    metadata = read_metadata(out)
    assert metadata["period_us"] == 3000
    assert metadata["switch"]["grpc_addr"] == polling_switch
    assert metadata["ports"]["2"]["aqm"]["min_th"] == 5
    assert set(metadata["time_base"]) == {Column.REALTIME_NS, Column.ELAPSED_US}
    assert metadata["counters"] == COUNTER_DELTAS
    sources = metadata["sources"]
    assert sources[Column.OCCUPANCY_PKTS] == "register aqm_occupancy[port * 1 + 0]"
    assert sources[Column.MARKS_DELTA] == (
        "counter MyIngress.red_enqueue.marks[port * 1 + 0], delta per period"
    )


def test_sample_without_aqm_is_an_error(
    switch_process: SwitchProcess, red_program: CompiledProgram, tmp_path: Path
) -> None:
    config = yaml.safe_load(red_config(tmp_path, red_program, switch_process.address).read_text())
    config["ports"] = {}
    path = tmp_path / "plain.yaml"
    path.write_text(yaml.safe_dump(config))
    p4aqm = str(Path(sys.executable).parent / "p4aqm")
    result = subprocess.run(
        [p4aqm, "controller", str(path), "--sample", str(tmp_path / "s.csv")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert "--sample: no port has an aqm" in result.stderr


class BmV2LikeService(P4RuntimeService):
    """Our server, but refusing register reads as BMv2's P4Runtime server does."""

    async def Read(self, request: Any, context: Any) -> Any:  # noqa: N802 - gRPC's name
        if any(entity.HasField("register_entry") for entity in request.entities):
            await context.abort(grpc.StatusCode.UNIMPLEMENTED, "RegisterEntry reads")
        async for reply in super().Read(request, context):
            yield reply


def test_without_register_reads_the_counters_remain(
    red_program: CompiledProgram, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dataplane = Dataplane(seed=1)
    server = ServerThread(BmV2LikeService(dataplane, device_id=0))
    address = f"127.0.0.1:{server.start()}"
    try:
        config = load_config(red_config(tmp_path, red_program, address))
        apply_config(config)
        ports = {port: c.aqm.probes() for port, c in config.ports.items()}
        sampler = Sampler(address, 0, config.pipeline.p4info, ports, period_s=0.01)
        recording = MonitorRecording.of(sampler, 0.01, tmp_path / "s.csv")
        time.sleep(0.2)
        written = recording.stop()
    finally:
        server.stop()
    rows = list(csv.DictReader((tmp_path / "s.csv").read_text().splitlines()))
    assert written == len(rows) > 0
    # No arrivals, so no queue samples: the occupancy cells stay empty.
    assert all(row[Column.OCCUPANCY_PKTS] == "" and row[Column.MARKS_DELTA] == "0" for row in rows)
    assert "['avg_pkts', 'occupancy_pkts'] from queue-sample digests" in capsys.readouterr().err


def test_without_register_reads_queue_samples_come_as_digests(
    red_program: CompiledProgram, tmp_path: Path
) -> None:
    """BMv2 cannot read registers over P4Runtime: RED's occupancy and average then come
    from the program's queue-sample digests, and must equal the registers."""
    dataplane = Dataplane(seed=1)
    for port in (1, 2):
        dataplane.add_memory_port(port)
    # One packet per second: the first leaves at once, the others wait past the test.
    dataplane.set_queue(2, rate_pps=1.0, depth_pkts=500)
    dataplane.start()
    server = ServerThread(BmV2LikeService(dataplane, device_id=0))
    address = f"127.0.0.1:{server.start()}"
    try:
        config = yaml.safe_load(red_config(tmp_path, red_program, address).read_text())
        config["routes"] = [
            {
                "prefix": "10.0.2.0/24",
                "port": 2,
                "dst_mac": "00:00:00:00:02:02",
                "src_mac": "00:00:00:00:02:ff",
            }
        ]
        path = tmp_path / "routed.yaml"
        path.write_text(yaml.safe_dump(config))
        loaded = load_config(path)
        apply_config(loaded)
        ports = {port: c.aqm.probes() for port, c in loaded.ports.items()}
        sampler = Sampler(address, 0, loaded.pipeline.p4info, ports, period_s=0.01)
        frame = bytes(Ether() / IP(dst="10.0.2.1", ttl=64) / UDP() / (b"x" * 18))
        # The first read finds the registers refused and sets up the digests.
        before = port_row(sampler)
        # At most one digest per 10 ms period: arrivals further apart each send one.
        for _ in range(5):
            dataplane.inject(1, frame)
            time.sleep(0.03)
        occupancy = int.from_bytes(dataplane.register_read("aqm_occupancy", 2), "big")
        avg = int.from_bytes(dataplane.register_read("red_avg", 2), "big") / 65536
        deadline = time.monotonic() + 30  # only a lost digest takes this long
        after = port_row(sampler)
        while after.get(Column.OCCUPANCY_PKTS) != occupancy and time.monotonic() < deadline:
            time.sleep(0.01)
            after = port_row(sampler)
        sampler.close()
    finally:
        server.stop()
        dataplane.stop()
    assert occupancy == 4
    assert (after[Column.OCCUPANCY_PKTS], after[Column.AVG_PKTS]) == (occupancy, avg)
    assert Column.OCCUPANCY_PKTS not in before  # before the first arrival


def port_row(sampler: Sampler, port: int = 2) -> dict[str, float]:
    (row,) = [r for r in sampler.read(0, time.time_ns()) if r[Column.EGRESS_PORT] == port]
    return row


def test_cbt_samples_each_class_at_its_slot(tmp_path: Path) -> None:
    """CBT keeps per-class state in cell port * 4 + class and the port's total in cell
    port * 4 + 3: each class's columns must read its own cells, not the port's."""
    program = compile_program(P4SRC / "cbt.p4", tmp_path)
    dataplane = Dataplane(seed=1)
    server = ServerThread(P4RuntimeService(dataplane, device_id=0))
    address = f"127.0.0.1:{server.start()}"
    try:
        config = {
            "switch": {"grpc_addr": address},
            "pipeline": {"p4info": str(program.p4info_path), "bmv2_json": str(program.json_path)},
            "ports": {
                2: {
                    "aqm": {
                        "discipline": "cbt",
                        "min_th": 5,
                        "max_th": 15,
                        "max_p": 0.1,
                        "marked_th": 4,
                        "unmarked_th": 2,
                    }
                }
            },
        }
        path = tmp_path / "cbt.yaml"
        path.write_text(yaml.safe_dump(config))
        loaded = load_config(path)
        apply_config(loaded)
        port = 2
        for traffic_class in (0, 1, 2):  # counts before the run, which it must not show
            dataplane.counter_write("MyIngress.cbt_marks", port * 4 + traffic_class, 0, 1000)
        sampler = Sampler(address, 0, loaded.pipeline.p4info, {port: loaded.ports[2].aqm.probes()})
        sampler.read(0, time.time_ns())  # the run's first read: counters start from here
        for traffic_class, occupancy in ((0, 11), (1, 7), (2, 5)):
            cell = port * 4 + traffic_class
            dataplane.register_write("aqm_occupancy", cell, occupancy.to_bytes(4, "big"))
            dataplane.register_write("red_avg", cell, (occupancy << 15).to_bytes(4, "big"))
            dataplane.counter_write("MyIngress.cbt_marks", cell, 0, 1100 + traffic_class)
        total = port * 4 + 3
        dataplane.register_write("aqm_occupancy", total, (23).to_bytes(4, "big"))
        (row,) = sampler.read(1000, time.time_ns())
        dataplane.counter_write("MyIngress.cbt_marks", port * 4, 0, 1105)
        (later,) = sampler.read(2000, time.time_ns())
        sampler.close()
    finally:
        server.stop()
    assert row[Column.OCCUPANCY_PKTS] == 23
    classes = ("tcp", "marked", "unmarked")

    def of_classes(sampled: dict, column: Column) -> tuple:
        return tuple(sampled[class_column(c, column)] for c in classes)

    assert of_classes(row, Column.OCCUPANCY_PKTS) == (11, 7, 5)
    assert of_classes(row, Column.AVG_PKTS) == (5.5, 3.5, 2.5)
    assert of_classes(row, Column.MARKS_DELTA) == (100, 101, 102)
    assert row[class_column("unmarked", Column.THRESHOLD_DROPS_DELTA)] == 0
    # Each read's counts are those since the read before.
    assert of_classes(later, Column.MARKS_DELTA) == (5, 0, 0)
