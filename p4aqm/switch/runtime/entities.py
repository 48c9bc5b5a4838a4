"""Write and Read of every entity kind, dispatched to the module that owns it."""

from collections.abc import Iterable, Iterator
from typing import Any, Protocol

from finsy.proto import p4r

from p4aqm.switch.runtime.action_profiles import ActionProfileApi, ActionProfiles
from p4aqm.switch.runtime.counters import CounterApi, Counters, DirectCounterApi, DirectCounters
from p4aqm.switch.runtime.digest_entries import DigestEntries
from p4aqm.switch.runtime.errors import invalid, unimplemented
from p4aqm.switch.runtime.idle_timeouts import IdleTimeouts
from p4aqm.switch.runtime.meters import DirectMeterApi, DirectMeters, MeterApi, Meters
from p4aqm.switch.runtime.pipeline import Pipeline
from p4aqm.switch.runtime.registers import RegisterApi, Registers
from p4aqm.switch.runtime.replication import ReplicationApi, ReplicationEngine
from p4aqm.switch.runtime.table_entries import TableApi, TableEntries
from p4aqm.switch.runtime.value_sets import ValueSetApi, ValueSets


class _Handler(Protocol):
    def write(self, update_type: int, message: Any) -> None: ...

    def read(self, query: Any) -> Iterable[Any]: ...


class EntityApi(
    TableApi,
    ActionProfileApi,
    RegisterApi,
    CounterApi,
    DirectCounterApi,
    MeterApi,
    DirectMeterApi,
    ReplicationApi,
    ValueSetApi,
    Protocol,
):
    """The dataplane methods behind Write and Read."""


class Entities:
    """The entities of one committed pipeline, mirrored into the dataplane."""

    def __init__(self, dataplane: EntityApi, pipeline: Pipeline) -> None:
        self.pipeline = pipeline
        profiles = ActionProfiles(dataplane, pipeline)
        table_entries = TableEntries(dataplane, pipeline, profiles)
        self.digest_entries = DigestEntries(pipeline.resources)
        self.idle_timeouts = IdleTimeouts(dataplane, table_entries)
        self._handlers: dict[str, _Handler] = {
            "table_entry": table_entries,
            "action_profile_member": profiles.members,
            "action_profile_group": profiles.groups,
            "register_entry": Registers(dataplane, pipeline.resources),
            "counter_entry": Counters(dataplane, pipeline.resources),
            "direct_counter_entry": DirectCounters(dataplane, table_entries),
            "meter_entry": Meters(dataplane, pipeline.resources),
            "direct_meter_entry": DirectMeters(dataplane, table_entries),
            "packet_replication_engine_entry": ReplicationEngine(dataplane),
            "digest_entry": self.digest_entries,
            "value_set_entry": ValueSets(dataplane, pipeline.value_sets),
        }

    def write(self, update: p4r.Update) -> None:
        kind = update.entity.WhichOneof("entity")
        if kind is None:
            raise invalid("the update has no entity")
        handler = self._handlers.get(kind)
        if handler is None:
            raise unimplemented(f"Write of {kind} is not supported")
        handler.write(update.type, getattr(update.entity, kind))

    def read(self, entity: p4r.Entity) -> Iterator[p4r.Entity]:
        kind = entity.WhichOneof("entity")
        if kind is None:
            raise invalid("the read request has an empty entity")
        handler = self._handlers.get(kind)
        if handler is None:
            raise unimplemented(f"Read of {kind} is not supported")
        for message in handler.read(getattr(entity, kind)):
            yield p4r.Entity(**{kind: message})
