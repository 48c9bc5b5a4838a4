"""The sock_ops program (sockops.bpf.c) built, loaded, filled with a rule file's rules and
attached to a cgroup, with the tools Debian ships for it: clang (-target bpf) and bpftool
(scripts/setup.sh installs both). A Tuner pins the program and its maps under
/sys/fs/bpf/p4aqm-wad-PID-NAME (PID: the process that attached it) while it is attached;
detach() removes them, and the per-rule counters (connections tuned, options refused) can
be read until then. `p4aqm clean` removes the pins of processes that are gone.

Why a C program: of the per-connection options WAD set, Linux lets buffers, congestion
control, initial window, cwnd clamp, delayed-ACK ceiling and minimum RTO be set from a
sock_ops program as each connection opens; per-route metrics reach only the initial
window, congestion control and RTO, and nothing else reaches an unmodified application.
"""

import hashlib
import json
import os
import platform
import shutil
import struct
from pathlib import Path
from types import TracebackType

from p4aqm.tuning.aimd import Aimd
from p4aqm.tuning.commands import TuningError, cache_dir, run
from p4aqm.tuning.rules import Rule, Rules

SOURCE = Path(__file__).with_name("sockops.bpf.c")
BPFFS = Path("/sys/fs/bpf")
# struct rule: thirteen __u32 (addresses in network order, ports and values in host
# order), then the congestion control's name.
RULE = struct.Struct("=4s4s4s4s9I16s")
SET_BITS = {
    "sndbuf_bytes": 1 << 0,
    "rcvbuf_bytes": 1 << 1,
    "congestion_control": 1 << 2,
    "initcwnd_pkts": 1 << 3,
    "cwnd_clamp_pkts": 1 << 4,
    "delack_max_us": 1 << 5,
    "rto_min_us": 1 << 6,
    "ecn": 1 << 7,
}
VALUES = ("sndbuf_bytes", "rcvbuf_bytes", "initcwnd_pkts", "cwnd_clamp_pkts",
          "delack_max_us", "rto_min_us")  # fmt: skip
COUNTERS = ("applied", "failed")
PIN_PREFIX = "p4aqm-wad-"


def build() -> Path:
    """The compiled program, built once per version of its source (the file is named by
    its hash) in $P4AQM_CACHE or ~/.cache/p4aqm."""
    digest = hashlib.sha256(SOURCE.read_bytes()).hexdigest()[:12]
    out = cache_dir() / f"sockops-{digest}.o"
    if out.exists():
        return out
    partial = out.with_suffix(f".{os.getpid()}.tmp")
    # Debian keeps asm/types.h, which linux/bpf.h includes, under the multiarch triple.
    multiarch = f"/usr/include/{platform.machine()}-linux-gnu"
    run(["clang", "-O2", "-g", "-target", "bpf", f"-I{multiarch}", "-c", str(SOURCE),
          "-o", str(partial)])  # fmt: skip
    partial.replace(out)  # at once: points built beside each other never read half a file
    return out


def encode(rule: Rule, congestion_control: str | None = None) -> bytes:
    """A rule as the program's struct rule; `congestion_control` names the one built for
    its wadai and wadmd."""
    settings = rule.set.model_dump(exclude_none=True, exclude={"wadai", "wadmd"})
    if congestion_control is not None:
        settings["congestion_control"] = congestion_control
    match = rule.match
    return RULE.pack(
        match.local_addr.network_address.packed,
        match.local_addr.netmask.packed,
        match.remote_addr.network_address.packed,
        match.remote_addr.netmask.packed,
        match.local_port,
        match.remote_port,
        sum(SET_BITS[name] for name in settings),
        *(settings.get(name, 0) for name in VALUES),
        settings.get("congestion_control", "").encode(),
    )


def _hex(data: bytes) -> list[str]:
    return [f"{b:02x}" for b in data]


def _key(index: int) -> list[str]:
    return ["key", "hex", *_hex(struct.pack("=I", index))]


def _number(value: object) -> int:
    """A map value as bpftool prints it: a number (with BTF) or its bytes in hex."""
    if isinstance(value, int):
        return value
    if isinstance(value, list):
        return int.from_bytes(bytes(int(str(b), 16) for b in value), "little")
    raise TuningError(f"bpftool printed a map value it should not: {value!r}")


class Tuner:
    """The rules applied to every TCP connection of the processes in a cgroup (v2)."""

    def __init__(self, rules: Rules, cgroup: Path, name: str) -> None:
        if not (cgroup / "cgroup.procs").is_file():
            raise TuningError(f"{cgroup}: not a cgroup v2 group")
        self.rules = rules
        self.cgroup = cgroup
        self.pin = BPFFS / f"{PIN_PREFIX}{os.getpid()}-{name}"
        self.maps = self.pin.with_name(self.pin.name + "-maps")
        self.attached = False
        # Per rule index: the congestion control registered for its wadai and wadmd.
        self.aimds: dict[int, Aimd] = {}

    def attach(self) -> "Tuner":
        """Load the program, write the rules, then attach it: no connection of the group
        sees it without its rules."""
        if not os.path.ismount(BPFFS):
            run(["mount", "-t", "bpf", "bpf", str(BPFFS)])
        if self.pin.exists() or self.maps.exists():
            raise TuningError(f"{self.pin}: pinned already: give another name")
        obj = build()
        try:
            for i, rule in enumerate(self.rules.rules):
                if rule.set.aimd is not None:
                    self.aimds[i] = Aimd(*rule.set.aimd).register()
            run(["bpftool", "prog", "load", str(obj), str(self.pin), "type", "sockops",
                 "pinmaps", str(self.maps)])  # fmt: skip
            for i, rule in enumerate(self.rules.rules):
                aimd = self.aimds.get(i)
                self._update("rules", i, encode(rule, aimd.name if aimd else None))
            self._update("rule_count", 0, struct.pack("=I", len(self.rules.rules)))
            run(["bpftool", "cgroup", "attach", str(self.cgroup), "sock_ops", "pinned",
                  str(self.pin)])  # fmt: skip
        except TuningError:
            self._unpin()
            raise
        self.attached = True
        return self

    def _update(self, map_name: str, index: int, value: bytes) -> None:
        run(["bpftool", "map", "update", "pinned", str(self.maps / map_name), *_key(index),
              "value", "hex", *_hex(value)])  # fmt: skip

    def counters(self) -> dict[str, dict[str, int]]:
        """Per rule name: connections tuned (applied) and options refused (failed)."""
        found: dict[str, dict[str, int]] = {}
        for i, rule in enumerate(self.rules.rules):
            found[rule.name] = {}
            for counter in COUNTERS:
                printed = run(["bpftool", "-j", "map", "lookup", "pinned",
                                str(self.maps / counter), *_key(i)])  # fmt: skip
                entry = json.loads(printed)
                value = entry.get("formatted", entry).get("value")
                found[rule.name][counter] = _number(value)
        return found

    def detach(self) -> None:
        if self.attached:
            run(["bpftool", "cgroup", "detach", str(self.cgroup), "sock_ops", "pinned",
                  str(self.pin)])  # fmt: skip
            self.attached = False
        self._unpin()

    def congestion_controls(self) -> dict[str, str]:
        """Per rule name: the congestion control registered for its wadai and wadmd."""
        return {self.rules.rules[i].name: aimd.name for i, aimd in self.aimds.items()}

    def _unpin(self) -> None:
        self.pin.unlink(missing_ok=True)
        shutil.rmtree(self.maps, ignore_errors=True)
        for aimd in self.aimds.values():
            aimd.unregister()

    def __enter__(self) -> "Tuner":
        return self.attach()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.detach()


def remove_stale_pins() -> list[str]:
    """Remove the pins of tuners whose process is gone (their cgroups went with their
    points, and the program with its last pin); what was removed."""
    removed = []
    for pin in sorted(BPFFS.glob(f"{PIN_PREFIX}*")):
        pid = pin.name.removeprefix(PIN_PREFIX).split("-", 1)[0]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            if pin.is_dir():
                shutil.rmtree(pin, ignore_errors=True)
            else:
                pin.unlink(missing_ok=True)
            removed.append(f"tuning pin {pin}")
    return removed
