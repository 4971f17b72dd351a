// render_probe.js - run inside an allocab HTML report rendered by headless Chromium
// (tests/e2e/e2e_render.sh): reads what the browser laid out in the chart of measured times and
// appends it to the page as JSON in a pre element "render-probe", for tests/tools/render_check.py.
// Per panel (one per workload): the axis ticks (value and rendered x), the axis line's rendered
// ends, and every mark whose tooltip states a time (its class, tooltip and rendered centre).
(function () {
  "use strict";
  function centre(e) {
    var b = e.getBoundingClientRect();
    return { x: b.left + b.width / 2, y: b.top + b.height / 2 };
  }
  function report(o) {
    var p = document.createElement("pre");
    p.id = "render-probe";
    p.textContent = JSON.stringify(o);
    document.body.appendChild(p);
  }
  var chart = null;
  document.querySelectorAll("svg").forEach(function (s) {
    var t = s.querySelector("title");
    if (t && t.textContent.indexOf("Measured times per allocator") === 0) chart = s;
  });
  if (!chart) {
    report({ error: "no chart of measured times" });
    return;
  }
  var rows = {};
  chart.querySelectorAll("text.tick").forEach(function (t) {
    var s = t.textContent.trim();
    if (!/^-?[0-9]+(\.[0-9]+)?$/.test(s)) return;
    var c = centre(t), y = Math.round(c.y);
    (rows[y] = rows[y] || []).push({ value: parseFloat(s), x: c.x });
  });
  var axes = [];
  chart.querySelectorAll("line.axis").forEach(function (l) {
    var b = l.getBoundingClientRect();
    if (b.height < 1 && b.width > 100) axes.push({ x0: b.left, x1: b.right, y: b.top });
  });
  var marks = [];
  chart.querySelectorAll("circle, path, rect, polygon").forEach(function (e) {
    var t = e.querySelector("title");
    if (!t) return;
    var m = /: (-?[0-9.]+) ms$/.exec(t.textContent);
    if (!m) return;
    var c = centre(e);
    marks.push({ cls: e.getAttribute("class"), tip: t.textContent, value: parseFloat(m[1]),
                 x: c.x, y: c.y });
  });
  var ys = Object.keys(rows).map(Number).sort(function (a, b) { return a - b; });
  var panels = ys.map(function (y) {
    var axis = null;
    axes.forEach(function (a) {
      if (a.y <= y && a.y > y - 30 && (!axis || a.y > axis.y)) axis = a;
    });
    return { tick_y: y, ticks: rows[y], axis: axis, marks: [] };
  });
  marks.forEach(function (m) {
    for (var i = 0; i < panels.length; i++)
      if (panels[i].tick_y > m.y) {
        panels[i].marks.push(m);
        return;
      }
  });
  report({ panels: panels });
})();
