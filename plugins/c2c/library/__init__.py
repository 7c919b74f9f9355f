"""The Java library's calls as data: one ordered list of rows, ``table.RULES``, kept by Java package.

Each row (``rows.Rule``) says how one ``receiver . member`` call becomes Python tokens: ``Math.round(x)``,
``Arrays.fill(a, v)``, ``list.add(x)``, ``new BigDecimal(s)``, ``IntStream.range(a, b)``, ``BigDecimal.ONE``:

- ``kind``: a static call (keyed by the receiver as written), an instance method (by the receiver's
  static type; ``"*"``: any receiver, ``"?"``: one of unknown type), a constructor (``new``), a stream
  pipeline's call (programs: sources by the receiver as written, steps and terminals under
  ``"Stream"``), a static field;
- ``policy``: None where both policies share the row, PROGRAM where it is the whole-program policy's
  own (asked first, with its arguments untranslated: ``Math.round`` rounds halves up as Java does in
  programs, ``round`` as the function references do);
- ``where``: an expression, a whole statement (``Arrays.fill`` rebinds the array), or either;
- ``returns``: the result's Java type, which ``type_of`` reads (``a . add ( b ) . setScale``).

An emit function returns None when the call does not fit it (another arity, a receiver it does not
know), and the next row is asked: the rows of the receiver's class before ``"*"``'s, each in the
order written. Every emitter takes the call in one form: the raw nodes (``Call.obj``, ``Call.args``,
to read their text, type or shape) and their translations through ``Call.arg``, ``Call.joined`` and
``Call.target``, each made at most once per call (translating twice would register a ``x ++`` twice).
Where the shared rows are asked the resolver has translated the arguments already, in order; a
program's own rows translate what they use when they use it.

Each module holds one part of the Java library, its rows (``RULES``) beside their emitters:
``lang`` (Math, boxed numbers, Character, String, System, Object), ``text`` (StringBuilder,
StringJoiner, StringTokenizer), ``util`` (Objects, Random, java.util.function, Comparator, pairs),
``math`` (BigInteger, BigDecimal), ``collections`` (Arrays, Collections, List, Map, Set, Deque,
PriorityQueue, TreeMap), ``stream`` (java.util.stream, Collectors, Optional) and ``classes`` (the
runtime's support classes: java.util.regex, java.time, ...). ``rows`` holds what they share, and
``table`` concatenates them and answers the lookups (``ask``, ``returns``, ``emit_constant``).
This package's ``__init__`` imports nothing, so a module of it imports another without a cycle.
"""
