"""Link emulation on real veths: the switch's delay line sets the RTT between two hosts."""

import statistics
from pathlib import Path

import yaml
from hosts import EXAMPLE_CONFIG, P4AQM, ping_rtts_ms

from p4aqm.topology.netlab import TestNetwork
from programs import CompiledProgram

ONE_WAY_DELAY_US = 40_000
# What a loaded machine may add to a round trip: far less than another pass through
# the 40 ms delay line, or a wait for a switch thread's 100 ms idle sleep.
SLACK_MS = 40.0


def install(net: TestNetwork, program: CompiledProgram, tmp: Path, ports: dict) -> None:
    config = yaml.safe_load(EXAMPLE_CONFIG.read_text())
    config["switch"]["grpc_addr"] = net.start_switch()
    config["pipeline"] = {"p4info": str(program.p4info_path), "bmv2_json": str(program.json_path)}
    config["ports"] = ports
    path = tmp / "controller.yaml"
    path.write_text(yaml.safe_dump(config))
    result = net.run([P4AQM, "controller", str(path)])
    assert result.returncode == 0, result.stderr


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
