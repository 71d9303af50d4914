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
    """An unknown parameter name or a value that does not parse to its default's type."""


# --------------------------------------------------------------------------------------------
# Discovery and parameters
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Parameter:
    name: str
    default: Any
    comment: str = ""

    @property
    def type_name(self) -> str:
        d = self.default
        if isinstance(d, bool):
            return "bool"
        if isinstance(d, (list, tuple)):
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

    def defaults(self) -> dict[str, Any]:
        return {k: p.default for k, p in self.parameters.items()}

    def usage(self) -> str:
        lines = [f"parameters of {self.name}:"]
        if not self.parameters:
            lines.append("  (none)")
        for p in self.parameters.values():
            comment = f"  # {p.comment}" if p.comment else ""
            lines.append(f"  {p.name} ({p.type_name}) = {p.default!r}{comment}")
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
    return NotebookSpec(
        name=path.stem,
        path=path,
        title=title,
        description=meta.get("description", title),
        parameters=params,
        smoke=smoke,
        inputs=tuple(meta.get("inputs", ())),
    )


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
        like = default[0] if default else None
        return [_parse_scalar(str(v), like, param.name) for v in items]
    return _parse_scalar(text, default, param.name)


def resolve_parameters(spec: NotebookSpec, overrides: dict[str, str] | list[tuple[str, str]]):
    """Typed parameter values from ``-p KEY VALUE`` strings, or a ParameterError with usage."""
    items = overrides.items() if isinstance(overrides, dict) else overrides
    resolved: dict[str, Any] = {}
    for key, text in items:
        if key not in spec.parameters:
            raise ParameterError(f"unknown parameter {key!r} for {spec.name}\n{spec.usage()}")
        try:
            resolved[key] = parse_value(spec.parameters[key], str(text))
        except ValueError as exc:
            raise ParameterError(
                f"bad value for parameter {key!r} of {spec.name}: {exc}\n{spec.usage()}"
            ) from exc
    return resolved


def check_parameters(spec: NotebookSpec, values: dict[str, Any]) -> dict[str, Any]:
    """Validate already-typed parameter values (as in notebook ``smoke`` metadata)."""
    return resolve_parameters(
        spec, [(k, json.dumps(v) if not isinstance(v, str) else v) for k, v in values.items()]
    )


def slug(params: dict[str, Any]) -> str:
    """A readable, file-system-safe folder name for a set of parameter overrides."""
    if not params:
        return "defaults"
    parts = []
    for key in sorted(params):
        value = params[key]
        text = ",".join(map(str, value)) if isinstance(value, list) else str(value)
        parts.append(f"{key}-{text}")
    out = re.sub(r"[^A-Za-z0-9._,=-]+", "_", "_".join(parts)).strip("_")
    if len(out) > 80:
        digest = hashlib.sha256(out.encode()).hexdigest()[:10]
        out = f"{out[:60]}_{digest}"
    return out
