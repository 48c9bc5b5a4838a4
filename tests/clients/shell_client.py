"""Run by p4runtime-shell's own interpreter (not by pytest): push l3_forward, insert a
route, read it back and try a duplicate insert, printing one line per result.

usage: shell_client.py GRPC_ADDR P4INFO JSON
"""

import sys

import p4runtime_sh.shell as sh
from p4runtime_sh.p4runtime import P4RuntimeWriteException


def main(addr: str, p4info: str, bmv2_json: str) -> None:
    sh.setup(
        device_id=0,
        grpc_addr=addr,
        election_id=(0, 1),
        config=sh.FwdPipeConfig(p4info, bmv2_json),
        verbose=False,
    )
    try:
        route = sh.TableEntry("MyIngress.ipv4_lpm")(action="MyIngress.ipv4_forward")
        route.match["hdr.ipv4.dst_addr"] = "10.0.1.0/24"
        route.action["dst_mac"] = "00:00:00:00:01:01"
        route.action["src_mac"] = "00:00:00:00:00:01"
        route.action["port"] = "2"
        route.insert()
        for entry in sh.TableEntry("MyIngress.ipv4_lpm").read():
            print(
                "READ",
                entry.match["hdr.ipv4.dst_addr"].lpm.prefix_len,
                entry.action["port"].value.hex(),
                flush=True,
            )
        try:
            route.insert()
        except P4RuntimeWriteException as exc:
            print("DUPLICATE", str(exc).replace("\n", " "), flush=True)
        route.delete()
        print("AFTER_DELETE", len(list(sh.TableEntry("MyIngress.ipv4_lpm").read())), flush=True)
    finally:
        sh.teardown()


if __name__ == "__main__":
    main(*sys.argv[1:4])
