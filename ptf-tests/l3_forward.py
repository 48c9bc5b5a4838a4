"""PTF tests for p4src/l3_forward.p4 on any P4Runtime switch (ours or simple_switch_grpc).

Test parameters (ptf --test-params):
  config          path of a controller YAML config (pipeline files, switch address, routes)
  install_routes  False to push the pipeline without its routes (the tests must then fail)
"""

from pathlib import Path

import ptf
from ptf import testutils
from ptf.base_tests import BaseTest
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from p4aqm.controller.config import load_config
from p4aqm.controller.session import apply_config

HOST_MAC = "00:00:00:00:01:01"
SWITCH_MAC = "00:00:00:00:01:ff"
PAYLOAD = b"p4aqm" * 10


class L3Test(BaseTest):
    """Pushes the pipeline and the config's routes before each test."""

    def setUp(self) -> None:
        BaseTest.setUp(self)
        self.dataplane = ptf.dataplane_instance
        self.dataplane.flush()
        params = testutils.test_params_get()
        config = load_config(Path(params["config"]))
        if not params.get("install_routes", True):
            config = config.model_copy(update={"routes": []})
        apply_config(config)
        self.routes = load_config(Path(params["config"])).routes

    def probe(self, dst: str, ttl: int = 64) -> Ether:
        return (
            Ether(dst=SWITCH_MAC, src=HOST_MAC)
            / IP(src="10.0.1.1", dst=dst, ttl=ttl)
            / UDP(sport=5000, dport=5001)
            / PAYLOAD
        )


class RouteForwards(L3Test):
    """A routed packet leaves its route's port with TTL - 1, new MACs and a valid checksum."""

    def runTest(self) -> None:
        route = next(r for r in self.routes if r.port == 2)
        dst = str(next(route.prefix.hosts()))
        sent = self.probe(dst, ttl=64)
        expected = Ether(dst=route.dst_mac, src=route.src_mac) / IP(bytes(sent[IP]))
        expected[IP].ttl = 63
        expected[IP].chksum = None  # scapy recomputes it: a valid checksum is part of the match
        testutils.send_packet(self, 1, sent)
        testutils.verify_packet(self, Ether(bytes(expected)), route.port)
        testutils.verify_no_other_packets(self)


class NoRouteDrops(L3Test):
    """With no matching route, nothing leaves any port."""

    def runTest(self) -> None:
        testutils.send_packet(self, 1, self.probe("192.0.2.1"))
        testutils.verify_no_other_packets(self)
