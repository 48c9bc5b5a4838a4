"""MeterEntry and DirectMeterEntry: two-rate three-color meter configs (P4Runtime units:
rates per second and bursts, in bytes or packets by the meter's unit)."""

from collections.abc import Iterator
from typing import Protocol

from finsy.proto import p4r

from p4aqm.switch.runtime.entry_lookup import EntryLookup
from p4aqm.switch.runtime.errors import call_dataplane, invalid
from p4aqm.switch.runtime.indexes import cells, check_modify
from p4aqm.switch.runtime.resources import Resources

Rates = tuple[int, int, int, int]  # cir, cburst, pir, pburst


class MeterApi(Protocol):
    def meter_set(
        self, name: str, index: int, cir: int, cburst: int, pir: int, pburst: int
    ) -> None: ...

    def meter_reset(self, name: str, index: int) -> None: ...

    def meter_get(self, name: str, index: int) -> Rates | None: ...


class DirectMeterApi(Protocol):
    def direct_meter_set(
        self, table: str, handle: int, cir: int, cburst: int, pir: int, pburst: int
    ) -> None: ...

    def direct_meter_reset(self, table: str, handle: int) -> None: ...

    def direct_meter_get(self, table: str, handle: int) -> Rates | None: ...


def meter_rates(has_config: bool, config: p4r.MeterConfig, what: str) -> Rates | None:
    """The rates a write sets, or None for a write without a config: P4Runtime's reset
    to unconfigured, where every packet is green (as PI does it)."""
    return checked_rates(config, what) if has_config else None


def checked_rates(config: p4r.MeterConfig, what: str) -> Rates:
    rates = (config.cir, config.cburst, config.pir, config.pburst)
    if min(rates) < 0:
        raise invalid(f"{what}: cir, cburst, pir and pburst must not be negative")
    if config.eburst:
        raise invalid(f"{what}: eburst is for single-rate meters; v1model meters are two-rate")
    if config.cir > config.pir:
        raise invalid(f"{what}: cir {config.cir} is above pir {config.pir}")
    return rates


def meter_config(rates: Rates) -> p4r.MeterConfig:
    cir, cburst, pir, pburst = rates
    return p4r.MeterConfig(cir=cir, cburst=cburst, pir=pir, pburst=pburst)


class Meters:
    def __init__(self, dataplane: MeterApi, resources: Resources) -> None:
        self._dp = dataplane
        self._resources = resources

    def write(self, update_type: int, entry: p4r.MeterEntry) -> None:
        check_modify(update_type, "meter")
        if entry.meter_id == 0:
            raise invalid("meter write: meter_id 0 (all meters) cannot be written")
        meter = self._resources.meter(entry.meter_id)
        rates = meter_rates(entry.HasField("config"), entry.config, f"meter '{meter.name}'")
        for index in cells(meter, entry.HasField("index"), entry.index.index, "meter"):
            if rates is None:
                call_dataplane(self._dp.meter_reset, meter.name, index)
            else:
                call_dataplane(self._dp.meter_set, meter.name, index, *rates)

    def read(self, query: p4r.MeterEntry) -> Iterator[p4r.MeterEntry]:
        if query.meter_id == 0:
            if query.HasField("index"):
                raise invalid("meter read: an index needs a meter_id")
            meters = list(self._resources.meters.values())
        else:
            meters = [self._resources.meter(query.meter_id)]
        for meter in meters:
            for index in cells(meter, query.HasField("index"), query.index.index, "meter"):
                entry = p4r.MeterEntry(meter_id=meter.id, index=p4r.Index(index=index))
                rates = call_dataplane(self._dp.meter_get, meter.name, index)
                if rates is not None:
                    entry.config.CopyFrom(meter_config(rates))
                yield entry


class DirectMeters:
    """The meters attached to table entries, addressed by the entry's match key."""

    def __init__(self, dataplane: DirectMeterApi, table_entries: EntryLookup) -> None:
        self._dp = dataplane
        self._table_entries = table_entries
        self._resources = table_entries.pipeline.resources

    def write(self, update_type: int, entry: p4r.DirectMeterEntry) -> None:
        check_modify(update_type, "direct meter")
        table, stored = self._table_entries.find(entry.table_entry)
        meter = self._resources.direct_meter_of(table.id, table.name)
        rates = meter_rates(entry.HasField("config"), entry.config, f"direct meter '{meter.name}'")
        if rates is None:
            call_dataplane(self._dp.direct_meter_reset, table.name, stored.handle)
        else:
            call_dataplane(self._dp.direct_meter_set, table.name, stored.handle, *rates)

    def read(self, query: p4r.DirectMeterEntry) -> Iterator[p4r.DirectMeterEntry]:
        if query.table_entry.is_default_action:
            raise invalid("direct meter read: default entries have no direct meter")
        with_meters = {m.table_id for m in self._resources.direct_meters.values()}
        if query.table_entry.table_id:
            table = self._table_entries.pipeline.table(query.table_entry.table_id)
            self._resources.direct_meter_of(table.id, table.name)
        for table, stored in self._table_entries.select(query.table_entry):
            if table.id not in with_meters:
                continue
            entry = p4r.DirectMeterEntry(table_entry=stored.entry)
            rates = call_dataplane(self._dp.direct_meter_get, table.name, stored.handle)
            if rates is not None:
                entry.config.CopyFrom(meter_config(rates))
            yield entry
