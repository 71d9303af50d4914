"""The site's one JavaScript file for the explorers (Vega, Vega-Lite and vega-embed, bundled by
``vl-convert-python`` without a network), written into ``book/_static`` by the build before it
hashes the site's sources, and by the Sphinx extension (:mod:`rankbook.book.explorer` draws the
explorers that use it)."""

from __future__ import annotations

import os
from pathlib import Path

#: The file in the site's ``_static`` folder that holds Vega, Vega-Lite and vega-embed.
BUNDLE_NAME = "rankbook-explorer.js"

#: The Vega-Lite version of the bundle; altair writes specs for it.
VEGALITE_VERSION = "6.4"


def bundle_script(vl_version: str = VEGALITE_VERSION) -> str:
    """The site's one JavaScript file for explorers: Vega, Vega-Lite and vega-embed (bundled by
    ``vl-convert-python``, no network) and the code that draws every ``.rankbook-explorer``.
    Wrapped in a function so that its top-level names stay private to it."""
    import vl_convert as vlc

    init = r"""
window.vegaEmbed = vegaEmbed; window.vega = vega; window.vegaLite = vegaLite;
function rankbookDrawExplorers() {
  for (const el of document.querySelectorAll('.rankbook-explorer')) {
    const source = el.querySelector('script.rb-explorer-spec');
    const target = el.querySelector('.rb-explorer-chart');
    if (!source || !target || el.dataset.ready) continue;
    el.dataset.ready = 'drawing';
    vegaEmbed(target, JSON.parse(source.textContent), {actions: false, renderer: 'svg'})
      .then(res => { el.rankbookView = res.view; el.dataset.ready = 'yes'; })
      .catch(err => { target.textContent = 'The explorer could not be drawn: ' + err;
                      el.dataset.ready = 'error'; });
  }
}
if (document.readyState === 'loading') {
  document.addEventListener('DOMContentLoaded', rankbookDrawExplorers);
} else {
  rankbookDrawExplorers();
}
"""
    body = vlc.javascript_bundle(snippet=init, vl_version=vl_version)
    head = (f"/* rankbook explorers: Vega {vlc.get_vega_version()}, Vega-Lite {vl_version}, "
            f"vega-embed {vlc.get_vega_embed_version()} (BSD-3-Clause, the Vega project), bundled "
            f"by vl-convert-python. Generated at build time; do not edit. */\n")
    return head + "(function () {\n" + body + "\n})();\n"


def write_bundle(folder: Path) -> Path:
    """Write :data:`BUNDLE_NAME` into ``folder`` unless an identical one is there."""
    path = Path(folder) / BUNDLE_NAME
    text = bundle_script()
    if not path.is_file() or path.read_text() != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".js.tmp")
        tmp.write_text(text)
        os.replace(tmp, path)
    return path


