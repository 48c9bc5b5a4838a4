"""Recursive-descent parser for the whole P4_16 (1.2.x) grammar.

P4's grammar is not context-free in the way LALR generators need: whether `T x` or
`(T) e` or `f<T>(e)` is a declaration, a cast or a comparison depends on whether `T`
names a type, which p4c solves with lexer feedback from its symbol table.  A hand-written
parser handles that directly: it records every type name as it is declared
(`type_names`) and consults that set at the few places the grammar is ambiguous, with a
bounded backtrack for type arguments of calls.  That is why no parser generator is used.
"""

from __future__ import annotations

import ast as pyast
import copy
from collections.abc import Callable
from typing import TypeVar

from p4aqm.compiler import ast
from p4aqm.compiler.diagnostics import CompileError
from p4aqm.compiler.lexer import OTHER, Token

N = TypeVar("N")

_BASE_TYPES = ("bit", "int", "varbit", "bool", "error", "string", "void", "match_kind")
# Binary operators by increasing precedence (spec 8.x, as p4c's grammar orders them).
_BINARY_LEVELS: list[tuple[str, ...]] = [
    ("||",),
    ("&&",),
    ("==", "!="),
    ("<", ">", "<=", ">="),
    ("|",),
    ("^",),
    ("&",),
    ("<<", ">>"),
    ("++", "+", "-", "|+|", "|-|"),
    ("*", "/", "%"),
]
_COMPOUND_ASSIGN = ("+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "|+|=", "|-|=")


class Parser:
    def __init__(self, tokens: list[Token], type_names: set[str] | None = None) -> None:
        self.tokens = tokens
        self.i = 0
        # Type names seen so far; seeded with nothing because core.p4 declares them all.
        self.type_names: set[str] = set(type_names or ())

    # ---- token helpers -------------------------------------------------------------

    def peek(self, k: int = 0) -> Token:
        return self.tokens[min(self.i + k, len(self.tokens) - 1)]

    def at(self, *kinds: str) -> bool:
        return self.peek().kind in kinds

    def at_word(self, text: str) -> bool:
        """A contextual keyword (key, actions, entries, priority...) is lexed as an ID."""
        return self.peek().kind == "ID" and self.peek().text == text

    def advance(self) -> Token:
        tok = self.peek()
        if tok.kind == OTHER:
            self.fail("unexpected character", tok)
        self.i = min(self.i + 1, len(self.tokens) - 1)
        return tok

    def advance_raw(self) -> Token:
        """The next token, whatever it is: an annotation's body takes any character."""
        tok = self.peek()
        self.i = min(self.i + 1, len(self.tokens) - 1)
        return tok

    def accept(self, kind: str) -> Token | None:
        return self.advance() if self.at(kind) else None

    def expect(self, kind: str, what: str | None = None) -> Token:
        if not self.at(kind):
            self.fail(f"expected {what or repr(kind)}")
        return self.advance()

    def fail(self, message: str, tok: Token | None = None) -> None:
        tok = tok or self.peek()
        if tok.kind == OTHER:
            raise CompileError(tok.pos, f"unexpected character {tok.text!r}")
        found = "end of file" if tok.kind == "EOF" else f"'{tok.text}'"
        raise CompileError(tok.pos, f"{message}, found {found}")

    def name(self, what: str = "a name") -> Token:
        """An identifier; contextual keywords are identifiers already."""
        if self.at("ID"):
            return self.advance()
        if self.at("apply", "type", "state"):
            return self.advance()
        self.fail(f"expected {what}")
        raise AssertionError  # fail() never returns

    def member_name(self) -> Token:
        # After `.`, any word is a member name (e.g. `t.apply`, `error.NoError`).
        tok = self.peek()
        if tok.kind == "ID" or tok.kind.isalpha():
            return self.advance()
        self.fail("expected a member name")
        raise AssertionError

    def list_of(self, close: str, item: Callable[[], N], sep: str = ",") -> list[N]:
        items: list[N] = []
        if self.accept(close):
            return items
        while True:
            items.append(item())
            if self.accept(close):
                return items
            self.expect(sep, f"'{sep}' or '{close}'")

    def is_type_name(self, tok: Token) -> bool:
        return tok.kind == "ID" and tok.text in self.type_names

    # ---- program and annotations ---------------------------------------------------

    def parse_program(self) -> ast.Program:
        decls: list[ast.Declaration] = []
        start = self.peek().pos
        while not self.at("EOF"):
            if self.accept(";"):
                continue
            decls.append(self.declaration())
        return ast.Program(start, decls)

    def annotations(self) -> list[ast.Annotation]:
        result: list[ast.Annotation] = []
        while self.at("@"):
            at = self.advance()
            name = self.member_name().text
            body: list[Token] = []
            if name == "pragma":
                # p4c's `@pragma NAME tokens...`: the rest of the line is the annotation.
                name, body = self.pragma_line(at)
            # As p4c's grammar: a body may follow the name after white space
            # (`@name (".start")`, p4c's parser-unroll-test1).
            elif self.at("(", "["):
                body = self.balanced_tokens()
            result.append(ast.Annotation(at.pos, name, body, self.annotation_exprs(body)))
        return result

    def pragma_line(self, at: Token) -> tuple[str, list[Token]]:
        line = (at.pos.file, at.pos.line)
        name = self.member_name()
        if (name.pos.file, name.pos.line) != line:
            self.fail("expected a pragma name on the line of '@pragma'", name)
        body = []
        while self.peek().kind != "EOF" and (self.peek().pos.file, self.peek().pos.line) == line:
            body.append(self.advance_raw())
        return name.text, body

    def balanced_tokens(self) -> list[Token]:
        close = {"(": ")", "[": "]"}[self.advance().kind]
        depth, body = 0, []
        while True:
            tok = self.advance_raw()
            if tok.kind == "EOF":
                self.fail(f"unterminated annotation, expected '{close}'", tok)
            if tok.kind in ("(", "[", "{"):
                depth += 1
            elif tok.kind in (")", "]", "}"):
                if depth == 0:
                    return body
                depth -= 1
            body.append(tok)

    def annotation_exprs(self, body: list[Token]) -> list[ast.Expression] | None:
        if not body:
            return []
        sub = Parser([*body, Token("EOF", "", body[-1].pos)], self.type_names)
        try:
            exprs = [sub.expression()]
            while sub.accept(","):
                exprs.append(sub.expression())
        except CompileError:
            return None
        return exprs if sub.at("EOF") else None

    # ---- types ---------------------------------------------------------------------

    def type_params(self) -> list[str]:
        if not self.accept("<"):
            return []
        names = self.list_of(">", lambda: self.name("a type parameter").text)
        self.type_names.update(names)
        return names

    def type_ref(self) -> ast.TypeRef:
        tok = self.peek()
        result: ast.TypeRef
        if tok.kind in _BASE_TYPES:
            self.advance()
            width = None
            if tok.kind in ("bit", "int", "varbit") and self.at("<"):
                self.advance()
                width = self.width_expression()
                self.expect(">", "'>'")
            elif tok.kind == "varbit":
                self.fail("expected '<' after varbit")
            result = ast.BaseTypeRef(tok.pos, tok.kind, width)
        elif tok.kind == "tuple" or (self.at_word("list") and self.peek(1).kind == "<"):
            self.advance()
            self.expect("<")
            result = ast.TupleTypeRef(tok.pos, tok.text, self.list_of(">", self.type_arg))
        elif tok.kind == "ID" and tok.text == "_":
            self.advance()
            result = ast.DontCareTypeRef(tok.pos)
        else:
            is_global = self.accept(".") is not None
            name = self.name("a type")
            args = self.list_of(">", self.type_arg) if self.accept("<") else []
            result = ast.NamedTypeRef(tok.pos, name.text, args, is_global)
        if self.at("["):
            self.advance()
            size = self.expression()
            self.expect("]")
            result = ast.StackTypeRef(tok.pos, result, size)
        return result

    def type_arg(self) -> ast.TypeRef:
        return self.type_ref()

    def width_expression(self) -> ast.Expression:
        tok = self.peek()
        if tok.kind == "INT":
            return self.primary()
        if tok.kind == "(":
            self.advance()
            e = self.expression()
            self.expect(")")
            return e
        if tok.kind == "ID":
            self.advance()
            return ast.Name(tok.pos, tok.text)
        self.fail("expected a width")
        raise AssertionError

    def starts_type(self, k: int = 0) -> bool:
        tok = self.peek(k)
        return (
            tok.kind in _BASE_TYPES
            or tok.kind == "tuple"
            or self.is_type_name(tok)
            or (tok.kind == "." and self.is_type_name(self.peek(k + 1)))
        )

    # ---- declarations --------------------------------------------------------------

    def declaration(self) -> ast.Declaration:
        annos = self.annotations()
        tok = self.peek()
        decl: ast.Declaration
        if tok.kind == "const":
            decl = self.constant()
        elif tok.kind == "extern":
            decl = self.extern()
        elif tok.kind == "action":
            decl = self.action()
        elif tok.kind == "parser":
            decl = self.parser_decl()
        elif tok.kind == "control":
            decl = self.control_decl()
        elif tok.kind == "package":
            self.advance()
            name = self.name("a package name")
            self.type_names.add(name.text)
            tps = self.type_params()
            params = self.params()
            self.expect(";")
            decl = ast.PackageTypeDeclaration(name.pos, name.text, tps, params)
        elif tok.kind in ("header", "header_union", "struct"):
            decl = self.struct_like()
        elif tok.kind == "enum":
            decl = self.enum()
        elif tok.kind in ("typedef", "type"):
            self.advance()
            ref = self.type_ref()
            name = self.name("a type name")
            self.type_names.add(name.text)
            self.expect(";")
            decl = ast.TypedefDeclaration(name.pos, name.text, ref, tok.kind == "type")
        elif tok.kind in ("error", "match_kind") and self.peek(1).kind == "{":
            self.advance()
            self.advance()
            members = self.list_of("}", lambda: self.name("a member"))
            pairs = [(m.text, m.pos) for m in members]
            cls = ast.ErrorDeclaration if tok.kind == "error" else ast.MatchKindDeclaration
            decl = cls(tok.pos, tok.kind, pairs)
        else:
            decl = self.function_or_instantiation()
        decl.annotations = annos + decl.annotations
        return decl

    def constant(self) -> ast.ConstantDeclaration:
        self.expect("const")
        ref = self.type_ref()
        name = self.name("a constant name")
        self.expect("=", "'='")
        value = self.initializer()
        self.expect(";", "';'")
        return ast.ConstantDeclaration(name.pos, name.text, ref, value)

    def initializer(self) -> ast.Expression:
        return self.expression()

    def struct_like(self) -> ast.Declaration:
        kw = self.advance()
        name = self.name(f"a {kw.kind} name")
        self.type_names.add(name.text)
        tps = self.type_params()
        self.expect("{", "'{'")
        fields: list[ast.StructField] = []
        while not self.accept("}"):
            annos = self.annotations()
            ref = self.type_ref()
            fname = self.name("a field name")
            self.expect(";", "';'")
            fields.append(ast.StructField(fname.pos, annos, ref, fname.text))
        cls = {
            "header": ast.HeaderDeclaration,
            "header_union": ast.HeaderUnionDeclaration,
            "struct": ast.StructDeclaration,
        }[kw.kind]
        return cls(name.pos, name.text, tps, fields)

    def enum(self) -> ast.EnumDeclaration:
        self.expect("enum")
        underlying = self.type_ref() if self.at("bit", "int") else None
        name = self.name("an enum name")
        self.type_names.add(name.text)
        self.expect("{", "'{'")

        def member() -> tuple[str, ast.Expression | None, ast.SourcePos]:
            m = self.name("an enum member")
            value = self.expression() if self.accept("=") else None
            return m.text, value, m.pos

        members = self.list_of("}", member)
        return ast.EnumDeclaration(name.pos, name.text, underlying, members)

    def param(self) -> ast.Parameter:
        annos = self.annotations()
        direction = ""
        if self.at("in", "out", "inout"):
            direction = self.advance().kind
        ref = self.type_ref()
        name = self.name("a parameter name")
        default = self.expression() if self.accept("=") else None
        return ast.Parameter(name.pos, annos, direction, ref, name.text, default)

    def params(self) -> list[ast.Parameter]:
        self.expect("(", "'('")
        return self.list_of(")", self.param)

    def prototype(self, extern_name: str | None = None) -> ast.FunctionPrototype:
        annos = self.annotations()
        is_abstract = self.accept("abstract") is not None
        if extern_name is not None and self.at_word(extern_name) and self.peek(1).kind == "(":
            name = self.advance()
            params = self.params()
            proto = ast.FunctionPrototype(name.pos, name.text, None, [], params)
        else:
            ret = self.type_ref()
            name = self.name("a function name")
            tps = self.type_params()
            params = self.params()
            proto = ast.FunctionPrototype(name.pos, name.text, ret, tps, params, is_abstract)
        proto.annotations = annos
        return proto

    def extern(self) -> ast.Declaration:
        self.expect("extern")
        start = self.i
        if self.at("ID"):
            name = self.advance()
            self.type_names.add(name.text)
            tps = self.type_params()
            if self.accept("{"):
                methods: list[ast.FunctionPrototype] = []
                while not self.accept("}"):
                    methods.append(self.prototype(name.text))
                    self.expect(";", "';'")
                return ast.ExternDeclaration(name.pos, name.text, tps, methods)
            self.type_names.discard(name.text)
            self.i = start
        proto = self.prototype()
        self.expect(";", "';'")
        return ast.ExternFunctionDeclaration(proto.pos, proto.name, proto)

    def action(self) -> ast.ActionDeclaration:
        self.expect("action")
        name = self.name("an action name")
        params = self.params()
        body = self.block()
        return ast.ActionDeclaration(name.pos, name.text, params, body)

    def function_or_instantiation(self) -> ast.Declaration:
        if not self.starts_type() and not (self.at("ID") and self.peek(1).kind == "ID"):
            self.fail("expected a declaration")
        ref = self.type_ref()
        if self.at("("):
            return self.instantiation_rest(ref)
        name = self.name("a name")
        tps = self.type_params()
        params = self.params()
        proto = ast.FunctionPrototype(name.pos, name.text, ref, tps, params)
        if self.accept(";"):
            return ast.ExternFunctionDeclaration(name.pos, name.text, proto)
        body = self.block()
        return ast.FunctionDeclaration(name.pos, name.text, proto, body)

    def instantiation_rest(self, ref: ast.TypeRef) -> ast.Instantiation:
        args = self.arguments()
        name = self.name("an instance name")
        initializer = None
        if self.accept("="):
            self.expect("{", "'{'")
            initializer = []
            while not self.accept("}"):
                initializer.append(self.declaration())
        self.expect(";", "';'")
        return ast.Instantiation(name.pos, name.text, ref, args, initializer)

    def parser_decl(self) -> ast.Declaration:
        self.expect("parser")
        name = self.name("a parser name")
        self.type_names.add(name.text)
        tps = self.type_params()
        params = self.params()
        if self.accept(";"):
            return ast.ParserTypeDeclaration(name.pos, name.text, tps, params)
        ctor = self.params() if self.at("(") else []
        self.expect("{", "'{' or ';'")
        locals_: list[ast.Declaration] = []
        states: list[ast.ParserState] = []
        while not self.accept("}"):
            annos = self.annotations()
            if self.at("state"):
                state = self.parser_state()
                state.annotations = annos
                states.append(state)
                continue
            if states:
                self.fail("expected 'state' or '}'")
            decl = self.local_declaration()
            decl.annotations = annos + decl.annotations
            locals_.append(decl)
        return ast.ParserDeclaration(name.pos, name.text, tps, params, ctor, locals_, states)

    def local_declaration(self) -> ast.Declaration:
        """Locals of a parser or control: constants, variables, instances, value sets,
        and in controls actions and tables."""
        tok = self.peek()
        if tok.kind == "const":
            return self.constant()
        if tok.kind == "action":
            return self.action()
        if tok.kind == "table":
            return self.table()
        if tok.kind == "value_set":
            self.advance()
            self.expect("<")
            ref = self.type_ref()
            self.expect(">")
            self.expect("(")
            size = self.expression()
            self.expect(")")
            name = self.name("a value set name")
            self.expect(";", "';'")
            return ast.ValueSetDeclaration(name.pos, name.text, ref, size)
        ref = self.type_ref()
        if self.at("("):
            return self.instantiation_rest(ref)
        name = self.name("a variable name")
        init = self.expression() if self.accept("=") else None
        self.expect(";", "';'")
        return ast.VariableDeclaration(name.pos, name.text, ref, init)

    def parser_state(self) -> ast.ParserState:
        self.expect("state")
        name = self.name("a state name")
        self.expect("{", "'{'")
        stmts: list[ast.Statement] = []
        transition: ast.Expression | None = None
        while not self.accept("}"):
            if self.at("transition"):
                self.advance()
                transition = self.transition_target()
                self.expect("}", "'}' after the transition")
                break
            stmts.append(self.statement())
        return ast.ParserState(name.pos, name.text, stmts, transition)

    def transition_target(self) -> ast.Expression:
        tok = self.peek()
        if tok.kind == "select":
            self.advance()
            self.expect("(", "'('")
            keys = self.list_of(")", self.expression)
            self.expect("{", "'{'")
            cases: list[ast.SelectCase] = []
            while not self.accept("}"):
                annos = self.annotations()
                keyset = self.tuple_keyset()
                self.expect(":", "':'")
                state = self.name("a state name")
                self.expect(";", "';'")
                cases.append(ast.SelectCase(keyset.pos, keyset, state.text, annos))
            return ast.SelectExpression(tok.pos, keys, cases)
        state = self.name("a state name or 'select'")
        self.expect(";", "';'")
        return ast.Name(state.pos, state.text)

    def tuple_keyset(self) -> ast.Expression:
        tok, start = self.peek(), self.i
        if tok.kind == "(":
            # `(a, b)` is a tuple of keysets; `(a)` a parenthesized one. A keyset is
            # followed by `:`; otherwise the parentheses opened an expression that goes
            # on, `(32w1) + 1`, read again as one.
            self.advance()
            items = self.list_of(")", self.keyset)
            if self.at(":"):
                return items[0] if len(items) == 1 else ast.ListExpression(tok.pos, items)
            self.i = start
        return self.keyset()

    def keyset(self) -> ast.Expression:
        tok = self.peek()
        if tok.kind == "default":
            self.advance()
            return ast.Default(tok.pos)
        if tok.kind == "ID" and tok.text == "_":
            self.advance()
            return ast.DontCare(tok.pos)
        value = self.expression()
        if self.accept("&&&"):
            return ast.Mask(tok.pos, value, self.expression())
        if self.accept(".."):
            return ast.Range(tok.pos, value, self.expression())
        return value

    def control_decl(self) -> ast.Declaration:
        self.expect("control")
        name = self.name("a control name")
        self.type_names.add(name.text)
        tps = self.type_params()
        params = self.params()
        if self.accept(";"):
            return ast.ControlTypeDeclaration(name.pos, name.text, tps, params)
        ctor = self.params() if self.at("(") else []
        self.expect("{", "'{' or ';'")
        locals_: list[ast.Declaration] = []
        while not self.at("apply"):
            if self.at("}", "EOF"):
                self.fail("expected 'apply' in the control")
            annos = self.annotations()
            decl = self.local_declaration()
            decl.annotations = annos + decl.annotations
            locals_.append(decl)
        self.expect("apply")
        body = self.block()
        self.expect("}", "'}' after the apply block")
        return ast.ControlDeclaration(name.pos, name.text, tps, params, ctor, locals_, body)

    def table(self) -> ast.TableDeclaration:
        self.expect("table")
        name = self.name("a table name")
        self.expect("{", "'{'")
        props: list[ast.TableProperty] = []
        while not self.accept("}"):
            annos = self.annotations()
            is_const = self.accept("const") is not None
            pname = self.name("a table property")
            self.expect("=", "'='")
            prop: ast.TableProperty
            if pname.text == "key":
                self.expect("{", "'{'")
                elements: list[ast.KeyElement] = []
                while not self.accept("}"):
                    e = self.expression()
                    self.expect(":", "':'")
                    kind = self.name("a match kind")
                    elements.append(ast.KeyElement(kind.pos, self.annotations(), e, kind.text))
                    self.expect(";", "';'")
                prop = ast.KeyProperty(pname.pos, annos, "key", is_const, elements)
            elif pname.text == "actions":
                self.expect("{", "'{'")
                refs: list[ast.ActionRef] = []
                while not self.accept("}"):
                    a_annos = self.annotations()
                    e = self.expression()
                    refs.append(ast.ActionRef(e.pos, a_annos, e))
                    self.expect(";", "';'")
                prop = ast.ActionsProperty(pname.pos, annos, "actions", is_const, refs)
            elif pname.text == "entries":
                self.expect("{", "'{'")
                entries: list[ast.Entry] = []
                while not self.accept("}"):
                    entries.append(self.entry(is_const))
                prop = ast.EntriesProperty(pname.pos, annos, "entries", is_const, entries)
            else:
                value = self.expression()
                self.expect(";", "';'")
                prop = ast.ValueProperty(pname.pos, annos, pname.text, is_const, value)
                props.append(prop)
                continue
            self.accept(";")
            props.append(prop)
        return ast.TableDeclaration(name.pos, name.text, props)

    def entry(self, table_const: bool) -> ast.Entry:
        annos = self.annotations()
        is_const = self.accept("const") is not None or table_const
        priority = None
        if self.at_word("priority") and self.peek(1).kind == "=":
            self.advance()
            self.advance()
            priority = self.expression()
            self.expect(":", "':'")
        keyset = self.tuple_keyset()
        self.expect(":", "':'")
        action = self.expression()
        annos += self.annotations()
        self.expect(";", "';'")
        return ast.Entry(keyset.pos, annos, keyset, action, priority, is_const)

    # ---- statements ----------------------------------------------------------------

    def block(self) -> ast.BlockStatement:
        annos = self.annotations()
        start = self.expect("{", "'{'")
        stmts: list[ast.Statement] = []
        while not self.accept("}"):
            if self.at("EOF"):
                self.fail("expected '}'")
            stmts.append(self.statement())
        return ast.BlockStatement(start.pos, stmts, annos)

    def statement(self) -> ast.Statement:
        tok = self.peek()
        if tok.kind == "@":
            save = self.i
            annos = self.annotations()
            if self.at("{"):
                self.i = save
                return self.block()
            stmt = self.statement()
            if isinstance(stmt, ast.VariableDeclaration | ast.ConstantDeclaration):
                stmt.annotations = annos + stmt.annotations
            return stmt
        if tok.kind == "{":
            return self.block()
        if tok.kind == ";":
            self.advance()
            return ast.EmptyStatement(tok.pos)
        if tok.kind == "const":
            return self.constant()
        if tok.kind == "if":
            self.advance()
            self.expect("(", "'('")
            cond = self.expression()
            self.expect(")", "')'")
            then = self.statement()
            otherwise = self.statement() if self.accept("else") else None
            return ast.IfStatement(tok.pos, cond, then, otherwise)
        if tok.kind == "switch":
            return self.switch()
        if tok.kind == "exit":
            self.advance()
            self.expect(";", "';'")
            return ast.ExitStatement(tok.pos)
        if tok.kind == "return":
            self.advance()
            value = None if self.at(";") else self.expression()
            self.expect(";", "';'")
            return ast.ReturnStatement(tok.pos, value)
        if tok.kind in ("break", "continue"):
            self.advance()
            self.expect(";", "';'")
            return (
                ast.BreakStatement(tok.pos)
                if tok.kind == "break"
                else ast.ContinueStatement(tok.pos)
            )
        if tok.kind == "for":
            return self.for_statement()
        if self.starts_declaration():
            declaration = self.variable_declaration()
            self.expect(";", "';'")
            return declaration
        statement = self.assignment_or_call()
        self.expect(";", "';'")
        return statement

    def variable_declaration(self) -> ast.VariableDeclaration:
        annos = self.annotations() if self.at("@") else []
        ref = self.type_ref()
        name = self.name("a variable name")
        init = self.expression() if self.accept("=") else None
        return ast.VariableDeclaration(name.pos, name.text, ref, init, annotations=annos)

    def for_statement(self) -> ast.Statement:
        """Both forms of spec 12.8: `for (init; cond; update)` and `for (T x in c)`,
        where c is a range `lo .. hi` or an expression."""
        tok = self.expect("for")
        self.expect("(", "'('")
        save = self.i
        if self.at("@") or self.starts_declaration():
            var = self.variable_declaration()
            if var.init is None and self.accept("in"):
                collection = self.expression()
                if self.accept(".."):
                    collection = ast.Range(collection.pos, collection, self.expression())
                self.expect(")", "')'")
                return ast.ForInStatement(tok.pos, var, collection, self.statement())
            self.i = save
        init = self.for_clause(";")
        cond = self.expression()
        self.expect(";", "';'")
        update = self.for_clause(")")
        return ast.ForStatement(tok.pos, init, cond, update, self.statement())

    def for_clause(self, end: str) -> list[ast.Statement]:
        """The comma-separated statements of a for loop's init or update, and its end."""
        stmts: list[ast.Statement] = []
        while not self.accept(end):
            if stmts:
                self.expect(",", f"',' or '{end}'")
            if end == ";" and (self.at("@") or self.starts_declaration()):
                stmts.append(self.variable_declaration())
            else:
                stmts.append(self.assignment_or_call())
        return stmts

    def starts_declaration(self) -> bool:
        tok = self.peek()
        if tok.kind in _BASE_TYPES or tok.kind == "tuple":
            # `error.NoError` and the like start an expression, not a declaration.
            return self.peek(1).kind != "."
        if self.is_type_name(tok):
            return self.peek(1).kind not in (".", "(")
        # An unknown name followed by a name can only be a declaration (of an undeclared
        # type, reported by the type checker with a better message than a parse error).
        return tok.kind == "ID" and self.peek(1).kind == "ID"

    def assignment_or_call(self) -> ast.Statement:
        tok = self.peek()
        lhs = self.expression()
        if self.at("=") or self.at(*_COMPOUND_ASSIGN):
            op = self.advance().kind
            rhs = self.expression()
            return ast.Assignment(tok.pos, lhs, rhs, op)
        if self.at("<<") and self.peek(1).kind == "=" and self.peek(1).adjacent:
            self.advance()
            self.advance()
            return ast.Assignment(tok.pos, lhs, self.expression(), "<<=")
        if self.at(">") and self.peek(1).kind == ">=" and self.peek(1).adjacent:
            self.advance()
            self.advance()
            return ast.Assignment(tok.pos, lhs, self.expression(), ">>=")
        if not isinstance(lhs, ast.Call):
            self.fail("expected '=' or a method call")
        assert isinstance(lhs, ast.Call)
        return ast.MethodCallStatement(tok.pos, lhs)

    def switch(self) -> ast.SwitchStatement:
        tok = self.expect("switch")
        self.expect("(", "'('")
        expr = self.expression()
        self.expect(")", "')'")
        self.expect("{", "'{'")
        cases: list[ast.SwitchCase] = []
        while not self.accept("}"):
            label_tok = self.peek()
            label: ast.Expression = (
                ast.Default(label_tok.pos) if self.accept("default") else self.expression()
            )
            self.expect(":", "':'")
            body = self.block() if self.at("{", "@") else None
            cases.append(ast.SwitchCase(label_tok.pos, label, body))
        return ast.SwitchStatement(tok.pos, expr, cases)

    # ---- expressions ---------------------------------------------------------------

    def expression(self) -> ast.Expression:
        cond = self.binary(0)
        if self.at("?"):
            self.advance()
            then = self.expression()
            self.expect(":", "':'")
            otherwise = self.expression()
            return ast.Ternary(cond.pos, cond, then, otherwise)
        return cond

    def binary_op(self, level: int) -> str | None:
        tok = self.peek()
        ops = _BINARY_LEVELS[level]
        # Two adjacent `>` are a right shift (see the lexer's docstring).
        if ">>" in ops and tok.kind == ">" and self.peek(1).kind == ">" and self.peek(1).adjacent:
            return ">>"
        if tok.kind in ops:
            return tok.kind
        return None

    def expression_ends_here(self) -> bool:
        """`<<=` and `>>=` reach the parser as `<<` `=` and `>` `>=` (see the lexer):
        there the expression ends, and the statement parser takes the assignment. In
        `e[L +: W]` the `+` ends the start index."""
        tok, nxt = self.peek(), self.peek(1)
        if tok.kind == "+" and nxt.kind == ":":
            return True
        return nxt.adjacent and (tok.kind, nxt.kind) in (("<<", "="), (">", ">="))

    def binary(self, level: int) -> ast.Expression:
        if level == len(_BINARY_LEVELS):
            return self.unary()
        left = self.binary(level + 1)
        while (op := self.binary_op(level)) is not None:
            if self.expression_ends_here():
                break
            self.advance()
            if op == ">>":
                self.advance()
            right = self.binary(level + 1)
            left = ast.Binary(left.pos, op, left, right)
        return left

    def unary(self) -> ast.Expression:
        tok = self.peek()
        if tok.kind in ("!", "~", "-", "+"):
            self.advance()
            return ast.Unary(tok.pos, tok.kind, self.unary())
        if tok.kind == "(" and self.starts_type(1) and self.is_cast():
            self.advance()
            ref = self.type_ref()
            self.expect(")", "')'")
            return ast.Cast(tok.pos, ref, self.unary())
        return self.postfix(self.primary())

    def is_cast(self) -> bool:
        """`(T) e` versus `(T.member)` or a parenthesized type-name expression."""
        save = self.i
        try:
            self.advance()
            self.type_ref()
            return self.at(")") and self.peek(1).kind not in (
                ".",
                ";",
                ",",
                ")",
                "]",
                "}",
                ":",
                "?",
                "==",
                "!=",
            )
        except CompileError:
            return False
        finally:
            self.i = save

    def postfix(self, e: ast.Expression) -> ast.Expression:
        while True:
            tok = self.peek()
            if tok.kind == ".":
                self.advance()
                e = ast.Member(e.pos, e, self.member_name().text)
            elif tok.kind == "[":
                self.advance()
                index = self.expression()
                if self.at("+") and self.peek(1).kind == ":":
                    # e[L +: W] is e[L + W - 1 : L] (P4_16 1.2.5).
                    self.advance()
                    self.advance()
                    width = self.expression()
                    self.expect("]", "']'")
                    top = ast.Binary(width.pos, "+", copy.deepcopy(index), width)
                    hi = ast.Binary(width.pos, "-", top, ast.IntLiteral(width.pos, 1, None, False))
                    e = ast.Slice(e.pos, e, hi, index, plus_width=copy.deepcopy(width))
                elif self.accept(":"):
                    lo = self.expression()
                    self.expect("]", "']'")
                    e = ast.Slice(e.pos, e, index, lo)
                else:
                    self.expect("]", "']'")
                    e = ast.Index(e.pos, e, index)
            elif tok.kind == "(":
                e = ast.Call(e.pos, e, [], self.arguments())
            elif tok.kind == "<" and isinstance(e, ast.Name | ast.Member):
                type_args = self.try_type_arguments()
                if type_args is None:
                    return e
                e = ast.Call(e.pos, e, type_args, self.arguments())
            else:
                return e

    def try_type_arguments(self) -> list[ast.TypeRef] | None:
        """`f<T>(...)`: type arguments only if they parse and a call follows."""
        save = self.i
        try:
            self.advance()
            args = self.list_of(">", self.type_arg)
            if self.at("("):
                return args
        except CompileError:
            pass
        self.i = save
        return None

    def arguments(self) -> list[ast.Argument]:
        self.expect("(", "'('")

        def argument() -> ast.Argument:
            tok = self.peek()
            if tok.kind == "ID" and self.peek(1).kind == "=":
                self.advance()
                self.advance()
                return ast.Argument(tok.pos, self.argument_value(), tok.text)
            return ast.Argument(tok.pos, self.argument_value())

        return self.list_of(")", argument)

    def argument_value(self) -> ast.Expression:
        tok = self.peek()
        if tok.kind == "ID" and tok.text == "_" and self.peek(1).kind in (",", ")"):
            self.advance()
            return ast.DontCare(tok.pos)
        return self.expression()

    def primary(self) -> ast.Expression:
        tok = self.peek()
        if tok.kind == "INT":
            self.advance()
            iv = tok.int_value
            assert iv is not None
            return ast.IntLiteral(tok.pos, iv.value, iv.width, iv.signed, iv.base)
        if tok.kind in ("true", "false"):
            self.advance()
            return ast.BoolLiteral(tok.pos, tok.kind == "true")
        if tok.kind == "STRING":
            self.advance()
            return ast.StringLiteral(tok.pos, _unquote(tok.text))
        if tok.kind == "(":
            self.advance()
            e = self.expression()
            self.expect(")", "')'")
            return e
        if tok.kind == "{":
            return self.brace_expression()
        if tok.kind == ".":
            self.advance()
            name = self.name()
            return ast.Name(name.pos, name.text, is_global=True)
        if tok.kind == "...":
            self.advance()
            return ast.Dots(tok.pos)
        if tok.kind in ("error", "apply", "type", "state"):
            self.advance()
            return ast.Name(tok.pos, tok.kind)
        if tok.kind in _BASE_TYPES or tok.kind == "tuple":
            return ast.TypeExpression(tok.pos, self.type_ref())
        if tok.kind == "ID":
            if tok.text == "_":
                self.advance()
                return ast.DontCare(tok.pos)
            if self.is_type_name(tok) and self.peek(1).kind == "<":
                return ast.TypeExpression(tok.pos, self.type_ref())
            self.advance()
            return ast.Name(tok.pos, tok.text)
        self.fail("expected an expression")
        raise AssertionError

    def brace_expression(self) -> ast.Expression:
        tok = self.expect("{")
        if self.at("#"):
            self.advance()
            self.expect("}", "'}'")
            return ast.InvalidHeader(tok.pos)
        if self.at("ID") and self.peek(1).kind == "=":

            def field() -> tuple[str, ast.Expression]:
                name = self.name("a field name")
                self.expect("=", "'='")
                return name.text, self.expression()

            fields, dots = self.initializer_items(field)
            return ast.StructExpression(tok.pos, fields, dots=dots)
        items, dots = self.initializer_items(self.expression)
        return ast.ListExpression(tok.pos, items, dots=dots)

    def initializer_items(self, item: Callable[[], N]) -> tuple[list[N], bool]:
        """The items of `{...}` up to the `}`, and whether they end with `...` (P4_16
        1.2.4: the rest take default values; the dots must come last)."""
        items: list[N] = []
        while not self.accept("}"):
            if self.at("..."):
                dots = self.advance()
                if not self.accept("}"):
                    raise CompileError(dots.pos, "'...' must come last in an initializer")
                return items, True
            items.append(item())
            if not self.at("}"):
                self.expect(",", "',' or '}'")
        return items, False


def _unquote(text: str) -> str:
    try:
        value = pyast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text[1:-1]
    return value if isinstance(value, str) else text[1:-1]


def parse(tokens: list[Token]) -> ast.Program:
    return Parser(tokens).parse_program()
