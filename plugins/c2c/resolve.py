"""One resolver: where a Java method call or object creation becomes Python tokens.

``resolve(node)`` is the one place a ``method_invocation`` or an ``object_creation_expression`` is
translated, for statements and expressions alike. It asks, in this order, until one answers:

1. **program I/O** (``_io``): a stdin read (``sc . nextInt ( )`` -> ``int ( input ( ) )``), a print to
   ``System.out`` / ``err`` or a writer (``printStackTrace`` too), an input or output object made (it
   vanishes); in functions a ``System.out`` print statement;
2. **the library's rows of the policy's own** (``library.table.RULES``, ``policy=PROGRAM``): instance methods by
   the receiver's static type, stream pipelines, static calls, constructors;
3. **the program's own classes**: its methods and overloads (``self .``, ``Cls .``, ``name_<arity>``), a
   method named like a Python keyword, an anonymous class (a function), then a member imported statically
   (``import static java.lang.Math.*``) that the program does not declare; as a statement, a call of a
   method that edits a StringBuilder parameter assigns the edited builder back (``sb = f ( sb , x )``);
4. **the library's rows both policies share**, the arguments translated once (a statement's rows when the
   call is a whole statement);
5. **the plain call**: ``obj . name ( args )``, ``name ( args )`` (a helper the function calls undefined is
   carried, ``runtime/helpers.py``), ``Cls ( args )``.

Each step that declines is rewound (``TranslationState.first``): what it registered while translating
arguments is forgotten. The shared rows come after the program's classes because a program's
overloads renamed by arity (``add_2``) win over a collection's ``add``. A call that is a whole statement
is asked as one first (``resolve_statement``: steps 1-4 with ``Call.context`` STATEMENT, so the rows
``where=STATEMENT`` apply; None when none takes it), then as an expression. Which steps a policy takes
is data: ``Policy.program_io`` and ``Policy.program_classes`` (``state.py``), and the rows of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, cast

from plugins.c2c.analysis import IO_ROLES, PRINT_OPS, base_io, io_kind, read_op, receiver_kind, type_text
from plugins.c2c.library.rows import INSTANCE, NEW, STATEMENT, STATIC, STREAM, Call, class_of
from plugins.c2c.library.table import ask, own_members
from plugins.c2c.library.text import CHAINED
from plugins.c2c.statements import py_method_name
from plugins.c2c.support import HELPERS
from plugins.c2c.syntax import PY_KEYWORDS, Tokens, base_type

if TYPE_CHECKING:
    from tree_sitter import Node

    from plugins.c2c.library.rows import Emitting, Loop
    from plugins.c2c.state import ClassInfo, ProgramInfo, TranslationState

    _Translator = Emitting  # for the checker, a mixin is the Emitting its Translator is
else:
    _Translator = object

_SYSTEM_OUT = ("System . out", "System.out")


class ResolverMixin(_Translator):
    """``resolve``: the one place a call or an object creation is translated (uses the translator's helpers)."""

    if TYPE_CHECKING:  # what it uses of the Translator and its other mixins
        st: TranslationState

        def _call_parts(self, node: Node) -> tuple[Node | None, str, list[Node]]: ...
        def _args(self, node: Node | None) -> list[Node]: ...
        def _type_name(self, node: Node | None) -> str: ...
        def _read(self, op: str, args: Sequence[Node]) -> Tokens: ...
        def _printf(self, args: Sequence[Node]) -> Tokens: ...
        def _print(self, args: Sequence[Node], newline: bool) -> Tokens: ...
        def _params(self, node: Node | None) -> list[tuple[str, str]]: ...
        def _anonymous_method(self, node: Node) -> Node | None: ...
        def _hoist(self, params: list[tuple[str, str]], body: Node | None, owner: Node) -> str: ...
        def _is_local(self, name: str) -> bool: ...
        def _out_params(self) -> dict[str, tuple[int, str]]: ...
        def outer_static(self, name: str, *, methods: bool) -> str | None: ...

    def resolve(self, node: Node) -> Tokens:
        """``node`` (a method invocation or an object creation) in an expression, as Python tokens."""
        if node.type == "object_creation_expression":
            return self._resolve_new(node)
        obj, name, args = self._call_parts(node)
        call = Call(node, cast("Node", obj), name, args)  # obj None: a bare call (rows.py types Call.obj Node)
        found = self.st.first(*self._before_shared(call))
        return found if found is not None else self._shared_expression(call)

    def resolve_statement(self, node: Node) -> Tokens | None:
        """A method invocation that is a whole statement, as Python tokens; None when no step takes it as a
        statement (it is then translated as an expression, ``resolve``)."""
        obj, name, args = self._call_parts(node)
        call = Call(node, cast("Node", obj), name, args, context=STATEMENT)  # obj None: a bare call, as above
        return self.st.first(*self._before_shared(call), lambda: self._shared_statement(call.fresh()))

    def resolve_in(self, node: Node | None, context: str, loop: Loop | None = None) -> Tokens | None:
        """A call in a context whose idioms have rows of their own (``NEGATED``: the operand of ``!``,
        ``! m . containsKey ( k )`` -> ``k not in m``; ``FOR_EACH``: what a for-each walks; ``LOOP_HEADER``: a
        while loop's condition, ``loop`` the loop, which the row writes), by those rows; None when none takes
        it (the caller translates it as an expression, or the loop as a loop)."""
        if node is None or node.type != "method_invocation":
            return None
        obj, name, args = self._call_parts(node)
        if obj is None:
            return None
        return ask(self, Call(node, obj, name, args, context=context, loop=loop), INSTANCE, (("*", name),), None)

    def _before_shared(self, c: Call) -> tuple[Callable[[], Tokens | None], ...]:
        """Steps 1-3: program I/O, the policy's own library rows, the program's own classes."""
        return (lambda: self._io(c), lambda: self._own_rows(c.fresh()), lambda: self._program_class_call(c))

    # -- 1. program I/O ---------------------------------------------------------------------------
    def _io(self, c: Call) -> Tokens | None:
        """A stdin read or a print (programs: any stdin / stdout object; functions: a ``System.out`` print
        statement, as the references write it)."""
        if not self.policy.program_io:
            return self._function_print(c) if c.statement else None
        prog = self.st.prog
        op = read_op(c.node, prog)
        if op == "advance":  # StreamTokenizer.nextToken: its `nval` / `sval` read the token
            return [] if c.statement else ["-", "2"]  # TT_NUMBER
        if op:
            return self._read(op, c.args)
        if c.name == "printStackTrace" and not c.args:  # stderr: nothing (it is not judged)
            return [] if c.statement else ["None"]
        kind = receiver_kind(c.obj, prog)
        ci = prog.classes.get(kind)
        if kind not in ("out", "err") and not (ci is not None and (ci.role == "writer" or c.name in ci.writes)):
            return None
        wop = PRINT_OPS.get(c.name, "") if ci is None else ci.writes.get(c.name) or ci.ops.get(c.name, "print")
        if kind == "err" or wop == "noop":
            return [] if c.statement else ["None"]
        if wop == "newline":
            return ["print", "(", ")"]
        if wop == "printf" and c.args:
            return self._printf(c.args)
        if wop in ("println", "print"):
            return self._print(c.args, newline=wop == "println")
        return None

    def _function_print(self, c: Call) -> Tokens | None:
        """``System.out.print*`` as a function's statement: ``print ( ... )`` as the references write it."""
        if c.obj is None or self.text(c.obj) not in _SYSTEM_OUT:
            return None
        if c.name in ("printf", "format") and len(c.args) >= 2:
            values = self.arg_tokens(c.args[1:])
            tail = [*([","] if len(c.args) == 2 else []), ")", ",", "end", "=", '" "', ")"]
            return ["print", "(", *self.expr(c.args[0]), "%", "(", *values, *tail]
        if c.name in ("println", "print", "printf"):
            return self._print(c.args, newline=c.name == "println")
        return None

    # -- 2. the library's rows of the policy's own --------------------------------------------------
    def _own_rows(self, c: Call) -> Tokens | None:
        """The policy's own rows (``policy=PROGRAM``): an instance method by the receiver's static type (then
        any receiver's), a stream pipeline's call, a static call."""
        own = self.policy
        if c.obj is None:
            return None
        if c.name in own_members(own, INSTANCE):
            receiver: Node | None = c.obj  # None past a bare call (`append ( 1 ) . append ( 2 )`)
            while (
                receiver is not None
                and receiver.type == "method_invocation"
                and self.text(receiver.child_by_field_name("name")) in CHAINED
            ):
                receiver = receiver.child_by_field_name("object")  # a builder's edits return the builder
            found = ask(self, c, INSTANCE, ((class_of(self.type_of(receiver)), c.name), ("*", c.name)), own)
            if found is not None:
                return found
        if not own_members(own, STREAM):  # a policy without pipelines of its own translates no arguments here
            return self._own_static(c)
        return self.st.first(lambda: self._stream(c), lambda: self._own_static(c))

    def _own_static(self, c: Call) -> Tokens | None:
        receiver = self.text(c.obj)
        return ask(self, c, STATIC, ((receiver, c.name), (receiver, "*")), self.policy)

    def _stream(self, c: Call) -> Tokens | None:
        """A stream pipeline's call (a source by the receiver as written, or a step / terminal of a stream).

        The arguments are translated first, whatever the outcome, and the receiver after them: the
        order the translation has always used (hoisted lambdas are numbered in it)."""
        saved = self.st.lambda_type
        if c.obj.type == "method_invocation" and self._call_parts(c.obj)[1] == "chars":
            self.st.lambda_type = "int"  # `s . chars ( ) . filter ( c -> c == 'a' )`: c is a code point
        c = c.with_args(self)
        self.st.lambda_type = saved
        found = ask(self, c, STREAM, ((self.text(c.obj), c.name), ("*", c.name)), self.policy)
        if found is not None or not self.is_stream(c.obj):
            return found
        return ask(self, c.with_receiver(self), STREAM, (("Stream", c.name),), self.policy)

    # -- 3. the program's own classes ---------------------------------------------------------------
    def _program_class_call(self, c: Call) -> Tokens | None:
        """A call of the program's own classes: a method named like a Python keyword (``obj . del_``), a
        method of the main class (a module function), of the class being translated (``self .`` /
        ``Cls .``), an overload renamed by arity; then a statically imported library member."""
        if not self.policy.program_classes:
            return None
        obj: Node | None = c.obj  # None: a bare call (or one on the main class, made bare below)
        prog, name, args = self.st.prog, c.name, c.args
        if name in PY_KEYWORDS and obj is not None:  # a class's method named `del`, `pass`, ...
            return [*self.expr(obj), ".", name + "_", "(", *self.arg_tokens(args), ")"]
        ot = self.text(obj) if obj is not None else ""
        main = prog.main
        if c.statement and (obj is None or (main is not None and ot == main.name)):
            out = self._out_params().get(name)  # a method that edits a StringBuilder parameter returns it
            if out is not None and len(args) > out[0] and args[out[0]].type == "identifier":
                return [*self.expr(args[out[0]]), "=", *self.expr(c.node)]  # the caller's builder, edited
        if (
            main is not None
            and obj is not None
            and (
                ot == main.name
                or (
                    obj.type == "object_creation_expression" and type_text(obj.child_by_field_name("type")) == main.name
                )
                or (obj.type == "identifier" and prog.io.get(ot) == "main")
            )
        ):
            obj = None
        if obj is not None and prog.class_overloads:
            owner = ot if ot in prog.class_overloads else ""
            if not owner:
                owners = [k for k, per in prog.class_overloads.items() if len(args) in per.get(name, {})]
                owner = owners[0] if len(owners) == 1 else ""
            if owner and len(args) in prog.class_overloads[owner].get(name, {}):
                new = prog.class_overloads[owner][name][len(args)]
                return [*self.expr(obj), ".", new, "(", *self.arg_tokens(args), ")"]
        if obj is not None:
            return None
        flat = self.arg_tokens(args)
        if self.st.cls_stack and not self._is_local(name):
            ci = self.st.cls_stack[-1]
            name = prog.class_overloads.get(ci.name, {}).get(name, {}).get(len(args), name)
            if name in ci.instance_methods | {n for _, n in _renamed(prog, ci)} and not self.st.static_ctx:
                return ["self", ".", name, "(", *flat, ")"]
            if name in ci.static_methods | {n for s_, n in _renamed(prog, ci) if s_}:
                return [ci.name, ".", name, "(", *flat, ")"]
            if name in ci.instance_methods | {n for _, n in _renamed(prog, ci)}:
                return ["self", ".", name, "(", *flat, ")"]
            outer = self.outer_static(name, methods=True)
            if outer is not None:
                return [outer, ".", name, "(", *flat, ")"]
        if name in prog.overloads:
            return [prog.overloads[name].get(len(args), name), "(", *flat, ")"]
        if name in prog.renames and not self.st.cls_stack:
            return [prog.renames[name], "(", *flat, ")"]
        if main is not None and (name in main.static_methods or name in main.instance_methods):
            return [name, "(", *flat, ")"]
        if prog.static_math and name not in self.st.method_types:  # `import static java.lang.Math.*`
            return self._static_import("Math", c)
        return None

    def _static_import(self, cls: str, c: Call) -> Tokens | None:
        """A member of ``cls`` imported statically and called bare (``max ( a , b )``): the rows of
        ``cls . member``, the policy's own first."""
        c = c.with_args(self)
        for key in ((cls, c.name), (cls, "*")):
            for policy in (self.policy, None):
                found = ask(self, c, STATIC, (key,), policy)
                if found is not None:
                    return found
        return None

    # -- 4. the library's shared rows, 5. the plain call ------------------------------------------------
    def _shared_statement(self, c: Call) -> Tokens | None:
        """The shared rows of a call that is a whole statement (static, then instance by the receiver's
        type); the class's ``swap`` helper inlined as the references write it."""
        if c.obj is not None:
            receiver = self.text(c.obj)
            found = ask(self, c, STATIC, ((receiver, c.name), (receiver, "*")), None)
            if found is not None:
                return found
            typed = c.with_type(self.type_of(c.obj))
            return ask(self, typed, INSTANCE, ((base_type(typed.receiver), c.name), ("*", c.name)), None)
        if c.name == "swap" and len(c.args) == 3 and c.name not in self.st.method_types:
            arr, i, j = (self.expr(a) for a in c.args)
            return [*arr, "[", *i, "]", ",", *arr, "[", *j, "]", "=", *arr, "[", *j, "]", ",", *arr, "[", *i, "]"]
        return None

    def _shared_expression(self, c: Call) -> Tokens:
        """The shared rows of a call in an expression, its arguments translated once (a static call, then an
        instance method by the receiver's static type), else the plain call."""
        c = c.with_args(self)
        if c.obj is None:
            name = c.name
            if name in self.st.method_types:
                name = py_method_name(name)
            elif name in HELPERS:  # `quickSort ( a , 0 , n - 1 )` of the function's class: defined after it
                self.st.helpers_used.add(name)
            return [name, "(", *c.joined(self), ")"]
        receiver = self.text(c.obj)
        found = ask(self, c, STATIC, ((receiver, c.name), (receiver, "*")), None)
        if found is not None:
            return found
        c = c.with_type(self.type_of(c.obj)).with_receiver(self)
        found = ask(self, c, INSTANCE, ((base_type(c.receiver), c.name), ("*", c.name)), None)
        return found if found is not None else [*c.target(self), ".", c.name, "(", *c.joined(self), ")"]

    # -- object creation ------------------------------------------------------------------------------
    def _resolve_new(self, node: Node) -> Tokens:
        """``new Cls ( args )``: an input / output object (it vanishes), the policy's own rows, an anonymous
        class (its one method as a function), the shared rows, else ``Cls ( args )``."""
        typ = cast("Node", node.child_by_field_name("type"))  # the grammar's object creation always names its type
        args = self._args(node.child_by_field_name("arguments"))
        cls = base_io(type_text(typ))  # `a . b . Cls < T >` -> `Cls`
        made = self.st.first(
            lambda: self._io_object(cls),
            lambda: ask(self, Call(node, typ, "new", args, receiver=cls), NEW, ((cls, "new"),), self.policy),
            lambda: self._anonymous_class(node),
        )
        if made is not None:
            return made
        base = base_type(self._type_name(typ))
        made = ask(self, Call(node, typ, "new", args, receiver=base), NEW, ((base, "new"),), None)
        return made if made is not None else [base, "(", *self.arg_tokens(args), ")"]

    def _io_object(self, cls: str) -> Tokens | None:
        """A stdin / stdout object made (``new Scanner ( System . in )``): None, its reads and prints are the
        runtime's."""
        prog = self.st.prog
        if not self.policy.program_io:
            return None
        made_io = io_kind(cls, prog) in ("in", "out")
        return ["None"] if made_io or (cls in prog.classes and prog.classes[cls].role in IO_ROLES) else None

    def _anonymous_class(self, node: Node) -> Tokens | None:
        """An anonymous ``Comparator`` / ``Runnable`` / ...: its one method as a function (hoisted)."""
        method = self._anonymous_method(node) if self.policy.program_classes else None
        if method is None:
            return None
        params = self._params(method.child_by_field_name("parameters"))
        return [self._hoist(params, method.child_by_field_name("body"), method)]


def _renamed(prog: ProgramInfo, ci: ClassInfo) -> list[tuple[bool, str]]:
    """(static?, new name) of the class's overloads renamed by arity."""
    out = []
    for name, per in prog.class_overloads.get(ci.name, {}).items():
        for new in per.values():
            out.append((name in ci.static_methods, new))
    return out
