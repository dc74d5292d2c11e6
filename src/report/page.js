(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("pg-data").textContent);
  var svg = document.getElementById("pg-graph");
  var select = document.getElementById("pg-measure");
  var panel = document.getElementById("pg-details");

  function recolour() {
    var m = select.value;
    svg.querySelectorAll("g.node[data-index]").forEach(function (g) {
      var fill = g.getAttribute("data-c-" + m);
      g.querySelectorAll(".shape").forEach(function (s) { s.setAttribute("fill", fill); });
    });
    document.querySelectorAll(".legend").forEach(function (l) {
      l.hidden = l.getAttribute("data-measure") !== m;
    });
  }

  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    if (cls) { e.className = cls; }
    return e;
  }

  function pct(x) { return x === null || x === undefined ? "–" : (100 * x).toFixed(1) + "%"; }

  function show(i) {
    var n = data.nodes[i];
    if (!n) { return; }
    svg.querySelectorAll("g.node.selected").forEach(function (g) { g.classList.remove("selected"); });
    var g = svg.querySelector('g.node[data-index="' + i + '"]');
    if (g) { g.classList.add("selected"); }
    panel.replaceChildren();
    panel.appendChild(el("h3", n.id));
    var dl = el("dl");
    dl.id = "pg-node-numbers";
    function row(k, v) { dl.appendChild(el("dt", k)); dl.appendChild(el("dd", v)); }
    row("primitive", n.primitive);
    row("workspace", n.workspace);
    if (n.max_visits !== null) { row("max_visits", n.max_visits); }
    row("terminal", n.terminal ? "yes" : "no");
    row("steps", n.steps);
    row("visits per run", data.runs ? n.visits_per_run.toFixed(3) : "–");
    row("error steps", n.errors);
    row("failure rate", pct(n.failure_rate));
    row("first divergences", n.first_divergences);
    if (n.change) {
      row("since baseline", n.change.kind + (n.change.fields ? ": " + n.change.fields.join(", ") : ""));
    }
    panel.appendChild(dl);
    if (n.moves.length) {
      panel.appendChild(el("h3", "runs moving on to"));
      var ul = el("ul");
      n.moves.forEach(function (m) { ul.appendChild(el("li", m.to + (m.by ? " (" + m.by + ")" : "") + ": " + m.runs)); });
      panel.appendChild(ul);
    }
    if (n.primitive_failure_modes) {
      panel.appendChild(el("h3", "failure modes of " + (n.contract || n.primitive)));
      var modes = el("ul");
      Object.keys(n.primitive_failure_modes).forEach(function (k) {
        modes.appendChild(el("li", k + ": " + n.primitive_failure_modes[k]));
      });
      panel.appendChild(modes);
    }
    if (n.divergence_cases) {
      panel.appendChild(el("h3", "first divergences here"));
      var dv = el("ul");
      n.divergence_cases.forEach(function (c) {
        dv.appendChild(el("li", c.code + " ×" + c.count + ": expected " + (c.expected === null ? "–" : c.expected) +
          ", actual " + (c.actual === null ? "–" : c.actual) + " (e.g. " + c.example + " seq " + c.seq + ")"));
      });
      panel.appendChild(dv);
    }
    panel.appendChild(el("h3", "contract"));
    var contract = n.contract ? data.contracts[n.contract] : null;
    panel.appendChild(el("pre", contract ? JSON.stringify(contract, null, 2) : "unknown primitive"));
  }

  function nodeIndexById(id) {
    for (var i = 0; i < data.nodes.length; i++) { if (data.nodes[i].id === id) { return i; } }
    return -1;
  }

  select.addEventListener("change", recolour);
  svg.addEventListener("click", function (ev) {
    var g = ev.target.closest("g.node[data-index]");
    if (g) { show(Number(g.getAttribute("data-index"))); }
  });
  svg.addEventListener("keydown", function (ev) {
    if (ev.key !== "Enter" && ev.key !== " ") { return; }
    var g = ev.target.closest("g.node[data-index]");
    if (g) { ev.preventDefault(); show(Number(g.getAttribute("data-index"))); }
  });
  document.querySelectorAll("tr[data-node]").forEach(function (tr) {
    tr.addEventListener("click", function (ev) {
      if (ev.target.closest("a")) { return; }
      var i = nodeIndexById(tr.getAttribute("data-node"));
      if (i < 0) { return; }
      show(i);
      var g = svg.querySelector('g.node[data-index="' + i + '"]');
      if (g && g.scrollIntoView) { g.scrollIntoView({block: "center", inline: "center"}); }
    });
  });
  recolour();
})();
