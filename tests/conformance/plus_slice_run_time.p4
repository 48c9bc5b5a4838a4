// `e[L +: W]` whose start L is a run-time value (P4_16 1.2.5, bit slices): W is a
// constant and the result is bit<W>. The spec leaves bits past the top of e to the
// target; here they read as 0 and writes to them are dropped, which is what the
// shift `e >> L` and the masked write `e & ~(m << L) | (v & m) << L` give.
// Read and written, in an apply block and in an action whose L is a parameter.

#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  start;
    bit<16> word;
    bit<8>  got;
    bit<8>  put;
    bit<4>  nibble_start;
    bit<4>  pad;
}

struct headers_t { h_t h; }
struct meta_t { }

parser ParserImpl(packet_in pk, out headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.h);
        transition accept;
    }
}

control NoVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control IngressImpl(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action write_nibble(bit<4> at) {
        // A parameter as the start: the low 2 bits of `put` go to pad[at +: 2].
        hdr.h.pad[at +: 2] = hdr.h.put[1:0];
    }

    apply {
        hdr.h.got = hdr.h.word[hdr.h.start +: 8];
        hdr.h.word[hdr.h.start +: 4] = hdr.h.put[7:4];
        write_nibble(hdr.h.nibble_start);
        sm.egress_spec = 1;
    }
}

control EgressImpl(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
}

control NoCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control DeparserImpl(packet_out pk, in headers_t hdr) {
    apply { pk.emit(hdr.h); }
}

V1Switch(ParserImpl(), NoVerify(), IngressImpl(), EgressImpl(), NoCompute(),
         DeparserImpl()) main;
