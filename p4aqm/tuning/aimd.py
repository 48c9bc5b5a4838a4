"""WAD's modified additive increase and multiplicative decrease (its wadai and wadmd) as a
TCP congestion control of their own: aimd.bpf.c built for a rule's values and registered
through BPF struct_ops while the Tuner that asked for it is attached; the rule's
connections are then given it as any congestion control (TCP_CONGESTION).

Why struct_ops: the increase and decrease live in the congestion control, which no socket
option reaches, and this machine loads no kernel modules; a BPF struct_ops congestion
control (Linux 5.6 and later, with BTF) is the kernel's own way to add one. Each
registration has a name of its own, wadPID_N (15 characters at most, TCP_CA_NAME_MAX),
so that points running at once never share one, and `p4aqm clean` can unregister those of
processes that are gone.
"""

import hashlib
import itertools
import json
import os
import platform
import re
from pathlib import Path

from p4aqm.tuning.commands import TuningError, cache_dir, run

SOURCE = Path(__file__).with_name("aimd.bpf.c")
KERNEL_BTF = Path("/sys/kernel/btf/vmlinux")
NAME_PREFIX = "wad"
NAME = re.compile(rf"^{NAME_PREFIX}(\d+)_\d+$")
_serial = itertools.count()


def vmlinux_header() -> Path:
    """This kernel's types as C (bpftool btf dump), cached per kernel release."""
    if not KERNEL_BTF.exists():
        raise TuningError(f"{KERNEL_BTF}: this kernel has no BTF, which struct_ops needs")
    out = cache_dir() / f"vmlinux-{platform.release()}.h"
    if not out.exists():
        partial = out.with_suffix(f".{os.getpid()}.tmp")
        partial.write_text(run(["bpftool", "btf", "dump", "file", str(KERNEL_BTF), "format", "c"]))
        partial.replace(out)
    return out


def build(name: str, wadai: int, md_permille: int) -> Path:
    """The congestion control compiled for these values under this name, cached by the
    source's hash and the kernel."""
    header = vmlinux_header()
    digest = hashlib.sha256(SOURCE.read_bytes() + header.name.encode()).hexdigest()[:12]
    out = cache_dir() / f"aimd-{digest}-{name}-ai{wadai}-md{md_permille}.o"
    if out.exists():
        return out
    partial = out.with_suffix(f".{os.getpid()}.tmp")
    arch = {"x86_64": "x86", "aarch64": "arm64"}.get(platform.machine(), platform.machine())
    run(["clang", "-O2", "-g", "-target", "bpf", f"-D__TARGET_ARCH_{arch}",
         f"-DWAD_AI={wadai}", f"-DWAD_MD_PERMILLE={md_permille}", f"-DWAD_NAME={name}",
         "-include", str(header), "-c", str(SOURCE),
         "-o", str(partial)])  # fmt: skip
    partial.replace(out)
    return out


class Aimd:
    """One registration: Reno with `wadai` segments added per round trip and `wadmd` of the
    window given up at a congestion event (Reno: 1 and 0.5)."""

    def __init__(self, wadai: int, wadmd: float) -> None:
        if not 1 <= wadai <= 100:
            raise TuningError(f"wadai: {wadai} is not 1..100 segments per round trip")
        if not 0 < wadmd < 1:
            raise TuningError(f"wadmd: {wadmd} is not a share of the window in (0, 1)")
        self.wadai = wadai
        self.md_permille = round(wadmd * 1000)
        self.name = f"{NAME_PREFIX}{os.getpid()}_{next(_serial)}"
        self.registered = False

    def register(self) -> "Aimd":
        obj = build(self.name, self.wadai, self.md_permille)
        run(["bpftool", "struct_ops", "register", str(obj)])
        if self.name not in available():
            raise TuningError(f"{self.name}: registered, but the kernel does not offer it")
        self.registered = True
        return self

    def unregister(self) -> None:
        """Connections using it keep it until they close: the kernel holds it for them."""
        if self.registered:
            run(["bpftool", "struct_ops", "unregister", "name", self.name])
            self.registered = False


def available() -> list[str]:
    return Path("/proc/sys/net/ipv4/tcp_available_congestion_control").read_text().split()


def remove_stale() -> list[str]:
    """Unregister the congestion controls of processes that are gone; what was removed."""
    try:
        shown = json.loads(run(["bpftool", "-j", "struct_ops", "show"]) or "[]")
    except (TuningError, json.JSONDecodeError):
        return []
    removed = []
    for entry in shown if isinstance(shown, list) else []:
        found = NAME.match(str(entry.get("name", "")))
        if found and not Path(f"/proc/{found.group(1)}").exists():
            run(["bpftool", "struct_ops", "unregister", "id", str(entry["id"])])
            removed.append(f"congestion control {entry['name']}")
    return removed
