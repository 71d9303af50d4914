// Tables that fit (issue 28). A table wider than its column first lets its headers and text
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
    watch(full);
  }

  // while a full-width table is on screen the page's contents list (right margin) folds away,
  // as the theme does for its own full-width blocks
  var observer = null;
  function watch(blocks) {
    if (observer) { observer.disconnect(); observer = null; }
    var side = document.querySelector("div.bd-sidebar-secondary");
    if (!side || !blocks.length || !window.IntersectionObserver) { return; }
    var shown = new Set();
    observer = new IntersectionObserver(function (entries) {
      entries.forEach(function (e) {
        if (e.isIntersecting) { shown.add(e.target); } else { shown.delete(e.target); }
      });
      side.classList.toggle("hide", shown.size > 0);
    }, {rootMargin: "0px 0px -33% 0px"});
    blocks.forEach(function (b) { observer.observe(b); });
  }

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
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
  window.addEventListener("load", fit);
})();
