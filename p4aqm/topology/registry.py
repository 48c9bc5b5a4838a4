"""What each running topology made, on disk, so that `p4aqm clean` can undo it.

A topology writes its record before it creates anything and updates it as it goes, so
the record survives a SIGKILL of the process that built it. Each record names:
- the root-namespace interfaces it created (the routers' veth ends);
- the processes it started (switches), each with its start time, so that a pid the
  kernel has since given to another program is never killed;
- the network namespaces of its hosts, by inode: every process inside them is ours
  (the hosts' shells and whatever ran in them, such as traffic generators), and a
  namespace disappears with its last process;
- the named namespace it was built in (a point's sandbox: p4aqm/topology/sandbox.py),
  or none for the root namespace: its interfaces are that namespace's, and two
  topologies of the same name in different namespaces are different topologies.

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


def current_netns() -> str | None:
    """The name (under /run/netns) of the namespace this process is in; None if it is
    not a named one (the root namespace)."""
    own = netns_inode(os.getpid())
    netns_dir = Path("/run/netns")
    if own is None or not netns_dir.is_dir():
        return None
    for path in netns_dir.iterdir():
        with contextlib.suppress(OSError):
            if path.stat().st_ino == own:
                return path.name
    return None


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
    netns: str | None = None  # the named namespace it was built in; None: the root's

    @property
    def path(self) -> Path:
        stem = f"{self.netns}.{self.name}" if self.netns else self.name
        return REGISTRY_DIR / f"{stem}.json"

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
            netns=data.get("netns"),
        )


def records() -> list[TopologyRecord]:
    if not REGISTRY_DIR.is_dir():
        return []
    found = []
    for path in sorted(REGISTRY_DIR.glob("*.json")):
        try:
            found.append(TopologyRecord.load(path))
        except FileNotFoundError:
            continue  # its topology was torn down since the listing
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


def _delete_interface(name: str, netns: str | None) -> bool:
    """Delete an interface of the root namespace or of a named one; true if it was there
    (a deleted namespace took its interfaces with it)."""
    where = ["-n", netns] if netns else []
    shown = subprocess.run(["ip", *where, "link", "show", name], capture_output=True)
    if shown.returncode != 0:
        return False
    subprocess.run(["ip", *where, "link", "del", name], capture_output=True)
    return True


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
        if _delete_interface(name, record.netns):
            removed.append(f"interface {name}")
    record.forget()
    return removed
