"""The parser covers the P4_16 1.2.x grammar, independent of the type checker."""

import pytest

from p4aqm.compiler import ast
from p4aqm.compiler.diagnostics import CompileError
from p4aqm.compiler.lexer import tokenize
from p4aqm.compiler.parser import Parser, parse
from p4aqm.compiler.preprocess import LineMap

GRAMMAR_TOUR = """
error { Oops }
match_kind { fancy }
typedef bit<8> byte_t;
type bit<32> Handle_t;
const int<8> NEG = -8s3;
enum Color { Red, Green }
enum bit<8> Proto { TCP = 6, UDP = 17 }
header h_t { @name("f") bit<8> a; varbit<32> opts; }
header_union u_t { h_t x; h_t y; }
struct s_t<T> { T v; h_t[4] stack; tuple<bit<8>, bool> tp; }
extern Thing<T> {
    Thing(bit<32> n);
    T get<U>(in U u);
    abstract void cb(inout T t);
}
extern void ext_fn<T>(out T x, in bit<8> y = 3);
parser Prs<H>(packet_in p, out H h);
control Ctl(inout bit<8> x);
package Pkg<H>(Prs<H> p, Ctl c);
bit<8> max(in bit<8> a, in bit<8> b) { return a > b ? a : b; }
action global_act(bit<8> v) { }
parser MyP(packet_in p, out h_t h)(bit<8> ctor) {
    value_set<bit<16>>(4) vs;
    bit<8> local = 1;
    state start {
        p.extract(h);
        h.a = p.lookahead<bit<8>>();
        transition select(h.a, local) {
            (8w1 &&& 0xF, _): next;
            (2 .. 5, 1): accept;
            (vs, default): reject;
            default: accept;
        }
    }
    state next { transition accept; }
}
control MyC(inout h_t h, inout bit<8> m) {
    Thing<bit<8>>(4) thing;
    action a1(in bit<8> x, bit<8> y) { h.a = x |+| y; m = m |-| 1; }
    table t {
        key = { h.a: exact @name("key_a"); m[3:0]: ternary; h.isValid(): exact; }
        actions = { a1(1); @defaultonly NoAction; }
        const default_action = NoAction();
        size = 1 << 10;
        entries = {
            const priority = 10: (1, _): a1(2);
            (0x2 &&& 0xF, 3 .. 4): NoAction();
        }
        implementation = thing;
    }
    apply {
        bit<16> w = (bit<16>)h.a ++ 8w0 >> 2;
        w = w << 1 + 2;
        m += 1;
        switch (t.apply().action_run) {
            a1: { exit; }
            NoAction:
            default: { m = (m & 0xF0) | (~m ^ 8w3); }
        }
        if (h.isValid() && !(m == 0) || false) { h.setInvalid(); } else if (m != 1) { return; }
        ext_fn<bit<8>>(m, y = 2);
        ext_fn(_, 1);
        h = {#};
        m = max(m, Proto.TCP);
        @atomic { m = h.a[7:4] ++ h.a[3:0]; }
    }
}
Pkg(MyP(8w0), MyC()) main;
"""


def _parse(text: str) -> ast.Program:
    return parse(tokenize(text, LineMap([("t.p4", i + 1) for i in range(text.count("\n") + 1)])))


def _expr(text: str, type_names: tuple[str, ...] = ()) -> ast.Expression:
    tokens = tokenize(text, LineMap([("e.p4", 1)]))
    return Parser(tokens, set(type_names)).expression()


def test_grammar_tour_parses() -> None:
    program = _parse(GRAMMAR_TOUR)
    kinds = [type(d).__name__ for d in program.declarations]
    assert kinds[:4] == [
        "ErrorDeclaration",
        "MatchKindDeclaration",
        "TypedefDeclaration",
        "TypedefDeclaration",
    ]
    assert "HeaderUnionDeclaration" in kinds
    assert kinds[-1] == "Instantiation"
    control = next(
        d for d in program.declarations if isinstance(d, ast.ControlDeclaration) and d.name == "MyC"
    )
    table = next(d for d in control.locals if isinstance(d, ast.TableDeclaration))
    key = table.property("key")
    assert isinstance(key, ast.KeyProperty)
    assert [k.match_kind for k in key.elements] == ["exact", "ternary", "exact"]
    entries = table.property("entries")
    assert isinstance(entries, ast.EntriesProperty) and len(entries.entries) == 2
    assert entries.entries[0].priority is not None
    default = table.property("default_action")
    assert isinstance(default, ast.ValueProperty) and default.is_const
    stmts = control.body.stmts
    assert isinstance(stmts[0], ast.VariableDeclaration)
    assert isinstance(stmts[2], ast.Assignment) and stmts[2].op == "+="
    assert isinstance(stmts[3], ast.SwitchStatement) and stmts[3].cases[1].body is None


def test_precedence() -> None:
    e = _expr("a + b * c == d && e | f")
    assert isinstance(e, ast.Binary) and e.op == "&&"
    eq = e.left
    assert isinstance(eq, ast.Binary) and eq.op == "=="
    assert isinstance(eq.left, ast.Binary) and eq.left.op == "+"
    assert isinstance(eq.left.right, ast.Binary) and eq.left.right.op == "*"
    assert isinstance(e.right, ast.Binary) and e.right.op == "|"


def test_shift_from_two_adjacent_greater_than() -> None:
    e = _expr("a >> 2 << 1")
    assert isinstance(e, ast.Binary) and e.op == "<<"
    assert isinstance(e.left, ast.Binary) and e.left.op == ">>"
    # With a space between them, `> >` is not a shift.
    with pytest.raises(CompileError):
        _expr("a > > 2")


def test_cast_versus_parenthesis_and_type_arguments() -> None:
    cast = _expr("(T) x + 1", ("T",))
    assert isinstance(cast, ast.Binary) and isinstance(cast.left, ast.Cast)
    paren = _expr("(x) + 1")
    assert isinstance(paren, ast.Binary) and isinstance(paren.left, ast.Name)
    call = _expr("f<bit<8>>(x)")
    assert isinstance(call, ast.Call) and len(call.type_args) == 1
    less = _expr("a < b")
    assert isinstance(less, ast.Binary) and less.op == "<"


def test_ternary_is_right_associative() -> None:
    e = _expr("a ? b : c ? d : e")
    assert isinstance(e, ast.Ternary) and isinstance(e.otherwise, ast.Ternary)


def test_integer_literals() -> None:
    for text, value, width, signed in [
        ("8w255", 255, 8, False),
        ("0x0800", 0x800, None, False),
        ("4s7", 7, 4, True),
        ("16w0b1010_1010", 0b10101010, 16, False),
        ("0o17", 15, None, False),
    ]:
        e = _expr(text)
        assert isinstance(e, ast.IntLiteral)
        assert (e.value, e.width, e.signed) == (value, width, signed)


def test_annotation_body_may_follow_white_space() -> None:
    # p4c's grammar reads `@name (".start")` as `@name(".start")` (parser-unroll-test1).
    program = _parse('@name (".g") action a() { }\n@hidden\naction b() { }\n')
    first, second = program.declarations
    assert isinstance(first, ast.ActionDeclaration) and isinstance(second, ast.ActionDeclaration)
    [name] = first.annotations
    assert name.name == "name" and [t.text for t in name.body] == ['".g"']
    assert [(a.name, a.body) for a in second.annotations] == [("hidden", [])]


def test_unstructured_annotation_bodies_take_any_tokens() -> None:
    # Spec 18.1: an unstructured body is a balanced token sequence, a lone apostrophe
    # included; p4c's `@pragma NAME ...` takes the rest of its line.
    program = _parse(
        "@my_anno(it's [fine] {x}) @hello(\"s\" 'x)\n@pragma foo bar 'b\naction a() { }\n"
    )
    [act] = program.declarations
    assert isinstance(act, ast.ActionDeclaration)
    bodies = [(a.name, [t.text for t in a.body]) for a in act.annotations]
    assert bodies == [
        ("my_anno", ["it", "'", "s", "[", "fine", "]", "{", "x", "}"]),
        ("hello", ['"s"', "'", "x"]),
        ("foo", ["bar", "'", "b"]),
    ]
    assert act.annotations[0].exprs is None  # not a list of expressions


def test_a_lone_apostrophe_outside_an_annotation_is_an_unexpected_character() -> None:
    with pytest.raises(CompileError, match='unexpected character "\'"') as info:
        _parse("const bit<8> X = 1;\naction a() { X' }\n")
    assert (info.value.pos.line, info.value.pos.col) == (2, 15)
