// Filters and anchors of the generated pages (no network, no dependency).
// - Dashboard: show only the claims of one status. Each verdict row carries
//   <span class="rb-status" data-status="..."> in its first cell; the buttons of .rb-filter
//   hide the rows of every other status.
// - Errata: a search field and buttons by severity and by source over the entries
//   (div.rb-erratum with classes rb-severity-* and rb-source-*); a line says how many show.
// - Old anchors: an erratum's anchor from before errata had ids (span.rb-alias) puts the new
//   anchor in the address bar; a section anchor that held a count (#claims-that-are-false-29)
//   leads to the section's stable anchor (#claims-that-are-false).
document.addEventListener("DOMContentLoaded", function () {
  document.querySelectorAll(".rb-filter:not(.rb-errata-filter)").forEach(function (bar) {
    var buttons = bar.querySelectorAll("button[data-status]");
    buttons.forEach(function (button) {
      button.addEventListener("click", function () {
        var want = button.getAttribute("data-status");
        buttons.forEach(function (b) { b.setAttribute("aria-pressed", String(b === button)); });
        document.querySelectorAll("span.rb-status[data-status]").forEach(function (mark) {
          var row = mark.closest("tr");
          if (!row) { return; }
          var show = !want || mark.getAttribute("data-status") === want;
          row.style.display = show ? "" : "none";
        });
        document.querySelectorAll("section").forEach(function (sec) {
          var rows = sec.querySelectorAll("span.rb-status[data-status]");
          if (!rows.length || sec.querySelector(".rb-filter")) { return; }
          var any = Array.prototype.some.call(rows, function (m) {
            var r = m.closest("tr"); return r && r.style.display !== "none";
          });
          sec.style.display = any ? "" : "none";
        });
      });
    });
  });

  document.querySelectorAll(".rb-errata-filter").forEach(function (bar) {
    var entries = Array.prototype.slice.call(document.querySelectorAll("div.rb-erratum"));
    var input = bar.querySelector("input[type=search]");
    var count = bar.querySelector(".rb-filter-count");
    var state = {severity: "", source: ""};
    function apply() {
      var words = (input && input.value || "").toLowerCase().split(/\s+/).filter(Boolean);
      var shown = 0;
      entries.forEach(function (e) {
        var text = e.textContent.toLowerCase();
        var ok = (!state.severity || e.classList.contains("rb-severity-" + state.severity))
          && (!state.source || e.classList.contains("rb-source-" + state.source))
          && words.every(function (w) { return text.indexOf(w) >= 0; });
        e.style.display = ok ? "" : "none";
        if (ok) { shown += 1; }
      });
      document.querySelectorAll("section").forEach(function (sec) {
        var mine = sec.querySelectorAll("div.rb-erratum");
        if (!mine.length || sec.querySelector(".rb-errata-filter")) { return; }
        var any = Array.prototype.some.call(mine, function (e) { return e.style.display !== "none"; });
        sec.style.display = any ? "" : "none";
      });
      if (count) { count.textContent = shown + " of " + entries.length + " errata shown"; }
    }
    ["severity", "source"].forEach(function (kind) {
      var buttons = bar.querySelectorAll("button[data-" + kind + "]");
      buttons.forEach(function (button) {
        button.addEventListener("click", function () {
          state[kind] = button.getAttribute("data-" + kind);
          buttons.forEach(function (b) { b.setAttribute("aria-pressed", String(b === button)); });
          apply();
        });
      });
    });
    if (input) { input.addEventListener("input", apply); }
  });

  function followOldAnchor() {
    var id = decodeURIComponent(location.hash.slice(1));
    if (!id) { return; }
    var el = document.getElementById(id);
    if (el && el.classList.contains("rb-alias") && el.dataset.target) {
      history.replaceState(null, "", "#" + el.dataset.target);
      var target = document.getElementById(el.dataset.target);
      if (target) { target.scrollIntoView(); }
      return;
    }
    if (!el) {
      var stable = id.replace(/-\d+$/, "");  // a heading's anchor that held its count
      if (stable !== id && document.getElementById(stable)) {
        history.replaceState(null, "", "#" + stable);
        document.getElementById(stable).scrollIntoView();
      }
    }
  }
  followOldAnchor();
  window.addEventListener("hashchange", followOldAnchor);
});
