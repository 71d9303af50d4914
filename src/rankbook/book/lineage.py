"""Which cell of a notebook made each figure and table, from which parameters, through which
library functions: read from the notebook's code, never typed in.

:func:`notebook_lineage` reads the code cells of an executed notebook in order, with Python's
own parser, and follows each top-level statement:

* the **imports** bind names to modules and functions of rankbook (``from
  rankbook.papers.paper_a import figure1`` binds ``figure1``);
* a **call** through such a name (``figure1.heat_map(s, order)``) is a call of
  ``rankbook.papers.paper_a.figure1.heat_map``; ``claims.check("A-F1", ...)`` is a call of the
  check function the ledger names for that claim; a call of a function the notebook defined
  itself counts the calls in its body;
* a **name assigned** by a statement carries the parameters and the library calls the
  statement read (``s = figure1.sample(n=n)`` gives ``s`` the parameter ``n`` and the call of
  ``sample``), so a cell that shows ``s`` later depends on both.

A cell's lineage is the union over its statements: the parameters of the page it depends on
and the library functions it calls, directly or through the values it reads. It is
statement-grained (a statement inside ``if robustness:`` depends on ``robustness`` too), so it
may name a parameter too many, never one too few among those the code reads by name.

:func:`library_calls` then follows each function of ``rankbook.papers`` into its module: the
functions of the measures (``rankbook.agreement.agreement_matrix``...) it calls, directly or
through the helpers of its own module. Only the functions the library reference documents
are kept (:func:`documented`): each is linked to its reference page. The machinery that saves
and shows (``rankbook.book``, ``rankbook.ledger``) is not listed.
"""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
import re
from dataclasses import dataclass, field
from pathlib import Path

#: Packages of the book's machinery: what saves, shows and reports is not a computation.
MACHINERY = ("rankbook.book", "rankbook.ledger")


@dataclass
class CellLineage:
    """What one code cell read: the page's parameters it depends on and the library functions
    (dotted paths, in the order first met) it calls, directly or through the values it reads."""

    index: int
    execution_count: int | None
    parameters: list[str] = field(default_factory=list)
    calls: list[str] = field(default_factory=list)


def _python(source: str) -> ast.Module | None:
    """A cell's source as Python (IPython's magics turned into calls), or None."""
    try:
        return ast.parse(source)
    except SyntaxError:
        pass
    try:
        from IPython.core.inputtransformer2 import TransformerManager

        return ast.parse(TransformerManager().transform_cell(source))
    except Exception:  # noqa: BLE001 - a cell that does not parse has no lineage
        return None


def _resolve_relative(module: str | None, level: int, package: str) -> str:
    if not level:
        return module or ""
    base = package.split(".")
    base = base[: len(base) - level + 1] if level > 1 else base
    return ".".join(base + ([module] if module else []))


def _import_bindings(node: ast.AST, package: str = "") -> dict[str, str]:
    """Names an import statement binds to dotted paths of rankbook."""
    out = {}
    if isinstance(node, ast.Import):
        for a in node.names:
            if a.name.split(".")[0] == "rankbook":
                if a.asname:
                    out[a.asname] = a.name
                else:
                    out[a.name.split(".")[0]] = a.name.split(".")[0]
    elif isinstance(node, ast.ImportFrom):
        module = _resolve_relative(node.module, node.level, package)
        if module.split(".")[0] == "rankbook":
            for a in node.names:
                if a.name != "*":
                    out[a.asname or a.name] = f"{module}.{a.name}"
    return out


def _dotted(node: ast.AST) -> list[str] | None:
    """``a.b.c`` as ``["a", "b", "c"]`` (None for anything else)."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return [node.id] + parts[::-1]
    return None


def _loaded(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _stored(node: ast.AST) -> set[str]:
    names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)
             and isinstance(n.ctx, (ast.Store, ast.Del))}
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        names.add(node.name)
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


@functools.lru_cache(maxsize=None)
def _object(path: str):
    """The object a dotted path names (a module, or an attribute chain inside one), or None."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except Exception:  # noqa: BLE001 - not a module: try a shorter prefix
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr, None)
            if obj is None:
                return None
        return obj
    return None


def canonical(path: str) -> str | None:
    """The dotted path under which a function or class is defined (a name re-exported by
    another module points at its definition), or None when ``path`` names no function or
    class of rankbook."""
    obj = _object(path)
    if inspect.ismethod(obj):
        obj = obj.__func__
    if not (inspect.isfunction(obj) or inspect.isclass(obj)):
        return None
    module = getattr(obj, "__module__", "") or ""
    if module.split(".")[0] != "rankbook":
        return None
    return f"{module}.{obj.__qualname__}"


def _is_machinery(path: str) -> bool:
    return path.startswith(tuple(m + "." for m in MACHINERY)) or path in MACHINERY


def _call_path(node: ast.Call, names: dict[str, str]) -> str | None:
    parts = _dotted(node.func)
    if not parts or parts[0] not in names:
        return None
    return ".".join([names[parts[0]], *parts[1:]])


def _ledger_check(node: ast.Call, path: str, book) -> str | None:
    """``claims.check("ID", ...)``: the check function the ledger names for ID."""
    if path != "rankbook.ledger.claims.check" or book is None or not node.args:
        return None
    first = node.args[0]
    if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
        return None
    claim = book.claims.get(first.value)
    if claim is None or not claim.check:
        return None
    module, _, name = claim.check.partition(":")
    return f"{module}.{name}"


def _calls_in(node: ast.AST, names: dict[str, str], local: dict[str, set[str]], book) -> list[str]:
    """The rankbook functions a statement calls (dotted, as written, machinery dropped), with
    the calls inside the notebook's own functions it calls."""
    out: list[str] = []
    for n in ast.walk(node):
        if not isinstance(n, ast.Call):
            continue
        parts = _dotted(n.func)
        if parts and len(parts) == 1 and parts[0] in local:
            out.extend(local[parts[0]])
            continue
        path = _call_path(n, names)
        if path is None:
            continue
        check = _ledger_check(n, path, book)
        if check:
            out.append(check)
        if not _is_machinery(path):
            out.append(path)
    return list(dict.fromkeys(out))


#: Compound statements: the fields holding their bodies (followed statement by statement).
_BODIES = {ast.If: ("body", "orelse"), ast.For: ("body", "orelse"), ast.AsyncFor: ("body", "orelse"),
           ast.While: ("body", "orelse"), ast.With: ("body",), ast.AsyncWith: ("body",),
           ast.Try: ("body", "handlers", "orelse", "finalbody")}


def _head(stmt) -> list:
    """What a compound statement reads before its body: a condition, an iterable (with the
    loop's target), the context managers."""
    if isinstance(stmt, (ast.If, ast.While)):
        return [stmt.test]
    if isinstance(stmt, (ast.For, ast.AsyncFor)):
        return [ast.Assign(targets=[stmt.target], value=stmt.iter, lineno=0)]
    if isinstance(stmt, (ast.With, ast.AsyncWith)):
        return [ast.Assign(targets=[i.optional_vars], value=i.context_expr, lineno=0)
                if i.optional_vars is not None else i.context_expr for i in stmt.items]
    return []


def notebook_lineage(cells, parameters, book=None) -> dict[int, CellLineage]:
    """The lineage of every code cell of a notebook (``nbformat`` cells, in order), by the
    cell's position: the names in ``parameters`` it depends on and the rankbook functions it
    calls (see the module doc). ``book`` (a :class:`rankbook.ledger.claims.Ledger`) resolves
    ``claims.check("ID")`` to the check the ledger names.

    Examples
    --------
    >>> import nbformat
    >>> cells = [nbformat.v4.new_code_cell("n = 5\\nk = 2"),
    ...          nbformat.v4.new_code_cell("from rankbook import metrics\\nfrom rankbook.book import outputs"),
    ...          nbformat.v4.new_code_cell("x = metrics.evaluate([1, 2], [2, 1], n=n)"),
    ...          nbformat.v4.new_code_cell("outputs.save_table(x, 'x', title='x')")]
    >>> got = notebook_lineage(cells, ["n", "k"])[3]
    >>> got.parameters, got.calls
    (['n'], ['rankbook.metrics.evaluate'])
    """
    params = set(parameters)
    names: dict[str, str] = {}
    var_params: dict[str, set[str]] = {}
    var_calls: dict[str, list[str]] = {}
    local: dict[str, list[str]] = {}
    out = {}
    for i, cell in enumerate(cells):
        if cell.get("cell_type") != "code":
            continue
        tree = _python(cell.get("source", "") if isinstance(cell.get("source"), str)
                       else "".join(cell.get("source", [])))
        found = CellLineage(i, cell.get("execution_count"))
        if tree is None:
            out[i] = found
            continue
        cell_params: set[str] = set()
        cell_calls: list[str] = []

        def visit(stmts, context: set[str]) -> None:
            """Each simple statement in order; a compound one's condition or iterable is read by
            every statement of its body, which is followed statement by statement."""
            nonlocal cell_params, cell_calls
            for stmt in stmts:
                names.update(_import_bindings(stmt))
                inner = _BODIES.get(type(stmt))
                if inner is not None:
                    head = _head(stmt)
                    read = set().union(*(_loaded(h) for h in head)) | context
                    for h in head:  # a loop's variable carries what its iterable read
                        for name in _stored(h):
                            var_params[name] = _deps(read)
                            var_calls[name] = _calls(h, read)
                    cell_calls += [c for h in head for c in _calls_in(h, names, local, book)]
                    for attr in inner:
                        for part in getattr(stmt, attr, []) or []:
                            visit(part.body if isinstance(part, ast.ExceptHandler) else [part],
                                  read)
                    continue
                read = _loaded(stmt) | context
                if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    args = {a.arg for a in ast.walk(stmt.args) if isinstance(a, ast.arg)}
                    read -= args
                deps = _deps(read)
                calls = _calls(stmt, read)
                if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    local[stmt.name] = calls  # counted where the function is called
                    var_params[stmt.name] = deps
                    continue
                for name in _stored(stmt):
                    if isinstance(stmt, ast.AugAssign):
                        var_params[name] = var_params.get(name, set()) | deps
                        var_calls[name] = list(dict.fromkeys(var_calls.get(name, []) + calls))
                    else:
                        # a parameter reassigned from what a computation found (n from the
                        # rows of a user's file) still depends on itself
                        var_params[name] = deps | ({name} & params)
                        var_calls[name] = calls
                cell_params |= deps
                cell_calls += calls

        def _deps(read: set[str]) -> set[str]:
            deps = {r for r in read if r in params}
            for r in read:
                deps |= var_params.get(r, set())
            return deps

        def _calls(stmt, read: set[str]) -> list[str]:
            calls = _calls_in(stmt, names, local, book)
            for r in sorted(read):
                calls += var_calls.get(r, [])
            return list(dict.fromkeys(calls))

        visit(tree.body, set())
        found.parameters = [p for p in parameters if p in cell_params]
        found.calls = list(dict.fromkeys(cell_calls))
        out[i] = found
    return out


# --------------------------------------------------------------------------------------------
# Into the library: what a function of rankbook.papers calls
# --------------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=None)
def _module_index(module_name: str):
    """``(bindings, functions)`` of a module: the names its imports bind to rankbook paths,
    and its top-level functions (and class methods, as ``Class.method``) by name."""
    try:
        module = importlib.import_module(module_name)
        source = inspect.getsource(module)
    except Exception:  # noqa: BLE001 - no source: nothing to follow
        return {}, {}
    tree = ast.parse(source)
    package = module_name if hasattr(module, "__path__") else module_name.rpartition(".")[0]
    bindings: dict[str, str] = {}
    functions: dict[str, ast.AST] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            bindings.update(_import_bindings(node, package))
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions[node.name] = node
            bindings.setdefault(node.name, f"{module_name}.{node.name}")
        elif isinstance(node, ast.ClassDef):
            bindings.setdefault(node.name, f"{module_name}.{node.name}")
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    functions[f"{node.name}.{item.name}"] = item
    return bindings, functions


def _inner_calls(path: str, depth: int, seen: set[str]) -> list[str]:
    """The rankbook functions outside ``path``'s own module that it calls, through the helpers
    of its module (up to ``depth`` helpers deep)."""
    if path in seen or depth < 0:
        return []
    seen.add(path)
    target = canonical(path)
    if target is None:
        return []
    obj = _object(target)
    module_name = obj.__module__
    bindings, functions = _module_index(module_name)
    qual = target[len(module_name) + 1:]
    node = functions.get(qual)
    if node is None and inspect.isclass(obj):
        node = functions.get(f"{qual}.__init__")
    if node is None:
        return []
    out = []
    for n in ast.walk(node):
        if not isinstance(n, ast.Call):
            continue
        called = _call_path(n, bindings)
        if called is None or _is_machinery(called):
            continue
        resolved = canonical(called) or called
        if resolved.startswith(module_name + "."):
            out += _inner_calls(resolved, depth - 1, seen)  # a helper of the same module
        else:
            out.append(resolved)
    return list(dict.fromkeys(out))


def library_calls(calls, depth: int = 3) -> tuple[list[str], list[str]]:
    """``(direct, through)``: the functions a cell calls, by the path where each is defined,
    and the functions of *other* modules those of ``rankbook.papers`` call in turn (through
    their own module's helpers, ``depth`` deep), machinery and duplicates left out."""
    direct = []
    for c in calls:
        path = canonical(c)
        if path and not _is_machinery(path):
            direct.append(path)
    direct = list(dict.fromkeys(direct))
    through: list[str] = []
    for path in direct:
        if path.startswith("rankbook.papers."):
            through += [p for p in _inner_calls(path, depth, set()) if p not in direct]
    return direct, list(dict.fromkeys(through))


# --------------------------------------------------------------------------------------------
# What the library reference documents
# --------------------------------------------------------------------------------------------
_AUTOMODULE = re.compile(r"^\s*\.\.\s+automodule::\s+([\w.]+)((?:\n\s+:[\w-]+:.*)*)", re.M)
_PACKAGE = re.compile(r"<!--\s*rankbook-package:\s*([\w.]+)\s*-->")


def reference_modules(root: Path) -> dict[str, bool]:
    """The modules the library reference (``book/reference/*.md``) documents, each with
    whether its functions without a docstring are documented too: every ``automodule``
    (``:undoc-members:`` decides), and every module of a package a page names with the marker
    ``<!-- rankbook-package: NAME -->`` (its page includes the sections
    :func:`rankbook.book.site.package_reference` writes, which document them all)."""
    import pkgutil

    out: dict[str, bool] = {}
    for page in sorted((Path(root) / "book" / "reference").glob("*.md")):
        text = page.read_text(encoding="utf-8")
        for module, options in _AUTOMODULE.findall(text):
            out[module] = out.get(module, False) or (":undoc-members:" in options
                                                     and ":ignore-module-all:" in options)
        for package in _PACKAGE.findall(text):
            try:
                pkg = importlib.import_module(package)
            except Exception:  # noqa: BLE001 - the build reports it
                continue
            out[package] = True
            out.update({m.name: True for m in pkgutil.walk_packages(pkg.__path__, package + ".")})
    return out


def documented(path: str, modules: dict[str, bool]) -> bool:
    """Whether the library reference documents ``path`` (autodoc's ``:members:``: public and
    defined in a documented module, with a docstring unless the module's undocumented members
    are shown too).

    Examples
    --------
    >>> documented("rankbook.metrics.evaluate", {"rankbook.metrics": False})
    True
    >>> documented("rankbook.metrics._batch_core", {"rankbook.metrics": True})
    False
    """
    obj = _object(path)
    if obj is None:
        return False
    module = getattr(obj, "__module__", "") or ""
    qual = path[len(module) + 1:] if path.startswith(module + ".") else ""
    if module not in modules or not qual or any(p.startswith("_") for p in qual.split(".")):
        return False
    if modules[module]:  # every public member: the package pages (:ignore-module-all:)
        return True
    # autodoc's :members: documents what a module's __all__ names, when it has one
    names = getattr(importlib.import_module(module), "__all__", None)
    if names is not None and qual.split(".")[0] not in names:
        return False
    return bool(getattr(obj, "__doc__", None))
