"""`p4aqm clean` after a SIGKILL: what the killed topology made is gone, nothing else is."""

import os
import signal
import subprocess
import sys
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

from p4aqm.topology.registry import REGISTRY_DIR, TopologyRecord, netns_inode  # noqa: E402

P4AQM = str(Path(sys.executable).parent / "p4aqm")
PREFIX = "p4kc"


def _links() -> set[str]:
    out = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True, check=True).stdout
    return {line.split(":")[1].strip().split("@")[0] for line in out.splitlines()}


def _pids_in(inodes: set[int]) -> list[int]:
    return [
        int(p.name)
        for p in Path("/proc").iterdir()
        if p.name.isdigit() and netns_inode(int(p.name)) in inodes
    ]


def _cmdlines_with(text: str) -> list[str]:
    found = []
    for p in Path("/proc").iterdir():
        if p.name.isdigit() and int(p.name) != os.getpid():
            try:
                cmdline = (p / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except (FileNotFoundError, ProcessLookupError):
                continue
            if text in cmdline and "pytest" not in cmdline:
                found.append(f"{p.name}: {cmdline}")
    return found


@pytest.fixture
def unrelated() -> tuple[str, str]:
    """A namespace and a veth of somebody else's, which clean must not touch."""
    namespace, veth = f"other-ns-{os.getpid()}", f"oth{os.getpid() % 100000}"
    subprocess.run(["ip", "netns", "add", namespace], check=True)
    subprocess.run(
        ["ip", "link", "add", veth, "type", "veth", "peer", "name", f"{veth}p"], check=True
    )
    yield namespace, veth
    subprocess.run(["ip", "netns", "del", namespace], capture_output=True)
    subprocess.run(["ip", "link", "del", veth], capture_output=True)


def test_clean_after_sigkill_removes_ours_only(
    l3_program: CompiledProgram, tmp_path: Path, unrelated: tuple[str, str]
) -> None:
    config = tmp_path / "topo.yaml"
    config.write_text(f"name_prefix: {PREFIX}\nbuild_dir: {l3_program.json_path.parent}\n")
    topo = subprocess.Popen(
        [P4AQM, "topo", "dumbbell", "--config", str(config), "--run-dir", str(tmp_path / "run")],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert topo.stdout is not None
        lines = []
        for line in topo.stdout:
            lines.append(line)
            if line.startswith("Ctrl-C"):
                break
        else:
            pytest.fail("topology did not come up:\n" + "".join(lines))
        record = TopologyRecord.load(REGISTRY_DIR / f"{PREFIX}.json")
        inodes = set(record.namespaces.values())
        # A program left running in a host, as a traffic generator would be.
        host_pid = _pids_in({record.namespaces["s2"]})[0]
        subprocess.Popen(["mnexec", "-a", str(host_pid), "sleep", "600"], start_new_session=True)
        time.sleep(0.3)
        assert any("sleep 600" in c for c in _cmdlines_with("sleep 600"))
        assert {f"{PREFIX}r1-eth100", f"{PREFIX}r2-eth1"} <= _links()
    finally:
        topo.send_signal(signal.SIGKILL)
        topo.wait()

    cleaned = subprocess.run([P4AQM, "clean"], capture_output=True, text=True, timeout=60)
    assert cleaned.returncode == 0, cleaned.stderr
    assert f"topology {PREFIX}" in cleaned.stdout, cleaned.stdout
    time.sleep(0.2)
    assert _pids_in(inodes) == [], "a process survived in a host namespace"
    assert _cmdlines_with(f"{PREFIX}r") == [], "a router's switch survived"
    assert {link for link in _links() if link.startswith(PREFIX)} == set()
    assert not (REGISTRY_DIR / f"{PREFIX}.json").exists()
    namespace, veth = unrelated
    assert (
        namespace in subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    )
    assert veth in _links()


def test_clean_with_nothing_to_do(unrelated: tuple[str, str]) -> None:
    cleaned = subprocess.run([P4AQM, "clean"], capture_output=True, text=True, timeout=60)
    assert cleaned.returncode == 0, cleaned.stderr
    assert unrelated[1] in _links()
