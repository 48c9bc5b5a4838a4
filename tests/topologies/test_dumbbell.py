"""The dumbbell of p4aqm/topology/ on `p4aqm switch`: RTT groups, host TCP settings, teardown."""

import os
import re
import subprocess
import time
from pathlib import Path

import pytest

from programs import CompiledProgram

if os.geteuid() != 0:
    pytest.skip("the dumbbell needs root (namespaces, veths)", allow_module_level=True)
try:
    import mininet.net  # noqa: F401
except ImportError as exc:
    pytest.skip(
        f"Mininet cannot be imported ({exc}): run scripts/setup.sh", allow_module_level=True
    )

from tcp_probes import HOLDER, OPENER, python_command  # noqa: E402

from p4aqm.topology import Dumbbell, DumbbellSpec, HostTcp  # noqa: E402

PINGS = 20
ALGORITHMS = set(Path("/proc/sys/net/ipv4/tcp_available_congestion_control").read_text().split())
NO_SACK = {"c2", "s2"}
ECN = {"c3": 1, "s1": 2}
CONGESTION_CONTROLS = {"c1": "reno", "c2": "cubic", "c3": "bbr", "s1": "bbr", "s2": "reno"}


def spec_for(program: CompiledProgram, tmp: Path, **kw: object) -> DumbbellSpec:
    return DumbbellSpec(build_dir=program.json_path.parent, run_dir=tmp, **kw)


@pytest.fixture(scope="module")
def dumbbell(l3_program: CompiledProgram, tmp_path_factory: pytest.TempPathFactory) -> Dumbbell:
    by_name = {
        name: HostTcp(congestion_control=cc, sack=name not in NO_SACK, ecn=ECN.get(name, 0))
        for name, cc in CONGESTION_CONTROLS.items()
    }
    spec = spec_for(l3_program, tmp_path_factory.mktemp("dumbbell"), host_tcp_by_name=by_name)
    with Dumbbell(spec) as net:
        yield net


def test_default_has_nine_rtt_groups(dumbbell: Dumbbell) -> None:
    targets = sorted(p["rtt_target_us"] for p in dumbbell.manifest["pairs"])
    assert targets == [ms * 1000 for ms in (4, 28, 54, 74, 98, 124, 150, 174, 200)]


def test_min_ping_rtt_per_pair_within_2_percent_plus_1_ms(dumbbell: Dumbbell) -> None:
    pings = {}
    for client in dumbbell.clients():
        for server in dumbbell.servers():
            command = ["ping", "-n", "-c", str(PINGS), "-i", "0.05", "-W", "2", dumbbell.ip(server)]
            pings[client, server] = dumbbell.host(client).popen(
                command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
            )
    errors = []
    for (client, server), process in pings.items():
        out, _ = process.communicate(timeout=30)
        rtts = [float(x) for x in re.findall(r"time=([\d.]+) ms", out)]
        target_ms = dumbbell.rtt_target_us(client, server) / 1000
        if len(rtts) < PINGS // 2:
            errors.append(f"{client}->{server}: {len(rtts)} replies:\n{out}")
            continue
        lowest = min(rtts)
        if abs(lowest - target_ms) > 0.02 * target_ms + 1.0:
            errors.append(f"{client}->{server}: min RTT {lowest} ms, target {target_ms} ms")
    assert not errors, "\n".join(errors)


def test_the_bottleneck_delay_is_crossed_once_each_way(
    l3_program: CompiledProgram, tmp_path: Path
) -> None:
    # Both routers emulate the bottleneck link: its 15 ms must count once per direction
    # (an RTT of 2 x (5 + 15) ms), not once per router.
    spec = spec_for(l3_program, tmp_path, left_delays_us=(5000,), right_delays_us=(0,),
                    bottleneck_delay_us=15_001, name_prefix="p4b")  # fmt: skip
    with Dumbbell(spec) as net:
        client, server = net.clients()[0], net.servers()[0]
        assert net.rtt_target_us(client, server) == 40_002
        command = ["ping", "-n", "-c", str(PINGS), "-i", "0.05", "-W", "2", net.ip(server)]
        out = net.host(client).cmd(" ".join(command))
    rtts = [float(x) for x in re.findall(r"time=([\d.]+) ms", out)]
    assert len(rtts) >= PINGS // 2, out
    assert min(rtts) == pytest.approx(40.0, abs=0.02 * 40 + 1.0), out


def test_tcp_settings_read_back_per_host(dumbbell: Dumbbell) -> None:
    hosts = dumbbell.manifest["hosts"]
    for name in (*dumbbell.clients(), *dumbbell.servers()):
        want = CONGESTION_CONTROLS.get(name, "cubic")
        assert hosts[name]["congestion_control"] == want, name
        live = dumbbell.host(name).cmd("sysctl -n net.ipv4.tcp_congestion_control").strip()
        assert live == want, name
    for name, host in hosts.items():
        assert host["sack"] == (name not in NO_SACK) and host["ecn"] == ECN.get(name, 0), name
        sack, ecn = dumbbell.host(name).cmd("sysctl -n net.ipv4.tcp_sack net.ipv4.tcp_ecn").split()
        assert (int(sack), int(ecn)) == (name not in NO_SACK, ECN.get(name, 0)), name
        assert host["ipv6_disabled"] and host["initcwnd"] == 10 and host["mtu_bytes"] == 1500
        assert not any(host["offloads"].values()), host["offloads"]


def test_connections_use_their_hosts_congestion_control(dumbbell: Dumbbell) -> None:
    """`ss -ti` on both ends of a connection per (cN, sN) pair names each host's own
    algorithm: the sender side of a socket picks it, so the two ends may differ."""
    port = 7100
    holders = []
    try:
        for client, server in zip(dumbbell.clients(), dumbbell.servers(), strict=True):
            holder = dumbbell.host(server).popen(
                python_command(HOLDER, port), stdout=subprocess.PIPE, text=True
            )
            holders.append(holder)
            assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
            opener = python_command(OPENER, dumbbell.ip(server), port)
            holders.append(dumbbell.host(client).popen(opener))
        for name in (*dumbbell.clients(), *dumbbell.servers()):
            want = CONGESTION_CONTROLS.get(name, "cubic")
            deadline = time.monotonic() + 5
            while True:
                out = dumbbell.host(name).cmd(
                    f"ss -tin state established '( sport = :{port} or dport = :{port} )'"
                )
                algorithms = [word for word in out.split() if word in ALGORITHMS]
                if algorithms or time.monotonic() > deadline:
                    break
                time.sleep(0.1)
            assert algorithms == [want], f"{name}: want {want}; ss -ti:\n{out}"
    finally:
        for process in holders:
            process.kill()
            process.wait()


def _namespaces() -> set[str]:
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    return {line.split()[0] for line in out.splitlines() if line.strip()}


def _links() -> set[str]:
    out = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
    return {line.split(":")[1].strip().split("@")[0] for line in out.splitlines()}


def _switch_pids() -> set[int]:
    out = subprocess.run(["pgrep", "-f", "p4aqm switch"], capture_output=True, text=True).stdout
    return {int(pid) for pid in out.split()}


def test_teardown_leaves_nothing(l3_program: CompiledProgram, tmp_path: Path) -> None:
    prefix = "p4td"
    before = (_namespaces(), _links(), _switch_pids())
    with Dumbbell(spec_for(l3_program, tmp_path, name_prefix=prefix)) as net:
        switch_pids = {r["pid"] for r in net.manifest["routers"].values()}
        host_pids = {net.host(name).pid for name in net.plans}
        during_links = _links()
    assert {name for name in during_links if name.startswith(prefix)}
    namespaces, links, pids = _namespaces(), _links(), _switch_pids()
    # Other tests may run alongside: only what this topology made must be gone.
    assert {ns for ns in namespaces - before[0] if not ns.startswith("p4aqm-t")} == set()
    assert {link for link in links if link.startswith(prefix)} == set()
    assert links - before[1] <= links - during_links
    assert not (switch_pids & pids), "a router's switch process survived"
    for pid in pids - before[2]:
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
        except FileNotFoundError:
            continue  # another test's switch, gone meanwhile
        assert f"{prefix}r".encode() not in cmdline, cmdline
    assert not [pid for pid in host_pids | switch_pids if Path(f"/proc/{pid}").exists()]
