"""A blocking dataplane call (packet_in, digests) polled in its own thread, with each
result handed to the event loop, so that waiting for packets never blocks the loop."""

import asyncio
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Generic, TypeVar

LOG = logging.getLogger("p4aqm.switch.runtime")
_T = TypeVar("_T")
# How long one poll may block: the longest a stop() waits for the poller thread.
POLL_TIMEOUT_S = 0.1


class Poller(Generic[_T]):
    """Calls `poll(POLL_TIMEOUT_S)` in a loop and `deliver(item)` on the event loop for
    each item it returns, until stop()."""

    def __init__(
        self, name: str, poll: Callable[[float], list[_T]], deliver: Callable[[_T], None]
    ) -> None:
        self._name = name
        self._poll = poll
        self._deliver = deliver
        self._executor: ThreadPoolExecutor | None = None
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start polling; call on the event loop that should receive the items."""
        if self._task is None:
            self._executor = ThreadPoolExecutor(1, thread_name_prefix=self._name)
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None
        if self._executor is not None:
            self._executor.shutdown(wait=True)
            self._executor = None

    async def _run(self) -> None:
        assert self._executor is not None
        while True:
            try:
                poll = self._executor.submit(self._poll, POLL_TIMEOUT_S)
            except RuntimeError:
                # The executor is shut down: the interpreter is exiting under a running
                # server (its host's main thread ended), so there is nothing to deliver to.
                return
            try:
                items = await asyncio.wrap_future(poll)
            except Exception:  # noqa: BLE001 - keep polling; a bug must not stop packet-in
                LOG.exception("%s: poll failed", self._name)
                await asyncio.sleep(POLL_TIMEOUT_S)
                continue
            for item in items:
                try:
                    self._deliver(item)
                except Exception:  # noqa: BLE001
                    LOG.exception("%s: delivery failed", self._name)
