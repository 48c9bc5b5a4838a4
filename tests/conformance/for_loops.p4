// For statements (spec 12.8, P4_16 1.2.5). The 3-clause loop checks its condition before
// each pass and runs its updates after the body; `continue` skips to the updates, `break`
// leaves the loop. `for (T x in c)` runs once per value of a range `lo .. hi` (both ends
// included), of a list expression or of a header stack, the collection evaluated once
// before the first pass, and a declaration in a for statement is scoped to the loop.
// Loops with run-time bounds run in actions, in functions and in apply blocks (where they
// do not apply tables).

#include <core.p4>
#include <v1model.p4>

header in_t {
    bit<8> op;
    bit<8> n;
    bit<8> lo;
    bit<8> hi;
}

header out_t {
    bit<16> a;
    bit<16> b;
    bit<8>  c;
}

header item_t {
    bit<8> v;
}

struct headers_t {
    in_t      i;
    out_t     o;
    item_t[3] items;
}

struct meta_t {}

parser P(packet_in pk, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pk.extract(h.i);
        pk.extract(h.o);
        pk.extract(h.items.next);
        pk.extract(h.items.next);
        pk.extract(h.items.next);
        transition accept;
    }
}

control NoCheck(inout headers_t h, inout meta_t m) {
    apply { }
}

// The first index at which v's bit is set, or 8: a return from inside a loop.
bit<8> first_set(in bit<8> v) {
    bit<8> w = v;
    for (bit<8> k = 0; k < 8; k = k + 1) {
        if (w[0:0] == 1) {
            return k;
        }
        w = w >> 1;
    }
    return 8;
}

control MyIngress(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    // Sum of 1..n, and in b the count of passes of a nested loop (n * n).
    action sums() {
        h.o.a = 0;
        h.o.b = 0;
        for (bit<8> i = 1; i <= h.i.n; i = i + 1) {
            h.o.a = h.o.a + (bit<16>)i;
            for (bit<8> j = 0; j < h.i.n; j = j + 1) {
                h.o.b = h.o.b + 1;
            }
        }
    }

    // continue skips even i; break stops at i == hi. Two init and two update clauses.
    action odd_until_hi() {
        bit<8> seen;
        for (bit<8> i = 0, seen = 0; i < h.i.n; i = i + 1, seen = seen + 1) {
            if (i == h.i.hi) {
                break;
            }
            if ((i & 1) == 0) {
                continue;
            }
            h.o.a = h.o.a + (bit<16>)i;
        }
        h.o.c = seen;
    }

    // A range with run-time ends; writing x does not change which value comes next.
    action over_range() {
        h.o.a = 0;
        h.o.b = 0;
        for (bit<8> x in h.i.lo .. h.i.hi) {
            h.o.a = h.o.a + 1;
            h.o.b = h.o.b + (bit<16>)x;
            x = 0;
        }
    }

    action over_list() {
        h.o.a = 0;
        for (bit<16> x in { (bit<16>)h.i.n, 16w0x100, 16w0x1000 }) {
            if (x == 16w0x100) {
                continue;
            }
            h.o.a = h.o.a + x;
        }
    }

    action over_stack() {
        h.o.a = 0;
        h.o.c = 0;
        for (item_t it in h.items) {
            if (it.v == 0) {
                break;
            }
            h.o.a = h.o.a + (bit<16>)it.v;
            h.o.c = h.o.c + 1;
        }
    }

    // The loop's own i hides the action's i in the loop only (spec: scope of a for
    // statement's declarations).
    action shadowed() {
        bit<8> i = 10;
        h.o.c = 0;
        for (bit<8> i in 1 .. h.i.n) {
            h.o.c = h.o.c + i;
        }
        h.o.a = (bit<16>)i;
    }

    table pick {
        key = { h.i.op : exact; }
        actions = {
            sums; odd_until_hi; over_range; over_list; over_stack; shadowed; NoAction;
        }
        const entries = {
            0 : sums();
            1 : odd_until_hi();
            2 : over_range();
            3 : over_list();
            4 : over_stack();
            7 : shadowed();
        }
        default_action = NoAction();
    }

    apply {
        sm.egress_spec = 1;
        pick.apply();
        if (h.i.op == 5) {
            h.o.c = first_set(h.i.n);
        }
        if (h.i.op == 6) {
            // A loop in the apply block; an exit that may not run leaves the statements
            // after the loop in place.
            h.o.a = 0;
            for (bit<8> i = 0; i < h.i.n; i = i + 1) {
                h.o.a = h.o.a + 2;
                if (i == h.i.hi) {
                    exit;
                }
            }
            h.o.c = 0xEE;
        }
    }
}

control MyEgress(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply { }
}

control Deparse(packet_out pk, in headers_t h) {
    apply {
        pk.emit(h.i);
        pk.emit(h.o);
        pk.emit(h.items);
    }
}

V1Switch(P(), NoCheck(), MyIngress(), MyEgress(), NoCheck(), Deparse()) main;
