// loopsim report: errors shown in the page, and tables sorted by a click on a header.
(function () {
  "use strict";
  var errors = [];
  function report(msg) {
    errors.push(String(msg));
    var box = document.getElementById("report-errors");
    if (box) { box.hidden = false; box.textContent = errors.join("\n"); }
  }
  window.addEventListener("error", function (e) { report("error: " + e.message); });
  window.addEventListener("unhandledrejection", function (e) { report("unhandled rejection: " + e.reason); });
  var consoleError = console.error;
  console.error = function () {
    report("console.error: " + Array.prototype.join.call(arguments, " "));
    return consoleError.apply(console, arguments);
  };

  // sortKey reads a cell as a number where it starts with one: "1.2k",
  // "$0.66 ± $0.23", "-5.9%", "3.0% [1.0, 8.5]", "12 req"; else null.
  var scale = { k: 1e3, K: 1e3, M: 1e6, G: 1e9 };
  function sortKey(cell) {
    var s = cell.hasAttribute("data-sort") ? cell.getAttribute("data-sort") : cell.textContent;
    var m = /^\s*[~≈<>≤≥]?\s*([+\-−]?)\s*\$?\s*(\d[\d,]*(?:\.\d+)?|\.\d+)\s*([kKMG])?(?![A-Za-z])/.exec(s);
    if (!m) { return null; }
    var v = parseFloat(m[2].replace(/,/g, "")) * (m[3] ? scale[m[3]] : 1);
    return m[1] ? -v : v;
  }

  function sortBy(table, th, col) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var dir = th.getAttribute("aria-sort") === "ascending" ? "descending" : "ascending";
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", dir);
    var keyed = rows.map(function (r, i) {
      var c = r.cells[col];
      return { row: r, i: i, num: c ? sortKey(c) : null, text: c ? (c.getAttribute("data-sort") || c.textContent).trim() : "" };
    });
    var numeric = keyed.every(function (k) { return k.num !== null || k.text === "" || k.text === "-"; }) &&
      keyed.some(function (k) { return k.num !== null; });
    var sign = dir === "ascending" ? 1 : -1;
    keyed.sort(function (a, b) {
      var d;
      if (numeric) {
        var x = a.num === null ? -Infinity : a.num, y = b.num === null ? -Infinity : b.num;
        d = x < y ? -1 : x > y ? 1 : 0;
      } else {
        d = a.text.localeCompare(b.text);
      }
      return d !== 0 ? sign * d : a.i - b.i;
    });
    keyed.forEach(function (k) { body.appendChild(k.row); });
  }

  function setUp() {
    Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
      if (!table.tHead || !table.tBodies.length) { return; }
      Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
        th.addEventListener("click", function () { sortBy(table, th, col); });
        th.addEventListener("keydown", function (e) {
          if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sortBy(table, th, col); }
        });
      });
    });
    document.body.setAttribute("data-report-ready", errors.length ? "errors" : "yes");
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setUp);
  } else {
    setUp();
  }
}());
