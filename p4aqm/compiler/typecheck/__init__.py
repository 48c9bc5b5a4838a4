"""Name resolution and type checking (spec sections 6.8, 7, 8).

The checker walks the tree once, in declaration order (P4 requires declaration before
use), fills `Expression.type` and the `ref` of names, members and calls, and infers the
width of unsized integer literals from their context.  Whatever the back ends cannot yet
compile is rejected here by name ("... are not supported yet") with a position, so that
an unsupported program never turns into wrong JSON.

The checker is split by construct (`checker.py` assembles the mixins): declarations,
type resolution, instantiations, tables, parser states, statements, expressions, calls
and coercion, with constant folding in `constants.py`, default values (`...`) in
`defaults.py`, what is replaced after the walk (checked `...`, names of aggregate
constants) in `replacements.py`, and symbols in `symbols.py`.
"""

from p4aqm.compiler.typecheck.checker import check
from p4aqm.compiler.typecheck.constants import const_value
from p4aqm.compiler.typecheck.parser_states import value_set_fields
from p4aqm.compiler.typecheck.symbols import CheckedProgram, Symbol, referenced

__all__ = ["CheckedProgram", "Symbol", "check", "const_value", "referenced", "value_set_fields"]
