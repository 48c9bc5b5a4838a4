"""The part of `p4switch._dataplane.Dataplane` that the runtime calls, as a type.

The runtime depends on this protocol rather than on the compiled module so that it can
be type-checked and imported where the Rust extension has not been built.
"""

from typing import Protocol


class DataplaneApi(Protocol):
    def add_interface(self, port: int, ifname: str) -> None: ...

    def load_pipeline(self, bmv2_json: bytes) -> None: ...

    def has_pipeline(self) -> bool: ...

    def table_add(
        self,
        table: str,
        keys: list[tuple],
        action: str,
        action_data: list[bytes],
        priority: int,
    ) -> int: ...

    def table_modify(
        self, table: str, handle: int, action: str, action_data: list[bytes]
    ) -> None: ...

    def table_delete(self, table: str, handle: int) -> None: ...

    def table_set_default(self, table: str, action: str, action_data: list[bytes]) -> None: ...

    def table_clear(self, table: str) -> None: ...

    def start(self) -> None: ...

    def stop(self) -> None: ...

    def set_trace(self, on: bool) -> None: ...
