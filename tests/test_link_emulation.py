"""Link emulation on real veths: the switch's delay line sets the RTT between two hosts."""

import statistics
from pathlib import Path

import yaml
from test_hosts_through_switch import EXAMPLE_CONFIG, P4AQM, ping_rtts_ms

from p4aqm.netlab import TestNetwork
from programs import CompiledProgram

ONE_WAY_DELAY_US = 40_000


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
    # The median: a single ping can be late by a scheduling hiccup of this 2-core machine.
    assert abs(statistics.median(rtts) - 80.0) < 1.0, rtts
    assert min(rtts) >= 80.0, rtts


def test_without_delay_rtt_is_small(l3_program: CompiledProgram, tmp_path: Path) -> None:
    with TestNetwork(ports=2, hosts=True) as net:
        install(net, l3_program, tmp_path, {})
        rtts = ping_rtts_ms(net, count=5)
    assert statistics.median(rtts) < 5.0, rtts
