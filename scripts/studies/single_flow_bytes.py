"""One Reno iperf3 flow across the default dumbbell for 10 s: the receiver's bytes
against the frame bytes the bottleneck carried (the README's Parris et al. cross-check).
Run as root on an idle machine:

    .venv/bin/python scripts/studies/single_flow_bytes.py

With 1,448-byte segments in 1,514-byte frames the ratio is at most 0.956, less the
retransmissions' share.
"""

import json
import subprocess
import time
from pathlib import Path

from p4aqm.topology import BOTTLENECK_PORT, Dumbbell, DumbbellSpec

PORT = 5999
DURATION_S = 10


def rx_bytes(interface: str) -> int:
    return int(Path(f"/sys/class/net/{interface}/statistics/rx_bytes").read_text())


def main() -> None:
    with Dumbbell(DumbbellSpec()) as net:
        client, server = net.clients()[0], net.servers()[0]
        # The right router's bottleneck interface receives what the left one sent.
        bottleneck = net.routers[1].intfs[BOTTLENECK_PORT].name
        receiver = net.host(server).popen(
            ["iperf3", "-s", "-1", "-p", str(PORT)], stdout=subprocess.DEVNULL
        )
        time.sleep(0.5)
        before = rx_bytes(bottleneck)
        command = ["iperf3", "-c", net.ip(server), "-p", str(PORT), "-t", str(DURATION_S)]
        command += ["-J", "--get-server-output", "-C", "reno"]
        sender = net.host(client).popen(command, stdout=subprocess.PIPE, text=True)
        report = json.loads(sender.communicate()[0])
        time.sleep(1)  # the last segments and ACKs
        carried = rx_bytes(bottleneck) - before
        receiver.wait()
    received = report["end"]["sum_received"]["bytes"]
    retransmits = report["end"]["sum_sent"].get("retransmits")
    print(
        f"bottleneck {carried} bytes of frames, receiver {received} bytes,"
        f" {retransmits} retransmits: ratio {received / carried:.3f}"
    )


if __name__ == "__main__":
    main()
