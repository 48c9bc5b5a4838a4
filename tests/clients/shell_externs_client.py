"""Run by p4runtime-shell's own interpreter (not by pytest) against `p4aqm switch
--cpu-port 255` with runtime_externs: a table entry, a counter and a register written
and read back, and a packet-out to the CPU port that loops back as a packet-in. Prints
one line per result.

p4runtime-shell 0.0.6 has no RegisterEntry object, so the register goes through the
shell's own P4Runtime client with raw messages, still unchanged.

usage: shell_externs_client.py GRPC_ADDR P4INFO JSON
"""

import sys

import p4runtime_sh.shell as sh
from p4.v1 import p4data_pb2, p4runtime_pb2

FRAME = bytes.fromhex("000000000002000000000001") + b"\x08\x00payload"


def _register_entry(index: int, value: bytes | None = None) -> p4runtime_pb2.Entity:
    # The shell's context knows no registers either: take the id from the P4Info.
    p4info = sh.client.get_p4info()
    entity = p4runtime_pb2.Entity()
    entry = entity.register_entry
    entry.register_id = next(
        r.preamble.id for r in p4info.registers if r.preamble.name == "MyIngress.last_length"
    )
    entry.index.index = index
    if value is not None:
        entry.data.CopyFrom(p4data_pb2.P4Data(bitstring=value))
    return entity


def registers() -> None:
    update = p4runtime_pb2.Update(type=p4runtime_pb2.Update.MODIFY)
    update.entity.CopyFrom(_register_entry(3, b"\x12\x34"))
    sh.client.write_update(update)
    read = p4runtime_pb2.ReadRequest(device_id=0)
    read.entities.add().CopyFrom(_register_entry(3))
    for reply in sh.client.stub.Read(read):
        for entity in reply.entities:
            print("REGISTER", entity.register_entry.data.bitstring.hex(), flush=True)


def main(addr: str, p4info: str, bmv2_json: str) -> None:
    sh.setup(
        device_id=0,
        grpc_addr=addr,
        election_id=(0, 1),
        config=sh.FwdPipeConfig(p4info, bmv2_json),
        verbose=False,
    )
    try:
        entry = sh.TableEntry("MyIngress.forward")(action="MyIngress.send")
        entry.match["standard_metadata.ingress_port"] = "1"
        entry.action["port"] = "2"
        entry.insert()
        for read in sh.TableEntry("MyIngress.forward").read():
            print("TABLE", read.action["port"].value.hex(), flush=True)

        counter = sh.CounterEntry("MyIngress.port_packets")
        counter.index = 4
        counter.packet_count = 10
        counter.byte_count = 1000
        counter.modify()
        for read in sh.CounterEntry("MyIngress.port_packets").read():
            if read.index == 4:
                print("COUNTER", read.byte_count, read.packet_count, flush=True)

        registers()

        packet_in = sh.PacketIn()
        packet_out = sh.PacketOut(FRAME, egress_port="255", pad="0")
        packet_out.send()
        for message in packet_in.sniff(timeout=5):
            metadata = {m.metadata_id: m.value.hex() for m in message.packet.metadata}
            print("PACKET_IN", message.packet.payload == FRAME, metadata, flush=True)
            break
    finally:
        sh.teardown()


if __name__ == "__main__":
    main(*sys.argv[1:4])
