"""Queues on a switch without our gNMI service (BMv2), through BMv2's own runtime CLI.

BMv2's P4Runtime server has no message for queues, and BMv2 has no gNMI for them either:
its queues are set over Thrift, with `simple_switch_CLI` (`set_queue_depth <packets>
<port>`, `set_queue_rate <packets/s> <port>`). BMv2 counts its rate in whole packets per
second, so a rate in bit/s becomes packets/s at a packet size the config states
(switch.bmv2_packet_bytes), and the controller says so. BMv2 cannot delay a link, and its
queue depths are in packets only: such settings are refused before anything is written.
CBQ's class queues take the same commands with the priority after the port, once the
port's own (which set every priority queue of the port) are given.
"""

import shutil
import subprocess
import sys

from p4aqm.controller.config import ControllerConfig, PortConfig
from p4aqm.controller.disciplines import ClassQueue

CLI = "simple_switch_CLI"
CLI_TIMEOUT_S = 60


class Bmv2PortError(Exception):
    """A port setting BMv2 cannot apply, or a CLI that failed, phrased for the user."""


def refuse_unsupported(ports: dict[int, PortConfig]) -> None:
    """One line naming the port and the field BMv2 has no way to honour, or the missing
    CLI for settings the config gives; called before anything is written to the switch."""
    for port, config in sorted(ports.items()):
        if config.link is not None and config.link.delay_us:
            raise Bmv2PortError(
                f"ports[{port}].link.delay_us: BMv2 cannot delay a link (no link emulation);"
                " run `p4aqm switch`, or remove the delay"
            )
        if config.queue is not None and config.queue.depth_bytes is not None:
            raise Bmv2PortError(
                f"ports[{port}].queue.depth_bytes: BMv2 queue depths are in packets;"
                " give queue.depth_pkts"
            )
    explicit = any(c.queue is not None or c.link is not None for c in ports.values())
    if explicit and shutil.which(CLI) is None:
        raise Bmv2PortError(
            f"the switch sets no queues over gNMI (BMv2?), and {CLI}, BMv2's runtime CLI"
            " that sets them, is not on PATH"
        )


def _rate_pps(port: int, config: PortConfig, packet_bytes: int) -> tuple[int, str] | None:
    """BMv2's whole packets per second, and a note saying how it was derived."""
    queue, link = config.queue, config.link
    if queue is not None and queue.rate_pps is not None:
        return max(1, round(queue.rate_pps)), f"port {port}: queue rate {queue.rate_pps:g} pkt/s"
    # The link's line rate drains the queue, as on `p4aqm switch`.
    rate_bps = queue.rate_bps if queue is not None else None
    rate_bps = rate_bps if rate_bps is not None else (link.rate_bps if link else None)
    if not rate_bps:
        return None
    return _bps_to_pps(f"port {port}: queue rate", rate_bps, packet_bytes)


def _bps_to_pps(what: str, rate_bps: int, packet_bytes: int) -> tuple[int, str]:
    pps = max(1, round(rate_bps / (8 * packet_bytes)))
    return pps, (
        f"{what} {rate_bps} bit/s = {pps} pkt/s at {packet_bytes}-byte"
        " packets (BMv2 counts whole packets per second)"
    )


def class_commands(
    classes: list[tuple[int, ClassQueue, int]], packet_bytes: int
) -> tuple[list[str], list[str]]:
    """Each class queue's depth and rate (a borrowing class keeps the port's), given as
    (port, class queue, depth in packets), and notes on the rate conversions."""
    commands, notes = [], []
    for port, queue, depth in classes:
        commands.append(f"set_queue_depth {depth} {port} {queue.priority}")
        if queue.rate_bps is not None:
            what = f"port {port} priority {queue.priority}: class rate"
            pps, note = _bps_to_pps(what, queue.rate_bps, packet_bytes)
            commands.append(f"set_queue_rate {pps} {port} {queue.priority}")
            notes.append(note)
    return commands, notes


def queue_commands(
    config: ControllerConfig,
    depths: dict[int, int],
    classes: list[tuple[int, ClassQueue, int]] | None = None,
) -> tuple[list[str], list[str]]:
    """The CLI commands for every port's queue, then for the class queues (`classes`, as
    class_commands takes them), and notes on the rate conversions; `depths` are the
    depths the controller chose for AQM ports without one."""
    commands, notes = [], []
    packet_bytes = config.switch.bmv2_packet_bytes
    for port, port_config in sorted(config.ports.items()):
        queue = port_config.queue
        depth = queue.depth_pkts if queue is not None else None
        depth = depth if depth is not None else depths.get(port)
        if depth is not None:
            commands.append(f"set_queue_depth {depth} {port}")
        rate = _rate_pps(port, port_config, packet_bytes)
        if rate is not None:
            commands.append(f"set_queue_rate {rate[0]} {port}")
            notes.append(rate[1])
    class_cmds, class_notes = class_commands(classes or [], packet_bytes)
    return commands + class_cmds, notes + class_notes


def run_cli(thrift_port: int, commands: list[str]) -> None:
    """Run the commands in one CLI session; raise Bmv2PortError with the CLI's words.
    Without the CLI, the only commands are the AQM ports' automatic depths
    (refuse_unsupported let nothing else through): they are best effort, and the user is
    told what to run."""
    if shutil.which(CLI) is None:
        print(
            f"controller: warning: {CLI} is not on PATH, so the AQM ports' queues keep"
            f" BMv2's depth; run `{CLI} --thrift-port {thrift_port}` with:"
            f" {'; '.join(commands)} (or the switch may drop packets the program counted)",
            file=sys.stderr,
        )
        return
    try:
        done = subprocess.run(
            [CLI, "--thrift-port", str(thrift_port)],
            input="\n".join(commands) + "\n",
            capture_output=True,
            text=True,
            timeout=CLI_TIMEOUT_S,
        )
    except subprocess.TimeoutExpired:
        raise Bmv2PortError(f"{CLI} --thrift-port {thrift_port}: no answer") from None
    except OSError as exc:
        raise Bmv2PortError(f"{CLI}: {exc.strerror}") from None
    # The CLI reports a bad command on stdout and still exits 0.
    failed = [
        line.replace("RuntimeCmd:", "").strip()
        for line in (done.stdout + done.stderr).splitlines()
        if "Error" in line or "Invalid" in line or "Could not connect" in line
    ]
    if done.returncode != 0 or failed:
        detail = failed[0] if failed else f"exit status {done.returncode}"
        raise Bmv2PortError(f"{CLI} --thrift-port {thrift_port}: {detail}")
