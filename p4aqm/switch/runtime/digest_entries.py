"""DigestEntry (which digests the controller wants, and how) and the DigestList messages
built from the dataplane's digests.

Each digest sample is sent at once, in a list of its own: that meets any max_list_size
and max_timeout_ns a client asks for. Lists are numbered per digest; an ack retires its
list, and an ack for a list not outstanding is ignored (logged), as PI does. With an
ack_timeout_ns, a sample equal to one sent and not yet acknowledged is not sent again
until the ack or the timeout, as P4Runtime asks (learning would otherwise flood the
controller with one list per packet of the same flow).
"""

import logging
import time
from collections.abc import Iterator

import grpc
from finsy.proto import p4d, p4r

from p4aqm.switch.runtime.codec import encode_uint
from p4aqm.switch.runtime.errors import P4RuntimeError, invalid, not_found
from p4aqm.switch.runtime.resources import DigestInfo, Resources

LOG = logging.getLogger("p4aqm.switch.runtime")
_Sample = tuple[int, tuple[bytes, ...]]  # (digest id, field values)


class DigestEntries:
    """The DigestEntry handler of one pipeline."""

    def __init__(self, resources: Resources) -> None:
        self._resources = resources
        self._configs: dict[int, p4r.DigestEntry.Config] = {}
        self._by_name = {d.name: d for d in resources.digests.values()}
        self._next_list_id: dict[int, int] = {}
        # (digest id, list id) -> the sample it carried, until acknowledged.
        self._unacked: dict[tuple[int, int], _Sample] = {}
        # Samples sent and not acknowledged -> when they may be sent again (monotonic ns).
        self._suppressed: dict[_Sample, int] = {}

    def write(self, update_type: int, entry: p4r.DigestEntry) -> None:
        digest = self._digest(entry.digest_id)
        what = f"digest '{digest.name}'"
        exists = digest.id in self._configs
        if update_type == p4r.Update.INSERT and exists:
            raise P4RuntimeError(grpc.StatusCode.ALREADY_EXISTS, f"{what} is already configured")
        if update_type in (p4r.Update.MODIFY, p4r.Update.DELETE) and not exists:
            raise not_found(f"{what} is not configured")
        if update_type == p4r.Update.DELETE:
            del self._configs[digest.id]
            return
        if update_type != p4r.Update.INSERT and update_type != p4r.Update.MODIFY:
            raise invalid(f"{what}: update type {update_type} is not INSERT, MODIFY or DELETE")
        # Without a config, every field is 0 (each sample sent at once), as PI takes it.
        config = entry.config
        if config.max_timeout_ns < 0 or config.ack_timeout_ns < 0 or config.max_list_size < 0:
            raise invalid(f"{what}: max_timeout_ns, ack_timeout_ns, max_list_size are negative")
        self._configs[digest.id] = p4r.DigestEntry.Config()
        self._configs[digest.id].CopyFrom(config)

    def read(self, query: p4r.DigestEntry) -> Iterator[p4r.DigestEntry]:
        if query.digest_id:
            digest = self._digest(query.digest_id)
            if digest.id not in self._configs:
                raise not_found(f"digest '{digest.name}' is not configured")
        for digest_id, config in sorted(self._configs.items()):
            if query.digest_id in (0, digest_id):
                yield p4r.DigestEntry(digest_id=digest_id, config=config)

    def digest_list(self, name: str, fields: list[bytes]) -> p4r.DigestList | None:
        """The DigestList for one sample of learn list `name`; None when the controller
        has not configured that digest (P4Runtime sends only configured digests)."""
        digest = self._by_name.get(name)
        if digest is None or digest.id not in self._configs:
            return None
        now = time.monotonic_ns()
        self._suppressed = {k: t for k, t in self._suppressed.items() if t > now}
        sample = (digest.id, tuple(fields))
        if sample in self._suppressed:
            return None
        ack_timeout = self._configs[digest.id].ack_timeout_ns
        if ack_timeout:
            self._suppressed[sample] = now + ack_timeout
        list_id = self._next_list_id.get(digest.id, 1)
        self._next_list_id[digest.id] = list_id + 1
        self._unacked[(digest.id, list_id)] = sample
        return p4r.DigestList(
            digest_id=digest.id,
            list_id=list_id,
            data=[_sample(digest, fields)],
            timestamp=time.time_ns(),
        )

    def ack(self, ack: p4r.DigestListAck) -> None:
        sample = self._unacked.pop((ack.digest_id, ack.list_id), None)
        if sample is None:
            # Not an error on the stream, where a client waiting for its next message
            # would read it: PI ignores such acks.
            LOG.info(
                "digest ack for list %d of digest id %d: none outstanding, ignored",
                ack.list_id,
                ack.digest_id,
            )
            return
        self._suppressed.pop(sample, None)

    def _digest(self, digest_id: int) -> DigestInfo:
        try:
            return self._resources.digests[digest_id]
        except KeyError:
            raise not_found(f"no digest with id {digest_id} in the P4Info") from None


def _sample(digest: DigestInfo, fields: list[bytes]) -> p4d.P4Data:
    members = [p4d.P4Data(bitstring=encode_uint(int.from_bytes(f, "big"))) for f in fields]
    if digest.kind == "tuple":
        return p4d.P4Data(tuple=p4d.P4StructLike(members=members))
    if digest.kind != "struct" and len(members) == 1:
        return members[0]
    return p4d.P4Data(struct=p4d.P4StructLike(members=members))
