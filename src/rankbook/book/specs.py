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

from .paths import project_root


class ParameterError(ValueError):
    """An unknown or repeated parameter, a value that does not parse to its default's type, a
    value that breaks a declared constraint, or an input file that does not read."""


#: Readers of the input-file kinds a notebook can declare (``"file": kind`` constraints), as
#: ``module:function`` paths imported when needed. Each takes a path and raises ``ValueError``
#: (or ``OSError``) naming the file, the line and the problem.
FILE_KINDS = {
    "rankings": "rankbook.consensus:read_rankings_csv",
}

#: Keys a constraint may have, and what each means (printed by ``rankbook list NAME``).
CONSTRAINT_KEYS = {
    "min": "smallest value (of every element, for a list)",
    "above": "a lower bound the value must exceed (of every element, for a list)",
    "max": "largest value (of every element, for a list)",
    "choices": "the allowed values (of every element, for a list)",
    "items": "element type of a list: int, float, str or bool",
    "min_len": "fewest elements of a list",
    "max_len": "most elements of a list",
    "le": "at most the value of another parameter",
    "lt": "below the value of another parameter",
    "file": "a path to an input file of this kind, read and checked before the run",
    "optional": "with file: an empty string means no file",
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
            parts.append(f"> {c['above']}" + (f" and <= {c['max']}" if "max" in c and "min" not in c else ""))
        if "choices" in c:
            parts.append("one of " + ", ".join(map(repr, c["choices"])))
        if "min_len" in c and "max_len" in c:
            parts.append(f"{c['min_len']}..{c['max_len']} elements")
        elif "min_len" in c:
            parts.append(f"at least {c['min_len']} element{'s' if c['min_len'] > 1 else ''}")
        elif "max_len" in c:
            parts.append(f"at most {c['max_len']} elements")
        if "le" in c:
            parts.append(f"at most {c['le']}")
        if "lt" in c:
            parts.append(f"below {c['lt']}")
        if "file" in c:
            parts.append(f"a {c['file']} file" + (" or empty" if c.get("optional") else ""))
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
        return "\n".join(lines)


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
    )


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
        for rel in ("le", "lt"):
            if rel in c and c[rel] not in params:
                raise ValueError(f"{where}: {rel!r} of {name!r} names an unknown parameter "
                                 f"{c[rel]!r}")
        if "file" in c and c["file"] not in FILE_KINDS:
            raise ValueError(f"{where}: file kind {c['file']!r} of {name!r} is unknown; valid: "
                             f"{', '.join(FILE_KINDS)}")
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
        raise ValueError(f"{name}: {text!r} is not a float")
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
            items = [t for t in (s.strip() for s in stripped.split(",")) if t]
        item_type = param.constraint.get("items")
        like = _ITEM_TYPES[item_type]() if item_type else (default[0] if default else None)
        return [_parse_scalar(str(v), like, param.name) for v in items]
    return _parse_scalar(text, default, param.name)


def resolve_parameters(spec: NotebookSpec, overrides: dict[str, str] | list[tuple[str, str]],
                       root: Path | None = None):
    """Typed parameter values from ``-p KEY VALUE`` strings, or a ParameterError with usage.

    Every value, given or default, is then checked against the notebook's declared constraints
    (:func:`check_constraints`), and input files are read by the library reader of their kind,
    so that a bad value is refused before any kernel starts.
    """
    items = list(overrides.items() if isinstance(overrides, dict) else overrides)
    resolved: dict[str, Any] = {}
    for key, text in items:
        if key not in spec.parameters:
            raise ParameterError(f"unknown parameter {key!r} for {spec.name}\n{spec.usage()}")
        if key in resolved:
            raise ParameterError(f"parameter {key!r} of {spec.name} is given twice; give each "
                                 "parameter once")
        try:
            resolved[key] = parse_value(spec.parameters[key], str(text))
        except ValueError as exc:
            raise ParameterError(
                f"bad value for parameter {key!r} of {spec.name}: {exc}\n{spec.usage()}"
            ) from exc
    check_constraints(spec, {**spec.defaults(), **resolved}, root, given=set(resolved))
    for key in list(resolved):  # a checker may normalise the value (a path made absolute)
        checker = spec.parameters[key].constraint.get("check")
        if checker:
            resolved[key] = _run_check(checker, resolved[key], key, spec.name)
    return resolved


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
    parameter, the value and what is allowed. Input files are read by their kind's reader.

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
                f"{p.constraint_text()}{why}\n(see `rankbook list {spec.name}`)")

        elems = value if isinstance(value, list) else [value]
        if isinstance(value, list):
            if "min_len" in c and len(value) < c["min_len"]:
                refuse(f"{len(value)} element(s), fewer than {c['min_len']}")
            if "max_len" in c and len(value) > c["max_len"]:
                refuse(f"{len(value)} elements, more than {c['max_len']}")
            if "items" in c:
                want = _ITEM_TYPES[c["items"]]
                for v in value:
                    ok = isinstance(v, want) and not (want is not bool and isinstance(v, bool))
                    if want is float and isinstance(v, int) and not isinstance(v, bool):
                        ok = True
                    if not ok:
                        refuse(f"element {v!r} is not a {c['items']}")
        for v in elems:
            if "choices" in c and v not in c["choices"]:
                refuse(f"{v!r} is not one of the choices")
            num = _as_number(v)
            if num is not None and "min" in c and num < c["min"]:
                refuse(f"{v!r} is below the minimum {c['min']}")
            if num is not None and "max" in c and num > c["max"]:
                refuse(f"{v!r} is above the maximum {c['max']}")
            if num is not None and "above" in c and num <= c["above"]:
                refuse(f"{v!r} must be greater than {c['above']}")
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
        if "file" in c:
            if value in ("", None) and c.get("optional"):
                continue
            if not isinstance(value, str) or not value:
                refuse("a path to a file is needed")
            read_input_file(c["file"], value, name, spec.name, root)


def resolve_input_path(text: str, root: Path | None = None) -> Path:
    """An input file path: absolute as is; relative to the current folder when it exists there,
    else under the project's ``data/`` folder (as the notebooks resolve it)."""
    path = Path(text).expanduser()
    if path.is_absolute() or path.exists():
        return path.resolve()
    return (root or project_root()) / "data" / path


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
                    root: Path | None = None):
    """Read an input file with the library reader of ``kind``; ParameterError when it fails."""
    import importlib

    module, func = FILE_KINDS[kind].split(":")
    reader = getattr(importlib.import_module(module), func)
    path = resolve_input_path(text, root)
    try:
        return reader(path)
    except (ValueError, TypeError, OSError) as exc:
        raise ParameterError(f"bad input file for parameter {name!r} of {notebook}: {exc}") from None


def check_parameters(spec: NotebookSpec, values: dict[str, Any]) -> dict[str, Any]:
    """Validate already-typed parameter values (as in notebook ``smoke`` metadata)."""
    return resolve_parameters(
        spec, [(k, json.dumps(v) if not isinstance(v, str) else v) for k, v in values.items()]
    )


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