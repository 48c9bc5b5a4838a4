"""Link emulation on real veths: the switch's delay line sets the RTT between two hosts."""

import json
import os
import statistics
import sys
import time
from pathlib import Path

import yaml
from hosts import EXAMPLE_CONFIG, P4AQM, ping_rtts_ms

from p4aqm.topology.netlab import TestNetwork
from programs import CompiledProgram

ONE_WAY_DELAY_US = 40_000
# What a loaded machine may add to a round trip: far less than another pass through
# the 40 ms delay line, or a wait for a switch thread's 100 ms idle sleep.
SLACK_MS = 40.0
# Run in the switch's namespace: the Router's fidelity figures and the packets sent.
READ_FIDELITY = """
import dataclasses, json, sys
from pathlib import Path
from p4aqm.controller import Router, load_config
with Router.of(load_config(Path(sys.argv[1]))) as router:
    fidelity = dataclasses.asdict(router.emulation())
    sent = sum(router.port_state(port).counters["tx_packets"] for port in (1, 2))
print(json.dumps({"fidelity": fidelity, "sent": sent}))
"""


def install(net: TestNetwork, program: CompiledProgram, tmp: Path, ports: dict) -> Path:
    """The config installed, by `p4aqm controller`; its path."""
    config = yaml.safe_load(EXAMPLE_CONFIG.read_text())
    config["switch"]["grpc_addr"] = net.start_switch()
    config["pipeline"] = {"p4info": str(program.p4info_path), "bmv2_json": str(program.json_path)}
    config["ports"] = ports
    path = tmp / "controller.yaml"
    path.write_text(yaml.safe_dump(config))
    result = net.run([P4AQM, "controller", str(path)])
    assert result.returncode == 0, result.stderr
    return path


def test_40ms_each_way_gives_80ms_rtt(l3_program: CompiledProgram, tmp_path: Path) -> None:
    with TestNetwork(ports=2, hosts=True) as net:
        # Host 1's link delays both directions, so each way of the path takes 40 ms.
        install(net, l3_program, tmp_path, {1: {"link": {"delay_us": ONE_WAY_DELAY_US}}})
        rtts = ping_rtts_ms(net, count=10)
    assert len(rtts) == 10
    assert min(rtts) >= 80.0, rtts
    assert statistics.median(rtts) < 80.0 + SLACK_MS, rtts


def test_without_delay_rtt_is_small(l3_program: CompiledProgram, tmp_path: Path) -> None:
    with TestNetwork(ports=2, hosts=True) as net:
        install(net, l3_program, tmp_path, {})
        rtts = ping_rtts_ms(net, count=5)
    assert statistics.median(rtts) < SLACK_MS, rtts


def test_emulation_counts_every_packet_sent(l3_program: CompiledProgram, tmp_path: Path) -> None:
    with TestNetwork(ports=2, hosts=True) as net:
        path = install(net, l3_program, tmp_path, {1: {"link": {"delay_us": 5000}}})
        ping_rtts_ms(net, count=10)
        result = net.run([sys.executable, "-c", READ_FIDELITY, str(path)])
    assert result.returncode == 0, result.stderr
    read = json.loads(result.stdout)
    fidelity = read["fidelity"]
    # Every packet the switch sent was handed to its port at a measured time; no monitor ran.
    assert fidelity["departures"] == read["sent"] >= 20
    percentiles = [fidelity[f"lateness_{p}_ns"] for p in ("p50", "p99", "max")]
    assert 0 <= percentiles[0] <= percentiles[1] <= percentiles[2] < 10**10, percentiles
    assert (fidelity["monitor_overruns"], fidelity["monitor_missed"]) == (0, 0)


def loop_thread_policy(switch_pid: int) -> int:
    """The scheduling policy of the switch's event loop thread (p4dp-loop), once it has
    started: the switch answers before its dataplane's thread is spawned, which on a busy
    machine can take a moment."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        for task in Path(f"/proc/{switch_pid}/task").iterdir():
            if (task / "comm").read_text().strip() == "p4dp-loop":
                return os.sched_getscheduler(int(task.name))
        time.sleep(0.05)
    raise AssertionError(f"switch {switch_pid} has no p4dp-loop thread after 10 s")


def test_the_event_loop_runs_at_the_realtime_priority_asked() -> None:
    with TestNetwork(ports=2) as net:
        net.start_switch(["--realtime-priority", "50"])
        assert loop_thread_policy(net.processes[-1].pid) == os.SCHED_FIFO
    with TestNetwork(ports=2) as net:
        net.start_switch()
        assert loop_thread_policy(net.processes[-1].pid) == os.SCHED_OTHER
