"""What a notebook's parameters allow together, checked before any kernel starts.

A notebook declares each parameter's own limits in its metadata (``rankbook.constraints``,
:mod:`rankbook.book.specs`). Some limits hold only for a combination: the memory a random
search needs grows with the sample size *times* the ranking length; an index must point into
the rankings of an input file; a cut-off must stay below every swept length. A notebook names
its combined check in its metadata (``"check": "rankbook.book.limits:NAME"``); ``rankbook run``,
``build`` and ``sweep`` call it with every parameter's value (defaults filled in) and the
project root, before any kernel starts, and ``rankbook list NAME`` shows its first line.

Each check raises ``ValueError`` naming the parameters, the values, and what would be allowed.
The memory and time estimates are deliberately on the safe side: they count every array the
computation holds at once, and times measured on one core of the machine the book is built on,
with a margin (``benchmarks/`` measures the real speed).

The module also holds the readers of the input-file kinds that are about the book rather than
the library (:data:`rankbook.book.specs.FILE_KINDS`).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

#: Memory, in bytes, one run may plan to hold at once. The machines the book targets have 8 GB
#: or more; a run that would need more is refused before it starts instead of being killed by
#: the operating system half-way.
MEMORY_BUDGET = 4 * 2**30


def _gib(nbytes: float) -> str:
    return f"{nbytes / 2**30:.1f} GiB"


def _within_memory(need: float, what: str, advice: str) -> None:
    if need > MEMORY_BUDGET:
        raise ValueError(f"{what} needs about {_gib(need)} of memory, more than the "
                         f"{_gib(MEMORY_BUDGET)} a run may use; {advice}")


def _within_time(seconds: float, limit: float, what: str, advice: str) -> None:
    if seconds > limit:
        raise ValueError(f"{what} takes about {seconds / 60:.0f} min, more than the "
                         f"{limit / 60:.0f} min a cell may run (the notebook's time limit); "
                         f"{advice}")


def _timeout(name: str, root: Path) -> float:
    from .specs import read_spec

    return float(read_spec(root / "notebooks" / f"{name}.ipynb").timeout)


# --------------------------------------------------------------------------------------------
# readers of input-file kinds (specs.FILE_KINDS)
# --------------------------------------------------------------------------------------------
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


def read_permutations_csv(path):
    """A rankings CSV whose first ranking is the reference and whose other rankings are complete
    orderings of the same items, without ties (the sample T of ``agreement_heatmap``).

    Returns the rankings numbered by the reference (:func:`rankbook.permutations.from_labels`).
    Raises ValueError naming the file and the ranking: a tie group, a partial ranking, an item
    not in the reference, or a file with a reference only.
    """
    from .. import consensus, permutations

    groups = consensus.read_rankings_csv(path)
    group, named = next(iter(groups.items()))
    names = list(named)
    if len(names) < 2:
        raise ValueError(f"{path} holds only the reference ranking {names[0]!r}: add at least "
                         "one ranking to compare with it")
    ref = named[names[0]]
    for name in names:
        for x in named[name]:
            if isinstance(x, frozenset):
                raise ValueError(f"{path}: ranking {name!r} ties {', '.join(sorted(map(str, x)))}; "
                                 "this notebook needs complete rankings without ties")
    for name in names[1:]:
        items = named[name]
        if len(items) != len(ref) or set(items) != set(ref):
            missing = sorted(set(ref) - set(items), key=str)
            extra = sorted(set(items) - set(ref), key=str)
            what = (f"lacks {', '.join(map(str, missing[:5]))}" if missing else "") + \
                   ("; " if missing and extra else "") + \
                   (f"holds {', '.join(map(str, extra[:5]))} not in the reference" if extra else "")
            raise ValueError(f"{path}: ranking {name!r} {what or 'differs in length'}: every "
                             f"ranking must order exactly the {len(ref)} items of the reference "
                             f"{names[0]!r} (no partial rankings)")
    if len(ref) < 2:
        raise ValueError(f"{path}: the reference ranks {len(ref)} item; at least 2 are needed")
    return permutations.from_labels(ref, *(named[n] for n in names[1:]))


# --------------------------------------------------------------------------------------------
# combined checks, one per notebook (metadata "check")
# --------------------------------------------------------------------------------------------
def _rankings_from(values: dict, key_csv: str, root: Path):
    """The first group of a rankings file, in rankbook's CSV or an aggregation tool's format
    (by the file's name, or the notebook's ``rankings_format`` parameter when it has one)."""
    from .. import aggregation_formats
    from .specs import resolve_input_path

    if values.get(key_csv):
        groups = aggregation_formats.read_rankings_file(resolve_input_path(values[key_csv], root),
                                                        values.get("rankings_format", "auto"))
        named = next(iter(groups.values()))
        return list(named.values()), list(named)
    return None, None


#: The consensus graph is drawn for rankings of at most this many items (beyond, the page
#: says so and shows the tables); the matrices of Eq. (6) grow as n squared.
MAX_CONSENSUS_ITEMS = 3000


def consensus_example(values: dict, root: Path) -> None:
    """base indexes one of the rankings; the rankings hold distinct items, at most 3000 in the
    base ranking."""
    R, _ = _rankings_from(values, "rankings_csv", root)
    if R is None:
        R = list(values["rankings"])
        for i, r in enumerate(R, start=1):
            if not r:
                raise ValueError(f"rankings: ranking {i} is empty")
            if len(set(r)) != len(r):
                dup = next(x for x in r if r.count(x) > 1)
                raise ValueError(f"rankings: ranking {i} ({r!r}) repeats item {dup!r}; a ranking "
                                 "holds distinct items (one item per letter)")
    base = values["base"]
    if not 0 <= base < len(R):
        raise ValueError(f"base = {base} is not the index of a ranking: there are {len(R)} "
                         f"rankings, so base must be in 0..{len(R) - 1}")
    items = sum(len(x) if isinstance(x, frozenset) else 1 for x in R[base])
    if items > MAX_CONSENSUS_ITEMS:
        raise ValueError(f"ranking {base} (the base) holds {items} items, more than the "
                         f"{MAX_CONSENSUS_ITEMS} this page computes matrices for (n x n); pass "
                         "a shorter prefix, for example the top 100 of each list")


def _grid_time(values: dict, sets: int, items: int) -> float:
    """Seconds for the kappa grids: one triangular solve per cell and set (measured: about
    0.2 ms for 25 items, growing as the cube of the item count), with a margin of 4."""
    cells = len(values["gammas"]) * len(values["lams"]) * max(1, sets)
    return 4 * cells * 2e-4 * max(1.0, (items / 25) ** 3)


def _published_files(values: dict, root: Path, names) -> None:
    from .specs import resolve_input_path

    folder = values.get("published_dir")
    if not folder:
        return
    path = resolve_input_path(folder, root)
    stem = values["table_stem"]
    wanted = [f"{stem}_{str(n).lower()}.csv" for n in names]
    found = [w for w in wanted if (path / w).is_file()]
    if not found:
        have = sorted(p.name for p in path.glob("*.csv"))[:8]
        raise ValueError(f"published_dir = {folder!r} holds none of the published grids "
                         f"{', '.join(wanted[:4])}{' ...' if len(wanted) > 4 else ''} (table_stem "
                         f"= {stem!r}); it holds {', '.join(have) or 'no CSV file'}; give "
                         "published_dir = \"\" to skip the comparison")


def consensus_rank_aggregation(values: dict, root: Path) -> None:
    """published_dir, when given, holds a published grid for some candidate; the grids of gammas x
    lams for every candidate fit in the time limit."""
    base, _ = _rankings_from(values, "base_csv", root)
    cand, cand_names = _rankings_from(values, "candidates_csv", root)
    _published_files(values, root, cand_names)
    items = max(len(r) for r in base + cand)
    _within_time(_grid_time(values, len(cand), items), _timeout("consensus_rank_aggregation", root),
                 f"the grids of {len(values['gammas'])} gammas x {len(values['lams'])} lams for "
                 f"{len(cand)} candidates of up to {items} items",
                 "give fewer gammas or lams")


def consensus_search_engines(values: dict, root: Path) -> None:
    """published_dir, when given, holds a published grid for some group; the grids of gammas x
    lams for every group fit in the time limit."""
    from .. import aggregation_formats
    from .specs import resolve_input_path

    groups = aggregation_formats.read_rankings_file(resolve_input_path(values["rankings_csv"], root))
    _published_files(values, root, list(groups))
    items = max(len(r) for g in groups.values() for r in g.values())
    _within_time(_grid_time(values, len(groups), items), _timeout("consensus_search_engines", root),
                 f"the grids of {len(values['gammas'])} gammas x {len(values['lams'])} lams for "
                 f"{len(groups)} groups of up to {items} items", "give fewer gammas or lams")


def agreement_heatmap(values: dict, root: Path) -> None:
    """k is below the number of items of pairs_csv; the sample (n_pairs x n, and twice that
    with compare_protocols) fits in memory."""
    from .specs import resolve_input_path

    if values.get("pairs_csv"):
        numbered = read_permutations_csv(resolve_input_path(values["pairs_csv"], root))
        n, n_pairs = numbered.shape[1], numbered.shape[0] - 1
        if values["k"] >= n:
            raise ValueError(f"k = {values['k']} must be below the {n} items of pairs_csv")
    else:
        n, n_pairs = values["n"], values["n_pairs"]
    # the sample and its reference (int64), the 33 metric values and their ranks (float64),
    # and the contingency work of one pair of metrics, twice with compare_protocols
    need = (2 * n_pairs * n * 8 + 3 * 33 * n_pairs * 8 + 8 * n_pairs * 8) * \
        (2 if values.get("compare_protocols") and not values.get("pairs_csv") else 1)
    _within_memory(need, f"a sample of {n_pairs} rankings of {n} items",
                   "lower n_pairs or n")


def rbo_bounds(values: dict, root: Path) -> None:
    """S and T hold distinct items (one per character); ext_depth reaches past both lists;
    n_seeds x n_random continuations to depth ext_depth fit in the time limit."""
    for key in ("S", "T"):
        text = values[key]
        if len(set(text)) != len(text):
            dup = next(x for x in text if text.count(x) > 1)
            raise ValueError(f"{key} = {text!r} repeats {dup!r}: a list holds distinct items, one "
                             "per character")
    longest = max(len(values["S"]), len(values["T"]))
    if values["ext_depth"] < longest:
        raise ValueError(f"ext_depth = {values['ext_depth']} must reach the end of the longer list "
                         f"({longest} items)")
    # measured: about 2.5 microseconds per rank of a continuation (300 x 100,000 in 67 s and
    # 10,000 x 500 in 17 s on a loaded 2-core machine), with a margin of 2
    seeds = values.get("n_seeds", 1)
    seconds = 2 * 2.5e-6 * seeds * values["n_random"] * values["ext_depth"]
    _within_time(seconds, _timeout("rbo_bounds", root),
                 f"scoring {seeds} x {values['n_random']} continuations to depth "
                 f"{values['ext_depth']}", "lower n_seeds, n_random or ext_depth (their product "
                 "should stay below 10^8)")


def right_invariance(values: dict, root: Path) -> None:
    """the random search (n_samples triples of every size in n_random, for 33 metrics and both
    sides) fits in memory and in the time limit."""
    n_samples = values["n_samples"]
    sizes = list(values["n_random"])
    if not sizes:
        return
    big = max(sizes)
    # sigma, nu, tau, the two compositions, and the metrics' own work arrays (sorts, ranks)
    _within_memory(10 * n_samples * big * 8,
                   f"the random search with n_samples = {n_samples} at n = {big}",
                   f"keep n_samples x max(n_random) below {MEMORY_BUDGET // 80:,}")
    # measured: about 60 ns per element and metric on one core (n log n metrics), times 3
    seconds = sum(3 * 60e-9 * 33 * 2 * n_samples * n * max(1.0, math.log2(n)) for n in sizes)
    _within_time(seconds, _timeout("right_invariance", root),
                 f"the random search of {n_samples} triples at n = {', '.join(map(str, sizes))}",
                 "lower n_samples or the sizes in n_random")


def sweep_agreement(values: dict, root: Path) -> None:
    """k = k_share of n is at least 1 and below n at every length in ns; every pair names two
    metrics; the samples of the points that run at once (jobs of them) fit in memory."""
    from .. import metrics
    from ..papers.paper_a.sweep_pairs import ks_for

    ks = ks_for(values["ns"], values["k_share"])
    for pair in values["pairs"]:
        parts = pair.split("/")
        bad = [p for p in parts if p not in metrics.NAMES]
        if len(parts) != 2 or bad:
            raise ValueError(f"pairs: {pair!r} is not m1/m2 with two metric names "
                             f"({', '.join(bad) or 'two names needed'}); names: "
                             f"{', '.join(metrics.NAMES)}")
    n = max(values["ns"])
    agreement_heatmap({"n": n, "n_pairs": values["n_pairs"], "k": ks[n],
                       "compare_protocols": False, "pairs_csv": ""}, root)
    # the points run at once, one per worker (jobs, at most one per length): each holds its
    # sample (as agreement_heatmap counts it) and a worker process (about 200 MB measured)
    workers = max(1, min(values["jobs"], len(values["ns"])))
    n_pairs = values["n_pairs"]
    point = 2 * n_pairs * n * 8 + 3 * 33 * n_pairs * 8 + 8 * n_pairs * 8 + 200 * 2**20
    _within_memory(workers * point, f"{workers} sweep points at once (jobs = {values['jobs']}), "
                   f"each a sample of {n_pairs} rankings of up to {n} items",
                   "lower jobs, n_pairs or the largest of ns")


def indiscernibility_examples(values: dict, root: Path) -> None:
    """sigma, every tau and the baseline are permutations of S_n in cycle notation."""
    from ..papers.paper_a import tables as paper_a_tables

    n = values["n"]
    for key, texts in (("sigma", [values["sigma"]]), ("taus", values["taus"]),
                       ("baseline", [values["baseline"]])):
        for text in texts:
            try:
                paper_a_tables.parse_cycle(text, n)
            except ValueError as exc:
                raise ValueError(f"{key}: {exc} (n = {n})") from None


def metric_profile(values: dict, root: Path) -> None:
    """the Type I rows (n_runs x n_pairs x ns) and the agreement sample (agreement_pairs x
    agreement_n) fit in memory and time; a cut-off k other than 0 stays below every ranking
    length the profile uses (n_exhaustive - 1 for the triples, n_swap, ns, agreement_n)."""
    _type_i_and_agreement(values, root, "metric_profile")
    k = values["k"]
    if not k:
        return
    lengths = {"n_exhaustive - 1": values["n_exhaustive"] - 1, "n_swap": values["n_swap"],
               "min(ns)": min(values["ns"]), "agreement_n": values["agreement_n"]}
    name, smallest = min(lengths.items(), key=lambda kv: kv[1])
    if k >= smallest:
        raise ValueError(f"k = {k} must be below every ranking length the profile uses; the "
                         f"smallest is {name} = {smallest} (or give k = 0 for max(1, n // 4))")


# --------------------------------------------------------------------------------------------
# products of size parameters (issue 30, finding 12a): each estimate counts what the notebook
# holds at once and how long its longest cell runs, from measurements of the notebook itself
# (tests/extremes.py in process, peak resident memory) with a margin of about 1.5 to 2


def _type_i_and_agreement(values: dict, root: Path, name: str) -> None:
    """The Type I rows hold every run of every pair at once (measured: about 37 bytes per run,
    pair and item, 0.6 us to compute); the agreement sample about 15 bytes per ranking and item
    (0.7 us)."""
    timeout = _timeout(name, root)
    ns, n_pairs, n_runs = values["ns"], values["n_pairs"], values["n_runs"]
    entries = n_runs * n_pairs * max(ns)
    _within_memory(64 * entries, f"the Type I rows (n_runs = {n_runs} x n_pairs = {n_pairs} x "
                   f"max(ns) = {max(ns)} items)", "lower n_runs, n_pairs or the largest of ns")
    _within_time(1e-6 * n_runs * n_pairs * sum(ns), timeout,
                 f"the Type I rows (n_runs = {n_runs} x n_pairs = {n_pairs} x sum(ns) = {sum(ns)})",
                 "lower n_runs, n_pairs or ns")
    a_n, a_pairs = values["agreement_n"], values["agreement_pairs"]
    _within_memory(32 * a_n * a_pairs, f"the agreement sample (agreement_pairs = {a_pairs} "
                   f"rankings x agreement_n = {a_n} items)", "lower agreement_pairs or agreement_n")
    _within_time(2e-6 * a_n * a_pairs, timeout, f"the agreement sample (agreement_pairs = "
                 f"{a_pairs} x agreement_n = {a_n})", "lower agreement_pairs or agreement_n")


def stability_sensitivity(values: dict, root: Path) -> None:
    """n x n_pairs x the cut-offs x n_seeds (the stability curves and the clustering) fit in
    memory and in a cell's time limit."""
    from ..papers.paper_a.tables import stability_ks

    n, n_pairs, n_seeds = values["n"], values["n_pairs"], values["n_seeds"]
    ks = len(stability_ks(n, values["k_step"]))
    timeout = _timeout("stability_sensitivity", root)
    # measured (tests/extremes.py in process, peak resident memory): about 70 bytes per pair
    # and item for the rankings and the clustering, about 370 per pair and cut-off for the
    # curves of the 33 metrics; time per seed about 1.5 us per pair and item and 6 us per pair
    # and cut-off
    need = 96 * n * n_pairs + 512 * n_pairs * ks
    _within_memory(need, f"n = {n} items x n_pairs = {n_pairs} pairs at {ks} cut-offs "
                   f"(k_step = {values['k_step']})",
                   "lower n or n_pairs, or raise k_step (fewer cut-offs)")
    seconds = n_seeds * (3e-6 * n * n_pairs + 1.2e-5 * n_pairs * ks)
    _within_time(seconds, timeout, f"the stability curves on n_seeds = {n_seeds} seeds of "
                 f"n_pairs = {n_pairs} pairs of S_{n} at {ks} cut-offs",
                 "lower n_seeds, n_pairs or n, or raise k_step")


def printed_formulas(values: dict, root: Path) -> None:
    """the printed NDPM's n_pairs x n_table^2 sign matrices fit in memory; the Type I cell
    (n_runs x n_pairs x n_table^2) and the self values (sum(ns_self) x n_seeds) fit in a cell's
    time limit."""
    n_table, n_pairs, n_runs = values["n_table"], values["n_pairs"], values["n_runs"]
    timeout = _timeout("printed_formulas", root)
    # paper_a_tables.printed_ndpm holds about four int64 arrays of 2 x n_pairs x n_table^2
    # (the sums over all ordered pairs of positions, as printed) for a run's pairs at once
    _within_memory(2 * 4 * 8 * n_pairs * n_table ** 2,
                   f"the printed NDPM (n_pairs = {n_pairs} pairs x n_table^2 = {n_table}^2 "
                   f"position pairs, as Appendix C.2 sums them)", "lower n_table or n_pairs")
    # measured: about 0.33 us per run, pair and position pair
    _within_time(6e-7 * n_runs * n_pairs * n_table ** 2, timeout,
                 f"the printed NDPM (n_runs = {n_runs} x n_pairs = {n_pairs} x n_table^2 = "
                 f"{n_table}^2)", "lower n_runs, n_pairs or n_table")
    # measured: about 60 us per item of each length, per seed
    total = sum(values["ns_self"])
    _within_time(1.2e-4 * total * values["n_seeds"], timeout,
                 f"the self values (sum(ns_self) = {total} items x n_seeds = "
                 f"{values['n_seeds']} seeds)", "use fewer or shorter ns_self, or fewer n_seeds")


def comparing_systems(values: dict, root: Path) -> None:
    """systems (1 + n_null + len(effects)) x n_queries x n_resamples (the comparison) and x
    n_repeats (the error rates, at most 2000 resamples each) fit in memory and time."""
    systems = 1 + values["n_null"] + len(values["effects"])
    q, b, reps = values["n_queries"], values["n_resamples"], values["n_repeats"]
    # measured (tests/extremes.py in process): about 12 bytes per resample and query held at
    # once; about 25 ns per system, resample and query for the comparison and 8 ns per
    # repeat, system, resample and query for the error rates; margins of 2 to 3
    _within_memory(32 * b * q, f"the resamples (n_resamples = {b} x n_queries = {q})",
                   "lower n_resamples or n_queries")
    seconds = 2 * (2.5e-8 * systems * b * q + 8e-9 * reps * systems * min(b, 2000) * q)
    _within_time(seconds, _timeout("comparing_systems", root),
                 f"{systems} systems (1 + n_null + len(effects)) on n_queries = {q} queries with "
                 f"n_resamples = {b} and n_repeats = {reps} simulated collections",
                 "lower n_repeats, n_resamples, n_queries or the number of systems")


def consensus_theorems(values: dict, root: Path) -> None:
    """seeds x sets_per_seed random sets, each checked by brute force over the subsets of up to
    max_items items, fit in a cell's time limit."""
    sets = values["seeds"] * values["sets_per_seed"]
    # measured (tests/extremes.py in process): about 0.12 s per set at max_items = 12 and
    # max_rankings = 20, 0.035 s at max_items = 6; the brute force doubles with each item
    per_set = 0.05 + 3e-5 * 2 ** values["max_items"]
    _within_time(2 * sets * per_set, _timeout("consensus_theorems", root),
                 f"seeds x sets_per_seed = {values['seeds']} x {values['sets_per_seed']} random "
                 f"sets of up to max_items = {values['max_items']} items",
                 "lower seeds, sets_per_seed or max_items")


def properties_table(values: dict, root: Path) -> None:
    """the Type I rows (n_seeds x n_runs x n_pairs x ns) and the stability experiment
    (stability_n x stability_pairs) fit in memory and in a cell's time limit."""
    from ..papers.paper_a.tables import stability_ks

    timeout = _timeout("properties_table", root)
    ns, n_pairs, n_runs = values["ns"], values["n_pairs"], values["n_runs"]
    # estimated as metric_profile's Type I rows (about 37 bytes per run, pair and item held at
    # once, 0.6 us each; margins of 1.7 and 1.6), once per scored seed
    _within_memory(64 * n_runs * n_pairs * max(ns), f"the Type I rows (n_runs = {n_runs} x "
                   f"n_pairs = {n_pairs} x max(ns) = {max(ns)} items)",
                   "lower n_runs, n_pairs or the largest of ns")
    _within_time(1e-6 * values["n_seeds"] * n_runs * n_pairs * sum(ns), timeout,
                 f"the Type I rows on n_seeds = {values['n_seeds']} seeds (n_runs = {n_runs} x "
                 f"n_pairs = {n_pairs} x sum(ns) = {sum(ns)})",
                 "lower n_seeds, n_runs, n_pairs or ns")
    # the stability experiment, as stability_sensitivity's on one seed at k_step = 10
    n, pairs = values["stability_n"], values["stability_pairs"]
    ks = len(stability_ks(n, 10))
    _within_memory(96 * n * pairs + 512 * pairs * ks,
                   f"the stability experiment (stability_n = {n} items x stability_pairs = "
                   f"{pairs} pairs at {ks} cut-offs)", "lower stability_n or stability_pairs")
    _within_time(3e-6 * n * pairs + 1.2e-5 * pairs * ks, timeout,
                 f"the stability experiment (stability_n = {n} x stability_pairs = {pairs})",
                 "lower stability_n or stability_pairs")


def ir_metrics_tour(values: dict, root: Path) -> None:
    """n_pairs_sim simulated users x n_seeds (one FCP per user and seed) fit in a cell's time
    limit."""
    users, seeds = values["n_pairs_sim"], values["n_seeds"]
    # measured (the notebook's code in process, loaded 2-core machine): 494 s for 100,000 users
    # x 100 seeds, about 50 us per user and seed; margin 2
    _within_time(1e-4 * users * seeds, _timeout("ir_metrics_tour", root),
                 f"the FCP check on n_pairs_sim = {users} simulated users x n_seeds = {seeds} "
                 "seeds", "lower n_pairs_sim or n_seeds")


def tie_range(values: dict, root: Path) -> None:
    """The restarts of the fused run (n_restarts x n_queries x its documents) and the ranges of
    the rounded runs (decimals x n_queries x n_docs) fit in a cell's time limit."""
    q, d = values["n_queries"], values["n_docs"]
    fused = q * min(d, 2 * values["rrf_depth"])
    # measured (in process, 2 loaded cores): about 3 microseconds per document of a restart
    # (shuffle and score) and 6 per document of a range (scoring it and its two orders); a
    # margin of 2
    seconds = 2 * (3e-6 * values["n_restarts"] * fused
                   + 6e-6 * (len(values["decimals"]) + 3) * q * d * len(values["measures"]))
    _within_time(seconds, _timeout("tie_range", root),
                 f"n_restarts = {values['n_restarts']} restarts of the fused run of "
                 f"n_queries = {q} queries (up to 2 x rrf_depth = {2 * values['rrf_depth']} "
                 f"documents each) and {len(values['decimals'])} rounded runs of n_docs = {d}",
                 "lower n_restarts, n_queries, n_docs or rrf_depth")
