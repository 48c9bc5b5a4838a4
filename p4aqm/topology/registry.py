"""What each running topology made, on disk, so that `p4aqm clean` can undo it.

A topology writes its record before it creates anything and updates it as it goes, so
the record survives a SIGKILL of the process that built it. Each record names:
- the root-namespace interfaces it created (the routers' veth ends);
- the processes it started (switches), each with its start time, so that a pid the
  kernel has since given to another program is never killed;
- the network namespaces of its hosts, by inode: every process inside them is ours
  (the hosts' shells and whatever ran in them, such as traffic generators), and a
  namespace disappears with its last process.

Nothing that is not in a record is touched.
"""

import contextlib
import json
import os
import signal
import subprocess
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

REGISTRY_DIR = Path(os.environ.get("P4AQM_REGISTRY_DIR", "/run/p4aqm/topologies"))


def process_start_ticks(pid: int) -> int | None:
    """The process's start time (clock ticks after boot), or None if it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    return int(stat.rsplit(")", 1)[1].split()[19])


def netns_inode(pid: int) -> int | None:
    try:
        link = os.readlink(f"/proc/{pid}/ns/net")  # "net:[4026532301]"
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    return int(link[link.index("[") + 1 : -1])


@dataclass
class OwnedProcess:
    pid: int
    start_ticks: int
    what: str

    @classmethod
    def of(cls, pid: int, what: str) -> "OwnedProcess | None":
        ticks = process_start_ticks(pid)
        return cls(pid, ticks, what) if ticks is not None else None

    def alive(self) -> bool:
        return process_start_ticks(self.pid) == self.start_ticks


@dataclass
class TopologyRecord:
    name: str
    owner: OwnedProcess
    run_dir: str
    interfaces: list[str] = field(default_factory=list)
    processes: list[OwnedProcess] = field(default_factory=list)
    namespaces: dict[str, int] = field(default_factory=dict)  # host name -> netns inode

    @property
    def path(self) -> Path:
        return REGISTRY_DIR / f"{self.name}.json"

    def save(self) -> None:
        REGISTRY_DIR.mkdir(parents=True, exist_ok=True)
        temp = self.path.with_suffix(".tmp")
        temp.write_text(json.dumps(asdict(self), indent=2))
        temp.replace(self.path)

    def forget(self) -> None:
        self.path.unlink(missing_ok=True)

    @classmethod
    def load(cls, path: Path) -> "TopologyRecord":
        data = json.loads(path.read_text())
        return cls(
            name=data["name"],
            owner=OwnedProcess(**data["owner"]),
            run_dir=data["run_dir"],
            interfaces=list(data["interfaces"]),
            processes=[OwnedProcess(**p) for p in data["processes"]],
            namespaces={k: int(v) for k, v in data["namespaces"].items()},
        )


def records() -> list[TopologyRecord]:
    if not REGISTRY_DIR.is_dir():
        return []
    found = []
    for path in sorted(REGISTRY_DIR.glob("*.json")):
        try:
            found.append(TopologyRecord.load(path))
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{path}: not a topology record ({exc}); remove it by hand") from exc
    return found


def _pids_in_namespaces(inodes: set[int]) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and netns_inode(int(entry.name)) in inodes:
            pids.append(int(entry.name))
    return pids


def _kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def _interface_exists(name: str) -> bool:
    return Path(f"/sys/class/net/{name}").exists()


def clean(record: TopologyRecord) -> list[str]:
    """Kill the record's processes, empty its namespaces, delete its interfaces; return
    what was removed, a line each."""
    removed = []
    if record.owner.alive() and record.owner.pid != os.getpid():
        _kill(record.owner.pid)
        removed.append(f"process {record.owner.pid} ({record.owner.what})")
    for process in record.processes:
        if process.alive():
            _kill(process.pid)
            removed.append(f"process {process.pid} ({process.what})")
    inodes = set(record.namespaces.values())
    hosts = {inode: name for name, inode in record.namespaces.items()}
    for _ in range(50):  # a process may fork while we kill: look again until empty
        pids = [p for p in _pids_in_namespaces(inodes) if p != os.getpid()]
        if not pids:
            break
        for pid in pids:
            host = hosts.get(netns_inode(pid) or 0, "?")
            _kill(pid)
            removed.append(f"process {pid} (in host {host})")
        time.sleep(0.02)
    for name in record.interfaces:
        if _interface_exists(name):
            subprocess.run(["ip", "link", "del", name], capture_output=True)
            removed.append(f"interface {name}")
    record.forget()
    return removed
