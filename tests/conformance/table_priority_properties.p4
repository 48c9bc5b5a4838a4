// `largest_priority_wins` and `priority_delta` (P4_16 1.2.4, spec 14.2.1.4) number
// the entries that give no `priority=N`: the previous entry's priority minus the delta
// (plus it when the smallest priority wins). A table property the compiler does not
// know is ignored with a warning, as p4c does.

#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;
    bit<8> b;
    bit<8> c;
}

struct headers_t {
    h_t h;
}

struct meta_t {
}

parser MyParser(packet_in pk, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.h);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply {
    }
}

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    action set_b(bit<8> v) {
        hdr.h.b = v;
    }
    action set_c(bit<8> v) {
        hdr.h.c = v;
    }

    // Smallest wins: priorities 10, 20, 30, 15. The wildcard (20) wins over the
    // exact 3 (30), the exact 4 (15) over the wildcard.
    table smallest {
        key = {
            hdr.h.a: ternary;
        }
        actions = {
            set_b; NoAction;
        }
        largest_priority_wins = false;
        priority_delta = 10;
        entries = {
            priority=10: 8w1 &&& 0xff : set_b(0x11);
            _ : set_b(0x20);
            8w3 : set_b(0x13);
            priority=15: 8w4 : set_b(0x14);
        }
        my_vendor_property = 7;
    }
    // Largest wins: priorities 100, 95, 90, 92. The exact 6 (90) loses to the
    // wildcard (95), the exact 7 (92) too; the exact 5 (100) wins over it.
    table largest {
        key = {
            hdr.h.a: ternary;
        }
        actions = {
            set_c; NoAction;
        }
        priority_delta = 5;
        entries = {
            priority=100: 8w5 : set_c(0x15);
            _ : set_c(0x30);
            8w6 : set_c(0x16);
            priority=92: 8w7 : set_c(0x17);
        }
    }
    apply {
        sm.egress_spec = 1;
        smallest.apply();
        largest.apply();
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) {
    apply {
    }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) {
    apply {
    }
}

control MyDeparser(packet_out pk, in headers_t hdr) {
    apply {
        pk.emit(hdr);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
