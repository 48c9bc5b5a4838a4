// A table with `const entries` of every match kind P4Runtime reads back (P4Runtime
// spec, "Constant tables": their entries can be read), and a direct counter to tie
// the read entries to the dataplane's handles.
#include <core.p4>
#include <v1model.p4>

header probe_t {
    bit<8>  dst;
    bit<16> tag;
    bit<8>  low;
    bit<8>  opt;
}

struct headers_t { probe_t probe; }
struct meta_t {}

parser ProbeParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                   inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.probe);
        transition accept;
    }
}

control NoCheck(inout headers_t hdr, inout meta_t meta) { apply {} }

control ProbeIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    direct_counter(CounterType.packets_and_bytes) hits;

    action to_port(bit<9> port) {
        hits.count();
        std.egress_spec = port;
    }

    action drop() {
        hits.count();
        mark_to_drop(std);
    }

    table classify {
        key = {
            hdr.probe.dst : exact;
            hdr.probe.tag : ternary;
            hdr.probe.low : range;
            hdr.probe.opt : optional;
        }
        actions = { to_port; drop; }
        const entries = {
            (1, 0x0a00 &&& 0xff00, 1 .. 9, 7) : to_port(2);
            (1, _, _, _) : to_port(3);
            (2, 0x0001, 0 .. 255, _) : drop();
        }
        counters = hits;
        default_action = drop();
    }

    apply { classify.apply(); }
}

control NoEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {}
}

control ProbeDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.probe); }
}

V1Switch(ProbeParser(), NoCheck(), ProbeIngress(), NoEgress(), NoCheck(), ProbeDeparser()) main;
