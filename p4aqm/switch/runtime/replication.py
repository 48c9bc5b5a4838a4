"""PacketReplicationEngineEntry: multicast groups and clone sessions.

The dataplane takes whole replica lists and cannot list them back, so the entries are
kept here for reads.
"""

from collections.abc import Iterator
from typing import Protocol

import grpc
from finsy.proto import p4r

from p4aqm.switch.runtime.codec import PORT_BITS, decode_uint
from p4aqm.switch.runtime.errors import P4RuntimeError, call_dataplane, invalid, not_found

RID_BITS = 16  # v1model's egress_rid carries the replica's instance


class ReplicationApi(Protocol):
    def mc_group_set(self, group_id: int, replicas: list[tuple[int, int]]) -> None: ...

    def mc_group_delete(self, group_id: int) -> None: ...

    def clone_session_set(
        self,
        session_id: int,
        replicas: list[tuple[int, int]],
        class_of_service: int = 0,
        packet_length_bytes: int = 0,
    ) -> None: ...

    def clone_session_delete(self, session_id: int) -> None: ...


def _replicas(
    replicas: list[p4r.Replica], what: str
) -> tuple[list[tuple[int, int]], list[p4r.Replica]]:
    """(port, instance) per replica, and the replicas as they read back, both sorted by
    (instance, port): PI gives BMv2 one node per instance in that order, which is the
    order of the copies and of a read. A replica keeps the client's spelling of the port
    (the 1.4 `port` bytestring, at the length sent, as PI returns it, or the older
    `egress_port`). P4Runtime forbids duplicate pairs."""
    result: list[tuple[int, int]] = []
    canonical: list[p4r.Replica] = []
    for replica in replicas:
        kind = replica.WhichOneof("port_kind")
        if kind == "port":
            port = decode_uint(replica.port, PORT_BITS, f"{what} replica port")
        elif kind == "egress_port":
            port = replica.egress_port
            if port >> PORT_BITS:
                raise invalid(f"{what}: replica port {port} is not a v1model port (0..511)")
        else:
            raise invalid(f"{what}: a replica has no port")
        if replica.backup_replicas:
            raise invalid(f"{what}: backup replicas are not supported")
        if replica.instance >> RID_BITS:
            raise invalid(f"{what}: replica instance {replica.instance} does not fit in 16 bits")
        pair = (port, replica.instance)
        if pair in result:
            raise invalid(f"{what}: replica (port {port}, instance {replica.instance}) twice")
        result.append(pair)
        if kind == "port":
            canonical.append(p4r.Replica(port=replica.port, instance=replica.instance))
        else:
            canonical.append(p4r.Replica(egress_port=port, instance=replica.instance))
    order = sorted(range(len(result)), key=lambda i: (result[i][1], result[i][0]))
    return [result[i] for i in order], [canonical[i] for i in order]


class ReplicationEngine:
    def __init__(self, dataplane: ReplicationApi) -> None:
        self._dp = dataplane
        self._groups: dict[int, p4r.MulticastGroupEntry] = {}
        self._sessions: dict[int, p4r.CloneSessionEntry] = {}

    def write(self, update_type: int, entry: p4r.PacketReplicationEngineEntry) -> None:
        kind = entry.WhichOneof("type")
        if kind == "multicast_group_entry":
            self._write_group(update_type, entry.multicast_group_entry)
        elif kind == "clone_session_entry":
            self._write_session(update_type, entry.clone_session_entry)
        else:
            raise invalid("packet replication engine entry without a multicast group or session")

    def read(
        self, query: p4r.PacketReplicationEngineEntry
    ) -> Iterator[p4r.PacketReplicationEngineEntry]:
        kind = query.WhichOneof("type")
        # A read of one id that does not exist is NOT_FOUND, as in PI.
        if kind == "multicast_group_entry":
            wanted = query.multicast_group_entry.multicast_group_id
            if wanted and wanted not in self._groups:
                raise not_found(f"multicast group {wanted} does not exist")
        if kind == "clone_session_entry":
            wanted = query.clone_session_entry.session_id
            if wanted and wanted not in self._sessions:
                raise not_found(f"clone session {wanted} does not exist")
        if kind in ("multicast_group_entry", None):
            wanted = query.multicast_group_entry.multicast_group_id
            for group_id, group in sorted(self._groups.items()):
                if wanted in (0, group_id):
                    yield p4r.PacketReplicationEngineEntry(multicast_group_entry=group)
        if kind in ("clone_session_entry", None):
            wanted = query.clone_session_entry.session_id
            for session_id, session in sorted(self._sessions.items()):
                if wanted in (0, session_id):
                    yield p4r.PacketReplicationEngineEntry(clone_session_entry=session)

    def _write_group(self, update_type: int, entry: p4r.MulticastGroupEntry) -> None:
        group_id = entry.multicast_group_id
        what = f"multicast group {group_id}"
        if group_id == 0:
            raise invalid("multicast group id 0 is reserved (no multicast)")
        _check_existence(update_type, group_id in self._groups, what)
        if update_type == p4r.Update.DELETE:
            call_dataplane(self._dp.mc_group_delete, group_id)
            del self._groups[group_id]
            return
        pairs, replicas = _replicas(list(entry.replicas), what)
        call_dataplane(self._dp.mc_group_set, group_id, pairs)
        self._groups[group_id] = p4r.MulticastGroupEntry(
            multicast_group_id=group_id,
            replicas=replicas,
            metadata=entry.metadata,
        )

    def _write_session(self, update_type: int, entry: p4r.CloneSessionEntry) -> None:
        session_id = entry.session_id
        what = f"clone session {session_id}"
        if session_id == 0:
            raise invalid("clone session id 0 is reserved")
        _check_existence(update_type, session_id in self._sessions, what)
        if update_type == p4r.Update.DELETE:
            call_dataplane(self._dp.clone_session_delete, session_id)
            del self._sessions[session_id]
            return
        if entry.packet_length_bytes < 0:
            raise invalid(f"{what}: packet_length_bytes {entry.packet_length_bytes} is negative")
        pairs, replicas = _replicas(list(entry.replicas), what)
        call_dataplane(
            self._dp.clone_session_set,
            session_id,
            pairs,
            entry.class_of_service,
            entry.packet_length_bytes,
        )
        self._sessions[session_id] = p4r.CloneSessionEntry(
            session_id=session_id,
            replicas=replicas,
            class_of_service=entry.class_of_service,
            packet_length_bytes=entry.packet_length_bytes,
        )


def _check_existence(update_type: int, exists: bool, what: str) -> None:
    if update_type == p4r.Update.INSERT:
        if exists:
            raise P4RuntimeError(grpc.StatusCode.ALREADY_EXISTS, f"{what} already exists")
    elif update_type in (p4r.Update.MODIFY, p4r.Update.DELETE):
        if not exists:
            raise not_found(f"{what} does not exist")
    else:
        raise invalid(f"{what}: update type {update_type} is not INSERT, MODIFY or DELETE")
