"""Hosts with kernel TCP/IP stacks reach each other through `p4aqm switch` running l3_forward."""

from pathlib import Path

import yaml
from hosts import EXAMPLE_CONFIG, P4AQM, ping_rtts_ms

from p4aqm.topology.netlab import TestNetwork
from programs import CompiledProgram


def install_l3(net: TestNetwork, program: CompiledProgram, grpc_addr: str, tmp: Path) -> None:
    config = yaml.safe_load(EXAMPLE_CONFIG.read_text())
    config["switch"]["grpc_addr"] = grpc_addr
    config["pipeline"] = {"p4info": str(program.p4info_path), "bmv2_json": str(program.json_path)}
    path = tmp / "controller.yaml"
    path.write_text(yaml.safe_dump(config))
    result = net.run([P4AQM, "controller", str(path)])
    assert result.returncode == 0, result.stderr


def test_ping_crosses_the_switch(l3_program: CompiledProgram, tmp_path: Path) -> None:
    with TestNetwork(ports=2, hosts=True) as net:
        install_l3(net, l3_program, net.start_switch(), tmp_path)
        rtts = ping_rtts_ms(net, count=3)
    assert len(rtts) == 3


def test_no_route_no_reply(l3_program: CompiledProgram, tmp_path: Path) -> None:
    with TestNetwork(ports=2, hosts=True) as net:
        net.start_switch()  # no pipeline, no routes: the switch forwards nothing
        result = net.host_run(1, ["ping", "-c", "1", "-W", "1", "10.0.2.1"])
    assert result.returncode != 0
    assert "0 received" in result.stdout
