"""The site as a publication (issue 28): placeholders that read as typed, the rerun page's
parameter tables, explorers labelled with display names, and a rerun as one offline page."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from rankbook.book import explorer, outputs, site
from rankbook.book.present import md_escape

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("text", ["<name>", "<group>", "grids <table_stem>_<name>.csv",
                                  "</div>", "<!-- x -->"])
def test_a_placeholder_never_opens_a_tag(text):
    from markdown_it import MarkdownIt

    html = MarkdownIt("commonmark").render(md_escape(text))
    assert "<" + text.lstrip("<")[:3] not in html.replace("&lt;", "")
    assert "&lt;" in html


def test_comparisons_and_maths_keep_their_less_than_sign():
    assert md_escape("p < 0.05") == "p < 0.05"
    assert md_escape("$a<b$") == "$a<b$"


def test_the_rerun_page_folds_each_notebook_with_its_allowed_values():
    text = site.parameters_markdown(ROOT)
    notebooks = sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb"))
    assert text.count(":::{dropdown}") == len(notebooks)
    assert "| Parameter | Type | Default | Allowed values | Meaning |" in text
    # a constraint of the Figure 1 notebook, in words, in its row (each value as code, as a
    # reader types it after -p)
    row = next(line for line in text.splitlines() if line.startswith("| `protocol` |"))
    assert "one of `'reference'`, `'independent'`" in row
    # the placeholders of the consensus notebooks' comments are escaped, not swallowed
    assert "\\<name>" in text and not re.search(r"(?<!\\)<name>", text)


def _rows():
    return [{"deviation": d, "row": g, "column": lam, "table": t, "reproduced": 0.5 + lam / 10,
             "published": 0.5 + lam / 10 + (0.01 if (t, lam) == ("Bing", 0.5) else 0.0),
             "status": "differs" if (t, lam) == ("Bing", 0.5) else "match"}
            for d in ("std", "mad") for g in (1.0, 0.9) for t in ("Google", "Bing")
            for lam in (1.0, 0.9, 0.5)]


def test_explorer_controls_axes_and_tooltips_use_display_names():
    spec = explorer.vegalite_spec(_rows(), kind="line", x="column", y="reproduced",
                                  color="table", controls={"deviation": "std", "row": 1.0},
                                  title="κ over λ", overlay="published", status="status")
    labels = [p["bind"]["name"].strip() for p in spec["params"]]
    assert labels == ["spread d", "γ"]
    text = json.dumps(spec, ensure_ascii=False)
    tips = [t["title"] for layer in spec["layer"] for t in layer["encoding"]["tooltip"]]
    assert "γ" in tips and "λ" in tips and "row" not in tips and "column" not in tips
    assert '"title": "row"' not in text and '"title": "deviation"' not in text


def test_explorer_overlays_the_published_values_and_marks_mismatches():
    spec = explorer.vegalite_spec(_rows(), kind="line", x="column", y="reproduced",
                                  color="table", controls={"deviation": "std", "row": 1.0},
                                  title="κ over λ", overlay="published", status="status")
    layers = spec["layer"]
    assert layers[0]["mark"]["type"] == "line"
    assert layers[1]["encoding"]["y"]["field"] == "published"
    marked = [json.dumps(layer.get("transform", [])) for layer in layers[2:]]
    assert any("differs" in m for m in marked) and any("close" in m for m in marked)
    # without published values nothing is overlaid
    plain = explorer.vegalite_spec(_rows(), kind="line", x="column", y="reproduced",
                                   color="table", controls={"deviation": "std"}, title="κ")
    assert "layer" not in plain


def test_explorer_heat_map_takes_the_figure_palette_and_range():
    rows = [{"n": 100, "k_share": 0.3, "m1": "a", "m2": "b", "agreement ratio": 0.7}]
    spec = explorer.vegalite_spec(rows, kind="heatmap", x="m2", y="agreement ratio",
                                  color="m1", controls={"n": 100, "k_share": 0.3}, title="t",
                                  scheme="pinkyellowgreen", domain=(0.5, 1.0))
    scale = spec["encoding"]["color"]["scale"]
    assert scale["scheme"] == "pinkyellowgreen" and scale["domain"] == [0.5, 1.0]
    assert [p["bind"]["name"].strip() for p in spec["params"]] == ["n", "k as a share of n"]


def test_explorer_titles_wrap_instead_of_being_clipped():
    lines = explorer.title_lines("Agreement ratio of every pair of metrics at the chosen n", 30)
    assert all(len(line) <= 30 for line in lines) and " ".join(lines).startswith("Agreement")


def test_the_figure1_colour_range_is_the_heat_maps():
    from rankbook.papers.paper_a import figure1

    assert figure1.colour_range([0.55, 1.0]) == (0.5, 1.0)
    assert figure1.colour_range([0.31, 1.0]) == (0.3, 1.0)


def test_a_built_page_is_inlined_with_no_request_left(tmp_path):
    from rankbook.book.rerun_page import inline

    (tmp_path / "_static").mkdir()
    (tmp_path / "_static" / "a.css").write_text("body{color:red;background:url(x.png)}")
    (tmp_path / "_static" / "x.png").write_bytes(b"\x89PNG\r\n")
    (tmp_path / "_static" / "s.js").write_text("var a = '</script>';")
    (tmp_path / "fig.png").write_bytes(b"\x89PNG\r\n")
    page = ('<html><head><link href="_static/a.css" rel="stylesheet" />'
            '<link rel="preload" href="_static/s.js"/><script defer src="_static/s.js"></script>'
            '<script src="https://example.org/x.js"></script></head><body>'
            '<img src="fig.png" alt="f"><a href="_downloads/0a1b/table.csv">t</a>'
            '<a href="other.html#x">o</a><a href="#here">h</a></body></html>')
    out = inline(page, tmp_path, {"table.csv"})
    assert "<link" not in out and "example.org" not in out
    assert "color:red" in out and "data:image/png;base64," in out
    assert 'href="table.csv"' in out and 'href="#here"' in out and 'href="other.html' not in out
    assert "<\\/script>" in out and " defer" not in out


def test_run_page_flag_is_offered():
    from rankbook.book import cli

    parser = cli._build_parser()
    assert parser.parse_args(["run", "agreement_heatmap", "--page"]).page is True
    assert parser.parse_args(["run", "agreement_heatmap"]).page is False


def test_the_benchmark_figure_is_in_panels_and_names_its_commit():
    import matplotlib

    matplotlib.use("agg")
    from rankbook.book import benchfig

    doc = {"meta": {"commit": "abc123def456", "date_utc": "2026-11-23 18:49 UTC"},
           "scaling": [{"case": c, "series": f"rankbook {c}", "x": [10, 100, 1000],
                        "t": [0.001, 0.01, 0.1], "slope": 1.0, "theory_slope": 1.0,
                        "x_name": "n"} for c in ("a", "b", "c")]}
    fig = benchfig.scaling_panels(doc, {"a": "Case A", "b": "Case B", "c": "Case C"})
    shown = [ax for ax in fig.axes if ax.get_visible()]
    assert len(shown) == 3
    assert len({round(ax.get_position().x0, 2) for ax in shown}) == 2  # two columns
    assert "abc123def456" in fig._suptitle.get_text()
    outputs.check_figure_text(fig, "scaling")
    with pytest.raises(ValueError, match="make bench"):
        benchfig.scaling_panels({"scaling": []}, {"a": "Case A"})


def test_the_benchmark_figure_legends_stay_under_their_own_panels():
    """On the published benchmark results, no legend runs into its neighbour's (the long
    'extrapolated to B=100000' labels did before they wrapped)."""
    import matplotlib

    matplotlib.use("agg")
    from rankbook.book import benchfig, benchmarks_page

    report, doc, _ = benchmarks_page.load(ROOT / "benchmarks" / "results.json")
    fig = benchfig.scaling_panels(doc, report.CASE_TITLES)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    boxes = [ax.get_legend().get_window_extent(renderer) for ax in fig.axes
             if ax.get_visible() and ax.get_legend() is not None]
    assert len(boxes) >= 4
    overlaps = [(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1:] if a.overlaps(b)]
    assert not overlaps, overlaps
    width = fig.get_window_extent(renderer)
    assert all(b.x0 >= width.x0 - 1 and b.x1 <= width.x1 + 1 for b in boxes)
    # the check can fail: unwrapped labels overlap
    benchfig.LEGEND_CHARS, saved = 1000, benchfig.LEGEND_CHARS
    try:
        fig = benchfig.scaling_panels(doc, report.CASE_TITLES)
        fig.canvas.draw()
        boxes = [ax.get_legend().get_window_extent(fig.canvas.get_renderer()) for ax in fig.axes
                 if ax.get_visible() and ax.get_legend() is not None]
        assert any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])
    finally:
        benchfig.LEGEND_CHARS = saved


def test_a_figure_with_constrained_layout_is_saved_as_laid_out(tmp_path, monkeypatch):
    """save_figure runs a constrained layout twice, as the first save did before, then keeps
    it: the saved figure's axes sit where two runs of the engine put them (not
    where the figure was created), and the PNG is as wide as the laid-out figure asks
    (twice the column, plus the padding)."""
    import matplotlib

    matplotlib.use("agg")
    import numpy as np
    from PIL import Image

    from rankbook.book import benchfig, benchmarks_page

    report, doc, _ = benchmarks_page.load(ROOT / "benchmarks" / "results.json")
    reference = benchfig.scaling_panels(doc, report.CASE_TITLES)
    created = np.array([ax.get_position().bounds for ax in reference.axes])
    for _ in range(2):
        reference.get_layout_engine().execute(reference)
    laid_out = np.array([ax.get_position().bounds for ax in reference.axes])
    assert np.abs(laid_out - created).max() > 0.01  # the engine moves them

    monkeypatch.setenv("RANKBOOK_OUTPUT_DIR", str(tmp_path))
    fig = benchfig.scaling_panels(doc, report.CASE_TITLES)
    png = outputs.save_figure(fig, "scaling", caption="c", alt="a", show=False)
    saved = np.array([ax.get_position().bounds for ax in fig.axes])
    np.testing.assert_allclose(saved, laid_out, atol=1e-9)
    from matplotlib.layout_engine import PlaceHolderLayoutEngine

    assert isinstance(fig.get_layout_engine(), PlaceHolderLayoutEngine)  # kept, not run again
    width_px = Image.open(png).size[0]
    box = fig.get_tightbbox(fig.canvas.get_renderer())
    dpi = outputs.png_dpi(box.width)
    pad = matplotlib.rcParams["savefig.pad_inches"]
    assert abs(width_px - (box.width + 2 * pad) * dpi) <= 2


@pytest.mark.slow
def test_rankbook_run_page_writes_one_offline_file(tmp_path, monkeypatch, capsys):
    """`rankbook run NAME --page`: the run folder gets NAME.html, the page with its rerun and
    provenance boxes, every style sheet, script and image inlined, nothing fetched."""
    import re

    from rankbook.book import cli, pipeline

    monkeypatch.setattr(pipeline, "runs_dir", lambda root=None: tmp_path / "runs")
    assert cli.main(["run", "indiscernibility_examples", "--page"]) == 0
    folder, page = (Path(line) for line in capsys.readouterr().out.split())
    assert page == folder / "indiscernibility_examples.html"
    html = page.read_text(encoding="utf-8")
    assert "<link" not in html
    assert not re.search(r"<(script|img)[^>]*\ssrc=\"(?!data:)", html)
    assert "Provenance" in html and "Rerun this page" in html and "<style>" in html
    # downloads point at the files of the run folder
    for href in re.findall(r'href="([^"#:]+\.csv)"', html):
        assert (folder / href).is_file(), href


# --- panels by scale and the published overlay (issue 28, item 3) --------------------------------

def _tour_rows():
    from rankbook.papers.scoring import tour as T

    rows = []
    for k in (1, 5):
        table = T.measures_table([3, 0, 2, 1, 0, 3, 0, 1, 2, 0], [3, 2, 1], k, 1, 3)
        table["scale"] = T.scale_column(table)
        rows += [{"k": k, "r_half_life": 3, **r} for r in table.to_dict("records")]
    return rows


def _panel_measures(panel: dict) -> str:
    return json.dumps(panel["transform"])


def test_the_ir_tour_explorer_puts_each_scale_in_its_own_panel():
    """The IR tour squeezed 12 of its 16 measures into the first ninth of one axis (issue 28):
    the chart has one panel per scale, each filtered to its measures, with its own value axis,
    the column's width, and the scale's words as its title."""
    from rankbook.papers.scoring import tour as T

    rows = _tour_rows()
    spec = explorer.vegalite_spec(rows, kind="bar", x="measure", y="value", color=None,
                                  controls={"k": 5, "r_half_life": 3}, title="every measure",
                                  panel="scale")
    panels = spec["vconcat"]
    assert [p["title"]["text"] for p in panels] == [explorer.title_lines(s) for s in T.SCALES]
    assert spec["resolve"]["scale"]["x"] == "independent"
    for panel, scale in zip(panels, T.SCALES):
        assert _panel_measures(panel) == json.dumps(
            [{"filter": f'datum["scale"] === {json.dumps(scale)}'}])
        assert panel["width"] == "container" and "data" not in panel
        # a bar per measure: tall enough for its own measures only
        assert panel["height"] == max(60, 22 * len(T.SCALES[scale]))
    # the controls filter the whole chart, and are labelled with display names
    assert [p["bind"]["name"].strip() for p in spec["params"]] == ["k", "half-life of the rank weights"]
    assert len(spec["transform"]) == 2 and "width" not in spec
    assert "r_half_life" not in json.dumps([p.get("title") for p in panels] + [
        t["title"] for p in panels for t in p["encoding"]["tooltip"]])


def test_every_tour_measure_has_a_scale_and_the_bounded_ones_stay_within_0_and_1():
    from rankbook.papers.scoring import tour as T

    rows = _tour_rows()
    bounded = [r["value"] for r in rows if r["scale"] == "between 0 and 1"]
    assert bounded and all(0 <= v <= 1 for v in bounded)
    # the sums of gains leave the 0 to 1 range on the toy query: the reason for the split
    assert max(r["value"] for r in rows if r["scale"] != "between 0 and 1") > 1
    measures = {r["measure"] for r in rows}
    assert measures == {m for ms in T.SCALES.values() for m in ms}
    with pytest.raises(ValueError, match="has no scale"):
        T.scale_of("a measure nobody defined")


def test_the_tour_notebook_draws_its_explorer_in_panels():
    nb = json.loads((ROOT / "notebooks" / "ir_metrics_tour.ipynb").read_text())
    cell = next("".join(c["source"]) for c in nb["cells"] if "explorer.show(" in "".join(c["source"]))
    assert 'panel="scale"' in cell and "T.scale_column" in cell


def test_a_dots_explorer_overlays_every_published_cell_and_marks_mismatches_in_words():
    rows = [{"n": 10, "reading": r, "metric": m, "published": 0.1, "reproduced": v,
             "status": s, "panel": "between 0 and 1" if v < 1 else "above 1"}
            for r in ("fitted k", "k = n/4")
            for m, v, s in (("recall", 0.1, "matches on every seed"),
                            ("MCC", 0.3, "matches on no seed"),
                            ("MSE", 6.0, "matches on some seeds"))]
    spec = explorer.vegalite_spec(rows, kind="dots", x="metric", y="reproduced", color=None,
                                  controls={"n": 10, "reading": "fitted k"}, title="cells",
                                  overlay="published", status="status", panel="panel",
                                  marks={"differs": "matches on no seed",
                                         "close": "matches on some seeds"})
    assert len(spec["vconcat"]) == 2
    for panel in spec["vconcat"]:
        layers = panel["layer"]
        assert layers[0]["encoding"]["x"]["field"] == "reproduced"
        assert layers[1]["encoding"]["x"]["field"] == "published"  # every published cell
        assert "transform" not in layers[1] or "status" not in json.dumps(layers[1]["transform"])
        marked = json.dumps([layer.get("transform") for layer in layers[2:]])
        assert "matches on no seed" in marked and "matches on some seeds" in marked
        assert all("data" not in layer for layer in layers)


def test_a_dots_explorer_refuses_a_panel_column_it_does_not_have():
    with pytest.raises(ValueError, match="not in the grid"):
        explorer.vegalite_spec([{"m": "a", "v": 1.0}], kind="dots", x="m", y="v", color=None,
                               controls={}, title="t", panel="scale")
