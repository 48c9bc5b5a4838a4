/* core.p4 of p4aqm: the P4_16 core library (spec section 5.3, appendix "core.p4").
 * Written for this project; names and signatures match the standard library so that
 * programs written for p4c compile unchanged.  The include guard is p4c's own macro,
 * _CORE_P4_, since programs test it (`#ifdef _CORE_P4_`). */
#ifndef _CORE_P4_
#define _CORE_P4_

/* Errors every architecture can raise while parsing. */
error {
    NoError,
    PacketTooShort,
    NoMatch,
    StackOutOfBounds,
    HeaderTooShort,
    ParserTimeout,
    ParserInvalidArgument
}

extern packet_in {
    /* Read a fixed-size header and make it valid. */
    void extract<T>(out T hdr);
    /* Read a header whose varbit field takes variableFieldSizeInBits bits. */
    void extract<T>(out T variableSizeHeader, in bit<32> variableFieldSizeInBits);
    /* Read without consuming. */
    T lookahead<T>();
    /* Skip bits of the input. */
    void advance(in bit<32> sizeInBits);
    /* Total packet length in bytes. */
    bit<32> length();
}

extern packet_out {
    /* Append a header to the output if it is valid. */
    void emit<T>(in T hdr);
}

/* Compile-time assertions. */
extern bool static_assert(bool check, string message);
extern bool static_assert(bool check);

/* Leave the parser with the given error when the check fails. */
extern void verify(in bool check, in error toSignal);

/* The action that does nothing, the default of tables without one. */
@noWarn("unused")
action NoAction() {}

/* The match kinds every architecture supports. */
match_kind {
    exact,
    ternary,
    lpm
}

#endif  /* _CORE_P4_ */
