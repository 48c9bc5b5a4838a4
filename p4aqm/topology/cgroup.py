"""A control group of cgroup v2: the CPU a set of processes used, and a way to kill them
all, children included.

A process moved into a group stays there, and so does everything it forks: a point's
switches, host shells and traffic generators. The group's cpu.stat counts their CPU even
after they exit, which summing /proc/PID/stat of the live ones would not; cgroup.kill
reaches processes that no record names. No controller is needed for either (cpu.stat's
usage is the kernel's own accounting), so this works where the cpu controller stays on
cgroup v1, as on this machine's hybrid layout.
"""

import contextlib
import errno
import os
import time
from collections.abc import Iterator
from pathlib import Path

# The cgroup v2 mount: /sys/fs/cgroup on a unified layout, .../unified on a hybrid one.
_MOUNTS = (Path("/sys/fs/cgroup/unified"), Path("/sys/fs/cgroup"))
CGROUP_ROOT_ENV = "P4AQM_CGROUP_ROOT"
REMOVE_WAIT_S = 5.0


class CgroupError(RuntimeError):
    pass


def cgroup2_mount() -> Path | None:
    """Where cgroup v2 is mounted, or None."""
    for mount in _MOUNTS:
        if (mount / "cgroup.procs").is_file() and (mount / "cgroup.controllers").is_file():
            return mount
    return None


def p4aqm_root() -> Path | None:
    """The folder under which p4aqm makes its groups, or None without cgroup v2."""
    if CGROUP_ROOT_ENV in os.environ:
        return Path(os.environ[CGROUP_ROOT_ENV])
    mount = cgroup2_mount()
    return mount / "p4aqm" if mount is not None else None


def own_cgroup(pid: int | str = "self") -> Path | None:
    """The cgroup v2 group of a process (by its /proc/PID/cgroup line "0::/PATH")."""
    mount = cgroup2_mount()
    if mount is None:
        return None
    try:
        lines = Path(f"/proc/{pid}/cgroup").read_text().splitlines()
    except (FileNotFoundError, ProcessLookupError):
        return None
    for line in lines:
        if line.startswith("0::"):
            return mount / line[3:].lstrip("/")
    return None


class Cgroup:
    def __init__(self, path: Path) -> None:
        self.path = path

    def create(self) -> "Cgroup":
        try:
            self.path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CgroupError(f"cannot make the cgroup {self.path}: {exc}") from exc
        return self

    def exists(self) -> bool:
        return (self.path / "cgroup.procs").is_file()

    @property
    def procs_file(self) -> Path:
        return self.path / "cgroup.procs"

    def add(self, pid: int) -> None:
        self.procs_file.write_text(f"{pid}\n")

    def pids(self) -> list[int]:
        """Every process in the group and in the groups under it."""
        found = []
        for procs in self.path.rglob("cgroup.procs"):
            with contextlib.suppress(FileNotFoundError):
                found += [int(line) for line in procs.read_text().split()]
        return found

    def usage_us(self) -> int:
        """CPU time of every process that was ever in the group (and under it), in µs."""
        for line in (self.path / "cpu.stat").read_text().splitlines():
            key, value = line.split()
            if key == "usage_usec":
                return int(value)
        raise CgroupError(f"{self.path}/cpu.stat has no usage_usec")

    def kill(self) -> list[int]:
        """SIGKILL every process in the group and under it; wait until they are gone
        (at most a few seconds); return the pids that were there."""
        pids = self.pids()
        if not pids:
            return []
        (self.path / "cgroup.kill").write_text("1\n")
        deadline = time.monotonic() + 5.0
        while self.pids() and time.monotonic() < deadline:
            time.sleep(0.02)
        return pids

    def remove(self) -> None:
        """Remove the group and the groups under it, deepest first (they must be empty).
        A group stays busy for a moment after its last process was killed: retried for
        REMOVE_WAIT_S, then CgroupError."""
        if not self.path.is_dir():
            return
        children = sorted((p for p in self.path.rglob("*") if p.is_dir()), reverse=True)
        for group in [*children, self.path]:
            deadline = time.monotonic() + REMOVE_WAIT_S
            while True:
                try:
                    group.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError as exc:
                    if exc.errno != errno.EBUSY or time.monotonic() > deadline:
                        raise CgroupError(f"cannot remove the cgroup {group}: {exc}") from exc
                    time.sleep(0.05)


@contextlib.contextmanager
def joined_cgroup(name: str) -> Iterator[Cgroup | None]:
    """This process in a group of its own for the block: what it starts there is counted
    there, and killed on the way out if still running. The group is made under this
    process's own group if that is one of p4aqm's (a sandbox's: so that killing the
    sandbox reaches it), else under p4aqm's root. Yields None without cgroup v2."""
    root, own = p4aqm_root(), own_cgroup()
    if root is None or own is None:
        yield None
        return
    parent = own if own.is_relative_to(root) else root
    group = Cgroup(parent / name)
    try:
        group.create().add(os.getpid())
    except (CgroupError, OSError):
        yield None
        return
    try:
        yield group
    finally:
        Cgroup(own).add(os.getpid())
        group.kill()
        group.remove()
