"""A sandbox for one experiment point: a network namespace of its own, and a cgroup.

Points that run at once each build their whole topology inside their own namespace:
the routers' interfaces (PREFIXr1-eth1, ...), their gRPC ports on the namespace's
loopback and the hosts' addresses are the same in every point and never meet. The
cgroup holds every process the point starts, so the point's CPU is counted whole and a
killed point's leftovers can be found without a record.

A sandbox is named SANDBOX_PREFIX + OWNER_PID + "-" + SLOT: `p4aqm clean` removes the
sandboxes whose owner is gone (a `p4aqm run --jobs` that was killed), with everything in
them.
"""

import os
import subprocess
from pathlib import Path

from p4aqm.topology.cgroup import Cgroup, CgroupError, p4aqm_root
from p4aqm.topology.netlab import DIE_WITH_PARENT, list_namespaces
from p4aqm.topology.registry import clean, records

SANDBOX_PREFIX = "p4aqm-j"
# Joins the cgroup named by $0, then execs the rest: the process is in the group before
# it forks anything.
_JOIN_CGROUP = 'echo $$ > "$0" && exec "$@"'
# `ip netns exec` mounts a sysfs of the namespace's own (so that /sys/class/net shows its
# interfaces), which hides the cgroup mount under it: mount cgroup v2 again, in the
# command's own mount namespace, so that the point can count its CPU.
_MOUNT_CGROUP = 'mount -t cgroup2 cgroup2 /sys/fs/cgroup && exec "$@"'


class Sandbox:
    """Raises CgroupError, naming what, when the sandbox cannot be made."""

    def __init__(self, slot: int, owner_pid: int | None = None) -> None:
        self.name = f"{SANDBOX_PREFIX}{owner_pid or os.getpid()}-{slot}"
        root = p4aqm_root()
        if root is None:
            raise CgroupError("no cgroup v2 mount (/sys/fs/cgroup/unified or /sys/fs/cgroup)")
        self.cgroup = Cgroup(root / self.name)

    def create(self) -> "Sandbox":
        self.remove()  # a namespace of the same name can only be a dead run's
        self.cgroup.create()  # first: if it cannot be made, no namespace is left behind
        added = subprocess.run(["ip", "netns", "add", self.name], capture_output=True, text=True)
        if added.returncode != 0:
            self.cgroup.remove()
            raise CgroupError(f"cannot make the namespace {self.name}: {added.stderr.strip()}")
        subprocess.run(
            ["ip", "-n", self.name, "link", "set", "lo", "up"], check=True, capture_output=True
        )
        return self

    def command(self, args: list[str]) -> list[str]:
        """`args` run in the sandbox, killed by the kernel if this process dies."""
        join = ["sh", "-c", _JOIN_CGROUP, str(self.cgroup.procs_file)]
        enter = ["ip", "netns", "exec", self.name, "sh", "-c", _MOUNT_CGROUP, "sh"]
        return [*DIE_WITH_PARENT, *join, *enter, *args]

    def remove(self) -> list[str]:
        """Kill what runs in the sandbox and delete it, with the records of the
        topologies built in it; what was removed, a line each."""
        removed = []
        for record in records():
            if record.netns == self.name:
                removed += clean(record)
        removed += [f"process {pid} (in sandbox {self.name})" for pid in self.cgroup.kill()]
        self.cgroup.remove()
        if self.name in list_namespaces():
            subprocess.run(["ip", "netns", "del", self.name], capture_output=True)
            removed.append(f"namespace {self.name}")
        return removed


def _owner(name: str) -> int | None:
    owner = name[len(SANDBOX_PREFIX) :].split("-", 1)[0]
    return int(owner) if owner.isdigit() else None


def _slot(name: str) -> int:
    slot = name.rsplit("-", 1)[1]
    return int(slot) if slot.isdigit() else 0


def remove_stale_sandboxes() -> list[str]:
    """Remove the sandboxes (namespaces and cgroups) whose owning process is gone."""
    names = {n for n in list_namespaces() if n.startswith(SANDBOX_PREFIX)}
    root = p4aqm_root()
    if root is not None and root.is_dir():
        names |= {p.name for p in root.iterdir() if p.name.startswith(SANDBOX_PREFIX)}
    removed = []
    for name in sorted(names):
        owner = _owner(name)
        if owner is not None and not Path(f"/proc/{owner}").exists():
            removed += Sandbox(_slot(name), owner).remove()
    return removed
