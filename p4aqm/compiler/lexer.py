"""Tokens of P4_16 (spec section 6.4), positioned in the user's original files.

The lexer does not classify identifiers as type or value names: in P4 that depends on
declarations seen so far, so `parser.Parser` keeps the set of type names and asks it
itself.  `>` is always a token of its own (with `adjacent` telling whether it touched
the previous token) so that `bit<8>>` closes two type argument lists while `a >> b`
is still a shift: the parser joins two adjacent `>` where an operator is expected.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from p4aqm.compiler.diagnostics import CompileError, SourcePos
from p4aqm.compiler.preprocess import LineMap

_KEYWORD_TEXT = (
    "abstract action apply bit bool break const continue control default else enum error "
    "exit extern false for header header_union if in inout int match_kind out package "
    "parser return "
    "select state string struct switch table transition true tuple type typedef "
    "value_set varbit void"
)
KEYWORDS = frozenset(_KEYWORD_TEXT.split())

# Longest first, so that the regex alternation prefers `&&&` to `&&` to `&`.
_PUNCTUATION_TEXT = (
    "|+|= |-|= &&& |+| |-| ... << <= >= == != && || ++ .. += -= *= /= %= &= |= ^= "
    "( ) { } [ ] < > ; : , . ? ! ~ & | ^ + - * / % = @ #"
)
PUNCTUATION = sorted(
    _PUNCTUATION_TEXT.split(),
    key=len,
    reverse=True,
)

_TOKEN = re.compile(
    r"""
    (?P<ws>[ \t\r\f\v]+|\n)
  | (?P<comment>//[^\n]*|/\*(?:.|\n)*?\*/)
  | (?P<int>(?:\d+[ws])?(?:0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|0[dD][0-9_]+|\d[\d_]*))
  | (?P<string>"(?:[^"\\\n]|\\.)*")
  | (?P<word>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<punct>"""
    + "|".join(re.escape(p) for p in PUNCTUATION)
    + r""")
    """,
    re.VERBOSE,
)

# Any other character is a token of its own, kind OTHER (not a word, so never a name).
_OTHER = re.compile(r"(?P<other>.)", re.DOTALL)
OTHER = "<other>"

_INT_PARTS = re.compile(r"(?:(\d+)([ws]))?(.*)", re.DOTALL)
_RADIX = {"x": 16, "X": 16, "b": 2, "B": 2, "o": 8, "O": 8, "d": 10, "D": 10}


@dataclass(frozen=True)
class IntValue:
    value: int
    width: int | None  # None: an unsized (arbitrary-precision) literal
    signed: bool
    base: int = 10  # as written, for names p4c spells with it (table key names)


@dataclass(frozen=True)
class Token:
    kind: str  # "ID", "INT", "STRING", "EOF", a keyword, or a punctuation string
    text: str
    pos: SourcePos
    adjacent: bool = False  # no whitespace or comment between this token and the previous
    int_value: IntValue | None = None


def tokenize(text: str, lines: LineMap) -> list[Token]:
    tokens: list[Token] = []
    line, line_start, i = 1, 0, 0
    adjacent = False
    while i < len(text):
        m = _TOKEN.match(text, i) or _OTHER.match(text, i)
        assert m is not None  # _OTHER matches any one character
        kind, lexeme = m.lastgroup, m[0]
        pos = lines.pos(line, i - line_start + 1)
        if kind == "other":
            # Only an unstructured annotation's body may hold it (spec 18.1, `@a(it's)`);
            # the parser says "unexpected character" anywhere else.
            tokens.append(Token(OTHER, lexeme, pos, adjacent))
        elif kind == "word":
            tokens.append(Token(lexeme if lexeme in KEYWORDS else "ID", lexeme, pos, adjacent))
        elif kind == "int":
            tokens.append(Token("INT", lexeme, pos, adjacent, _int_value(lexeme, pos)))
        elif kind == "string":
            tokens.append(Token("STRING", lexeme, pos, adjacent))
        elif kind == "punct":
            tokens.append(Token(lexeme, lexeme, pos, adjacent))
        adjacent = kind not in ("ws", "comment")
        newlines = lexeme.count("\n")
        if newlines:
            line += newlines
            line_start = i + lexeme.rindex("\n") + 1
        i = m.end()
    tokens.append(Token("EOF", "", lines.pos(line, i - line_start + 1)))
    return tokens


def _int_value(lexeme: str, pos: SourcePos) -> IntValue:
    m = _INT_PARTS.fullmatch(lexeme)
    assert m is not None  # the token regex only produces well-formed literals
    width = int(m[1]) if m[1] else None
    digits = m[3].replace("_", "")
    radix = 10
    if len(digits) > 1 and digits[0] == "0" and digits[1] in _RADIX:
        radix, digits = _RADIX[digits[1]], digits[2:]
    if not digits:
        raise CompileError(pos, f"malformed integer literal '{lexeme}'")
    signed = m[2] == "s"
    if width is not None and width == 0 and signed:
        raise CompileError(pos, "signed integers must be at least 1 bit wide")
    return IntValue(int(digits, radix), width, signed, radix)
