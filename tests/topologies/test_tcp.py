"""TCP through the default dumbbell on `p4aqm switch`: throughput through a 100-packet
drop-tail bottleneck, and the initial congestion window and least retransmission timeout
on a 200 ms RTT."""

import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from programs import CompiledProgram

if os.geteuid() != 0:
    pytest.skip("the dumbbell needs root (namespaces, veths)", allow_module_level=True)
if shutil.which("iperf3") is None:
    pytest.skip("iperf3 is not installed: run scripts/setup.sh", allow_module_level=True)

from tcp_probes import REQUESTER, RESPONDER, python_command  # noqa: E402

from p4aqm.topology import Dumbbell, DumbbellSpec, HostTcp  # noqa: E402
from p4aqm.topology.cpu_latency import current_limit_us  # noqa: E402

BOTTLENECK_BPS = 10_000_000
# The most TCP can carry: 1448 payload bytes (MSS 1460 less 12 of timestamps) per
# 1514-byte Ethernet frame, the bytes the bottleneck's rate counts.
TCP_MAX_BPS = BOTTLENECK_BPS * 1448 / 1514
MEASURE_S = 20
OMIT_S = 5  # slow start and the first losses are not the steady state


@pytest.fixture(scope="module")
def dumbbell(l3_program: CompiledProgram, tmp_path_factory: pytest.TempPathFactory) -> Dumbbell:
    spec = DumbbellSpec(
        build_dir=l3_program.json_path.parent,
        run_dir=tmp_path_factory.mktemp("tcp"),
        bottleneck_rate_bps=BOTTLENECK_BPS,
        left_to_right_depth_pkts=100,
        host_tcp=HostTcp(congestion_control="cubic", initcwnd=10),
        host_tcp_by_name={"s3": HostTcp(congestion_control="cubic", initcwnd=3, rto_min_ms=1000)},
    )
    with Dumbbell(spec) as net:
        yield net


# Headers of a data segment in the servers' frames: Ethernet 14, IPv4 20, TCP 20 and
# 12 of timestamps. The veth counters count frames without the FCS.
HEADER_BYTES = 66


def received_payload_bytes(net: Dumbbell, servers: list[str]) -> int:
    """TCP payload bytes the servers' interfaces have received (frames less headers)."""
    total = 0
    for name in dict.fromkeys(servers):
        stats = f"/sys/class/net/{net.host(name).defaultIntf().name}/statistics"
        rx_bytes, rx_packets = (
            net.host(name).cmd(f"cat {stats}/rx_bytes {stats}/rx_packets").split()
        )
        total += int(rx_bytes) - HEADER_BYTES * int(rx_packets)
    return total


def run_flows(net: Dumbbell, pairs: list[tuple[str, str]]) -> tuple[float, list[float]]:
    """One cubic flow per (client, server) pair, client to server, all at once. Returns
    the payload rate the servers received over a common MEASURE_S window after OMIT_S
    (bit/s; it counts retransmitted payload too), and each flow's iperf3 goodput."""
    servers = []
    for k, (_, server) in enumerate(pairs):
        command = ["iperf3", "-s", "-1", "-p", str(5201 + k)]
        servers.append(net.host(server).popen(command, stdout=subprocess.DEVNULL))
    clients = []
    try:
        for k, (client, server) in enumerate(pairs):
            command = ["iperf3", "-c", net.ip(server), "-p", str(5201 + k), "-J", "-C", "cubic"]
            command += ["-t", str(OMIT_S + MEASURE_S + 2), "--connect-timeout", "3000"]
            clients.append(net.host(client).popen(command, stdout=subprocess.PIPE, text=True))
        hosts = [server for _, server in pairs]
        time.sleep(OMIT_S)
        before, start = received_payload_bytes(net, hosts), time.monotonic()
        time.sleep(MEASURE_S)
        after, end = received_payload_bytes(net, hosts), time.monotonic()
        goodputs = []
        for process in clients:
            out, _ = process.communicate(timeout=MEASURE_S + 30)
            report = json.loads(out)
            assert "error" not in report, report["error"]
            goodputs.append(report["end"]["sum_received"]["bits_per_second"])
        return 8 * (after - before) / (end - start), goodputs
    finally:
        for process in [*servers, *clients]:
            process.kill()
            process.wait()


def test_one_cubic_flow_on_the_4ms_pair_fills_the_bottleneck(dumbbell: Dumbbell) -> None:
    rate, (goodput,) = run_flows(dumbbell, [("c1", "s1")])
    share = rate / TCP_MAX_BPS
    assert 0.95 <= share <= 1.005, f"{rate / 1e6:.3f} Mbit/s = {share:.1%} of TCP's most"
    assert goodput >= 0.95 * TCP_MAX_BPS, f"iperf3 goodput {goodput / 1e6:.3f} Mbit/s"


def test_nine_flows_one_per_rtt_group_fill_the_bottleneck(dumbbell: Dumbbell) -> None:
    pairs = [(c, s) for c in dumbbell.clients() for s in dumbbell.servers()]
    rate, goodputs = run_flows(dumbbell, pairs)
    share = rate / TCP_MAX_BPS
    detail = ", ".join(f"{c}-{s} {g / 1e6:.2f}" for (c, s), g in zip(pairs, goodputs, strict=True))
    assert 0.95 <= share <= 1.005, f"{share:.1%} of TCP's most; iperf3 Mbit/s: {detail}"
    assert all(g > 0 for g in goodputs), detail


def response_rounds(net: Dumbbell, responder: str, requester: str, size: int) -> float:
    """Seconds from request to the reply's last byte, in RTTs of the pair."""
    port = 7000
    server = net.host(responder).popen(
        python_command(RESPONDER, port), stdout=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None and server.stdout.readline().strip() == "ready"
        command = python_command(REQUESTER, net.ip(responder), port, size)
        requester_process = net.host(requester).popen(command, stdout=subprocess.PIPE, text=True)
        out, _ = requester_process.communicate(timeout=30)
        got, seconds = out.split()
        assert int(got) == size, out
    finally:
        server.kill()
        server.wait()
    pair = (responder, requester) if responder.startswith("c") else (requester, responder)
    return float(seconds) / (net.rtt_target_us(*pair) / 1e6)


def test_initial_window_sets_the_round_trips_of_a_14kb_response(dumbbell: Dumbbell) -> None:
    """14,000 bytes are 10 segments of 1448. With initcwnd 10 they leave in one flight: one
    round trip (plus 11 ms of serialisation at 10 Mbit/s). With initcwnd 3, slow start
    sends 3, then 6 (9 in all, 13,032 bytes), then the last: three round trips. The issue
    expected two; 2 rounds hold only up to 9 segments, so that does not reproduce."""
    c3, s3 = dumbbell.manifest["hosts"]["c3"], dumbbell.manifest["hosts"]["s3"]
    assert (c3["initcwnd"], s3["initcwnd"]) == (10, 3)
    # The same 200 ms path both ways: c3 answers with initcwnd 10, s3 with initcwnd 3.
    iw10 = response_rounds(dumbbell, "c3", "s3", 14_000)
    iw3 = response_rounds(dumbbell, "s3", "c3", 14_000)
    assert round(iw10) == 1, f"initcwnd 10: {iw10:.2f} RTTs"
    assert round(iw3) == 3, f"initcwnd 3: {iw3:.2f} RTTs"
    # And a response that fits in 3 + 6 segments takes two.
    assert round(response_rounds(dumbbell, "s3", "c3", 13_000)) == 2


def test_run_dir_holds_the_manifest(dumbbell: Dumbbell) -> None:
    manifest = json.loads((Path(dumbbell.run_dir) / "manifest.json").read_text())
    assert manifest["hosts"]["s3"]["initcwnd"] == 3


def sender_rto_ms(net: Dumbbell, sender: str, receiver: str, port: int) -> int:
    """The retransmission timeout of a bulk flow's sender, 2 s into the flow (`ss -ti`)."""
    server = net.host(receiver).popen(["iperf3", "-s", "-1", "-p", str(port)])
    time.sleep(0.3)
    client = net.host(sender).popen(
        ["iperf3", "-c", net.ip(receiver), "-p", str(port), "-t", "4", "-b", "1M"],
        stdout=subprocess.DEVNULL,
    )
    try:
        time.sleep(2)
        shown = net.host(sender).cmd(f"ss -tin dst {net.ip(receiver)} dport = :{port}")
    finally:
        for process in (client, server):
            process.kill()
            process.wait()
    rtos = [int(r) for r in re.findall(r"\brto:(\d+)", shown)]
    assert rtos, shown
    return max(rtos)  # the data connection's: the control connection's is idle


def test_rto_min_on_the_routes_sets_the_least_timeout(dumbbell: Dumbbell) -> None:
    """On the 200 ms path, Linux's timeout is about the smoothed RTT plus its least
    variation, rto_min: about 400 ms with the default 200 ms, 1.2 s with s3's 1 s."""
    assert dumbbell.manifest["hosts"]["s3"]["rto_min_ms"] == 1000
    assert dumbbell.manifest["hosts"]["c3"]["rto_min_ms"] is None
    assert sender_rto_ms(dumbbell, "s3", "c3", 5301) >= 1200
    assert sender_rto_ms(dumbbell, "c3", "s3", 5302) < 1000


def test_both_routers_and_all_their_threads_are_held_to_one_cpu(dumbbell: Dumbbell) -> None:
    """routers_cpu "auto" at 10 Mbit/s: one CPU for both routers, every thread of theirs
    (the event loop is started after the exec), and the manifest says which."""
    cpus = {r["cpu"] for r in dumbbell.manifest["routers"].values()}
    if len(os.sched_getaffinity(0)) < 2:
        assert cpus == {None}
        return
    (cpu,) = cpus
    assert cpu in os.sched_getaffinity(0)
    for router in dumbbell.manifest["routers"].values():
        tasks = list(Path(f"/proc/{router['pid']}/task").iterdir())
        assert any((t / "comm").read_text().strip() == "p4dp-loop" for t in tasks)
        assert {frozenset(os.sched_getaffinity(int(t.name))) for t in tasks} == {frozenset({cpu})}


def test_idle_cpus_poll_while_the_dumbbell_runs(dumbbell: Dumbbell) -> None:
    """cpu_latency_us 0 (the default) is in force from start to stop."""
    assert dumbbell.spec.cpu_latency_us == 0
    assert current_limit_us() == 0
