// A program whose main package comes from an included fragment guarded by
// `#ifdef _CORE_P4_`, as p4c's arith-* tests are written: the guard must be the one
// p4c's core.p4 defines, or the fragment, and with it `main`, disappears.

#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;
    bit<8> b;
}

control compute(inout h_t h) {
    apply {
        h.b = h.a + 1;
    }
}

#include "include/core_guarded_skeleton.p4"
