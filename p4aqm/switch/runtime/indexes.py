"""The cells an indexed extern entry (register, counter, meter) addresses."""

import grpc
from finsy.proto import p4r

from p4aqm.switch.runtime.errors import P4RuntimeError, invalid
from p4aqm.switch.runtime.resources import ArrayInfo


def cells(array: ArrayInfo, has_index: bool, index: int, what: str) -> range:
    """The indexes an entry names: its one index, or every cell when the index is unset
    (a wildcard, for reads and writes alike)."""
    if not has_index:
        return range(array.size)
    if not 0 <= index < array.size:
        raise P4RuntimeError(
            grpc.StatusCode.OUT_OF_RANGE,
            f"{what} '{array.name}': index {index} is not in 0..{array.size - 1}",
        )
    return range(index, index + 1)


def check_modify(update_type: int, what: str) -> None:
    """Indexed and direct extern cells always exist: they are modified, never inserted or
    deleted."""
    if update_type != p4r.Update.MODIFY:
        name = p4r.Update.Type.Name(update_type) if update_type in (1, 2, 3) else update_type
        raise invalid(f"{what}: update type {name}; {what} cells can only be MODIFY'd")
