"""The part of `p4aqm.switch._dataplane.Dataplane` that the runtime calls, as a type.

The runtime depends on this protocol rather than on the compiled module so that it can
be type-checked and imported where the Rust extension has not been built.
"""

from typing import Protocol

from p4aqm.switch.gnmi.service import PortControl
from p4aqm.switch.runtime.controller_io import CpuPortApi
from p4aqm.switch.runtime.entities import EntityApi


class DataplaneApi(EntityApi, CpuPortApi, PortControl, Protocol):
    """Each module states the methods it calls; this is all of them."""

    def add_interface(self, port: int, ifname: str) -> None: ...

    def load_pipeline(self, bmv2_json: bytes) -> None: ...

    def has_pipeline(self) -> bool: ...

    def start(self) -> None: ...

    def stop(self) -> None: ...

    def set_trace(self, on: bool) -> None: ...
