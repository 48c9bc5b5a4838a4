"""WAD's additive increase and multiplicative decrease as a congestion control of its own
(p4aqm/tuning/aimd.py): a rule with wadai 6 and wadmd 0.3 gives an unmodified iperf3's
connection a registered congestion control that, traced through a rate-limited loopback,
keeps about 70 % of its window at a congestion event (Reno: 50 %) and grows it several
segments per round trip (Reno: one); it is gone once the tuner detaches."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from p4aqm.topology.cgroup import Cgroup
from p4aqm.topology.netlab import NAMESPACE_PREFIX
from p4aqm.traffic.records import read_records
from p4aqm.tuning.aimd import available
from p4aqm.tuning.bpf import Tuner
from p4aqm.tuning.rules import load_rules

if os.geteuid() != 0:
    pytest.skip("namespaces and BPF need root", allow_module_level=True)

AIMD_PORT, RENO_PORT = 5321, 5322
RULES = f"""rules:
  - name: aimd
    match: {{remote_port: {AIMD_PORT}}}
    set: {{wadai: 6, wadmd: 0.3}}
  - name: reno
    match: {{remote_port: {RENO_PORT}}}
    set: {{congestion_control: reno}}
"""
SECONDS = 5
NO_SSTHRESH = 1 << 30  # tcp_info's "infinite" ssthresh before the first event


@pytest.fixture
def namespace() -> str:
    """A namespace whose loopback is a 20 Mbit/s link with a 150 KB queue (tbf): windows
    of tens of segments, round trips up to 60 ms, losses when the queue fills."""
    name = f"{NAMESPACE_PREFIX}{os.getpid()}-aimd"
    subprocess.run(["ip", "netns", "add", name], check=True)
    try:
        for command in (
            ["ip", "link", "set", "lo", "mtu", "1500", "up"],
            ["tc", "qdisc", "add", "dev", "lo", "root", "tbf", "rate", "20mbit",
             "burst", "10kb", "limit", "150kb"],
            ["ethtool", "-K", "lo", "tso", "off", "gso", "off"],
        ):  # fmt: skip
            subprocess.run(["ip", "netns", "exec", name, *command], check=True)
        yield name
    finally:
        subprocess.run(["ip", "netns", "del", name], check=True)


def traced_flow(namespace: str, cgroup: Cgroup, port: int, out: Path) -> dict:
    """An iperf3 flow inside the cgroup, its sender traced every millisecond; the client's
    JSON report."""
    inside = ["ip", "netns", "exec", namespace]
    server = subprocess.Popen([*inside, "iperf3", "-s", "-1", "-p", str(port)],
                              stdout=subprocess.DEVNULL)  # fmt: skip
    tracer = subprocess.Popen(
        [*inside, sys.executable, "-m", "p4aqm.traffic.tcp_trace", "--out", str(out),
         "--period-ms", "1", "--port", str(port)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert tracer.stdout.readline().startswith("tracing every"), "the tracer did not start"
        script = (
            f"echo $$ > {cgroup.procs_file} && exec {' '.join(inside)}"
            f" iperf3 -c 127.0.0.1 -p {port} -t {SECONDS} -J"
        )
        done = subprocess.run(["sh", "-c", script], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stdout + done.stderr
        return json.loads(done.stdout)
    finally:
        tracer.terminate()
        tracer.wait(timeout=30)
        server.kill()
        server.wait()


def sender(records: pd.DataFrame, port: int) -> pd.DataFrame:
    """The data connection's sender side (iperf3's control connection moves little)."""
    sent = records[records["dport"] == port]
    busiest = sent.groupby("sport")["bytes_acked"].max().idxmax()
    return sent[sent["sport"] == busiest].sort_values("realtime_ns").reset_index(drop=True)


def kept_share(flow: pd.DataFrame) -> float:
    """The median of ssthresh / cwnd just before, at each event that lowered ssthresh."""
    ssthresh = flow["snd_ssthresh_pkts"].to_numpy(dtype=float)
    cwnd = flow["snd_cwnd_pkts"].to_numpy(dtype=float)
    previous = np.concatenate([[np.inf], ssthresh[:-1]])
    lowered = (ssthresh < NO_SSTHRESH) & (ssthresh < previous)
    lowered[0] = False
    shares = ssthresh[lowered] / cwnd[np.flatnonzero(lowered) - 1]
    assert len(shares) >= 2, f"only {len(shares)} congestion events in {SECONDS} s"
    return float(np.median(shares))


def increase_per_rtt(flow: pd.DataFrame) -> float:
    """Segments added to cwnd per smoothed round trip in congestion avoidance (state Open,
    cwnd at or above ssthresh), over all such stretches."""
    avoiding = (flow["ca_state"] == 0) & (flow["snd_cwnd_pkts"] >= flow["snd_ssthresh_pkts"])
    both = avoiding & avoiding.shift(fill_value=False)
    grown = flow["snd_cwnd_pkts"].astype(float).diff()[both]
    rtts = (flow["realtime_ns"].diff() / 1e3 / flow["srtt_us"])[both]
    assert rtts.sum() > 5, "too little congestion avoidance traced"
    return float(grown.clip(lower=0).sum() / rtts.sum())


def test_wads_increase_and_decrease(namespace: str, cgroup: Cgroup, tmp_path: Path) -> None:
    rules_file = tmp_path / "wad.yaml"
    rules_file.write_text(RULES)
    with Tuner(load_rules(rules_file), cgroup.path, f"aimd{os.getpid()}") as tuner:
        name = tuner.congestion_controls()["aimd"]
        assert name in available()
        aimd_report = traced_flow(namespace, cgroup, AIMD_PORT, tmp_path / "aimd.parquet")
        reno_report = traced_flow(namespace, cgroup, RENO_PORT, tmp_path / "reno.parquet")
    assert name not in available(), "unregistered when the tuner detached"
    assert aimd_report["end"]["sender_tcp_congestion"] == name
    assert reno_report["end"]["sender_tcp_congestion"] == "reno"
    aimd = sender(read_records(tmp_path / "aimd.parquet")[0], AIMD_PORT)
    reno = sender(read_records(tmp_path / "reno.parquet")[0], RENO_PORT)
    assert set(aimd["congestion_control"]) == {name}
    assert kept_share(aimd) == pytest.approx(0.7, abs=0.08)
    assert kept_share(reno) == pytest.approx(0.5, abs=0.08)
    assert increase_per_rtt(reno) < 2
    assert increase_per_rtt(aimd) > 3 * increase_per_rtt(reno)
