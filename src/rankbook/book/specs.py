"""The notebooks the book executes: their parameters, metadata and command-line values.

Every ``notebooks/*.ipynb`` is one :class:`NotebookSpec`. Its cell tagged ``parameters`` holds
``name = literal  # comment`` lines whose defaults are the paper's settings; its metadata
``rankbook`` gives a one-line ``description``, ``smoke`` parameters and extra ``inputs``.
:func:`resolve_parameters` turns ``-p KEY VALUE`` strings into typed values or raises
:class:`ParameterError` with the notebook's usage.

This module is shared by :mod:`rankbook.book.pipeline` (execution) and :mod:`rankbook.book.site`
(the generated parameter page); it imports neither.
"""

from __future__ import annotations

import ast
import hashlib
import io
import json
import re
import tokenize
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..ledger.paths import _base_folder, project_root, resolve_input_path  # noqa: F401 - re-exported


class ParameterError(ValueError):
    """An unknown or repeated parameter, a value that does not parse to its default's type, a
    value that breaks a declared constraint, or an input file that does not read."""


#: Readers of the input-file kinds a notebook can declare (``"file": kind`` constraints), as
#: ``module:function`` paths imported when needed. Each takes a path and raises ``ValueError``
#: (or ``OSError``) naming the file, the line and the problem.
FILE_KINDS = {
    "rankings": "rankbook.aggregation_formats:check_rankings_file",
    "permutations": "rankbook.papers.paper_a.figure1:read_permutations_csv",
    "json": "rankbook.book.specs:read_json",
}

#: The largest input file a run accepts. A bigger file is refused from its size, before it is
#: read (the notebooks hold their inputs in memory; a rankings file of this size already holds
#: millions of rankings).
MAX_INPUT_BYTES = 64 * 2**20

#: Where a relative file or folder named by a parameter lives when it is not found relative to
#: the current folder (constraint key ``under``): the project's ``data/`` folder, or its root.
UNDER = ("data", "root")

#: Keys a constraint may have, and what each means (printed by ``rankbook list NAME``).
CONSTRAINT_KEYS = {
    "min": "smallest value (of every element, for a list)",
    "above": "a lower bound the value must exceed (of every element, for a list)",
    "max": "largest value (of every element, for a list)",
    "choices": "the allowed values (of every element, for a list)",
    "items": "element type of a list: int, float, str or bool",
    "below": "an upper bound the value must stay under (of every element, for a list)",
    "min_len": "fewest elements of a list (characters of a string)",
    "max_len": "most elements of a list (characters of a string)",
    "unique": "the elements of a list are distinct",
    "in": "every element is one of the values of another (list) parameter",
    "same_len": "as many elements as another (list) parameter",
    "le": "at most the value of another parameter",
    "lt": "below the value of another parameter",
    "file": "a path to an input file of this kind, read and checked before the run",
    "folder": "a path to a folder that exists",
    "under": "where a relative file or folder lives: data (the project's data/, default) or root",
    "optional": "with file or folder: an empty string means none",
    "check": "module:function that checks the value before the run (it raises ValueError or "
             "returns the value to use, e.g. with a relative path made absolute)",
    "why": "a short reason shown with a refusal (for example a memory estimate)",
}

_ITEM_TYPES = {"int": int, "float": float, "str": str, "bool": bool}


# --------------------------------------------------------------------------------------------
# Discovery and parameters
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Parameter:
    name: str
    default: Any
    comment: str = ""
    #: the declared constraint (metadata ``rankbook.constraints[name]``), or empty
    constraint: dict = field(default_factory=dict)

    def constraint_text(self) -> str:
        """The constraint in words, e.g. ``ints, each in 2..300; at most ns``."""
        c = self.constraint
        if not c:
            return ""
        parts = []
        if "items" in c:
            parts.append(f"{c['items']}s")
        if "min" in c and "max" in c:
            parts.append(f"in {c['min']}..{c['max']}")
        elif "min" in c:
            parts.append(f">= {c['min']}")
        elif "max" in c and "above" not in c:
            parts.append(f"<= {c['max']}")
        if "above" in c:
            parts.append(f"> {c['above']}" + (f" and <= {c['max']}" if "max" in c and "min" not in c else "")
                         + (f" and < {c['below']}" if "below" in c else ""))
        elif "below" in c:
            parts.append(f"< {c['below']}")
        if "choices" in c:
            parts.append("one of " + ", ".join(map(repr, c["choices"])))
        what = "character" if isinstance(self.default, str) else "element"
        if "min_len" in c and "max_len" in c:
            parts.append(f"{c['min_len']}..{c['max_len']} {what}s")
        elif "min_len" in c:
            parts.append(f"at least {c['min_len']} {what}{'s' if c['min_len'] > 1 else ''}")
        elif "max_len" in c:
            parts.append(f"at most {c['max_len']} {what}s")
        if c.get("unique"):
            parts.append("no value twice")
        if "in" in c:
            parts.append(f"each one of the values of {c['in']}")
        if "same_len" in c:
            parts.append(f"as many as {c['same_len']}")
        if "le" in c:
            parts.append(f"at most {c['le']}")
        if "lt" in c:
            parts.append(f"below {c['lt']}")
        where = "the project root" if c.get("under") == "root" else "data/"
        if "file" in c:
            parts.append(f"a {c['file']} file (absolute, relative to the current folder or under "
                         f"{where}; at most {MAX_INPUT_BYTES // 2**20} MiB)"
                         + (", or empty for none" if c.get("optional") else ""))
        if c.get("folder"):
            parts.append(f"a folder (absolute, relative to the current folder or under {where})"
                         + (", or empty for none" if c.get("optional") else ""))
        if "check" in c:
            parts.append(f"checked by {c['check']}")
        return "; ".join(parts)

    @property
    def type_name(self) -> str:
        d = self.default
        if isinstance(d, bool):
            return "bool"
        if isinstance(d, (list, tuple)):
            if self.constraint.get("items"):
                return f"list[{self.constraint['items']}]"
            inner = sorted({_scalar_type_name(x) for x in d})
            return f"list[{'|'.join(inner)}]" if inner else "list"
        return _scalar_type_name(d)


def _scalar_type_name(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if value is None:
        return "None"
    return type(value).__name__


@dataclass(frozen=True)
class NotebookSpec:
    name: str
    path: Path
    title: str
    description: str
    parameters: dict[str, Parameter]
    smoke: dict[str, Any] = field(default_factory=dict)
    #: extra input files (relative to the project root) whose change re-executes the notebook,
    #: from the notebook metadata ``rankbook.inputs`` (e.g. ``benchmarks/results.json``)
    inputs: tuple[str, ...] = ()
    #: seconds a single cell may run before the execution is stopped (metadata
    #: ``rankbook.timeout``; the command line can override it)
    timeout: int = 1200
    #: ``module:function`` checking the combination of the parameters before a run (metadata
    #: ``rankbook.check``): limits that one parameter alone cannot state (a memory or time
    #: estimate over several, an index into an input file). Called with the values and the
    #: project root; raises ValueError.
    check: str | None = None

    def defaults(self) -> dict[str, Any]:
        return {k: p.default for k, p in self.parameters.items()}

    def usage(self) -> str:
        lines = [f"parameters of {self.name}:"]
        if not self.parameters:
            lines.append("  (none)")
        for p in self.parameters.values():
            comment = f"  # {p.comment}" if p.comment else ""
            lines.append(f"  {p.name} ({p.type_name}) = {p.default!r}{comment}")
            if p.constraint:
                lines.append(f"      allowed: {p.constraint_text()}")
        if self.check:
            lines.append(f"  together: {_check_summary(self.check)}")
        return "\n".join(lines)


def unknown_parameter(spec: NotebookSpec, key: str) -> "ParameterError":
    """The one-line refusal of a parameter the notebook does not have: its parameters, the
    closest name, and where they are described."""
    import difflib

    close = difflib.get_close_matches(key, list(spec.parameters), n=1, cutoff=0.5)
    return ParameterError(
        f"unknown parameter {key!r} for {spec.name}"
        + (f" (did you mean {close[0]!r}?)" if close else "")
        + f"; its parameters: {', '.join(spec.parameters) or '(none)'} (`rankbook list "
        f"{spec.name}` describes them)")


def notebooks_dir(root: Path | None = None) -> Path:
    return (root or project_root()) / "notebooks"


def _cell_source(cell: dict) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def parse_parameters_cell(source: str, where: str = "parameters cell") -> dict[str, Parameter]:
    """Read ``name = literal  # comment`` lines; anything else in the cell is an error."""
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise ValueError(f"{where}: not valid Python ({exc})") from exc
    comments: dict[int, str] = {}
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            comments[tok.start[0]] = tok.string.lstrip("#").strip()
    params: dict[str, Parameter] = {}
    for node in tree.body:
        if not (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        ):
            raise ValueError(
                f"{where}: line {node.lineno} is not a simple 'name = literal' assignment"
            )
        try:
            value = ast.literal_eval(node.value)
        except ValueError as exc:
            raise ValueError(
                f"{where}: the value of {node.targets[0].id!r} (line {node.lineno}) is not a literal"
            ) from exc
        if isinstance(value, tuple):
            value = list(value)
        name = node.targets[0].id
        params[name] = Parameter(name, value, comments.get(node.lineno, ""))
    return params


def read_spec(path: Path) -> NotebookSpec:
    """Read a notebook's title, description, parameters and smoke parameters."""
    path = Path(path)
    try:
        nb = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: cannot read notebook ({exc})") from exc
    cells = nb.get("cells", [])
    param_cells = [c for c in cells if "parameters" in c.get("metadata", {}).get("tags", [])]
    if len(param_cells) > 1:
        raise ValueError(f"{path}: more than one cell is tagged 'parameters'")
    params = (
        parse_parameters_cell(_cell_source(param_cells[0]), f"{path.name}: parameters cell")
        if param_cells
        else {}
    )
    title = path.stem
    for c in cells:
        if c.get("cell_type") == "markdown":
            m = re.search(r"^#\s+(.+)$", _cell_source(c), flags=re.M)
            if m:
                title = m.group(1).strip()
                break
    meta = nb.get("metadata", {}).get("rankbook", {})
    smoke = dict(meta.get("smoke", {}))
    unknown = sorted(set(smoke) - set(params))
    if unknown:
        raise ValueError(f"{path.name}: smoke parameters {unknown} are not in its parameters cell")
    constraints = _check_constraints(meta.get("constraints", {}), params, path.name)
    params = {k: Parameter(p.name, p.default, p.comment, constraints.get(k, {}))
              for k, p in params.items()}
    return NotebookSpec(
        name=path.stem,
        path=path,
        title=title,
        description=meta.get("description", title),
        parameters=params,
        smoke=smoke,
        inputs=tuple(meta.get("inputs", ())),
        timeout=_check_timeout(meta.get("timeout", DEFAULT_TIMEOUT), path.name),
        check=_check_dotted(meta.get("check"), path.name),
    )


def _check_dotted(value, where: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or value.count(":") != 1:
        raise ValueError(f"{where}: metadata rankbook.check must be 'module:function', got {value!r}")
    return value


def _check_summary(dotted: str) -> str:
    """The first line of a combined check's docstring (what ``rankbook list`` shows)."""
    import importlib

    module, func = dotted.split(":")
    try:
        doc = getattr(importlib.import_module(module), func).__doc__ or ""
    except (ImportError, AttributeError):
        return f"checked by {dotted}"
    return " ".join(doc.strip().split("\n\n")[0].split()) or f"checked by {dotted}"


def _check_constraints(raw, params: dict, where: str) -> dict[str, dict]:
    """Validate the shape of a notebook's declared constraints (a malformed one is an error of
    the notebook, reported when it is read)."""
    if not isinstance(raw, dict):
        raise ValueError(f"{where}: metadata rankbook.constraints must map parameter names to "
                         f"constraints, found {type(raw).__name__}")
    out = {}
    for name, c in raw.items():
        if name not in params:
            raise ValueError(f"{where}: constraint for unknown parameter {name!r}; parameters: "
                             f"{', '.join(params)}")
        if not isinstance(c, dict):
            raise ValueError(f"{where}: the constraint of {name!r} must be an object")
        bad = sorted(set(c) - set(CONSTRAINT_KEYS))
        if bad:
            raise ValueError(f"{where}: constraint of {name!r} has unknown keys {bad}; valid: "
                             f"{', '.join(CONSTRAINT_KEYS)}")
        if "items" in c and c["items"] not in _ITEM_TYPES:
            raise ValueError(f"{where}: 'items' of {name!r} must be one of "
                             f"{', '.join(_ITEM_TYPES)}, got {c['items']!r}")
        for rel in ("le", "lt", "in", "same_len"):
            if rel in c and c[rel] not in params:
                raise ValueError(f"{where}: {rel!r} of {name!r} names an unknown parameter "
                                 f"{c[rel]!r}")
        if "file" in c and c["file"] not in FILE_KINDS:
            raise ValueError(f"{where}: file kind {c['file']!r} of {name!r} is unknown; valid: "
                             f"{', '.join(FILE_KINDS)}")
        if "under" in c and c["under"] not in UNDER:
            raise ValueError(f"{where}: 'under' of {name!r} must be one of {', '.join(UNDER)}")
        out[name] = dict(c)
    return out


#: Seconds a cell may run when the notebook declares no ``rankbook.timeout``.
DEFAULT_TIMEOUT = 1200


def _check_timeout(value, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"{where}: metadata rankbook.timeout must be a positive number of "
                         f"seconds, got {value!r}")
    return value


def discover(root: Path | None = None) -> list[NotebookSpec]:
    """Every notebook under ``notebooks/``, sorted by name."""
    folder = notebooks_dir(root)
    paths = sorted(p for p in folder.glob("*.ipynb") if not p.name.startswith("."))
    return [read_spec(p) for p in paths]


def find(name: str, root: Path | None = None) -> NotebookSpec:
    specs = {s.name: s for s in discover(root)}
    if name not in specs:
        raise ParameterError(
            f"unknown notebook {name!r}; valid notebooks: {', '.join(sorted(specs)) or '(none)'}"
        )
    return specs[name]


_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}


def _literal_or_none(text: str) -> Any:
    try:
        return ast.literal_eval(text.strip())
    except (ValueError, SyntaxError):
        return None


def _parse_scalar(text: str, like: Any, name: str) -> Any:
    if isinstance(like, bool):
        low = text.strip().lower()
        if low in _TRUE:
            return True
        if low in _FALSE:
            return False
        raise ValueError(f"{name}: {text!r} is not a bool (use true or false)")
    if isinstance(like, int):
        value = _literal_or_none(text)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
        raise ValueError(f"{name}: {text!r} is not an int")
    if isinstance(like, float):
        value = _literal_or_none(text)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        nonfinite = text.strip().lower().lstrip("+-") in ("nan", "inf", "infinity")
        raise ValueError(f"{name}: {text!r} is not {'a finite number' if nonfinite else 'a number'}")
    if isinstance(like, str):
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            return text
        return value if isinstance(value, str) else text
    # default None or an unusual literal: accept any literal
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def parse_value(param: Parameter, text: str) -> Any:
    """Parse a command-line string into the type of ``param``'s default."""
    default = param.default
    if isinstance(default, list):
        stripped = text.strip()
        if stripped.startswith("["):
            try:
                value = ast.literal_eval(stripped)
            except (ValueError, SyntaxError) as exc:
                raise ValueError(f"{param.name}: {text!r} is not a list literal") from exc
            if not isinstance(value, (list, tuple)):
                raise ValueError(f"{param.name}: {text!r} is not a list")
            items = [repr(v) if not isinstance(v, str) else v for v in value]
        else:
            items = [s.strip() for s in stripped.split(",")] if stripped else []
            if "" in items:
                raise ValueError(f"{param.name}: {text!r} has an empty item (two commas in a row, "
                                 "or one at an end); write the values as 5,10,20")
        item_type = param.constraint.get("items")
        like = _ITEM_TYPES[item_type]() if item_type else (default[0] if default else None)
        return [_parse_scalar(str(v), like, param.name) for v in items]
    return _parse_scalar(text, default, param.name)


def resolve_parameters(spec: NotebookSpec, overrides: dict[str, str] | list[tuple[str, str]],
                       root: Path | None = None):
    """Typed parameter values from ``-p KEY VALUE`` strings, or a ParameterError with usage.

    Every value, given or default, is then checked against the notebook's declared constraints
    (:func:`check_constraints`), input files are read by the library reader of their kind, and
    the combination is checked by the notebook's own ``check`` (memory and time estimates,
    indices into an input file), so that a bad value is refused before any kernel starts.

    A relative file or folder found relative to the current folder is passed to the notebook as
    an absolute path (the kernel runs in another folder); one found under the project's
    ``data/`` folder (or root, per the constraint's ``under``) is passed as given, and the
    notebook resolves it there, the same way.
    """
    items = list(overrides.items() if isinstance(overrides, dict) else overrides)
    resolved: dict[str, Any] = {}
    for key, text in items:
        if key not in spec.parameters:
            raise unknown_parameter(spec, key)
        if key in resolved:
            raise ParameterError(f"parameter {key!r} of {spec.name} is given twice; give each "
                                 "parameter once")
        _refuse_undecodable(key, str(text), spec.name)
        try:
            resolved[key] = parse_value(spec.parameters[key], str(text))
        except ValueError as exc:
            why = str(exc).removeprefix(f"{key}: ")
            allowed = spec.parameters[key].constraint_text()
            raise ParameterError(
                f"bad value for parameter {key!r} of {spec.name}: {why}"
                + (f"; allowed: {allowed}" if allowed else "")
            ) from None
    for key, value in resolved.items():
        c = spec.parameters[key].constraint
        if ("file" in c or c.get("folder")) and isinstance(value, str) and value:
            resolved[key] = _from_current_folder(value)
    values = {**spec.defaults(), **resolved}
    check_constraints(spec, values, root, given=set(resolved))
    for key in list(resolved):  # a checker may normalise the value (a path made absolute)
        checker = spec.parameters[key].constraint.get("check")
        if checker:
            resolved[key] = _run_check(checker, resolved[key], key, spec.name)
    if spec.check:
        run_combined_check(spec, {**spec.defaults(), **resolved}, root)
    return resolved


def _refuse_undecodable(key: str, text: str, notebook: str) -> None:
    """A value that is not valid UTF-8 (a file name in another encoding reaches Python as
    lone surrogates, ``os.fsdecode``) is refused before any kernel starts: the notebook's
    parameters are JSON, which cannot carry it. The message shows the value escaped.

    Examples
    --------
    >>> import os
    >>> _refuse_undecodable("rankings_csv", os.fsdecode(b"r\\xe9sum\\xe9.csv"), "nb")
    Traceback (most recent call last):
    ...
    rankbook.book.specs.ParameterError: bad value for parameter 'rankings_csv' of nb: 'r\\xe9sum\\xe9.csv' is not valid UTF-8 (a file name in another encoding?); rename the file, or give its path in UTF-8
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        shown = text.encode("utf-8", "surrogateescape").decode("ascii", "backslashreplace")
        raise ParameterError(
            f"bad value for parameter {key!r} of {notebook}: '{shown}' is not valid UTF-8 (a "
            "file name in another encoding?); rename the file, or give its path in UTF-8"
        ) from None


def run_combined_check(spec: NotebookSpec, values: dict[str, Any], root: Path | None = None) -> None:
    """The notebook's check of the combination of its parameters (metadata ``rankbook.check``)."""
    import importlib

    module, func = spec.check.split(":")
    try:
        getattr(importlib.import_module(module), func)(values, root or project_root(),
                                                       float(spec.timeout))
    except (ValueError, TypeError, OSError) as exc:
        raise ParameterError(f"these parameters of {spec.name} do not go together: {exc} "
                             f"(see `rankbook list {spec.name}`)") from None


def _from_current_folder(text: str) -> str:
    """A relative path that exists relative to the current folder, made absolute; anything
    else as given (absolute, or relative to where the notebook looks: data/ or the root)."""
    path = Path(text).expanduser()
    if path.is_absolute():
        return str(path)
    if path.exists():
        return str(path.resolve())
    return text


def _run_check(dotted: str, value, name: str, notebook: str):
    import importlib

    module, func = dotted.split(":")
    try:
        out = getattr(importlib.import_module(module), func)(value)
    except (ValueError, TypeError, OSError) as exc:
        raise ParameterError(f"bad value for parameter {name!r} of {notebook}: {exc}") from None
    return value if out is None else out


def _as_number(value):
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def check_constraints(spec: NotebookSpec, values: dict[str, Any], root: Path | None = None,
                      given=None) -> None:
    """Refuse values that break a declared constraint, with a ParameterError naming the
    parameter, the value and what is allowed. Input files are read by their kind's reader,
    folders must exist, and neither may be larger than :data:`MAX_INPUT_BYTES`.

    ``given`` (the parameters set on the command line) lets a refusal between two parameters
    say which one to change: ``rankbook run agreement_heatmap -p n 20`` is refused because the
    default ``k = 30`` must be below ``n``, and the message says to give ``-p k`` too."""
    for name, p in spec.parameters.items():
        c = p.constraint
        if not c:
            continue
        value = values.get(name)

        def refuse(what: str) -> None:
            why = f" ({c['why']})" if c.get("why") else ""
            raise ParameterError(
                f"bad value for parameter {name!r} of {spec.name}: {what}; allowed: "
                f"{p.constraint_text()}{why} (see `rankbook list {spec.name}`)")

        elems = value if isinstance(value, list) else [value]
        if isinstance(value, (list, str)):
            what = "element(s)" if isinstance(value, list) else "character(s)"
            if "min_len" in c and len(value) < c["min_len"]:
                refuse(f"{len(value)} {what}, fewer than {c['min_len']}")
            if "max_len" in c and len(value) > c["max_len"]:
                refuse(f"{len(value)} {what}, more than {c['max_len']}")
        if isinstance(value, list):
            if "items" in c:
                want = _ITEM_TYPES[c["items"]]
                for v in value:
                    ok = isinstance(v, want) and not (want is not bool and isinstance(v, bool))
                    if want is float and isinstance(v, int) and not isinstance(v, bool):
                        ok = True
                    if not ok:
                        refuse(f"element {v!r} is not a {c['items']}")
            if c.get("unique"):
                seen = set()
                for v in value:
                    key = repr(float(v)) if _as_number(v) is not None else repr(v)
                    if key in seen:
                        refuse(f"{v!r} is given twice")
                    seen.add(key)
        for v in elems:
            if "choices" in c and v not in c["choices"]:
                refuse(f"{v!r} is not one of the choices")
            num = _as_number(v)
            if num is not None and num != num:
                refuse(f"{v!r} is not a number")
            if num is not None and "min" in c and num < c["min"]:
                refuse(f"{v!r} is below the minimum {c['min']}")
            if num is not None and "max" in c and num > c["max"]:
                refuse(f"{v!r} is above the maximum {c['max']}")
            if num is not None and "above" in c and num <= c["above"]:
                refuse(f"{v!r} must be greater than {c['above']}")
            if num is not None and "below" in c and num >= c["below"]:
                refuse(f"{v!r} must be less than {c['below']}")
        if "in" in c:
            pool = values.get(c["in"])
            pool = pool if isinstance(pool, list) else [pool]
            for v in elems:
                if v is not None and v not in pool:
                    refuse(f"{v!r} is not one of the values of {c['in']} ({pool})")
        if "same_len" in c and isinstance(value, list):
            other = values.get(c["same_len"])
            if isinstance(other, list) and len(other) != len(value):
                refuse(f"{len(value)} value(s) for the {len(other)} of {c['same_len']!r}")
        for rel, strict in (("le", False), ("lt", True)):
            if rel not in c:
                continue
            other = c[rel]
            bound = values.get(other)
            word = "below" if strict else "at most"
            if isinstance(value, list) and isinstance(bound, list):
                if value and len(value) != len(bound):
                    refuse(f"{len(value)} value(s) for {len(bound)} value(s) of {other!r}; give "
                           f"one per value of {other!r} (or none)")
                pairs = list(zip(value, bound))
            elif isinstance(value, list):
                pairs = [(v, bound) for v in value]
            elif isinstance(bound, list):
                pairs = [(value, min(bound))] if bound else []
            else:
                pairs = [(value, bound)]
            for v, b in pairs:
                if _as_number(v) is None or _as_number(b) is None:
                    continue
                if (v >= b) if strict else (v > b):
                    mine = "" if given is None or name in given else " (its default)"
                    fix = (f"give -p {name} a value {word} {b!r}" if given is not None
                           and name not in given else f"lower {name} or raise {other}")
                    if given is not None and other in given and name not in given:
                        fix = (f"you set {other}, so also give -p {name} with a value {word} "
                               f"{b!r}, or raise {other}")
                    refuse(f"{name} = {v!r}{mine} must be {word} {other} = {b!r}: {fix}")
        if "check" in c:
            _run_check(c["check"], value, name, spec.name)
        if "file" in c or c.get("folder"):
            if value in ("", None) and c.get("optional"):
                continue
            if not isinstance(value, str) or not value:
                refuse("a path to a " + ("file" if "file" in c else "folder") + " is needed")
            path = resolve_input_path(value, root, c.get("under", "data"))
            if c.get("folder"):
                if not path.is_dir():
                    raise ParameterError(
                        f"bad value for parameter {name!r} of {spec.name}: "
                        + (f"{path} is a file, not a folder" if path.exists() else
                           f"no such folder: {value} (looked in the current folder and under "
                           f"{_under_text(c, root)})"))
                continue
            # a rankings file is read as the notebook's rankings_format says (its orientation)
            fmt = values.get("rankings_format") if c["file"] == "rankings" else None
            read_input_file(c["file"], value, name, spec.name, root, c.get("under", "data"),
                            {"rankings_format": fmt} if isinstance(fmt, str) and fmt else None)


def _under_text(c: dict, root: Path | None) -> str:
    base = _base_folder(c.get("under", "data"), root)
    return f"{base}/"


def resolve_metric_spec(value: str, root: Path | None = None) -> str:
    """A ``metric`` parameter with its file made absolute: ``path/to/file.py:function`` is read
    relative to the current folder when the file is there, else to the project root (the
    notebooks run in a staging folder, and the library itself only knows the current folder).
    Registered names and ``module:function`` pass unchanged."""
    if not isinstance(value, str) or ":" not in value:
        return value
    where, func = value.rsplit(":", 1)
    if not where.endswith(".py"):
        return value
    path = Path(where).expanduser()
    if not path.is_absolute() and not path.exists():
        candidate = (root or project_root()) / path
        if candidate.exists():
            path = candidate
    return f"{path.resolve() if path.exists() else path}:{func}"


def check_metric(value: str) -> str:
    """The ``check`` of a ``metric`` parameter: resolve its file (:func:`resolve_metric_spec`),
    then load it with :func:`rankbook.profile.check_metric_spec` (ValueError when it does not)."""
    from rankbook.profile import check_metric_spec

    return check_metric_spec(resolve_metric_spec(value))


def read_input_file(kind: str, text: str, name: str = "", notebook: str = "",
                    root: Path | None = None, under: str = "data", options: dict | None = None):
    """Read an input file with the library reader of ``kind`` (given ``options`` as keyword
    arguments); ParameterError when it fails, or when the file is larger than
    :data:`MAX_INPUT_BYTES` (checked before reading it)."""
    import importlib

    path = resolve_input_path(text, root, under)
    where = f"bad input file for parameter {name!r} of {notebook}"
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise ParameterError(f"{where}: no such file: {text} (looked in the current folder and "
                             f"under {_base_folder(under, root)}/)") from None
    except OSError as exc:
        raise ParameterError(f"{where}: cannot read {path}: {exc.strerror or exc}") from None
    if path.is_file() and size > MAX_INPUT_BYTES:
        raise ParameterError(f"{where}: {path} holds {size / 2**20:.0f} MiB, more than the "
                             f"{MAX_INPUT_BYTES // 2**20} MiB an input file may hold; it was "
                             "not read")
    options = options or {}
    key = (kind, str(path), size, _mtime(path), tuple(sorted(options.items())))
    if key in _READ_CACHE:
        return _READ_CACHE[key]
    module, func = FILE_KINDS[kind].split(":")
    reader = getattr(importlib.import_module(module), func)
    try:
        out = reader(path, **options)
    except (ValueError, TypeError, OSError) as exc:
        raise ParameterError(f"{where}: {exc}") from None
    if len(_READ_CACHE) > 64:
        _READ_CACHE.clear()
    _READ_CACHE[key] = out
    return out


#: Files already read and checked in this process (a sweep checks every point), keyed by
#: kind, path, size and modification time.
_READ_CACHE: dict = {}


def _mtime(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return 0


def named_paths(spec: NotebookSpec, values: dict[str, Any], root: Path | None = None) -> dict:
    """Every file or folder a parameter names, as the notebook will find it: ``{parameter:
    [Path, ...]}``. Declared files and folders, and any string value that names an existing
    file (``path/to/file.py:function`` included) relative to the current folder, ``data/`` or
    the project root. For code (``module:function``, ``file.py:function``), the files of the
    user's own code it imports follow it, transitively (:func:`imported_files`): editing a
    helper two imports away changes the key. The cache key hashes their contents, wherever they
    live."""
    root = root or project_root()
    out: dict[str, list[Path]] = {}
    code: dict[str, list[Path]] = {}
    for name, p in spec.parameters.items():
        value = values.get(name, p.default)
        for text in value if isinstance(value, list) else [value]:
            if not isinstance(text, str) or not text.strip() or "\n" in text or len(text) > 4096:
                continue
            c = p.constraint
            candidates = []
            if "file" in c or c.get("folder"):
                candidates.append(resolve_input_path(text, root, c.get("under", "data")))
            else:
                found = module_paths(text)
                if found:  # module:function, found where Python finds it (sys.path, PYTHONPATH)
                    out.setdefault(name, []).extend(found)
                    code.setdefault(name, []).extend(found)
                    continue
                part = text.rsplit(":", 1)[0] if text.rsplit(":", 1)[0].endswith(".py") else text
                if part in (".", "..") or "\0" in part:
                    continue
                path = Path(part).expanduser()
                candidates += [path] if path.is_absolute() else [path, root / "data" / path,
                                                                 root / path]
            for path in candidates:
                try:
                    if path.is_file() or (path.is_dir() and ("file" in c or c.get("folder"))):
                        out.setdefault(name, []).append(path.resolve())
                        if path.suffix == ".py" and text.rsplit(":", 1)[0].endswith(".py"):
                            code.setdefault(name, []).append(path.resolve())
                        break
                except OSError:
                    continue
    for name, files in code.items():
        have = set(out[name])
        out[name] += [p for p in imported_files(files) if p not in have]
    return out


_MODULE_FUNCTION = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*")


def module_paths(text: str) -> list[Path]:
    """The files of the code a ``module:function`` value names, as Python finds it now (its
    ``sys.path``, so ``PYTHONPATH`` and the current folder count): the module's file, or, for a
    module inside a package, the whole top-level package folder (a helper module beside it may
    change the function's result). Empty when the text is not ``module:function``, the module
    is not found, or it is the project's own code or an installed package (hashed as the
    ``code`` and ``environment`` parts of the cache key).

    Examples
    --------
    >>> module_paths("no_such_module_here:f"), module_paths("a plain title"), module_paths("json:dumps")
    ([], [], [])
    """
    import importlib.util
    import sys

    if not isinstance(text, str) or not _MODULE_FUNCTION.fullmatch(text.strip()):
        return []
    module = text.strip().split(":", 1)[0]
    top = module.split(".", 1)[0]
    if top == __name__.split(".", 1)[0]:
        return []  # rankbook itself: the code part of the key
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError, AttributeError):
        return []
    if spec is None:
        return []
    if spec.submodule_search_locations:  # a package: every file in it
        found = [Path(p) for p in spec.submodule_search_locations]
    elif spec.origin and spec.has_location:
        found = [Path(spec.origin)]
    else:
        return []  # built in, frozen
    installed = set()
    for prefix in {sys.prefix, sys.base_prefix, sys.exec_prefix}:
        with _suppress_os():
            installed.add(Path(prefix).resolve())
    out = []
    for path in found:
        try:
            path = path.resolve()
            if not path.exists() or any(p in path.parents for p in installed):
                continue  # the standard library and installed packages: the environment part
        except OSError:
            continue
        out.append(path)
    return out


def _suppress_os():
    import contextlib

    return contextlib.suppress(OSError)


# --------------------------------------------------------------------------------------------
# What a user's code imports (the cache key holds it too)
# --------------------------------------------------------------------------------------------
def _excluded_roots() -> list[Path]:
    """Folders whose modules are never a user's code: the standard library and installed
    packages (under the interpreter's prefixes: the environment part of the key), and
    rankbook's own package (the code part)."""
    import sys

    out = []
    for prefix in {sys.prefix, sys.base_prefix, sys.exec_prefix}:
        with _suppress_os():
            out.append(Path(prefix).resolve())
    with _suppress_os():
        out.append(Path(__file__).resolve().parents[1])  # src/rankbook
    return out


def _search_folders(first: list[Path]) -> list[Path]:
    """Where an absolute import of a user's module is looked for: the module's own folders,
    then ``sys.path`` (so ``PYTHONPATH`` and the current folder), without the folders of the
    standard library and installed packages."""
    import sys

    excluded = _excluded_roots()
    out: list[Path] = []
    for entry in [*map(str, first), *sys.path]:
        try:
            folder = Path(entry or ".").resolve()
        except OSError:
            continue
        if folder in out or not folder.is_dir():
            continue
        if any(folder == e or e in folder.parents for e in excluded):
            continue
        out.append(folder)
    return out


def _find_in(folder: Path, name: str) -> Path | None:
    """The file Python runs for module ``name`` directly inside ``folder`` (a package's
    ``__init__.py``, a module's ``.py``, or the folder of a namespace package)."""
    package = folder / name
    if (package / "__init__.py").is_file():
        return package / "__init__.py"
    if (folder / f"{name}.py").is_file():
        return folder / f"{name}.py"
    if package.is_dir():
        return package
    return None


def _resolve_dotted(parts: list[str], start: list[Path]) -> list[Path]:
    """The files an import of ``a.b.c`` runs: ``a``'s, then ``b``'s inside it, then ``c``'s
    (each package's ``__init__.py`` and the last module), found from the folders ``start``.
    A part not found ends the list (an installed package, or a name that is an attribute)."""
    found: list[Path] = []
    folders = start
    for part in parts:
        hit = next((f for f in (_find_in(folder, part) for folder in folders) if f), None)
        if hit is None:
            break
        found.append(hit)
        folders = [hit.parent] if hit.name == "__init__.py" else [hit] if hit.is_dir() else []
        if not folders:
            break
    return found


_IMPORTS_CACHE: dict = {}


def _imports_of(path: Path) -> list[tuple[int, str, list[str]]]:
    """The imports a Python file makes, read statically with :mod:`ast` (inside functions and
    ``try`` blocks too, and ``importlib.import_module("name")`` with a literal name): ``(level,
    module, names)``, level counting the dots of a relative import. A file that does not parse
    has none (the notebook reports its error when it runs)."""
    try:
        stat = path.stat()
    except OSError:
        return []
    key = (str(path), stat.st_mtime_ns, stat.st_size)
    if key in _IMPORTS_CACHE:
        return _IMPORTS_CACHE[key]
    try:
        tree = ast.parse(path.read_bytes(), filename=str(path))
    except (SyntaxError, ValueError, OSError):
        tree = None
    out: list[tuple[int, str, list[str]]] = []
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Import):
            out += [(0, alias.name, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            out.append((node.level, node.module or "", [a.name for a in node.names]))
        elif (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)
              and isinstance(node.args[0].value, str)
              and ((isinstance(node.func, ast.Attribute) and node.func.attr == "import_module")
                   or (isinstance(node.func, ast.Name)
                       and node.func.id in ("import_module", "__import__")))):
            name = node.args[0].value
            level = len(name) - len(name.lstrip("."))
            out.append((level, name[level:], []))
    if len(_IMPORTS_CACHE) > 4096:
        _IMPORTS_CACHE.clear()
    _IMPORTS_CACHE[key] = out
    return out


def imported_files(paths: list[Path], first: list[Path] | None = None) -> list[Path]:
    """Every file of a user's own code that the Python files in ``paths`` import, directly or
    through each other (transitively), read with :mod:`ast` without running anything.

    An import is looked for as Python would: a relative import (``from .helper import g``)
    inside the importing file's package, an absolute one in the importing file's own folder,
    the folders ``first`` and ``sys.path`` (so ``PYTHONPATH``). Only files outside the
    standard library, the installed packages and rankbook itself are followed: their versions
    are the environment and code parts of the cache key. A folder in ``paths`` (a package) is
    read file by file. Returns the files found, without those of ``paths``, in a fixed order.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "metric.py").write_text("from mid import g as m\\n")
    >>> _ = (d / "mid.py").write_text("import json\\nfrom helper import h\\ng = h\\n")
    >>> _ = (d / "helper.py").write_text("def h(a, b):\\n    return 0.0\\n")
    >>> [p.name for p in imported_files([d / "metric.py"])]
    ['helper.py', 'mid.py']
    """
    excluded = _excluded_roots()
    base = _search_folders(list(first or []))

    def outside(path: Path) -> bool:
        return not any(e in path.parents for e in excluded)

    given = set()
    todo: list[Path] = []
    for path in paths:
        with _suppress_os():
            path = path.resolve()
            if path.is_dir():
                files = sorted(p for p in path.rglob("*.py") if "__pycache__" not in p.parts)
                given.update(files)
                todo += files
            elif path.suffix == ".py":
                given.add(path)
                todo.append(path)
    seen = set(todo)
    found: set[Path] = set()
    while todo:
        path = todo.pop()
        own = [path.parent, *base]
        for level, module, names in _imports_of(path):
            parts = [p for p in module.split(".") if p]
            if level:
                package = path.parent
                for _ in range(level - 1):
                    package = package.parent
                start = [package]
            else:
                start = own
            hits = _resolve_dotted(parts, start) if parts else []
            inner = ([hits[-1].parent] if hits and hits[-1].name == "__init__.py"
                     else [hits[-1]] if hits and hits[-1].is_dir()
                     else [] if hits or parts else start)
            if inner and (not parts or len(hits) == len(parts)):
                for name in names:  # from package import submodule
                    if name != "*":
                        hits += _resolve_dotted([name], inner)
            for hit in hits:
                if hit.is_dir():  # a namespace package: nothing runs for the folder itself
                    continue
                with _suppress_os():
                    hit = hit.resolve()
                if hit in seen or not outside(hit):
                    continue
                seen.add(hit)
                found.add(hit)
                todo.append(hit)
    return sorted(found - given)


def files_hash(paths: dict) -> str:
    """One hash of the contents of the files and folders of :func:`named_paths` (their names
    are not part of it: the same bytes under another name give the same hash)."""
    h = hashlib.sha256()
    for name in sorted(paths):
        for path in paths[name]:
            h.update(name.encode() + b"\0")
            h.update(_content_hash(path).encode())
    return h.hexdigest()


def _content_hash(path: Path) -> str:
    h = hashlib.sha256()
    if path.is_dir():
        for p in sorted(path.rglob("*")):
            if p.is_file() and "__pycache__" not in p.parts:
                h.update(p.relative_to(path).as_posix().encode() + b"\0")
                h.update(_content_hash(p).encode())
        return h.hexdigest()
    try:
        with path.open("rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
    except OSError as exc:
        h.update(f"<unreadable: {exc.strerror}>".encode())
    return h.hexdigest()


def shell_word(text: str) -> str:
    """``text`` as one shell word that a reader can paste back: :func:`shlex.quote`, or bash's
    ``$'...'`` when it holds a line break, a tab or another control character, which a
    one-line command could not show (a file name with a newline in it).

    Examples
    --------
    >>> shell_word("runs/a b.csv"), shell_word("plain.csv")
    ("'runs/a b.csv'", 'plain.csv')
    >>> print(shell_word("two\\nlines 'quoted'"))
    $'two\\nlines \\'quoted\\''
    """
    import shlex

    if not any(ord(c) < 32 or ord(c) == 127 for c in text):
        return shlex.quote(text)
    named = {"\\": "\\\\", "'": "\\'", "\n": "\\n", "\t": "\\t", "\r": "\\r"}
    body = "".join(named.get(c) or (f"\\x{ord(c):02x}" if ord(c) < 32 or ord(c) == 127 else c)
                   for c in text)
    return f"$'{body}'"


def check_parameters(spec: NotebookSpec, values: dict[str, Any]) -> dict[str, Any]:
    """Validate already-typed parameter values (as in notebook ``smoke`` metadata)."""
    return resolve_parameters(
        spec, [(k, json.dumps(v) if not isinstance(v, str) else v) for k, v in values.items()]
    )


def run_slug(spec: NotebookSpec, params: dict[str, Any], root: Path | None = None) -> str:
    """The folder name of a run: :func:`slug` of the parameters, plus a short hash of the
    contents of the files they name, so that a different file under the same name (an edited
    CSV, another folder's ``rankings.csv``) never overwrites an earlier run's results.

    Examples
    --------
    >>> from pathlib import Path
    >>> spec = NotebookSpec("nb", Path("nb.ipynb"), "t", "d", {})
    >>> run_slug(spec, {"ns": [6, 7]})
    'ns-6,7'
    """
    name = slug(params)
    paths = named_paths(spec, params, root) if params else {}
    if not paths:
        return name
    return f"{name[:68]}_{files_hash(paths)[:10]}"


def slug(params: dict[str, Any]) -> str:
    """A readable, file-system-safe folder name for a set of parameter overrides.

    Different parameter values never share a folder: whenever making a value safe for a folder
    name changed it (``'abcdef?'`` and ``'abcdef*'`` both read ``abcdef_``), or the name had to
    be shortened, a short hash of the exact values is appended.

    Examples
    --------
    >>> slug({"ns": [6, 7]})
    'ns-6,7'
    >>> slug({"S": "abcdef?"}) != slug({"S": "abcdef*"}) != slug({"S": "abcdef"})
    True
    >>> slug({"metric": "/home/me/my_metric.py:footrule"}).startswith("metric-my_metric.py_footrule_")
    True
    """
    if not params:
        return "defaults"
    parts = []
    for key in sorted(params):
        value = params[key]
        text = ",".join(map(str, value)) if isinstance(value, list) else str(value)
        if text.startswith("/"):  # an absolute file (made so by a check): its name reads better
            text = text.rsplit("/", 1)[-1]
        parts.append(f"{key}-{text}")
    raw = "_".join(parts)
    out = re.sub(r"[^A-Za-z0-9._,=-]+", "_", raw).strip("_")
    changed = out != raw or len(out) > 80 or not out
    if changed:
        exact = json.dumps(params, sort_keys=True, default=str)
        digest = hashlib.sha256(exact.encode()).hexdigest()[:10]
        out = f"{out[:60]}_{digest}" if out else digest
    return out


def read_json(path) -> object:
    """A JSON file, or ValueError naming the file, the line and the column of the problem."""
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"{path} is a folder: give the path of a JSON file")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path} is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}, line {exc.lineno}, column {exc.colno}: not JSON "
                         f"({exc.msg})") from None
