"""Hosts with kernel TCP/IP stacks in namespaces, reaching each other through `p4aqm switch`
running l3_forward: the controller config and the `p4aqm` command that installs it, and
ping's round trips (importable by the switch tests)."""

import re
import sys
from pathlib import Path

from p4aqm.topology.netlab import TestNetwork
from programs import REPO

EXAMPLE_CONFIG = REPO / "examples" / "controller" / "l3_forward.yaml"
P4AQM = str(Path(sys.executable).parent / "p4aqm")


def ping_rtts_ms(net: TestNetwork, count: int) -> list[float]:
    result = net.host_run(1, ["ping", "-c", str(count), "-i", "0.2", "-W", "2", "10.0.2.1"])
    assert result.returncode == 0, result.stdout + result.stderr
    return [float(rtt) for rtt in re.findall(r"time=([\d.]+) ms", result.stdout)]
