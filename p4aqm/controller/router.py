"""A P4Runtime switch this process controls for a whole run: the router handle.

    with Router(config.switch, config.pipeline) as router:
        print(router.apply(config))               # what changed
        print(router.port_state(100).qdepth_pkts)
        print(router.emulation().lateness_p99_ns)   # how late packets left, in ns
        with router.monitor(period_s=0.003) as rec:     # the ports with an AQM
            ...
        frame = rec.dataframe()

One P4Runtime session (finsy, primary for the run) and one gNMI client are opened on
enter and kept until exit, on an event loop of a thread of their own (one for all the
routers of a process), so a caller without asyncio (a script, a test, the experiment
runner) makes plain calls. `apply` brings the switch's tables and ports to a typed config
by difference (sync.py); the monitor streams the switch's own samples
(monitor_sampler.py) into memory and, if given, a Parquet file.
"""

import asyncio
import threading
from collections.abc import Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, ClassVar, TypeVar

import finsy as fy
from finsy import GNMIClient, GNMIPath

from p4aqm.controller.config import ControllerConfig, PipelineFiles, SwitchTarget
from p4aqm.controller.emulation import EmulationFidelity
from p4aqm.controller.pipeline import (
    SwitchUnreachable,
    check_against_p4info,
    desired_entries,
    pipeline_change,
    running_device_config,
)
from p4aqm.controller.port_control import PortService, apply_ports, needs_port_service, port_service
from p4aqm.controller.recording import MonitorRecording
from p4aqm.controller.sampler import Probe
from p4aqm.controller.sync import sync_tables
from p4aqm.schema import (
    Group,
    LeafName,
    container_path,
    emulation_state_path,
    field_name,
    leaf_path,
    monitor_state_path,
)

T = TypeVar("T")


@dataclass(frozen=True)
class Changes:
    """What one `apply` did to the switch."""

    inserted: int
    modified: int
    deleted: int
    port_settings: int
    pipeline: str | None  # "pipeline installed (...)" or "replaced", None if kept

    def __str__(self) -> str:
        text = (
            f"{self.inserted} entries inserted, {self.modified} modified,"
            f" {self.deleted} deleted; {self.port_settings} port settings"
        )
        return f"{self.pipeline}; {text}" if self.pipeline else text


@dataclass(frozen=True)
class PortState:
    """A port's counters since the switch started, and its first queue's occupancy."""

    port: int
    qdepth_pkts: int
    counters: dict[str, int] = field(default_factory=dict)  # rx_packets, tm_drops, ...


class _LoopThread:
    """An asyncio loop on a daemon thread; `run` waits for a coroutine's result.

    The routers of a process share one (`acquire`, `release`): gRPC's asyncio layer has
    one completion queue per process, bound to every loop that used it, and a router's
    loop closed while another router's went on made gRPC's poller call the closed loop
    ("RuntimeError: Event loop is closed" in a point's log, grpc issue 25364)."""

    _shared: ClassVar["_LoopThread | None"] = None
    _users: ClassVar[int] = 0
    _lock: ClassVar[threading.Lock] = threading.Lock()

    @classmethod
    def acquire(cls) -> "_LoopThread":
        with cls._lock:
            if cls._shared is None:
                cls._shared = cls()
            cls._users += 1
            return cls._shared

    @classmethod
    def release(cls, timeout_s: float) -> None:
        """One user less; the last one stops the loop."""
        with cls._lock:
            cls._users -= 1
            if cls._users > 0 or cls._shared is None:
                return
            loop, cls._shared = cls._shared, None
            loop.stop(timeout_s)

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()

    def run(self, coroutine: Coroutine[Any, Any, T], timeout_s: float | None = None) -> T:
        future = asyncio.run_coroutine_threadsafe(coroutine, self.loop)
        try:
            return future.result(timeout_s)
        except TimeoutError:
            future.cancel()
            raise

    def stop(self, timeout_s: float) -> None:
        """Cancel what still runs on the loop (finsy's and gRPC's background tasks), let
        it finish, then end the thread: a task left pending would be destroyed with the
        loop, and asyncio logs each one as an error."""
        try:
            self.run(_cancel_others(), timeout_s)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join()
            self.loop.close()


async def _cancel_others() -> None:
    tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await asyncio.get_running_loop().shutdown_asyncgens()


class Router:
    """A switch under this process's control; see the module's docstring."""

    def __init__(
        self, switch: SwitchTarget, pipeline: PipelineFiles, timeout_s: float = 10.0
    ) -> None:
        self.switch = switch
        self.pipeline = pipeline
        self.timeout_s = timeout_s
        self._loop: _LoopThread | None = None
        self._p4rt: fy.Switch | None = None
        self._gnmi: GNMIClient | None = None
        self._service: PortService | None = None
        self._pipeline_change: str | None = None
        self.config: ControllerConfig | None = None  # the last one applied

    @classmethod
    def of(cls, config: ControllerConfig, timeout_s: float = 10.0) -> "Router":
        return cls(config.switch, config.pipeline, timeout_s)

    def __enter__(self) -> "Router":
        self.open()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        if self._loop is None:
            coroutine.close()
            raise RuntimeError("the router is not open: use `with Router(...)` or open()")
        try:
            return self._loop.run(coroutine, self.timeout_s)
        except TimeoutError:
            raise SwitchUnreachable(
                f"no answer from {self.switch.grpc_addr} within {self.timeout_s:g} s"
            ) from None

    def open(self) -> None:
        """Start the router's event loop; the P4Runtime session opens at the first
        `apply`, once the config has been checked, so that a config the switch cannot
        take changes nothing."""
        if self._loop is None:
            self._loop = _LoopThread.acquire()

    async def _session(self) -> fy.Switch:
        """The P4Runtime session, opened once: primary, pushing the pipeline if the
        switch runs another one (finsy compares the cookie)."""
        if self._p4rt is None:
            options = fy.SwitchOptions(
                p4info=self.pipeline.p4info,
                p4blob=self.pipeline.bmv2_json,
                device_id=self.switch.device_id,
                initial_election_id=self.switch.election_id,
            )
            before = await running_device_config(self.switch)
            switch = fy.Switch("p4aqm", self.switch.grpc_addr, options)
            await switch.__aenter__()
            self._p4rt = switch
            self._pipeline_change = pipeline_change(before, self.pipeline.bmv2_json.read_bytes())
        return self._p4rt

    async def _port_service(self, config: ControllerConfig) -> PortService:
        """Asked once: whether the switch takes queue settings over gNMI (ours) or its
        runtime CLI (BMv2); on BMv2, refuses what it cannot do before any write."""
        if self._service is None:
            self._service = await port_service(config)
            if self._service is PortService.GNMI:
                self._gnmi = GNMIClient(self.switch.grpc_addr)
                await self._gnmi.open()
        return self._service

    def apply(self, config: ControllerConfig) -> Changes:
        """Bring the tables and ports to `config` (its routes and ports; its switch and
        pipeline must be this router's) and say what changed."""
        if config.switch != self.switch or config.pipeline != self.pipeline:
            raise ValueError(
                f"a config for {config.switch.grpc_addr} ({config.pipeline.bmv2_json})"
                f" given to the router of {self.switch.grpc_addr} ({self.pipeline.bmv2_json})"
            )
        return self._run(self._apply(config))

    async def _apply(self, config: ControllerConfig) -> Changes:
        entries = desired_entries(config)
        check_against_p4info(config, entries)
        # Asked first, so that a port setting the switch cannot take fails before any write.
        service = await self._port_service(config) if needs_port_service(config.ports) else None
        inserted, modified, deleted = await sync_tables(await self._session(), entries)
        settings = await apply_ports(config, service, self._gnmi) if service else 0
        change, self._pipeline_change = self._pipeline_change, None
        self.config = config
        return Changes(inserted, modified, deleted, settings, change)

    def port_state(self, port: int) -> PortState:
        """The port's counters and its queue 0's occupancy, over the kept gNMI client."""
        return self._run(self._port_state(port))

    async def _gnmi_client(self) -> GNMIClient:
        if self._gnmi is None:
            self._gnmi = GNMIClient(self.switch.grpc_addr)
            await self._gnmi.open()
        return self._gnmi

    async def _port_state(self, port: int) -> PortState:
        gnmi = await self._gnmi_client()
        counters = await gnmi.get(GNMIPath(container_path(Group.PORT_COUNTERS, port)))
        depth_path = leaf_path(Group.QUEUE_STATE, port, LeafName.QDEPTH_PKTS, queue=0)
        depth = await gnmi.get(GNMIPath(depth_path))
        values = {field_name(str(u.path).rsplit("/", 1)[-1]): int(u.value) for u in counters}
        return PortState(port, int(depth[0].value) if depth else 0, values)

    def emulation(self) -> EmulationFidelity:
        """How late the switch handed packets to their ports since it started, and its
        queue monitor's totals, over the kept gNMI client (our switch only: BMv2 has no
        such state). Two reads give a window's figures: `later.since(earlier)`."""
        return self._run(self._emulation())

    async def _emulation(self) -> EmulationFidelity:
        gnmi = await self._gnmi_client()
        paths = [GNMIPath(emulation_state_path()), GNMIPath(monitor_state_path())]
        updates = await gnmi.get(*paths)
        return EmulationFidelity.of_leaves(
            {str(u.path).rsplit("/", 1)[-1]: u.value for u in updates}
        )

    def monitor(
        self,
        period_s: float,
        ports: dict[int, list[Probe]] | None = None,
        out: Path | None = None,
        metadata: dict | None = None,
    ) -> MonitorRecording:
        """Start recording every `period_s`, into memory and `out` (.parquet or .csv) if
        given, the ports with an AQM in the last config applied (or `ports`, each with
        its discipline's probes); stop it with the recording's `stop()` or by leaving
        its `with`."""
        if ports is None:
            applied = self.config.ports if self.config is not None else {}
            ports = {p: c.aqm.probes() for p, c in applied.items() if c.aqm is not None}
        return MonitorRecording.start(
            self.switch, self.pipeline, ports, period_s, out, metadata or {}
        )

    def close(self) -> None:
        """Leave the switch as it is (entries stay) and end the sessions."""
        loop, self._loop = self._loop, None
        if loop is None:
            return
        try:
            loop.run(self._close(), self.timeout_s)
        finally:
            _LoopThread.release(self.timeout_s)

    async def _close(self) -> None:
        gnmi, self._gnmi = self._gnmi, None
        p4rt, self._p4rt = self._p4rt, None
        if gnmi is not None:
            await gnmi.close()
        if p4rt is not None:
            await p4rt.__aexit__(None, None, None)
