"""What the web generators cost, at the load for 110 % of 10 Mbit/s, with both routers
and the queue monitor on the same 2-core machine.

Method: the default dumbbell (nine RTT groups, 10 Mbit/s bottleneck) with RED on the
server -> client direction (Christiansen et al.'s (30, 90), w_q 1/512, max_p 0.1) and the
queue monitor sampling it every 3 ms (the router handle's `monitor`, in this process).
The users for 110 % of 10 Mbit/s come from the committed calibration
(calibrations/web-tcpeval.yaml). After WARMUP_S, over MEASURE_S:
- clients: CPU seconds per second of the three client processes, as % of a core, per
  1,000 users; servers: the same for the three server processes, per Mbit/s served
  (what crossed the bottleneck server -> client);
- routers and the monitor (this process: the monitor's stream and the load's
  bookkeeping), % of a core each;
- late starts: pages that began over 100 ms after their schedule, from the clients'
  summaries (target 0);
- baseline, measured in the same window: the whole machine's busy CPU (/proc/stat), as %
  of its 2 cores, so that what the generators take can be read against what is left.
"""

import os
from pathlib import Path

from p4aqm.controller import RedConfig
from p4aqm.experiments.web_load import run_web_load
from p4aqm.topology import BOTTLENECK_PORT, RIGHT, Dumbbell, DumbbellSpec
from p4aqm.traffic.calibration import load_calibration, users_for_load
from p4aqm.traffic.web.browsing import WebParams

REPO = Path(__file__).resolve().parents[2]
CALIBRATION = REPO / "calibrations" / "web-tcpeval.yaml"
LOAD_FRACTION = 1.1
BOTTLENECK_BPS = 10_000_000
WARMUP_S = 30
MEASURE_S = 60
# Keywords, not string keys: "max_p" would read as the monitor's column of that name.
RED = RedConfig(min_th=30, max_th=90, max_p=0.1, w_q=1 / 512)
MONITOR_PERIOD_S = 0.003


def report() -> list[str]:
    calibration = load_calibration(CALIBRATION)
    users = users_for_load(calibration, LOAD_FRACTION, BOTTLENECK_BPS)
    spec = DumbbellSpec(
        bottleneck_rate_bps=BOTTLENECK_BPS,
        right_to_left_aqm=RED,
        right_to_left_depth_pkts=None,
        name_prefix="p4gen",
    )
    with Dumbbell(spec) as net:
        router = net.router(RIGHT)
        probes = {BOTTLENECK_PORT: RED.probes()}
        out = net.run_dir / "monitor.parquet"
        with router.monitor(MONITOR_PERIOD_S, probes, out=out):
            # The monitor streams into this process, which also runs the web load's
            # bookkeeping: its CPU is counted as the monitor's.
            pids = (*[r["pid"] for r in net.manifest["routers"].values()], os.getpid())
            load = run_web_load(
                net, users, WebParams(), net.run_dir / "web", WARMUP_S, MEASURE_S,
                watch_pids=pids,
            )  # fmt: skip
    window = load.window_s
    mbps = load.offered_load_bps / 1e6
    lines = [
        f"  {users} users (110 % of 10 Mbit/s by {CALIBRATION.name}): served {mbps:.2f} Mbit/s"
        f" server->client over {window:.0f} s; late starts {load.late_starts} (target 0)",
        f"  clients: {load.client_cpu_s / window:6.1%} of a core,"
        f" {load.client_cpu_s / window / users * 1000:6.1%} per 1,000 users",
        f"  servers: {load.server_cpu_s / window:6.1%} of a core,"
        f" {load.server_cpu_s / window / mbps:6.2%} per Mbit/s served",
    ]
    names = ("router r1", "router r2", "monitor (this process)")
    for name, pid in zip(names, pids, strict=True):
        share = load.watched_cpu_s[pid] / window
        lines.append(f"  {name}: {share:6.1%} of a core")
    lines.append(f"  baseline, the whole machine: {load.machine_busy:.0%} busy (of its 2 cores)")
    return lines
