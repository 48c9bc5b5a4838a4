"""Routes as entries of the L3 table that every program in p4src/ shares."""

import finsy as fy

from p4aqm.controller.config import Route

IPV4_LPM_TABLE = "MyIngress.ipv4_lpm"
IPV4_DST_FIELD = "hdr.ipv4.dst_addr"
IPV4_FORWARD_ACTION = "MyIngress.ipv4_forward"


def route_entry(route: Route) -> fy.P4TableEntry:
    return fy.P4TableEntry(
        IPV4_LPM_TABLE,
        match=fy.Match({IPV4_DST_FIELD: str(route.prefix)}),
        action=fy.Action(
            IPV4_FORWARD_ACTION, dst_mac=route.dst_mac, src_mac=route.src_mac, port=route.port
        ),
    )
