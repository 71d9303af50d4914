"""Paper B, Example 1 and the worked examples of Section IV: the logic of the page
``consensus_example``.

One function per section of the page. The ``check_*`` functions receive one claim's ledger
entry (its published data through ``claim.path(role)``, its errata through
``claim.finding(role)``) and return its :class:`~rankbook.ledger.claims.Evidence`, with the
published values, the rankings and the implementation injectable, so that the mutation test of
the ledger (``[claims.test]``, with the ``perturb`` functions below) can show each check fail;
the other functions return a :class:`~rankbook.ledger.claims.Section` of tables and sentences.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rankbook import aggregation_formats, consensus
from rankbook.ledger import claims

from . import checks
from .common import EXAMPLE_1, EXAMPLE_1_AS_PRINTED, SECTION_IV_A, fmt, stated_values
from .grids import DEVIATION_NAMES

__all__ = [
    "load", "matrices", "check_matrices", "counts", "check_counts", "check_longest", "check_graph",
    "check_paths", "check_edges", "weights", "check_positions", "duplicates", "check_duplicates", "ties",
    "topk", "check_topk", "topk_weight", "remark_weight",
]

SUPERSCRIPT = {2: "²", 3: "³", 4: "⁴", 5: "⁵"}
SPREADS = ("std", "mad", "sqrt_mad")


def load(rankings, rankings_csv: str = "", base: int = 0, *, resolve=None,
         rankings_format: str = "auto") -> claims.Section:
    """The rankings the page measures: ``rankings``, or the first group of ``rankings_csv``
    (``resolve`` turns the parameter into a path), in rankbook's CSV or an aggregation tool's
    format (:func:`rankbook.aggregation_formats.read_rankings_file`). ``values``: ``R``,
    ``names``, ``is_paper`` (the paper's example with ``r1`` as the base, so the printed values
    apply)."""
    if rankings_csv:
        path = resolve(rankings_csv) if resolve else rankings_csv
        named = next(iter(aggregation_formats.read_rankings_file(path, rankings_format).values()))
        R, names = list(named.values()), list(named)
    else:
        R, names = list(rankings), [f"r{i + 1}" for i in range(len(rankings))]
    out = claims.Section(values={"R": R, "names": names,
                                 "is_paper": not rankings_csv and tuple(rankings) == EXAMPLE_1 and base == 0})
    out.add_table("example_rankings", pd.DataFrame(
        {"ranking": names, "items, most preferred first": [consensus.format_ranking(r) for r in R]}),
        title="The rankings of the example")
    return out


def _name(matrix: str) -> str:
    return matrix[:1] + SUPERSCRIPT.get(int(matrix[2:]), "") if "^" in matrix else matrix


def matrices(R, base: int = 0, max_items: int = 15) -> claims.Section:
    """The matrix A of Eq. (6) and the powers of L for any rankings (``gamma = lam = 1``);
    ``values["ell"]`` is the length of the longest common subsequence."""
    A = consensus.consensus_matrix(R, base=base)
    ell = consensus.longest_common(R)
    out = claims.Section(values={"ell": ell, "items": [str(x) for x in A.index], "n_common": int(np.trace(A.to_numpy())),
                          "n_edges": int(np.tril(A.to_numpy(), -1).sum())})
    if len(A) <= max_items:
        mats = checks.library_matrices(R, powers=max(min(ell, 3), 1), base=base)
        for name, M in mats.items():
            title = ("Matrix A of Eq. (6): items common to all rankings on the diagonal, pairs in common order below it"
                     if name == "A" else f"{_name(name)}: entry (i, j) counts the common subsequences of length "
                     f"{int(name[2:] if '^' in name else 1) + 1} from item j to item i")
            out.add_table("example_" + name.replace("^", ""), M.astype(int), index=True, title=title)
    if ell:
        out.say(f"The longest common subsequence has {ell} items: $\\mathbf{{L}}^{{{ell - 1}}}$ is the last "
                "power of $\\mathbf{L}$ that is not zero.")
    return out


def _differing(t: pd.DataFrame) -> str:
    return ", ".join(f"{_name(m)}[{r}, {c}]" for m, r, c in t.loc[~t.match, ["matrix", "row", "column"]].values)


def check_matrices(claim: claims.Claim, *, rankings=EXAMPLE_1, published_matrices=None) -> claims.Evidence:
    """Every printed entry of A (Eq. 6) and L to L⁴ (Example 1), the claim's data ``matrices``,
    against the matrices of ``rankings``; the findings ``section_iv_a`` (Section IV-A's r3) and
    ``r4`` (Example 1's r4 repeats f). ``values["grids"]`` holds the comparison grids."""
    pub = published_matrices if published_matrices is not None else checks.read_published_matrices(
        claim.path("matrices"))
    powers = len(pub) - 1
    ours = checks.library_matrices(list(rankings), powers=powers)
    check = checks.compare_matrices(ours, pub)
    alt = checks.compare_matrices(checks.library_matrices(list(SECTION_IV_A), powers=powers), pub)
    n, ok, n_alt = len(check), int(check.match.sum()), int(alt.match.sum())
    try:
        consensus.kappa(list(EXAMPLE_1_AS_PRINTED))
        rejected = "accepted"
    except ValueError as err:
        rejected = str(err)
    ev = claim.evidence(
        comparison="exact", matched=ok, total=n, unit="entries",
        published=f"{len(pub)} matrices of 0s, 1s and 2s, {n} entries",
        reproduced=f"{ok} of {n} entries equal",
        reading="the rankings of Sections IV-B and IV-D2 ($r_3 = bcdeghijkf$, $r_4 = badefc$)",
        alternatives={"Section IV-A's $r_3 = bcdghijklf$": n_alt},
        detail=("Example 1's $r_4 = badeffc$ repeats $f$ and is no ranking; "
                f"with Section IV-A's $r_3$ item $e$ is not common and {n - n_alt} entries change"),
        values={"grids": [(M, pub[name], "example_" + name.replace("^", ""),
                           f"Paper B, {'Eq. (6)' if name == 'A' else 'Example 1'}: {_name(name)} recomputed, "
                           "the printed entry below each cell", name != "A") for name, M in ours.items()]})
    ev.add_table("example_matrix_variants", pd.DataFrame([
        {"rankings": "Sections IV-B and IV-D2: r3 = bcdeghijkf, r4 = badefc",
         "printed entries reproduced": f"{ok} of {n}", "entries that differ": _differing(check) or "none"},
        {"rankings": "Section IV-A: r3 = bcdghijklf (no e)", "printed entries reproduced": f"{n_alt} of {n}",
         "entries that differ": _differing(alt) or "none"},
        {"rankings": "Example 1: r4 = badeffc", "printed entries reproduced": "not a ranking",
         "entries that differ": "f appears twice; dropping either copy gives badefc, the first row"}]),
        title="Which of the printed versions of the rankings give the printed matrices")
    kp_a, k_a = consensus.kappa_p(list(SECTION_IV_A)), consensus.kappa(list(SECTION_IV_A))
    kp, k = consensus.kappa_p(list(EXAMPLE_1)), consensus.kappa(list(EXAMPLE_1))
    A_a = consensus.consensus_matrix(list(SECTION_IV_A))
    if n_alt < n:
        ev.findings.append(claim.finding("section_iv_a", evidence=(
            f"with r3 = bcdghijklf item e is not common (A[e, e] = {A_a.loc['e', 'e']:g}) and κ_p = {fmt(kp_a)}, "
            f"κ = {k_a:g}; with r3 = bcdeghijkf κ_p = {fmt(kp)}, κ = {k:g} as printed\n"
            f"of the {n} printed entries of A, L, ..., L⁴, the rankings of Section IV-A reproduce {n_alt} "
            f"({_differing(alt)} differ), those of Section IV-B {ok}")))
    if rejected != "accepted":
        ev.findings.append(claim.finding("r4", evidence=(
            f"rankbook.consensus rejects badeffc ({rejected}); with badefc the example gives κ = {k:g} "
            f"and {ok} of the {n} printed matrix entries")))
    return ev


def moved_entry(claim: claims.Claim, **smoke) -> dict:
    """Mutant: the printed entry (f, b) of L² moved by one."""
    pub = checks.read_published_matrices(claim.path("matrices"))
    M = pub["L^2"].copy()
    M.loc["f", "b"] += 1
    return {"published_matrices": {**pub, "L^2": M}}


def counts(R) -> claims.Section:
    """κ_p by Theorem 1, the paths listed on the graph and brute force, for any rankings."""
    kp, k_total = consensus.kappa_p(R), consensus.kappa(R)
    listed = consensus.common_subsequences(R) if k_total <= 2000 else []
    shortest = min(len(checks.positions(r)) for r in R)
    brute = checks.brute_force_kappa_p(R) if shortest <= 14 else None
    rows = []
    for p, value in enumerate(kp, start=1):
        seqs = ["".join(map(str, s)) if all(len(str(x)) == 1 for x in s) else "-".join(map(str, s))
                for s in listed if len(s) == p]
        rows.append({"p": p, "kappa_p (Theorem 1)": value, "paths listed": len(seqs) if listed else np.nan,
                     "brute force": brute[p - 1] if brute is not None and p <= len(brute) else np.nan,
                     "common subsequences": ", ".join(seqs[:30]) + (" ..." if len(seqs) > 30 else "")})
    out = claims.Section(values={"kappa_p": kp, "kappa": k_total})
    out.add_table("example_kappa_p", pd.DataFrame(rows), title="Common subsequences of each length p",
                  float_format="{:g}")
    same = all(consensus.kappa(R, base=b) == k_total for b in range(len(R)))
    out.say(f"$\\kappa$ by Corollary 2 is {k_total:g}, the sum of the $\\kappa_p$ is {kp.sum():g}; every ranking "
            f"as the base of the matrix gives {'the same' if same else 'not the same'} $\\kappa$.")
    return out


def check_counts(claim: claims.Claim, *, rankings=EXAMPLE_1, published_counts=None, kappa_p=None) -> claims.Evidence:
    """κ_1 to κ_4 and κ of Example 1 against the printed values (the claim's data ``counts``).
    ``kappa_p`` is the implementation (default :func:`rankbook.consensus.kappa_p`)."""
    pub = published_counts if published_counts is not None else stated_values(claim.path("counts"))
    lengths = sorted(int(q.split("_")[1]) for q in pub.index if q.startswith("kappa_"))
    printed = [float(pub[f"kappa_{p}"]) for p in lengths] + [float(pub["kappa"])]
    kp = np.asarray((kappa_p or consensus.kappa_p)(list(rankings)), dtype=float)
    ours = list(kp) + [float(kp.sum())]
    brute = checks.brute_force_kappa_p(list(rankings))
    ok = sum(a == b for a, b in zip(ours, printed)) if len(ours) == len(printed) else 0
    return claim.evidence(
        comparison="exact", matched=ok, total=len(printed), unit="values",
        published=fmt(printed[:-1]) + f"; κ = {printed[-1]:g}", reproduced=fmt(kp) + f"; κ = {kp.sum():g}",
        detail=("the graph of Theorem 1 and a brute-force search over every subset of $r_1$ give the same counts"
                if len(brute) == len(kp) and np.allclose(brute, kp) else
                "counted on the graph of Theorem 1; brute force gives " + fmt(brute)))


def moved_count(claim: claims.Claim, **smoke) -> dict:
    """Mutant: the printed κ_2 moved from 7 to 8."""
    return {"published_counts": stated_values(claim.path("counts")).replace({7.0: 8.0})}


def _wrong_kappa_p(R):
    return consensus.kappa_p(R) + np.eye(1, len(consensus.kappa_p(R)), 1).ravel()


def one_pair_too_many(claim: claims.Claim, **smoke) -> dict:
    """Mutant: an implementation of κ_p that counts one pair too many."""
    return {"kappa_p": _wrong_kappa_p}


def check_longest(claim: claims.Claim, *, rankings=EXAMPLE_1, published_counts=None) -> claims.Evidence:
    """Section IV-C on Example 1: the first power of L that vanishes, and ℓ, the length of the
    longest common subsequence, against the printed values (the claim's data ``counts``:
    ``first zero power of L`` and ``ell``)."""
    pub = published_counts if published_counts is not None else stated_values(claim.path("counts"))
    A = consensus.consensus_matrix(list(rankings))
    L = np.tril(A.to_numpy(), -1)
    P, first_zero = np.eye(len(L)), None
    for k in range(1, len(L) + 1):
        P = P @ L
        if not P.any():
            first_zero = k
            break
    ell = consensus.longest_common(list(rankings))
    brute = max(len(s) for s in checks.brute_force_subsequences(list(rankings)))
    ours = {"first zero power of L": first_zero, "ell": ell}
    printed = {q: int(pub[q]) for q in ours}
    ok = sum(ours[q] == printed[q] for q in ours)
    return claim.evidence(
        comparison="exact", matched=ok, total=len(ours), unit="values",
        published=f"$\\mathbf{{L}}^p = 0$ from $p = {printed['first zero power of L']}$; ℓ = {printed['ell']}",
        reproduced=f"$\\mathbf{{L}}^p = 0$ from $p = {first_zero}$; ℓ = {ell}",
        detail=f"ℓ from the graph ({ell}) and from enumerating every common subsequence ({brute})")


def moved_ell(claim: claims.Claim, **smoke) -> dict:
    """Mutant: the printed ℓ moved from 4 to 5."""
    pub = stated_values(claim.path("counts")).copy()
    pub["ell"] = pub["ell"] + 1
    return {"published_counts": pub}


def _graph_sets(rankings):
    g = consensus.consensus_graph(list(rankings))
    edges = {f"{g.items[j]}{g.items[i]}" for i, j in zip(g.rows, g.cols)}
    loops = {f"{x}{x}" for x in g.items}
    walked = {"".join(map(str, s)) for s in consensus.common_subsequences(list(rankings)) if len(s) >= 3}
    return edges, loops, walked


def _stated_graph(claim: claims.Claim) -> pd.DataFrame:
    return pd.read_csv(claim.path("graph"), comment="#", dtype=str)


def check_graph(claim: claims.Claim, *, rankings=EXAMPLE_1, published_graph=None) -> claims.Evidence:
    """The edges and loops Section IV-A lists for Figure 1 (the claim's data ``graph``), against
    the recomputed graph; the table also lists the longer paths (another claim's subject)."""
    stated = published_graph if published_graph is not None else _stated_graph(claim)
    edges, loops, walked = _graph_sets(rankings)
    el = stated[stated.kind.isin(["edge", "loop"])]
    res = checks.compare_sets(el["items"], edges | loops)
    paths = stated.loc[stated.kind == "path", "items"]
    n_edges, n_loops = int((el.kind == "edge").sum()), int((el.kind == "loop").sum())
    ev = claim.evidence(
        comparison="exact", matched=res["matched"], total=res["total"], unit="edges",
        published=f"{n_edges} edges and {n_loops} loops (a loop is an edge from an item to itself)",
        reproduced=f"{len(edges)} edges and {len(loops)} loops in the recomputed graph",
        detail=("each stated edge and loop is in the graph, and the graph has no other" if res["matched"] == res["total"]
                else f"missing: {', '.join(res['missing']) or 'none'}; not stated: {', '.join(res['extra']) or 'none'}"))
    rows = [{"stated in the text": f"{k} {'(' + x[0] + ', ' + x[1] + ')' if k == 'edge' else x[0] if k == 'loop' else x}",
             "in the recomputed graph": x in (edges | loops | walked)} for k, x in el[["kind", "items"]].values]
    rows += [{"stated in the text": f"path {x}", "in the recomputed graph": x in walked} for x in paths]
    rows += [{"stated in the text": f"(not stated) {x}", "in the recomputed graph": True}
             for x in res["extra"] + checks.compare_sets(paths, walked)["extra"]]
    ev.add_table("figure_1_check", pd.DataFrame(rows), collapse=True,
                 title="Paper B, Figure 1 and Section IV-A: the edges, loops and longer paths the text states, "
                       "found in the recomputed graph")
    return ev


def edge_removed(claim: claims.Claim, **smoke) -> dict:
    """Mutant: the stated edge (b, c) removed."""
    return {"published_graph": _stated_graph(claim).query("items != 'bc'")}


def check_paths(claim: claims.Claim, *, rankings=EXAMPLE_1, published_graph=None) -> claims.Evidence:
    """The common subsequences of three and four items Section IV-A lists (the claim's data
    ``graph``), against the paths of the recomputed graph (and a plain enumeration)."""
    stated = published_graph if published_graph is not None else _stated_graph(claim)
    paths = stated.loc[stated.kind == "path", "items"]
    _, _, walked = _graph_sets(rankings)
    enumerated = {"".join(map(str, s)) for s in checks.brute_force_subsequences(list(rankings)) if len(s) >= 3}
    res = checks.compare_sets(paths, walked)
    return claim.evidence(
        comparison="exact", matched=res["matched"], total=res["total"], unit="subsequences",
        published=", ".join(paths), reproduced=", ".join(sorted(walked, key=lambda s: (len(s), s))),
        detail=("listed by walking the paths of the recomputed graph; enumerating every subset of $r_1$ finds the same"
                if enumerated == walked else "listed by walking the paths of the recomputed graph; enumeration "
                "finds others: " + ", ".join(sorted(enumerated ^ walked))))


def path_changed(claim: claims.Claim, **smoke) -> dict:
    """Mutant: the stated path bdef changed to bcef."""
    return {"published_graph": _stated_graph(claim).replace({"bdef": "bcef"})}


def check_edges(claim: claims.Claim, *, rankings=EXAMPLE_1) -> claims.Evidence:
    """Section IV-D: the graph has as many edges as there are common pairs, |E| = κ_2. True by
    definition: the edges are the non-zero entries of L, each 0 or 1 without weights, and
    κ_2 = zᵀLz sums them (Eq. 11). The evidence shows both numbers for ``rankings``."""
    A = consensus.consensus_matrix(list(rankings))
    n_edges = int(np.count_nonzero(np.tril(A.to_numpy(), -1)))
    kp = consensus.kappa_p(list(rankings))
    k2 = float(kp[1]) if len(kp) > 1 else 0.0
    return claim.evidence(
        comparison="definition", published="$|E| = \\kappa_2$",
        reproduced=f"Example 1: {n_edges} edges, $\\kappa_2$ = {k2:g}",
        detail="the edges are the non-zero entries of $\\mathbf{L}$, 0 or 1 without weights, and "
               "$\\kappa_2 = \\mathbf{z}^T\\mathbf{L}\\mathbf{z}$ sums them")


def weights(R, names, base: int = 0, gamma: float = 0.9, lam: float = 0.9, deviation: str = "std") -> claims.Section:
    """Positions of the common items, their spread under the three printed readings and the
    weights θ and ψ."""
    g = consensus.consensus_graph(R, base=base, deviation=deviation)
    out = claims.Section()
    out.add_table("example_positions", pd.DataFrame(g.positions, index=names, columns=[str(x) for x in g.items])
                  .reset_index(names="ranking"), title="Position of each common item in each ranking (eta_k)")
    w = pd.DataFrame({"item": [str(x) for x in g.items], "mean position": g.positions.mean(axis=0)})
    for dev in SPREADS:
        gd = consensus.consensus_graph(R, base=base, deviation=dev)
        w[f"d ({dev})"], w[f"theta ({dev})"] = gd.spread, gd.theta(gamma)
    out.add_table("example_item_weights", w, float_format="{:.4f}",
                  title=f"Spread d of each common item's positions under the three printed readings, and "
                        f"theta = gamma**d for gamma = {gamma:g}")
    e = pd.DataFrame({"from": [str(g.items[j]) for j in g.cols], "to": [str(g.items[i]) for i in g.rows],
                      "mean gap g": g.gaps, "psi = lam**g": g.edge_weights(lam)})
    out.add_table("example_edge_weights", e.sort_values(["from", "to"]), float_format="{:.4f}",
                  title=f"Mean gap g of each common pair and its weight psi for lambda = {lam:g}")
    return out


def _printed_positions(claim: claims.Claim) -> pd.DataFrame:
    return checks.read_published_values(claim.path("positions")).set_index("quantity").astype(int)


def check_positions(claim: claims.Claim, *, rankings=EXAMPLE_1, published_positions=None) -> claims.Evidence:
    """The positions of f and the gaps b–c and b–f Section IV-B prints (the claim's data
    ``positions``)."""
    pub = published_positions if published_positions is not None else _printed_positions(claim)
    pos = [checks.positions(r) for r in rankings]
    ours = {"positions of f": [p["f"] for p in pos], "gaps b-c": [p["c"] - p["b"] for p in pos],
            "gaps b-f": [p["f"] - p["b"] for p in pos]}
    printed = {k: pub.loc[k].tolist() for k in pub.index}
    ok = sum(a == b for k in printed for a, b in zip(ours.get(k, []), printed[k]))
    show = lambda d: "; ".join(f"{k}: {', '.join(map(str, v))}" for k, v in d.items())
    return claim.evidence(
        comparison="exact", matched=ok, total=sum(len(v) for v in printed.values()),
        unit="values", published=show(printed), reproduced=show(ours),
        detail="read off the position matrix of the four rankings")


def moved_position(claim: claims.Claim, **smoke) -> dict:
    """Mutant: the printed position 10 of f in r3 moved to 9."""
    return {"published_positions": _printed_positions(claim).replace({10: 9})}


def duplicates(R, gamma: float, lam: float, deviation: str = "std") -> claims.Section:
    """κ, the corrected κ̂ and the weighted κ of the rankings with the last one three more
    times (Section IV-D2)."""
    dup = list(R) + [R[-1]] * 3
    out = claims.Section()
    out.add_table("example_duplicates", pd.DataFrame({
        "set": ["R", "R' (last ranking three more times)"], "rankings": [len(R), len(dup)],
        "kappa (gamma = lam = 1)": [consensus.kappa(R), consensus.kappa(dup)],
        "kappa_hat (gamma = lam = 1)": [consensus.kappa_hat(R), consensus.kappa_hat(dup)],
        f"kappa (gamma = {gamma:g}, lam = {lam:g})": [consensus.kappa(R, gamma, lam, deviation=deviation),
                                                       consensus.kappa(dup, gamma, lam, deviation=deviation)]}),
        float_format="{:.4f}", title="Duplicate rankings: kappa, the corrected kappa_hat and the weighted kappa")
    return out


def check_duplicates(claim: claims.Claim, *, rankings=EXAMPLE_1, gamma: float = 0.9, lam: float = 0.9,
                     deviation: str = "std") -> claims.Evidence:
    """Section IV-D2: three more copies of r4 leave every κ_p unchanged. True by definition for
    the plain counts the example is about: the common subsequences of a multiset are those of
    its distinct rankings, so a copy adds no constraint and no computation of the counts could
    contradict it. The weighted measure (``gamma``, ``lam``), which the statement does not
    cover, is computed beside it: the copies move the mean positions and gaps, and the finding
    ``weighted`` reports it where the weighted κ changes."""
    R = list(rankings)
    dup = R + [R[-1]] * 3
    kp = lambda S, g, lm: consensus.kappa_p(S, g, lm, deviation=deviation)
    a, b = kp(R, 1.0, 1.0), kp(dup, 1.0, 1.0)
    wa, wb = kp(R, gamma, lam), kp(dup, gamma, lam)
    w_same = len(wa) == len(wb) and bool(np.allclose(wa, wb))
    weighted = gamma < 1 or lam < 1
    ev = claim.evidence(
        comparison="definition",
        published="stated for the example", reproduced=f"{fmt(b)} with the copies, {fmt(a)} without",
        reading="the plain counts ($\\gamma = \\lambda = 1$), as in the example",
        alternatives={f"weighted, γ = {gamma:g}, λ = {lam:g}": w_same} if weighted else None,
        detail="copies add no constraint, so the counts cannot change; the weights average positions over all "
               "rankings, copies included")
    if weighted and not w_same:
        ev.findings.append(claim.finding("weighted", evidence=(
            f"Example 1 with r4 = badefc three more times: κ = {a.sum():g} for both at γ = λ = 1, but at γ = {gamma:g}, "
            f"λ = {lam:g} κ(R) = {wa.sum():.4f} and κ(R') = {wb.sum():.4f}"),
            readings=["the plain counts", "the weighted measure"],
            under={"the plain counts": "the statement holds", "the weighted measure": "it fails"}))
    return ev


def ties() -> claims.Section:
    """κ_p and κ of a few rankings with and without a tie between b and c (Section IV-D3)."""
    sets = {"a {b c} d": [["a", {"b", "c"}, "d"]], "a b c d": [["a", "b", "c", "d"]],
            "a {b c} d and a c b d": [["a", {"b", "c"}, "d"], ["a", "c", "b", "d"]],
            "a b c d and a c b d": [["a", "b", "c", "d"], ["a", "c", "b", "d"]]}
    out = claims.Section()
    out.add_table("example_ties", pd.DataFrame([{"rankings": k, "kappa_p": consensus.kappa_p(S).tolist(),
                                                 "kappa": consensus.kappa(S)} for k, S in sets.items()]),
                  title="Rankings with and without a tie between b and c", float_format="{:g}")
    return out


def _spread(pos: np.ndarray, deviation: str) -> float:
    mad = float(np.abs(pos - pos.mean()).mean())
    return {"std": float(pos.std()), "mad": mad, "sqrt_mad": mad ** 0.5}[deviation]


def topk_weight(pos, zeta: float, p: float, gamma: float, deviation: str = "std") -> float:
    """The weight Section IV-D4 gives one common item: :math:`H(\\zeta - \\mu - d) p^\\mu \\gamma^d`.

    Examples
    --------
    >>> round(topk_weight([1, 1, 1, 19], 10, 0.9, 1.0, "mad"), 4)  # mu = 5.5, d = 6.75: dropped
    0.0
    """
    pos = np.asarray(pos, dtype=float)
    mu, d = float(pos.mean()), _spread(pos, deviation)
    return float(p) ** mu * float(gamma) ** d if zeta - mu - d > 0 else 0.0


def remark_weight(pos, zeta: float, p: float, gamma: float, deviation: str = "std") -> float:
    """The weight the remark of Section IV-D4 describes: 0 once some ranking puts the item
    after the cut-off (a deliberately different implementation, for the mutation test)."""
    return 0.0 if (np.asarray(pos, dtype=float) > zeta).any() else topk_weight(pos, zeta, p, gamma, deviation)


#: A set built for the remark: item a first in nine rankings and 19th in the tenth.
COUNTER = [["a"] + [f"x{k}.{i}" for i in range(10)] for k in range(9)] + [[f"x9.{i}" for i in range(18)] + ["a"]]


def _remark_cases(rankings, zetas, p, gamma, deviation, weight, label) -> list[dict]:
    maps = [checks.positions(r) for r in rankings]
    common = [x for x in maps[0] if all(x in m for m in maps)]
    rows = []
    for zeta in zetas:
        for x in common:
            pos = np.array([m[x] for m in maps], dtype=float)
            if (pos > zeta).any():
                w = weight(pos, zeta, p, gamma, deviation)
                rows.append({"set": label, "zeta": float(zeta), "item": str(x), "spread": deviation,
                             "positions": ", ".join(str(int(v)) for v in pos),
                             "mu + d": float(pos.mean()) + _spread(pos, deviation), "weight": w, "holds": w == 0.0})
    return rows


def topk(R, gamma: float, p: float = 0.9, is_paper: bool = True) -> claims.Section:
    """The top-k κ_1 of Section IV-D4 for several cut-offs. Rankings to which it cannot apply
    (the library refuses them) give a sentence instead of a table: the page never fails."""
    out = claims.Section()
    try:
        out.add_table("example_topk", pd.DataFrame([
            {"zeta": z, "p": p, "kappa_1 top-k (std)": consensus.kappa_1_topk(R, z, p, gamma),
             "kappa_1 top-k (mad)": consensus.kappa_1_topk(R, z, p, gamma, deviation="mad")} for z in (3, 5, 8, 12)]),
            float_format="{:.4f}",
            title=f"Top-k weighted kappa_1 of the example for several cut-offs zeta (p = {p:g}, gamma = {gamma:g})")
    except (KeyError, ValueError, IndexError) as err:
        out.say(f"The top-$k$ weighting cannot be computed for these rankings ({type(err).__name__}: "
                f"{str(err)[:120]}); this part of the section is skipped.")
    longest = min(max(len(checks.positions(r)) for r in R), 50)
    rows = [r for dev in SPREADS for r in
            _remark_cases(R, range(1, longest + 1), p, gamma, dev, topk_weight,
                          "the example" if is_paper else "these rankings")]
    failing = pd.DataFrame(rows, columns=["set", "zeta", "item", "spread", "positions", "mu + d", "weight", "holds"])
    failing = failing[~failing.holds]
    if failing.empty:
        out.say("No item placed after a cut-off by some ranking keeps a weight above 0 in these rankings.")
    else:
        shown = failing.pivot_table(index=["set", "zeta", "item", "positions"], columns="spread",
                                    values="weight").reset_index()
        out.add_table("example_topk_counterexamples", shown.rename(columns={d: f"weight ({d})" for d in SPREADS}),
                      float_format="{:.4f}",
                      title=f"Items after the cut-off zeta in some ranking that still get a weight above 0 (p = {p:g})")
    return out


def check_topk(claim: claims.Claim, *, rankings=EXAMPLE_1, gamma: float = 0.9, weight=topk_weight,
               deviation: str = "std") -> claims.Evidence:
    """Section IV-D4: an item ranked after the cut-off in one ranking gets weight 0. Every
    cut-off up to the longest ranking on ``rankings``, and the constructed set :data:`COUNTER`
    at the claim's ``zeta``, with the claim's discount ``p``; ``weight`` is the implementation of
    the top-k weight (default the formula). Finding ``remark`` where an item keeps a weight."""
    p, zeta = float(claim.params["p"]), float(claim.params["zeta"])
    longest = max(len(checks.positions(r)) for r in rankings)
    cases = {dev: pd.DataFrame(_remark_cases(rankings, range(1, longest + 1), p, gamma, dev, weight, "the example")
                               + _remark_cases(COUNTER, [zeta], p, 1.0, dev, weight, "the constructed set"))
             for dev in SPREADS}
    main = cases[deviation]
    bad = main[~main.holds]
    name = lambda r: (f"{r['item']} at positions {r['positions']} with ζ = {r['zeta']:g}: weight {r['weight']:.4f}"
                      if r["set"] == "the example" else
                      f"a, first in nine of ten rankings and 19th in the tenth, with ζ = {r['zeta']:g}: "
                      f"weight {r['weight']:.4f}")
    ev = claim.evidence(
        comparison="claim", matched=int(main.holds.sum()), total=len(main), unit="cases",
        published="stated for every set of rankings",
        reproduced=("every item left with weight 0 once it falls after ζ" if bad.empty else
                    f"{claims.plural(len(bad), 'case')} where an item after ζ keeps a positive weight"),
        failures=[name(r) for r in bad.to_dict("records")],
        reading="spread $d$ = population standard deviation (it reproduces Tables IV and VI)",
        alternatives={DEVIATION_NAMES[d]: int(cases[d].holds.sum()) for d in SPREADS if d != deviation},
        detail=f"every cut-off up to {longest} on the example's rankings, and one constructed set; the weight "
               "$H(\\zeta - \\mu - d)$ looks only at the mean position plus the spread, which can stay below $\\zeta$")
    every = pd.concat(cases.values())
    every = every[~every.holds]
    if len(bad):
        ev.findings.append(claim.finding("remark", evidence="\n".join(
            f"{r['set']}, ζ = {r['zeta']:g}, item {r['item']} at positions {r['positions']}, spread "
            f"{DEVIATION_NAMES[r['spread']]}: μ + d = {r['mu + d']:.3f} < ζ, weight {r['weight']:.4f}"
            for r in every.sort_values(["set", "zeta", "item", "spread"]).to_dict("records"))))
    return ev


def remark_instead(claim: claims.Claim, **smoke) -> dict:
    """Mutant: the weight the remark describes instead of the printed formula."""
    return {"weight": remark_weight}


# ----------------------------------------------------------------------------------------
# What the page's parameters allow together (its notebook's metadata "check"), checked
# before any kernel starts
# ----------------------------------------------------------------------------------------
#: The consensus graph is drawn for rankings of at most this many items (beyond, the page
#: says so and shows the tables); the matrices of Eq. (6) grow as n squared.
MAX_CONSENSUS_ITEMS = 3000


def _rankings_from(values: dict, key_csv: str, root):
    """The first group of a rankings file, in rankbook's CSV or an aggregation tool's format
    (by the file's name, or the notebook's ``rankings_format`` parameter when it has one)."""
    from rankbook import aggregation_formats
    from rankbook.ledger.paths import resolve_input_path

    if values.get(key_csv):
        groups = aggregation_formats.read_rankings_file(resolve_input_path(values[key_csv], root),
                                                        values.get("rankings_format", "auto"))
        named = next(iter(groups.values()))
        return list(named.values()), list(named)
    return None, None


def limits(values: dict, root, timeout: float) -> None:
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
