/* The L3 forwarding table, included inside each program's MyIngress so that its
 * control-plane names are the same everywhere: MyIngress.ipv4_lpm,
 * MyIngress.ipv4_forward, MyIngress.drop. Apply it with `ipv4_lpm.apply()`. */

    action drop() {
        mark_to_drop(standard_metadata);
    }

    action ipv4_forward(mac_addr_t dst_mac, mac_addr_t src_mac, port_t port) {
        standard_metadata.egress_spec = port;
        hdr.ethernet.src_addr = src_mac;
        hdr.ethernet.dst_addr = dst_mac;
        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
    }

    table ipv4_lpm {
        key = {
            hdr.ipv4.dst_addr: lpm;
        }
        actions = {
            ipv4_forward;
            drop;
        }
        size = 1024;
        default_action = drop();
    }
