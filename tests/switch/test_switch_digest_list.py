"""A digest of a list, `digest(1, {hdr.h.a, hdr.h.b})`: P4Info types it as a tuple named
digest_0 (as p4c's issue430-1-bmv2 output), and each sample is a P4Data tuple holding the
values of the moment of the call (the field changed after it is not seen)."""

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from finsy.proto import p4d, p4r
from switch_helpers import Client, Program, primary_with

PROGRAM = Path(__file__).resolve().parent / "programs" / "digest_list.p4"


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Program:
    return Program.compile(PROGRAM, tmp_path_factory.mktemp("digest_list"))


@pytest.fixture
def client(server_port: int, program: Program) -> Iterator[Client]:
    yield from primary_with(server_port, program)


def test_p4info_types_the_digest_as_a_tuple(program: Program) -> None:
    [digest] = program.p4info.digests
    assert digest.preamble.name == "digest_0"
    widths = [m.bitstring.bit.bitwidth for m in digest.type_spec.tuple.members]
    assert widths == [8, 16]


def test_samples_are_tuples(client: Client, program: Program, dataplane: Any) -> None:
    entry = p4r.DigestEntry(digest_id=program.id_of("digests", "digest_0"))
    entry.config.CopyFrom(p4r.DigestEntry.Config(max_timeout_ns=0, max_list_size=1))
    client.write(p4r.Update(type=p4r.Update.INSERT, entity=p4r.Entity(digest_entry=entry)))
    dataplane.inject(0, bytes.fromhex("050102"))
    while (message := client.streams[0].next()).WhichOneof("update") != "digest":
        pass
    [sample] = message.digest.data
    assert sample == p4d.P4Data(
        tuple=p4d.P4StructLike(
            members=[p4d.P4Data(bitstring=b"\x05"), p4d.P4Data(bitstring=b"\x01\x02")]
        )
    )
