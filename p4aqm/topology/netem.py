"""Link delay with the kernel's netem qdisc, for switches without link emulation (BMv2).

This machine's kernel has no sch_netem: the probe says so before anything is built, so a
BMv2 topology with delays stops with an error naming the module instead of running
without its delays."""

import os
import subprocess

NETEM_MODULE = "sch_netem"


class NetemMissing(RuntimeError):
    pass


def netem_available() -> bool:
    """Whether a netem qdisc can be added: tried on the loopback of a namespace made and
    deleted for the purpose, so no interface in use is touched."""
    subprocess.run(["modprobe", "-q", NETEM_MODULE], capture_output=True)
    namespace = f"p4aqm-netem-probe-{os.getpid()}"
    subprocess.run(["ip", "netns", "add", namespace], capture_output=True, check=True)
    try:
        probe = ["ip", "netns", "exec", namespace, "tc", "qdisc", "add", "dev", "lo", "root"]
        return (
            subprocess.run([*probe, "netem", "delay", "1ms"], capture_output=True).returncode == 0
        )
    finally:
        subprocess.run(["ip", "netns", "del", namespace], capture_output=True)


def require_netem(why: str) -> None:
    if not netem_available():
        raise NetemMissing(
            f"{why} needs the netem qdisc, and this kernel has no {NETEM_MODULE} module"
            f" (`modprobe {NETEM_MODULE}` finds none); use --switch p4aqm, whose link"
            " emulation delays packets itself, or set every delay to 0"
        )


def netem_delay_command(interface: str, delay_us: int) -> list[str]:
    return ["tc", "qdisc", "replace", "dev", interface, "root", "netem", "delay", f"{delay_us}us"]
