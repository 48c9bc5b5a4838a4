"""A blocking dataplane call (packet_in, digests) polled in its own thread, with each
result handed to the event loop, so that waiting for packets never blocks the loop.

Each poll that returns empty costs wake-ups of the poller's thread and the event loop,
so polls block for long; stop() interrupts the one waiting instead of waiting it out."""

import asyncio
import logging
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Generic, TypeVar

LOG = logging.getLogger("p4aqm.switch.runtime")
_T = TypeVar("_T")
# How long one poll may block.
POLL_TIMEOUT_S = 2.0
# How often stop() repeats the interrupt until the poll returns: a poll submitted but
# not yet waiting when interrupted would miss it.
INTERRUPT_INTERVAL_S = 0.005


class Poller(Generic[_T]):
    """Calls `poll(POLL_TIMEOUT_S)` in a loop and `deliver(item)` on the event loop for
    each item it returns, until stop(), which calls `interrupt()` to end a waiting poll."""

    def __init__(
        self,
        name: str,
        poll: Callable[[float], list[_T]],
        deliver: Callable[[_T], None],
        interrupt: Callable[[], None],
    ) -> None:
        self._name = name
        self._poll = poll
        self._deliver = deliver
        self._interrupt = interrupt
        self._executor: ThreadPoolExecutor | None = None
        self._task: asyncio.Task[None] | None = None
        self._polling: Future[list[_T]] | None = None

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
            while self._polling is not None and not self._polling.done():
                self._interrupt()
                await asyncio.sleep(INTERRUPT_INTERVAL_S)
            self._executor.shutdown(wait=True)
            self._executor = None

    async def _run(self) -> None:
        assert self._executor is not None
        while True:
            try:
                poll = self._polling = self._executor.submit(self._poll, POLL_TIMEOUT_S)
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
