"""A pre-flight check of qrels and runs, before any score: what would change a number.

Tools that score runs against relevance judgements agree on the formulas and decide quietly
around them (:mod:`rankbook.conventions`): trec_eval averages over the topics both files hold
unless ``-c`` is given, breaks score ties by document id, refuses a document listed twice and
counts an unjudged document as not relevant. :func:`check_inputs` reports, before anything is
scored, every place where such a choice decides a number:

* topics that only one file holds (judged but not retrieved, retrieved but not judged), and
  runs that cover different topics;
* the share of each run's documents that are judged at several depths (judged@k);
* documents judged twice in the qrels, and documents ranked twice for a topic in a run;
* tied scores: their share, the largest tie group, and the groups whose documents differ in
  relevance (the *decisive* ties, where the tie rule decides the score);
* the relevance levels, and whether each measure asked for tells them apart (a binary measure
  counts every level from its threshold alike; a threshold that no judgement reaches makes
  every system score 0);
* the run tags (a file with several, two runs with the same).

Each finding has a severity: ``"problem"`` (a number would change with the tool, its options
or the tie order, or the input would be refused), ``"warning"`` (worth knowing, changes no
number between tools) or ``"note"``. :attr:`PreflightReport.exit_status` is 1 when there is a
problem, else 0; ``rankbook check`` exits with it.

Inputs are read with the one reader of :mod:`rankbook.trec_format` (any compression, pipes,
``-``); as it refuses a document listed twice, a file it refuses is read once more line by line
(the same fields, the same comment and blank lines) to count its duplicates, and checked on the
first listing of each document. Any other reading error is raised as the reader raised it.
"""

from __future__ import annotations

import io
import math
import os
import re
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from . import conventions as _conv
from . import trec_format as _tf

__all__ = ["SEVERITIES", "DEFAULT_DEPTHS", "Finding", "PreflightReport", "check_inputs",
           "Preflight"]

#: Severities of a :class:`Finding`, gravest first. Only ``"problem"`` sets the exit status.
SEVERITIES = ("problem", "warning", "note")
#: Depths of judged@k when none are given.
DEFAULT_DEPTHS = (10, 100, 1000)
#: Measure families that count a document as relevant or not (a threshold ``rel``).
_BINARY = ("AP", "RR", "P", "R", "Rprec", "Success", "LRAP")


@dataclass
class Finding:
    """One thing the check found: ``severity`` (:data:`SEVERITIES`), ``code`` (a stable name,
    e.g. ``"topics_only_in_qrels"``), ``subject`` (``"qrels"``, a run's name or a measure),
    ``message`` (one sentence), ``count`` (how many, where it counts) and ``examples``."""

    severity: str
    code: str
    subject: str
    message: str
    count: int | None = None
    examples: list = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"severity": self.severity, "code": self.code, "subject": self.subject,
                "message": self.message, "count": self.count,
                "examples": [str(e) for e in self.examples]}


@dataclass
class PreflightReport:
    """What :func:`check_inputs` returns.

    Attributes
    ----------
    qrels : dict
        ``name``, ``topics``, ``judgements``, ``levels`` (level -> count), ``duplicates``
        (documents judged twice), ``topics_without_relevant``.
    runs : pandas.DataFrame
        One row per run: ``run``, ``tag``, ``topics``, ``documents``, ``only_in_run``,
        ``only_in_qrels``, ``judged@k`` for each depth (mean over the topics both files hold
        of the share of the top k that is judged; a list shorter than k divides by its
        length), ``duplicates`` (documents ranked twice), ``tied_share`` (share of documents
        whose score another document of its topic shares), ``largest_tie`` (documents in the
        largest tie group), ``largest_tie_topic``, ``decisive_ties`` (tie groups whose
        documents differ in relevance), ``decisive_topics`` and ``tie_ranges`` (with measures
        and decisive ties: ``{measure: [low, high]}``, the run's mean at the worst and the best
        order of its tied documents, on the topics both files hold; else ``None``).
    measures : pandas.DataFrame
        One row per measure asked for: ``measure``, ``reads`` (what it takes from a
        judgement), ``levels_counted`` (the levels that count as relevant or give a gain) and
        ``alike`` (levels it does not tell apart).
    findings : list of Finding
    settings : dict
        The convention, the depths and the measures.
    """

    qrels: dict
    runs: pd.DataFrame
    measures: pd.DataFrame
    findings: list
    settings: dict

    @property
    def exit_status(self) -> int:
        """1 when some finding is a problem (a number would change), else 0."""
        return int(any(f.severity == "problem" for f in self.findings))

    def of(self, severity: str) -> list:
        """The findings of one severity."""
        if severity not in SEVERITIES:
            raise ValueError(f"severity must be one of {list(SEVERITIES)}; got {severity!r}")
        return [f for f in self.findings if f.severity == severity]

    def to_dict(self) -> dict:
        """The report as plain data (``json.dumps`` writes it; ``nan`` becomes ``None``)."""
        def clean(v):
            if isinstance(v, (float, np.floating)):
                return None if not math.isfinite(float(v)) else float(v)
            if isinstance(v, (np.integer,)):
                return int(v)
            if isinstance(v, (np.bool_,)):
                return bool(v)
            return v

        def rows(df):
            return [{k: clean(v) for k, v in r.items()} for r in df.to_dict("records")]

        q = dict(self.qrels)
        q["levels"] = {_level_text(k): int(v) for k, v in q["levels"].items()}
        return {"exit_status": self.exit_status, "settings": self.settings, "qrels": q,
                "runs": rows(self.runs), "measures": rows(self.measures),
                "findings": [f.to_dict() for f in self.findings]}

    def warnings_text(self, severities=("problem", "warning")) -> str:
        """The findings of the given severities, one line each (what ``compare`` prints)."""
        return "\n".join(f"{f.severity}: {f.subject}: {f.message}" for f in self.findings
                         if f.severity in severities)

    def report(self) -> str:
        """The report as text: the qrels, a table of the runs, the measures, the findings."""
        q = self.qrels
        levels = ", ".join(f"{_level_text(k)} ({v:,})" for k, v in q["levels"].items())
        out = [f"qrels {q['name']}: {q['topics']:,} topics, {q['judgements']:,} judgements; "
               f"relevance levels {levels or '(none)'}"]
        cols = ["run", "tag", "topics", "only_in_run", "only_in_qrels"]
        cols += [c for c in self.runs.columns if c.startswith("judged@")]
        cols += ["duplicates", "tied_share", "largest_tie", "decisive_ties"]
        heads = {"only_in_run": "only in run", "only_in_qrels": "only in qrels",
                 "tied_share": "tied", "largest_tie": "largest tie",
                 "decisive_ties": "decisive ties"}
        cells = [[heads.get(c, c) for c in cols]]
        for r in self.runs.itertuples(index=False):
            row = []
            for c in cols:
                v = getattr(r, c) if c.isidentifier() else r[self.runs.columns.get_loc(c)]
                if c.startswith("judged@") or c == "tied_share":
                    row.append("-" if v is None or (isinstance(v, float) and math.isnan(v))
                               else f"{v:.4f}")
                elif v is None:
                    row.append("-")
                else:
                    row.append(f"{v:,}" if isinstance(v, (int, np.integer)) else str(v))
            cells.append(row)
        out += ["", _table(cells)]
        if len(self.measures):
            mcells = [["measure", "reads", "levels counted", "alike"]]
            for r in self.measures.itertuples(index=False):
                mcells.append([r.measure, r.reads, r.levels_counted or "-", r.alike or "-"])
            out += ["", _table(mcells)]
        for sev, head in (("problem", "Problems (a number would change)"),
                          ("warning", "Warnings"), ("note", "Notes")):
            found = self.of(sev)
            if found:
                out += ["", f"{head}:"]
                out += [f"  - {f.subject}: {f.message}" for f in found]
        if not self.of("problem"):
            out += ["", "No problem found that would change a number."]
        return "\n".join(out)

    def __str__(self) -> str:
        return self.report()


def _table(cells) -> str:
    width = [max(len(row[i]) for row in cells) for i in range(len(cells[0]))]
    line = lambda vals: "  ".join(v.ljust(w) for v, w in zip(vals, width)).rstrip()
    return "\n".join([line(cells[0]), line(["-" * w for w in width])]
                     + [line(r) for r in cells[1:]])


def _level_text(level) -> str:
    level = float(level)
    return f"{int(level)}" if level.is_integer() else f"{level:g}"


def _preview(items, limit: int = 3) -> str:
    items = [str(x) for x in items]
    shown = ", ".join(repr(x) for x in items[:limit])
    return shown + (f", ... ({len(items)} in all)" if len(items) > limit else "")


def _natural(ids) -> list:
    ids = [str(x) for x in ids]
    if all(re.fullmatch(r"-?[0-9]+", s) for s in ids):
        return sorted(ids, key=int)
    return sorted(ids)


# --------------------------------------------------------------------------------------------
# reading


@dataclass
class _Side:
    """One input as columns: topic codes and names, document codes (int64, dense per input)
    and names, values; the tag(s) of a run file; the documents listed twice. A side read
    from a file keeps its table, and numbers its documents only when asked for
    (:attr:`dcodes`): two tables are joined by their own keys (:func:`_join`)."""

    name: str
    qcodes: np.ndarray
    qnames: np.ndarray
    doc_codes: np.ndarray | None  # None: the table's, numbered when first asked for
    doc_names: np.ndarray | None  # None: dcodes are the document ids themselves (integers)
    values: np.ndarray
    tag: str | None = None
    other_tag: str | None = None
    duplicates: pd.DataFrame | None = None  # query_id, doc_id, lines (or rows) of each
    table: _tf.TrecTable | None = None  # the table read from a file, when there is one

    @property
    def dcodes(self) -> np.ndarray:
        if self.doc_codes is None:
            t = self.table
            self.doc_codes = np.asarray(t.docs, dtype=np.int64)
            self.doc_names = None if t.dnames is None else np.asarray(t.dnames, dtype=object)
        return self.doc_codes

    @property
    def dnames(self) -> np.ndarray | None:
        self.dcodes  # noqa: B018 (numbers the documents of a table)
        return self.doc_names


def _is_path(obj) -> bool:
    return isinstance(obj, (str, bytes, os.PathLike))


def _from_frame(df: pd.DataFrame, name: str, duplicates=None, tag=None, other_tag=None) -> _Side:
    qc, qn = pd.factorize(df["query_id"], sort=False)
    dc, dn = pd.factorize(df["doc_id"], sort=False)
    value = df.columns[2]
    return _Side(name, qc.astype(np.int64), np.asarray(qn, dtype=object), dc.astype(np.int64),
                 np.asarray(dn, dtype=object), df[value].to_numpy(np.float64), tag, other_tag,
                 duplicates)


def _from_table(t: _tf.TrecTable, name: str) -> _Side:
    values = np.asarray(t.values, dtype=np.float64)
    if getattr(t, "what", "") == "run_rank":  # an explicit order: minus its ranks rank it alike
        values = -values
    return _Side(name, np.asarray(t.qcodes, dtype=np.int64), np.asarray(t.qnames, dtype=object),
                 None, None, values, t.tag, t.other_tag, table=t)


def _all_text(source, max_bytes) -> bytes:
    """Every byte of text of a source, decompressed (:func:`rankbook.trec_format.open_input`)."""
    parts = []
    with _tf.open_input(source, max_bytes=max_bytes) as inp:
        while True:
            chunk = inp.read(_tf.CHUNK_BYTES)
            if not chunk:
                break
            parts.append(chunk)
    return b"".join(parts)


def _lenient_lines(data: bytes, what: str):
    """The fields of every data line of a TREC file's text, without refusing a document listed
    twice: ``(frame of query_id, doc_id, value text, line, tag)`` or ``None`` when a line is
    malformed (the strict reader's message is then the one to show)."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    n = 4 if what == "qrels" else 6
    rows = []
    for no, line in enumerate(re.split(r"\r\n|\r|\n", text), start=1):
        s = line.strip(" \t")
        if not s or s.startswith("#"):
            continue
        parts = re.split(r"[ \t]+", s)
        if len(parts) != n:
            return None
        if what == "qrels":
            rows.append((parts[0], parts[2], parts[3], no, None))
        else:
            rows.append((parts[0], parts[2], parts[4], no, parts[5]))
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "value", "line", "tag"])


def _read_source(obj, what: str, name: str, max_bytes) -> _Side:
    """One qrels (``what="qrels"``) or run input as :class:`_Side`, duplicates counted."""
    if isinstance(obj, _tf.TrecTable):  # already read (and checked) by the reader
        return _from_table(obj, name)
    if isinstance(obj, pd.DataFrame) and what == "run" and "score" not in obj.columns \
            and "rank" in obj.columns:  # an explicit order: minus its ranks rank it alike
        obj = obj.assign(score=-obj["rank"].astype(float)).drop(columns="rank")
    if _is_path(obj) or hasattr(obj, "read"):
        regular = _is_path(obj) and obj not in ("-", b"-") and os.path.isfile(obj)
        data = None
        if not regular:  # standard input, a pipe or a stream is read once: keep its text
            data = _all_text(obj, max_bytes)
            source = io.BytesIO(data)
            source.name = _tf._source_name(obj)  # messages name the input, not '<stream>'
        else:
            source = obj
        try:
            table = _tf.read_table(source, what, max_bytes=max_bytes)
        except _tf.InputTooLarge:
            raise
        except ValueError as exc:
            try:
                if data is None:
                    data = _all_text(obj, max_bytes)
            except ValueError:
                raise exc from None
            side = _lenient_side(data, what, name)
            if side is None:
                raise exc from None
            return side
        return _from_table(table, name)
    df = obj
    try:
        tidy = _tf.as_qrels(obj) if what == "qrels" else _tf.as_run(obj)
    except ValueError as exc:
        if not isinstance(df, pd.DataFrame):
            raise
        side = _lenient_frame(df, what, name)
        if side is None:
            raise exc from None
        return side
    return _from_frame(tidy, name)


def _duplicates_of(df: pd.DataFrame, where: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(rows listed twice: query_id, doc_id, the lines or rows of every listing; the rows
    without their repeats)."""
    dup = df.duplicated(["query_id", "doc_id"], keep=False)
    repeats = df[dup].groupby(["query_id", "doc_id"], sort=False)[where].agg(list).reset_index()
    repeats = repeats.rename(columns={where: "lines" if where == "line" else "rows"})
    return repeats, df[~df.duplicated(["query_id", "doc_id"], keep="first")]


def _lenient_side(data: bytes, what: str, name: str) -> _Side | None:
    rows = _lenient_lines(data, what)
    if rows is None or not rows.duplicated(["query_id", "doc_id"]).any():
        return None
    repeats, first = _duplicates_of(rows, "line")
    value = "relevance" if what == "qrels" else "score"
    frame = first[["query_id", "doc_id", "value"]].rename(columns={"value": value})
    try:  # the values as the reader would take them (a bad number is its error)
        numbers = pd.to_numeric(frame[value], errors="raise").astype(np.float64)
    except (ValueError, TypeError):
        return None
    if not np.isfinite(numbers.to_numpy()).all():
        return None
    frame = frame.assign(**{value: numbers})
    tags = [t for t in pd.unique(rows["tag"]) if t is not None] if what == "run" else []
    return _from_frame(frame.reset_index(drop=True), name, repeats,
                       tags[0] if tags else None, tags[1] if len(tags) > 1 else None)


def _lenient_frame(df: pd.DataFrame, what: str, name: str) -> _Side | None:
    value = "relevance" if what == "qrels" else "score"
    if not {"query_id", "doc_id", value} <= set(df.columns):
        return None
    q_codes, q_uniq = pd.factorize(df["query_id"], sort=False)
    d_codes, d_uniq = pd.factorize(df["doc_id"], sort=False)
    try:
        q = _tf.id_text(q_uniq, "query ids")[q_codes]
        d = _tf.id_text(d_uniq, "document ids")[d_codes]
    except ValueError:
        return None
    rows = pd.DataFrame({"query_id": q, "doc_id": d, "row": np.arange(len(df))})
    if not rows.duplicated(["query_id", "doc_id"]).any():
        return None
    repeats, first = _duplicates_of(rows, "row")
    kept = df.iloc[first["row"].to_numpy()]
    try:
        tidy = _tf.as_qrels(kept) if what == "qrels" else _tf.as_run(kept)
    except ValueError:
        return None
    return _from_frame(tidy, name, repeats)


# --------------------------------------------------------------------------------------------
# the checks


def _name_of(obj, i: int) -> str:
    if _is_path(obj):
        return _tf.display_name(os.path.basename(os.fsdecode(obj)) or os.fsdecode(obj))
    return f"run{i + 1}"


def _doc_codes_for(run: _Side, qrels: _Side) -> tuple[np.ndarray, np.ndarray]:
    """The qrels' documents in the run's document codes, and the run's own codes, both in one
    dense numbering (-1: a qrels document the run never holds)."""
    if run.dnames is None and qrels.dnames is None:  # both integers: the same ids compare
        codes, _ = pd.factorize(np.concatenate([run.dcodes, qrels.dcodes]), sort=False)
        return codes[run.dcodes.size:].astype(np.int64), codes[: run.dcodes.size].astype(np.int64)
    qdocs = qrels.dnames[qrels.dcodes] if qrels.dnames is not None else qrels.dcodes.astype(str)
    if run.dnames is None:  # the run's documents are integers written canonically
        s = pd.Series(np.asarray(qdocs, dtype=object), dtype=object).astype(str)
        canon = s.str.fullmatch(r"0|-?[1-9][0-9]{0,17}")
        mapped = np.full(len(s), -1, dtype=np.int64)
        ok = canon.to_numpy()
        mapped_vals = pd.to_numeric(s[ok]).to_numpy(np.int64) if ok.any() else np.zeros(0, np.int64)
        codes, uniq = pd.factorize(np.concatenate([run.dcodes, mapped_vals]), sort=False)
        rcodes = codes[: run.dcodes.size].astype(np.int64)
        mapped[ok] = codes[run.dcodes.size:]
        return mapped, rcodes
    index = pd.Index(run.dnames)
    mapped = index.get_indexer(pd.Index(np.asarray(qdocs, dtype=object)))
    return mapped.astype(np.int64), run.dcodes


def _join(run: _Side, qrels: _Side):
    """(judged, label) for every row of the run."""
    if run.table is not None and qrels.table is not None:
        # two files: evaluate_run's join of tables (hashes of the ids, matches confirmed
        # byte for byte), the same pairs as the codes below without numbering the documents
        data = _conv._table_inputs(qrels.table, run.table)
        if data is not None:
            judged = ~np.isnan(data.run_rel)
            return judged, np.where(judged, data.run_rel, 0.0)
    qmap = {str(n): i for i, n in enumerate(run.qnames)}
    qrels_q = np.array([qmap.get(str(n), -1) for n in qrels.qnames], dtype=np.int64)[qrels.qcodes]
    qdoc, rdoc = _doc_codes_for(run, qrels)
    ok = (qrels_q >= 0) & (qdoc >= 0)
    width = np.int64(max(int(rdoc.max()) + 1 if rdoc.size else 1, 1))
    keys = pd.Index(qrels_q[ok] * width + qdoc[ok])
    pos = keys.get_indexer(run.qcodes * width + rdoc)
    judged = pos >= 0
    labels = np.where(judged, qrels.values[ok][np.maximum(pos, 0)] if ok.any() else 0.0, 0.0)
    return judged, labels


def _frame(side: _Side, value: str) -> pd.DataFrame:
    docs = side.dnames[side.dcodes] if side.dnames is not None else side.dcodes.astype(str)
    return pd.DataFrame({"query_id": np.array([str(x) for x in side.qnames], dtype=object)[side.qcodes],
                         "doc_id": np.asarray(docs, dtype=object).astype(str), value: side.values})


def _tie_ranges(run: _Side, qrels: _Side, conv, measures) -> dict:
    """{measure: (low, high)} of the run's mean over the orders of its tied documents, on the
    topics both files hold (``evaluate_run(..., ties="range")``)."""
    both = _conv.profile(conv, qrels_only="skip", run_only="skip")
    if both.averaging == "pooled":
        return {}
    if (qrels.table is not None and run.table is not None and run.table.what == "run"
            and qrels.table.exponent is None):
        # the tables as read: the same rows, joined without the text of the ids (a level
        # written with an exponent, which a table would refuse, is scored as a frame)
        inputs = qrels.table, run.table
    else:
        inputs = _frame(qrels, "relevance"), _frame(run, "score")
    try:
        # evaluate_run(..., ties="range") without the expected value, which is not shown
        agg = _conv._with_tie_range(*inputs, measures, both, None, "range",
                                    expected=False).aggregate
    except ValueError:  # an input the profile refuses: its own finding says so
        return {}
    return {m: (float(agg.loc[m, "low"]), float(agg.loc[m, "high"])) for m in measures
            if agg.loc[m, "low"] == agg.loc[m, "low"]}


def _run_summary(run: _Side, qrels: _Side, judged_topics: set, conv, depths,
                 measures=(), ranges: bool = True) -> tuple[dict, list]:
    """The row of the runs table for one run, and its findings."""
    findings = []
    names = np.array([str(x) for x in run.qnames], dtype=object)
    topics = set(names)
    only_run = _natural(topics - judged_topics)
    only_qrels = _natural(judged_topics - topics)
    judged, labels = _join(run, qrels)
    common = np.isin(names, list(judged_topics))[run.qcodes]

    values = run.values.astype(np.float32).astype(np.float64) \
        if conv.score_dtype == "float32" else run.values
    q, v = run.qcodes, values
    if q.size < 2 or bool(np.all((q[1:] > q[:-1]) | ((q[1:] == q[:-1]) & (v[1:] <= v[:-1])))):
        order = np.arange(q.size)  # written in rank order, as TREC runs are: no sort
    else:
        order = np.lexsort((-values, run.qcodes))  # stable: file order among tied scores
    q_sorted = run.qcodes[order]
    v_sorted = values[order]
    n = q_sorted.size
    start_of = np.ones(n, dtype=bool)
    if n:
        start_of[1:] = q_sorted[1:] != q_sorted[:-1]
    starts = np.flatnonzero(start_of)
    lengths = np.diff(np.append(starts, n))
    pos = np.arange(n) - np.repeat(starts, lengths)
    row = {"run": run.name, "tag": run.tag, "topics": len(topics), "documents": int(n),
           "only_in_run": len(only_run), "only_in_qrels": len(only_qrels)}
    j_sorted, c_sorted = judged[order], common[order]
    common_topics = common[order][starts] if n else np.zeros(0, bool)
    for k in depths:
        top = pos < k
        hit = np.bincount(np.repeat(np.arange(starts.size), lengths), weights=(j_sorted & top),
                          minlength=starts.size)
        share = hit / np.minimum(lengths, k)
        row[f"judged@{k}"] = float(share[common_topics].mean()) if common_topics.any() else float("nan")
    dups = 0 if run.duplicates is None else len(run.duplicates)
    row["duplicates"] = dups

    # ties: groups of equal scores within a topic (in the convention's precision)
    new = start_of.copy()
    if n:
        new[1:] |= v_sorted[1:] != v_sorted[:-1]
    gid = np.cumsum(new) - 1
    gsize = np.bincount(gid)
    tied = gsize[gid] > 1
    row["tied_share"] = float(tied.mean()) if n else float("nan")
    big = int(gsize.max()) if n else 0
    row["largest_tie"] = big
    row["largest_tie_topic"] = (str(names[q_sorted[np.flatnonzero(gsize[gid] == big)[0]]])
                                if n and big > 1 else None)
    eff = labels[order] if conv.negative_labels == "gain" else np.maximum(labels[order], 0.0)
    gstart = np.flatnonzero(new)  # groups are runs of consecutive rows
    gmax = np.maximum.reduceat(np.where(c_sorted, eff, -np.inf), gstart) if n else eff
    gmin = np.minimum.reduceat(np.where(c_sorted, eff, np.inf), gstart) if n else eff
    decisive = (gsize > 1) & (gmax > gmin)
    row["decisive_ties"] = int(decisive.sum())
    dec_topics = _natural(pd.unique(names[q_sorted[np.flatnonzero(new)[decisive]]]))
    row["decisive_topics"] = len(dec_topics)

    # findings
    if only_qrels:
        rule = {"error": ("trec_eval 10.0 stops on them (exit status 4) without -c"
                          if conv.name.startswith("trec_eval") else
                          f"{conv.name} refuses the run"),
                "skip": f"{conv.name} averages over the {len(topics & judged_topics)} topics both "
                        "files hold",
                "zero": f"{conv.name} scores them 0"}[conv.qrels_only]
        findings.append(Finding(
            "problem", "topics_only_in_qrels", run.name,
            f"{len(only_qrels)} judged topic(s) are not in the run ({_preview(only_qrels)}): "
            f"{rule}; trec_eval 9 and pytrec_eval skip them, trec_eval -c and ir_measures score "
            "them 0, so the mean depends on the tool", len(only_qrels), only_qrels[:10]))
    if only_run:
        findings.append(Finding(
            "problem", "topics_only_in_run", run.name,
            f"{len(only_run)} topic(s) of the run have no judgements ({_preview(only_run)}): "
            "trec_eval skips them, ranx refuses the run, scikit-learn and torchmetrics score "
            "them as if nothing were relevant", len(only_run), only_run[:10]))
    if dups:
        ex = [f"{r.query_id}/{r.doc_id}" for r in run.duplicates.head(3).itertuples()]
        where = "lines" if "lines" in run.duplicates.columns else "rows"
        first = run.duplicates.iloc[0]
        findings.append(Finding(
            "problem", "duplicate_documents", run.name,
            f"{dups} document(s) are ranked twice for a topic (first: document "
            f"{first.doc_id!r} of topic {first.query_id!r}, {where} "
            f"{', '.join(map(str, first[where]))}): trec_eval and rankbook refuse the run, a "
            "dict keeps one of the scores", dups, ex))
    span = _tie_ranges(run, qrels, conv, list(measures)) if (
        row["decisive_ties"] and measures and ranges) else {}
    row["tie_ranges"] = {m: list(v) for m, v in span.items()} if span else None
    if row["decisive_ties"]:
        moved = {m: v for m, v in span.items() if v[1] > v[0]}
        if span and not moved:
            severity, effect = "warning", (
                "; none of the measures asked for moves with it (those ties lie beyond their "
                "cut-offs or between levels they count alike)")
        elif span:
            severity, effect = "problem", "; the tie order moves the mean " + ", ".join(
                f"{m} between {lo:.4f} and {hi:.4f}" for m, (lo, hi) in moved.items())
        else:
            severity, effect = "problem", ("; `evaluate_run(..., ties=\"range\")` gives how "
                                           "far it moves each score")
        findings.append(Finding(
            severity, "decisive_ties", run.name,
            f"{row['decisive_ties']} group(s) of tied scores hold documents of different "
            f"relevance, in {len(dec_topics)} topic(s) ({_preview(dec_topics)}): the tie rule "
            f"decides their order, and tools break ties differently (trec_eval by document id, "
            f"ranx by input order){effect}", row["decisive_ties"], dec_topics[:10]))
    elif big > 1:
        findings.append(Finding(
            "note", "ties", run.name,
            f"{row['tied_share']:.1%} of the documents share their score with another of their "
            f"topic (largest group {big}, topic {row['largest_tie_topic']!r}); no group mixes "
            "relevance levels, so no score depends on the tie order", int(tied.sum())))
    for k in depths:
        share = row[f"judged@{k}"]
        if share == share and share < 1.0:
            findings.append(Finding(
                "warning", "unjudged", run.name,
                f"judged@{k} is {share:.4f}: {1 - share:.1%} of the top {k} documents (mean over "
                "topics) have no judgement and count as not relevant", None))
            break
    if run.other_tag is not None:
        findings.append(Finding(
            "warning", "several_tags", run.name,
            f"its lines carry more than one run tag ({run.tag!r}, {run.other_tag!r}, ...): "
            "naming runs by tag would merge or split systems", None))
    return row, findings


def _qrels_summary(qrels: _Side, conv) -> tuple[dict, list]:
    findings = []
    levels = pd.Series(qrels.values).value_counts().sort_index()
    names = np.array([str(x) for x in qrels.qnames], dtype=object)
    rel_topics = set(names[np.unique(qrels.qcodes[qrels.values >= 1])])
    without = _natural(set(names) - rel_topics)
    info = {"name": qrels.name, "topics": int(len(names)), "judgements": int(qrels.values.size),
            "levels": {float(k): int(v) for k, v in levels.items()},
            "duplicates": 0 if qrels.duplicates is None else int(len(qrels.duplicates)),
            "topics_without_relevant": len(without)}
    if qrels.duplicates is not None and len(qrels.duplicates):
        d = qrels.duplicates
        where = "lines" if "lines" in d.columns else "rows"
        first = d.iloc[0]
        findings.append(Finding(
            "problem", "duplicate_judgements", qrels.name,
            f"{len(d)} document(s) are judged twice for a topic (first: document "
            f"{first.doc_id!r} of topic {first.query_id!r}, {where} "
            f"{', '.join(map(str, first[where]))}): trec_eval and rankbook refuse the qrels, "
            "pytrec_eval and ranx keep one of the judgements", len(d),
            [f"{r.query_id}/{r.doc_id}" for r in d.head(10).itertuples()]))
    fractional = levels.index[np.asarray(levels.index) != np.round(levels.index)]
    if len(fractional) and conv.whole_labels:
        findings.append(Finding(
            "problem", "fractional_levels", qrels.name,
            f"relevance levels {', '.join(_level_text(x) for x in fractional)} are not whole "
            f"numbers: trec_eval reads them with atol (0.5 becomes 0), the {conv.name} profile "
            "refuses them", int(levels[fractional].sum())))
    negative = levels.index[np.asarray(levels.index) < 0]
    if len(negative):
        findings.append(Finding(
            "warning", "negative_levels", qrels.name,
            f"negative levels ({', '.join(_level_text(x) for x in negative)}): trec_eval counts "
            "them judged and not relevant, scikit-learn and torchmetrics use them as negative "
            "gains in nDCG, ranx drops them", int(levels[negative].sum())))
    if without:
        findings.append(Finding(
            "note", "topics_without_relevant", qrels.name,
            f"{len(without)} topic(s) have no relevant document ({_preview(without)}): every "
            "system scores 0 there, and the tools count them in the mean", len(without),
            without[:10]))
    return info, findings


def _measure_rows(measures, qrels: _Side, conv) -> tuple[pd.DataFrame, list]:
    levels = sorted(set(np.unique(qrels.values).tolist()))
    positive = [x for x in levels if x > 0]
    rows, findings = [], []
    for text in measures:
        m = _conv.parse_measure(text, conv)
        if m.family == "Judged":
            rows.append({"measure": text, "reads": "judged or not (no level)",
                         "levels_counted": "", "alike": ", ".join(map(_level_text, levels))})
            continue
        if m.family in _BINARY:
            counted = [x for x in levels if x >= m.rel]
            below = [x for x in positive if x < m.rel]
            rows.append({"measure": text, "reads": f"relevant or not (level >= {m.rel})",
                         "levels_counted": ", ".join(map(_level_text, counted)),
                         "alike": ", ".join(map(_level_text, counted)) if len(counted) > 1 else ""})
            if not counted:
                top = _level_text(max(levels)) if levels else "none"
                findings.append(Finding(
                    "problem", "threshold_unreached", text,
                    f"no judgement reaches level {m.rel} (the highest is {top}): every system "
                    "scores 0 on it", 0))
            elif len(counted) > 1:
                findings.append(Finding(
                    "note", "binary_on_graded", text,
                    f"a binary measure on graded judgements: levels "
                    f"{', '.join(map(_level_text, counted))} all count as relevant, alike", None))
            if below:
                findings.append(Finding(
                    "note", "levels_below_threshold", text,
                    f"levels {', '.join(map(_level_text, below))} count as not relevant "
                    f"(threshold {m.rel})", None))
            continue
        # (n)DCG: the level is the gain
        if conv.negative_labels == "gain":
            gains = [x for x in levels if x != 0]
        elif conv.negative_labels == "below_rel":
            gains = [x for x in levels if x >= m.rel]
        else:
            gains = positive
        zero = [x for x in levels if x not in gains]
        gain = "2^level - 1" if m.exp_gain else "the level"
        rows.append({"measure": text, "reads": f"graded: gain {gain}",
                     "levels_counted": ", ".join(map(_level_text, gains)),
                     "alike": ", ".join(map(_level_text, zero)) if len(zero) > 1 else ""})
        if not gains:
            findings.append(Finding(
                "problem", "threshold_unreached", text,
                "no judgement has a positive gain: every system scores 0 on it", 0))
    return pd.DataFrame(rows, columns=["measure", "reads", "levels_counted", "alike"]), findings


def _check_depths(depths) -> tuple:
    try:
        out = tuple(int(d) for d in depths)
    except (TypeError, ValueError):
        raise ValueError(f"depths must be whole numbers >= 1, e.g. (10, 100, 1000); got "
                         f"{depths!r}") from None
    if not out or any(d < 1 for d in out) or any(float(a) != a for a in depths):
        raise ValueError(f"depths must be whole numbers >= 1, e.g. (10, 100, 1000); got "
                         f"{depths!r}")
    if len(set(out)) != len(out):
        raise ValueError(f"depths repeat a value: {list(out)}; give each depth once")
    return tuple(sorted(out))


def check_inputs(qrels, runs, measures=None, *, convention="trec_eval",
                 depths: Sequence[int] = DEFAULT_DEPTHS, names: Sequence[str] | None = None,
                 max_bytes: int | None = None) -> PreflightReport:
    """Check qrels and runs before scoring them: every place a tool's choice changes a number.

    Parameters
    ----------
    qrels : path, dict or pandas.DataFrame
        Relevance judgements in any spelling :mod:`rankbook.trec_format` reads.
    runs : sequence or mapping
        Runs (paths, dicts or DataFrames); a mapping gives their names.
    measures : str or sequence of str, optional
        ir_measures names (``"nDCG@10"``, ``"P(rel=2)@5"``): for each, which relevance levels it
        tells apart, and whether its threshold is reached.
    convention : str or Convention
        The profile whose choices the findings describe (ties compared in its precision,
        what it does with a topic in one file only): default trec_eval 10.0.
    depths : sequence of int
        Depths of judged@k.
    names : sequence of str, optional
        The runs' names (default: the file name, or ``run1``, ``run2``, ...).
    max_bytes : int, optional
        Refuse a file with more bytes of text (:class:`rankbook.trec_format.InputTooLarge`).

    Returns
    -------
    PreflightReport
        ``exit_status`` 1 when some finding is a problem (a number would change), else 0.

    Notes
    -----
    judged@k of a topic is :math:`|\\{d \\in \\text{top } k : d \\text{ judged}\\}| / \\min(k,
    n)` with :math:`n` the documents the run lists for it (as ir_measures' ``Judged@k``
    divides), ranked by score with tied documents in file order, and is averaged over the topics
    both files hold. A tie group is *decisive* when its documents' relevance levels differ
    (levels below 0 count as 0 unless the profile uses them as gains): only then can the tie
    order change a score (McSherry and Najork :cite:`mcsherry2008computing`). With measures,
    the run is scored at the best and the worst order of its ties
    (``evaluate_run(..., ties="range")``): decisive ties that move none of them (beyond their
    cut-offs, or between levels they count alike) are a warning, not a problem.

    Raises
    ------
    ValueError
        An input the readers refuse for another reason than a document listed twice (naming
        ``file:line``), an unknown measure or one the profile does not offer, bad depths.

    Examples
    --------
    >>> qrels = {"1": {"a": 2, "b": 0}, "2": {"c": 1}}
    >>> runs = {"bm25": {"1": {"a": 1.0, "b": 1.0, "x": 0.5}, "3": {"z": 1.0}}}
    >>> rep = check_inputs(qrels, runs, ["P@1"])
    >>> rep.exit_status, sorted({f.code for f in rep.of("problem")})
    (1, ['decisive_ties', 'topics_only_in_qrels', 'topics_only_in_run'])
    >>> r = rep.runs.iloc[0]
    >>> round(r["judged@10"], 4), r["tied_share"], int(r["largest_tie"])
    (0.6667, 0.5, 2)
    """
    if isinstance(runs, Mapping):
        given = list(runs.values())
        run_names = [str(k) for k in runs]
    else:
        if _is_path(runs) or isinstance(runs, pd.DataFrame):
            runs = [runs]
        given = list(runs)
        run_names = [_name_of(r, i) for i, r in enumerate(given)]
    if names is not None:
        if len(names) != len(given):
            raise ValueError(f"names gives {len(names)} names for {len(given)} runs")
        run_names = [str(n) for n in names]
    if not given:
        raise ValueError("give at least one run to check")
    check = Preflight(qrels, measures, convention=convention, depths=depths,
                      max_bytes=max_bytes)
    for obj, name in zip(given, run_names):
        check.add_run(obj, name)
    return check.report()


class Preflight:
    """The check of :func:`check_inputs` one run at a time, for callers that read each run once
    and let it go before the next (``rankbook compare`` on long runs): ``Preflight(qrels,
    measures)`` (``qrels_name`` names the qrels in the findings; ``tie_ranges=False`` skips the
    scoring that measures how far decisive ties move each measure), then :meth:`add_run` for each run (a path, a dict, a DataFrame or a
    :class:`rankbook.trec_format.TrecTable` already read), then :meth:`report`. Only a
    summary of each run is kept.

    Examples
    --------
    >>> check = Preflight({"1": {"a": 1, "b": 0}}, "P@1")
    >>> check.add_run({"1": {"a": 1.0, "b": 1.0}}, "tied")
    >>> [f.code for f in check.report().of("problem")]
    ['decisive_ties']
    """

    def __init__(self, qrels, measures=None, *, convention="trec_eval",
                 depths: Sequence[int] = DEFAULT_DEPTHS, max_bytes: int | None = None,
                 qrels_name: str | None = None, tie_ranges: bool = True):
        self.conv = _conv.profile(convention)
        self.tie_ranges = bool(tie_ranges)
        self.depths = _check_depths(depths)
        if isinstance(measures, str):
            measures = ([m.strip() for m in measures.split(",")] if "(" not in measures
                        else [measures])
        self.measures = list(measures or [])
        for m in self.measures:
            _conv.parse_measure(m, self.conv)
        self.max_bytes = max_bytes
        if qrels_name is None:
            qrels_name = _name_of(qrels, 0) if _is_path(qrels) else "qrels"
        self.qrels = _read_source(qrels, "qrels", str(qrels_name), max_bytes)
        self.q_info, self.findings = _qrels_summary(self.qrels, self.conv)
        self.judged_topics = {str(x) for x in self.qrels.qnames}
        self.rows, self.topic_sets, self.names = [], [], []

    def add_run(self, run, name: str | None = None) -> None:
        """Check one run (see :func:`check_inputs`); its name defaults to ``run1``, ..."""
        name = str(name) if name is not None else _name_of(run, len(self.rows))
        side = _read_source(run, "run", name, self.max_bytes)
        row, found = _run_summary(side, self.qrels, self.judged_topics, self.conv, self.depths,
                                  self.measures, self.tie_ranges)
        self.rows.append(row)
        self.findings += found
        self.topic_sets.append({str(x) for x in side.qnames})
        self.names.append(name)

    def report(self) -> PreflightReport:
        """The report of the qrels and every run added so far."""
        findings = list(self.findings)
        topic_sets, run_names, rows = self.topic_sets, self.names, self.rows
        if len({frozenset(t) for t in topic_sets}) > 1:
            union = set().union(*topic_sets)
            short = [(n, _natural(union - t)) for n, t in zip(run_names, topic_sets) if union - t]
            n0, lack = short[0]
            findings.append(Finding(
                "problem", "runs_differ_in_topics", "runs",
                f"the runs cover different topics ({n0} lacks {_preview(lack)}; "
                f"{len(short)} run(s) lack some): a paired comparison needs every run scored on "
                "the same topics (rankbook compare --missing zero or drop decides)",
                len(short), [n for n, _ in short]))
        tags = [r["tag"] for r in rows if r["tag"] is not None]
        shared = sorted({t for t in tags if tags.count(t) > 1})
        if shared:
            findings.append(Finding(
                "warning", "same_tag", "runs",
                f"several runs carry the tag {', '.join(map(repr, shared))}: named by tag they "
                "would be told apart only by a suffix", len(shared), shared))
        mtable, mfound = _measure_rows(self.measures, self.qrels, self.conv)
        findings += mfound
        order = {s: i for i, s in enumerate(SEVERITIES)}
        findings.sort(key=lambda f: order[f.severity])
        runs_df = pd.DataFrame(rows)
        settings = {"convention": self.conv.name, "depths": list(self.depths),
                    "measures": list(self.measures)}
        return PreflightReport(dict(self.q_info), runs_df, mtable, findings, settings)
