// A header stack whose header has a varbit field (spec 7.1.6.4 and header stacks):
// extract(hs.next, bits) fills the elements in turn, each with its own width; a whole
// element compares and copies with its varbit bytes; pop_front moves them down.

#include <core.p4>
#include <v1model.p4>

header opt_t {
    bit<8>     len;    // bytes in data
    varbit<24> data;
}

header r_t {
    bit<8> n;
    bit<8> flags;
}

struct headers_t {
    r_t      r;
    opt_t[2] o;
}

struct meta_t {
}

parser MyParser(packet_in pk, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.r);
        transition one;
    }
    state one {
        pk.extract(hdr.o.next, (bit<32>)pk.lookahead<bit<8>>() * 8);
        transition select(hdr.o.lastIndex) {
            0: one;
            default: accept;
        }
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply {
    }
}

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        bit<8> flags = 0;
        if (hdr.o[0] == hdr.o[1]) {
            flags = flags | 1;
        }
        if (hdr.o[0].data == hdr.o[1].data) {
            flags = flags | 2;
        }
        hdr.r.flags = flags;
        if (hdr.r.n == 1) {
            hdr.o.pop_front(1);
        }
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
