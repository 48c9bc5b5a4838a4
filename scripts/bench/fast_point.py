"""The demo's RED point at 100 Mbit/s: its fidelity figures and CPU.

Method: the demo's experiment (experiments/studies/demo-fifo-vs-red.yaml) with the
bottleneck at 100 Mbit/s and only its RED point, DURATION_S measured after its 30 s
warm-up, run alone by `p4aqm run`. The web users for 98 % of 100 Mbit/s come from the
committed calibration's fit (users = load / bit/s per user), which was measured up to
4,000 users (17 Mbit/s offered): at about 22,000 users it is an extrapolation, and the
offered load printed here says how far it held. Printed: the point's fidelity.json
(departure lateness per router, late page starts, CPU of the point and of its routers,
the machine's busy share, the bounds it ran outside) and the bottleneck's utilisation
server to client.
"""

import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

from p4aqm.experiments.fidelity import read_fidelity
from p4aqm.report.load import load_point, load_results

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "experiments" / "studies" / "demo-fifo-vs-red.yaml"
P4AQM = str(Path(sys.executable).parent / "p4aqm")
RATE_BPS = 100_000_000
DURATION_S = 60


def experiment_file(folder: Path) -> Path:
    document = yaml.safe_load(DEMO.read_text())
    document["duration_s"] = DURATION_S
    document["topology"]["bottleneck_rate_bps"] = RATE_BPS
    red = [a for a in document["sweep"]["topology.right_to_left_aqm"] if a["discipline"] == "red"]
    document["sweep"]["topology.right_to_left_aqm"] = red
    web = document["traffic"]["web"]
    web["calibration"] = str((DEMO.parent / web["calibration"]).resolve())
    path = folder / "demo-100m.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    return path


def _router_lines(fidelity: dict) -> list[str]:
    bound = fidelity["lateness_p99_bound_us"]
    return [
        f"  {name}: {r['delivered_pkts']} packets delivered,"
        f" lateness p50 {r['lateness_p50_us']:.1f} µs,"
        f" p99 {r['lateness_p99_us']:.1f} µs (bound {bound:.1f}), max {r['lateness_max_us']:.0f}"
        f" µs; monitor overruns {r['monitor_overruns']}, missed {r['monitor_missed']}"
        for name, r in fidelity["routers"].items()
    ]


def report() -> list[str]:
    with tempfile.TemporaryDirectory(prefix="p4aqm-bench-100m-") as temp:
        folder = Path(temp)
        results = folder / "results"
        command = [P4AQM, "run", str(experiment_file(folder)), "-o", str(results)]
        subprocess.run(command, capture_output=True, check=False)
        point = load_results(results, "100m")[0]
        if point.status != "ok":
            return [f"  the point failed: {point.error}"]
        fidelity = read_fidelity(point.folder)
        assert fidelity is not None
        throughput = load_point(point).throughput
        measured = throughput[throughput["measured"]]
        down = measured[measured["direction"] == "server_to_client"]["utilisation"].mean()
        pages, cpu = fidelity["pages"], fidelity["cpu"]
        users = point.manifest["web_users"]
        lines = [f"  {users} web users; server->client utilisation {down:.1%}"]
        lines += _router_lines(fidelity)
        lines += [
            f"  page starts: {pages.get('late_pages', 0)} of {pages.get('pages', 0)} later than"
            f" {pages.get('late_threshold_ms', 0):g} ms; p99 {pages.get('start_late_p99_ms')} ms,"
            f" max {pages.get('start_late_max_ms')} ms",
            f"  CPU: the point {cpu['point_cpu_cores']:.2f} cores, of which its routers"
            f" {cpu['routers_cpu_cores']:.2f}; machine {cpu['machine_busy_share']:.0%} busy"
            f" (load average {cpu['load_average_1min']})",
            "  outside bounds: " + ("; ".join(fidelity["outside_bounds"]) or "none"),
        ]
        return lines


if __name__ == "__main__":
    print("\n".join(report()))
