// Tables that fit. A table wider than its column first lets its headers and text
// cells wrap (class rb-wrap); on a wide screen it then takes the page's full width, over the
// right-hand margin (rb-full, like the theme's full-width blocks), and, if still too wide, lets
// long words (paths, identifiers) break inside their cells (rb-break). A table still wider than its
// box scrolls in that box with its first column fixed (rb-overflows, position: sticky) and a cue
// above it that says the table continues. Re-fitted when the window changes size and when a fold
// opens. No network, no dependency; without JavaScript every table still scrolls in its own box.
(function () {
  "use strict";
  var CUE = "Scroll sideways for more columns \u2192";

  function scrollBox(table) {
    for (var a = table.parentElement; a && a !== document.body; a = a.parentElement) {
      var s = getComputedStyle(a).overflowX;
      if (s === "auto" || s === "scroll") { return a; }
    }
    return null;
  }

  function outerBlock(table) {
    // the block of the article that holds the table: a notebook cell, or the table's own box
    var cell = table.closest("div.cell");
    if (cell) { return cell; }
    var a = table;
    while (a.parentElement && !a.parentElement.matches("section, article, .bd-article")) {
      a = a.parentElement;
    }
    return a;
  }

  function overflows(box) { return box.scrollWidth > box.clientWidth + 1; }

  // long unbroken words (paths, identifiers, intervals) may break inside a cell, and headers
  // after an underscore (seeds_matched)
  function breakLongWords(t) {
    t.classList.add("rb-break");
    t.querySelectorAll("th").forEach(function (cell) {
      var walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (var n = walker.nextNode(); n; n = walker.nextNode()) {
        if (n.nodeValue.indexOf("_") >= 0 && n.nodeValue.indexOf("_\u200b") < 0) {
          n.nodeValue = n.nodeValue.replace(/_/g, "_\u200b");
        }
      }
    });
    t.querySelectorAll("td").forEach(function (cell) {
      var long = cell.textContent.split(/\s+/).some(function (w) { return w.length > 18; });
      cell.classList.toggle("rb-longword", long);
    });
  }

  function fit() {
    fitFigures();
    fitMaths();
    var wide = window.matchMedia("(min-width: 992px)").matches;
    var tables = document.querySelectorAll("main .bd-article table");
    // reset everything first, so that a table measured after a change starts from its own size
    tables.forEach(function (t) {
      t.classList.remove("rb-wrap", "rb-break");
      var box = scrollBox(t);
      if (box) {
        box.classList.remove("rb-overflows");
        var prev = box.previousElementSibling;
        if (prev && prev.classList.contains("rb-scroll-cue")) { prev.remove(); }
      }
      var outer = outerBlock(t);
      if (outer.classList.contains("rb-full")) { outer.classList.remove("rb-full", "full-width"); }
    });
    var full = [];
    tables.forEach(function (t) {
      if (t.closest(".rankbook-explorer")) { return; }
      if (getComputedStyle(t).display !== "table") { return; }  // laid out as blocks
      if (!t.getClientRects().length) { return; }  // folded away: fitted when its fold opens
      var box = scrollBox(t);
      if (!box || !overflows(box)) { return; }
      t.classList.add("rb-wrap");
      // a table inside a box (the verdict, the rerun box, a note) never leaves the box, and the
      // box never leaves the text column: it wraps, then breaks long words, then scrolls
      // (a folded table, <details> or a dropdown, may still take the full width)
      var boxed = !!t.closest(".admonition");
      if (boxed && overflows(box)) {
        breakLongWords(t);
      }
      if (!boxed && wide && overflows(box)) {
        var outer = outerBlock(t);
        outer.classList.add("rb-full", "full-width");  // the theme's full-width layout
        full.push(outer);
        if (overflows(box)) {
          breakLongWords(t);
        }
      }
      if (overflows(box)) {
        box.classList.add("rb-overflows");
        var cue = document.createElement("p");
        cue.className = "rb-scroll-cue";
        cue.setAttribute("aria-hidden", "true");
        cue.textContent = CUE;
        box.parentElement.insertBefore(cue, box);
      }
    });
    // a notebook cell tagged full-width (or a block the theme lays out full width) passes
    // under the contents list as well: it is watched like the tables made full width here
    document.querySelectorAll("main .bd-article .tag_full-width, main .bd-article .full-width")
      .forEach(function (el) { if (full.indexOf(el) < 0) { full.push(el); } });
    watch(full);
  }

  // a full-width table passes over the right-hand margin, where the page's contents list sticks
  // to the top of the window: the list steps aside (visibility hidden) whenever a full-width
  // block would pass under it, measured at every scroll position, so nothing covers a column
  var blocks = [];
  function watch(found) {
    blocks = found;
    placeSidebar();
  }
  function overlaps(a, b) {
    return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  }
  function placeSidebar() {
    var side = document.querySelector("div.bd-sidebar-secondary");
    if (!side) { return; }
    var box = side.getBoundingClientRect();  // laid out even when hidden
    var away = blocks.some(function (b) { return overlaps(b.getBoundingClientRect(), box); });
    side.classList.toggle("rb-side-away", away);
  }
  window.addEventListener("scroll", function () {
    if (blocks.length) { placeSidebar(); }  // at once: a frame late, a column was covered
  }, {passive: true});

  // a wide figure (a heat map) keeps its size on a phone and scrolls in its own box: a cue
  // says so, and a tap on the image opens its SVG, which the browser zooms
  var FIGURE_CUE = "Scroll sideways for the rest of the figure; tap it to open the SVG, which zooms \u2192";
  function fitFigures() {
    document.querySelectorAll("figure.rb-wide").forEach(function (fig) {
      var cue = fig.previousElementSibling;
      var has = cue && cue.classList.contains("rb-scroll-cue");
      var wide = fig.scrollWidth > fig.clientWidth + 1;
      if (wide && !has) {
        cue = document.createElement("p");
        cue.className = "rb-scroll-cue";
        cue.textContent = FIGURE_CUE;
        fig.parentElement.insertBefore(cue, fig);
      } else if (!wide && has) {
        cue.remove();
      }
      var img = fig.querySelector("img");
      var svg = fig.querySelector('figcaption a[href$=".svg"]');
      if (img && svg && !img.dataset.rbZoom) {
        img.dataset.rbZoom = "1";
        img.addEventListener("click", function () {
          if (fig.scrollWidth > fig.clientWidth + 1) { window.open(svg.href, "_blank"); }
        });
      }
    });
  }

  // inline maths never scrolls, unless a formula is wider than its block: that one scrolls
  function fitMaths() {
    document.querySelectorAll('main mjx-container:not([display="true"])').forEach(function (m) {
      m.classList.remove("rb-math-scroll");
      var block = m.parentElement;
      while (block && getComputedStyle(block).display.indexOf("inline") === 0) {
        block = block.parentElement;
      }
      if (!block) { return; }
      var inner = m.querySelector("mjx-math");
      var width = inner ? inner.getBoundingClientRect().width : m.getBoundingClientRect().width;
      if (width > block.clientWidth + 4) { m.classList.add("rb-math-scroll"); }
    });
    // a box that would scroll for a few pixels only (MathJax's and Pygments' rounding) hides
    // them: a scroll bar for 1 to 4 pixels is noise
    document.querySelectorAll("main pre, main div.math, main mjx-container, main .rb-scroll, " +
                              "main .output, main .pst-scrollable-table-container, " +
                              "main .highlight").forEach(function (el) {
      el.classList.remove("rb-tiny-overflow", "rb-tiny-visible");
      var extra = el.scrollWidth - el.clientWidth;
      var style = getComputedStyle(el).overflowX;
      if (extra > 0 && extra <= 4 && (style === "auto" || style === "scroll")) {
        // a table's box lets its few pixels show in the margin (hidden, a border was cut)
        el.classList.add(el.classList.contains("pst-scrollable-table-container")
                         ? "rb-tiny-visible" : "rb-tiny-overflow");
      }
    });
  }
  window.rankbookFitMaths = fitMaths;

  var timer = null;
  function later() {
    clearTimeout(timer);
    timer = setTimeout(fit, 100);
  }
  window.rankbookFitTables = fit;
  function start() {
    fit();
    window.addEventListener("resize", later);
    document.addEventListener("toggle", later, true);  // a <details> fold opened or closed
    if (document.fonts && document.fonts.ready) { document.fonts.ready.then(fit); }
    // MathJax typesets after the page loads: its boxes are measured once it is done
    if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
      MathJax.startup.promise.then(fit);
    }
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
  window.addEventListener("load", function () {
    fit();
    if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
      MathJax.startup.promise.then(fit);
    }
  });
})();
