"""What the AQM suites of ptf-tests/ share: before each test, the controller config of the
test parameters, with the suite's queue and discipline on port 2, pushed over P4Runtime
(so that the suites run on our switch and on BMv2 alike); and the packets of host 1, on
port 1, to host 2, which the config routes to port 2.

Test parameters (ptf --test-params):
  config   path of a controller YAML config for the suite's program (pipeline, switch, routes)

ptf imports every module of its --test-dir, with the directory on sys.path (which is how
the suites import this one), and runs the classes that have a runTest: this module has
none, so it adds no tests. No abc.ABC here: ptf collects only classes whose type is
exactly `type`, so an ABCMeta would hide every suite's tests.
"""

import time
from pathlib import Path

import ptf
from ptf import testutils
from ptf.base_tests import BaseTest
from scapy.layers.inet import IP
from scapy.layers.l2 import Ether
from scapy.packet import Packet

from p4aqm.controller.config import ControllerConfig, PortConfig, load_config
from p4aqm.controller.session import apply_config

AQM_PORT = 2


def frame_to_port2(l4: Packet, tos: int = 0) -> bytes:
    """l4 (and its payload) in an IPv4 packet of host 1 to host 2, through the switch's MAC."""
    return bytes(
        Ether(dst="00:00:00:00:01:ff", src="00:00:00:00:01:01")
        / IP(src="10.0.1.1", dst="10.0.2.1", tos=tos)
        / l4
    )


class AqmTest(BaseTest):
    """Pushes the config of the test parameters, with port_config() on port 2, before each
    test."""

    def port_config(self) -> PortConfig:
        """Port 2's queue and discipline: each suite gives its own."""
        raise NotImplementedError

    def setUp(self) -> None:
        BaseTest.setUp(self)
        self.dataplane = ptf.dataplane_instance
        self.dataplane.flush()
        config = load_config(Path(testutils.test_params_get()["config"]))
        ports = {AQM_PORT: self.port_config()}
        self.config: ControllerConfig = config.model_copy(update={"ports": ports})
        apply_config(self.config)

    def received(self, timeout_s: float) -> list[bytes]:
        """Every packet that leaves port 2 until none arrives for timeout_s."""
        packets = []
        while True:
            result = testutils.dp_poll(
                self, device_number=0, port_number=AQM_PORT, timeout=timeout_s
            )
            if not isinstance(result, self.dataplane.PollSuccess):
                return packets
            packets.append(bytes(result.packet))

    def offered(self, frame: bytes, count: int, rate_pps: float, timeout_s: float) -> list[bytes]:
        """Sends `count` copies of frame on port 1 at rate_pps, taking port 2's packets as
        they come (ptf keeps at most 100 per port), then every packet until none arrives
        for timeout_s."""
        packets: list[bytes] = []
        start = time.monotonic()
        for index in range(count):
            testutils.send_packet(self, 1, frame)
            packets += self.received(timeout_s=0.001)
            time.sleep(max(0.0, start + (index + 1) / rate_pps - time.monotonic()))
        return packets + self.received(timeout_s)
