// Dashboard: show only the claims of one status. Each verdict row carries
// <span class="rb-status" data-status="..."> in its first cell; the buttons of .rb-filter
// hide the rows of every other status (no network, no dependency).
document.addEventListener("DOMContentLoaded", function () {
  document.querySelectorAll(".rb-filter").forEach(function (bar) {
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
});
