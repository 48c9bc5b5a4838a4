// Whole stack elements chosen by an index known only at run time (spec 8.18, header
// stacks): setValid() and setInvalid() of hs[i], hs[i] = h, hs[i] == h, and hs[i] as
// an inout argument. The spec evaluates an l-value argument, index included, once at
// the call and copies back into that same element ("Calling convention: call by
// copy in/copy out"), even when the callee changes the index. An extern's out argument
// may be such an element's field (register read), and a parser state writes hs[i].v.

#include <core.p4>
#include <v1model.p4>

header ctl_t {
    bit<8> op;
    bit<8> i;
}

header e_t {
    bit<8> v;
}

struct headers_t {
    ctl_t  ctl;
    e_t[3] s;
}

struct meta_t {
}

parser MyParser(packet_in pk, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.ctl);
        pk.extract(hdr.s[0]);
        pk.extract(hdr.s[1]);
        transition select(hdr.ctl.op) {
            7: mark;
            default: accept;
        }
    }
    state mark {
        hdr.s[hdr.ctl.i].v = 0x77;
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply {
    }
}

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    register<bit<8>>(1) r;

    action bump(inout bit<8> i, inout e_t e) {
        e.v = e.v + 1;
        i = i + 1;
    }

    apply {
        sm.egress_spec = 1;
        if (hdr.ctl.op == 1) {
            hdr.s[hdr.ctl.i].setValid();
        } else if (hdr.ctl.op == 2) {
            hdr.s[hdr.ctl.i].setInvalid();
        } else if (hdr.ctl.op == 3) {
            hdr.s[hdr.ctl.i] = hdr.s[0];
        } else if (hdr.ctl.op == 4) {
            bump(hdr.ctl.i, hdr.s[hdr.ctl.i]);
        } else if (hdr.ctl.op == 5) {
            if (hdr.s[hdr.ctl.i] == hdr.s[0]) {
                hdr.ctl.op = 0xAA;
            }
        } else if (hdr.ctl.op == 6) {
            r.write(0, 0x66);
            r.read(hdr.s[hdr.ctl.i].v, 0);
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
