"""gNMI Get of the switch-wide state leaves (names in p4aqm/schema.py): the emulation's
fidelity under /p4aqm/emulation/state (how late packets reached their ports) and the
queue monitor's totals under /p4aqm/monitor/state, which the monitor stream also sends.

A path may stop at a container (`/p4aqm/emulation`, `.../state`) to read every leaf below.
"""

import json
from typing import Protocol

from finsy.proto import gnmi

from p4aqm.schema import (
    EMULATION,
    EMULATION_LEAVES,
    EMULATION_STATE,
    MONITOR,
    MONITOR_MISSED,
    MONITOR_OVERRUNS,
    ROOT,
    LeafName,
)
from p4aqm.switch.runtime.errors import call_dataplane, not_found

# The dataplane's `lateness()` key of each emulation leaf (departures: the leaf's own name).
_LATENESS_KEYS = {
    LeafName.DEPARTURES: LeafName.DEPARTURES.value,
    LeafName.LATENESS_P50_NS: "p50_ns",
    LeafName.LATENESS_P99_NS: "p99_ns",
    LeafName.LATENESS_MAX_NS: "max_ns",
    LeafName.LATENESS_BUCKETS: "buckets",
}
_MONITOR_STATE = MONITOR_OVERRUNS[0]
_MONITOR_LEAVES = (MONITOR_OVERRUNS[-1], MONITOR_MISSED[-1])


class EmulationState(Protocol):
    """The dataplane methods these leaves read."""

    def lateness(self) -> dict: ...

    def monitor_stats(self) -> dict[str, int]: ...


def is_switch_state(names: list[str]) -> bool:
    """Whether a full path's element names are under one of the containers served here."""
    return names[:1] == [ROOT] and names[1:2] in ([EMULATION], [MONITOR])


def _leaf(names: tuple[str, ...]) -> gnmi.Path:
    return gnmi.Path(elem=[gnmi.PathElem(name=n) for n in (ROOT, *names)])


def _wanted(names: list[str], container: tuple[str, str], leaves: tuple[str, ...]) -> list[str]:
    """The leaves of `container` a path names (all of them for the container itself)."""
    tail = names[1:]
    if tail == list(container[: len(tail)]):
        return list(leaves)
    if tail[:2] == list(container) and len(tail) == 3 and tail[2] in leaves:
        return [tail[2]]
    return []


def switch_state_updates(
    dataplane: EmulationState, names: list[str], text: str
) -> list[gnmi.Update]:
    """The updates of a Get of `names` (a path under /p4aqm/emulation or /monitor)."""
    emulation = _wanted(names, (EMULATION, EMULATION_STATE), tuple(EMULATION_LEAVES))
    monitor = _wanted(names, (MONITOR, _MONITOR_STATE), _MONITOR_LEAVES)
    if not emulation and not monitor:
        raise not_found(
            f"no such path {text}: see /{ROOT}/{EMULATION}/{EMULATION_STATE}"
            f" and /{ROOT}/{MONITOR}/{_MONITOR_STATE}"
        )
    updates = []
    if emulation:
        lateness = call_dataplane(dataplane.lateness)
        for leaf in emulation:
            value = lateness[_LATENESS_KEYS[LeafName(leaf)]]
            typed = (
                gnmi.TypedValue(json_val=json.dumps(value).encode())
                if leaf == LeafName.LATENESS_BUCKETS
                else gnmi.TypedValue(uint_val=value)
            )
            updates.append(gnmi.Update(path=_leaf((EMULATION, EMULATION_STATE, leaf)), val=typed))
    if monitor:
        stats = call_dataplane(dataplane.monitor_stats)
        for leaf in monitor:
            value = gnmi.TypedValue(uint_val=stats[leaf])
            updates.append(gnmi.Update(path=_leaf((MONITOR, _MONITOR_STATE, leaf)), val=value))
    return updates
