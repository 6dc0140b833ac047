// The triage report's behaviour: the treemap, the class table, the object panel.  No library:
// the page must open offline from one file (html.lua inlines ui.js, shared with the explorer, first).
(function () {
  "use strict";
  var errors = [];
  window.addEventListener("error", function (e) {
    errors.push(String(e.message));
    document.body.setAttribute("data-errors", errors.join(" | "));
  });
  var data = JSON.parse(document.getElementById("data").textContent);

  var size = HK.size, el = HK.el; // ui.js: shared with the explorer
  function idLink(id) {
    var a = el("a", { "class": "oid", href: "#", "data-id": id }, id);
    return a;
  }

  // ---- treemap: squarified layout of a node's children, two levels deep ----
  function parentLinks(n, p) { n.p = p; for (var i = 0; i < n.k.length; i++) parentLinks(n.k[i], n); }
  parentLinks(data.tree, null);

  var squarify = HK.squarify;
  var tm = document.getElementById("tm"), crumbs = document.getElementById("crumbs");
  function color(name, depth) {
    var h = 0;
    for (var i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) % 360;
    return "hsl(" + h + ",45%," + (38 + depth * 10) + "%)";
  }
  function draw(node, x, y, w, h, depth) {
    squarify(node.k, x, y, w, h).forEach(function (b) {
      var n = b.n, rest = n.id === null;
      var d = el("div", { "class": "tm" + (rest ? " rest" : ""), title: n.c + (rest ? "" : " " + n.id) + " retains " + size(n.r) });
      if (!rest) d.setAttribute("data-id", n.id);
      d.style.left = b.x + "px"; d.style.top = b.y + "px";
      d.style.width = b.w + "px"; d.style.height = b.h + "px";
      d.style.background = color(n.c, depth);
      if (b.w > 40 && b.h > 14) d.textContent = n.c.replace(/^.*\./, "") + " " + size(n.r);
      d.addEventListener("click", function (e) {
        e.stopPropagation();
        if (n.k.length) show(n);
        else if (!rest) openPanel(n.id);
      });
      tm.appendChild(d);
      if (depth < 2 && n.k.length && b.w > 30 && b.h > 30) draw(n, b.x + 2, b.y + 14, b.w - 4, b.h - 16, depth + 1);
    });
  }
  function show(node) {
    tm.textContent = "";
    draw(node, 0, 0, tm.clientWidth || 800, tm.clientHeight || 480, 0);
    crumbs.textContent = "";
    var chain = [];
    for (var n = node; n; n = n.p) chain.unshift(n);
    chain.forEach(function (c, i) {
      var a = el("a", { href: "#" }, (i ? c.c.replace(/^.*\./, "") : c.c) + " (" + size(c.r) + ")");
      a.addEventListener("click", function (e) { e.preventDefault(); show(c); });
      crumbs.appendChild(a);
      if (c.id !== null && data.objects[c.id]) crumbs.appendChild(idLink(c.id));
      if (i < chain.length - 1) crumbs.appendChild(document.createTextNode(" › "));
    });
  }
  show(data.tree);

  // ---- the class histogram: sort by a column, filter by name ----
  var rows = data.histogram, key = 2, desc = true;
  var tbody = document.querySelector("#hist tbody"), filter = document.getElementById("filter");
  function fill() {
    var f = filter.value.toLowerCase(), shown = rows.filter(function (r) { return r[0].toLowerCase().indexOf(f) >= 0; });
    shown.sort(function (a, b) {
      var x = a[key], y = b[key];
      if (x === undefined) x = -1; if (y === undefined) y = -1;
      var c = typeof x === "string" ? x.localeCompare(y) : x - y;
      return desc ? -c : c;
    });
    tbody.textContent = "";
    shown.slice(0, 500).forEach(function (r) {
      var tr = el("tr");
      tr.appendChild(el("td", {}, r[0]));
      tr.appendChild(el("td", {}, String(r[1])));
      tr.appendChild(el("td", { title: r[2] + " bytes" }, size(r[2])));
      tr.appendChild(el("td", { title: r[3] === undefined ? "" : r[3] + " bytes" }, size(r[3])));
      tbody.appendChild(tr);
    });
    document.getElementById("hcount").textContent = shown.length + " of " + rows.length + " classes" +
      (shown.length > 500 ? " (first 500 shown)" : "");
  }
  document.querySelectorAll("#hist th").forEach(function (th) {
    th.addEventListener("click", function () {
      var k = +th.getAttribute("data-k");
      desc = k === key ? !desc : k !== 0;
      key = k;
      fill();
    });
  });
  filter.addEventListener("input", fill);
  fill();

  // ---- the object panel: fields, referrers, path from a root ----
  var panel = document.getElementById("panel"), pbody = document.getElementById("pbody");
  function section(title, headers, list, row) {
    pbody.appendChild(el("h3", {}, title));
    if (!list.length) { pbody.appendChild(el("p", {}, "none")); return; }
    var t = el("table"), tr = el("tr");
    headers.forEach(function (h) { tr.appendChild(el("th", {}, h)); });
    t.appendChild(tr);
    list.forEach(function (x) {
      var r = el("tr");
      row(x).forEach(function (c) {
        var td = el("td");
        if (c && c.nodeType) td.appendChild(c); else td.textContent = c === null || c === undefined ? "" : String(c);
        r.appendChild(td);
      });
      t.appendChild(r);
    });
    pbody.appendChild(t);
  }
  function ref(id) { return id && data.objects[id] ? idLink(id) : (id || ""); }
  function openPanel(id) {
    var o = data.objects[id];
    pbody.textContent = "";
    if (!o) {
      pbody.appendChild(el("p", {}, id + ": not among the objects this report embeds; hprofkit serve DUMP opens every object (or hprofkit object DUMP " + id + ")"));
    } else {
      pbody.appendChild(el("h2", {}, o.class));
      pbody.appendChild(el("p", {}, o.id + " · " + o.kind + " · " + o.reachability + " · shallow " + size(o.shallow_bytes) +
        " · retained " + size(o.retained_bytes) + (o.native_bytes ? " · native " + size(o.native_bytes) : "") +
        (o.length !== undefined ? " · length " + o.length : "")));
      if (o.value !== undefined) pbody.appendChild(el("p", { "class": "value" }, JSON.stringify(o.value)));
      section("Path from a GC root", ["object", "class", "via"], o.path, function (s) {
        return [ref(s[0]), (s[3] ? "[" + s[3] + "] " : "") + s[1], s[2]];
      });
      section("Fields", ["name", "type", "value"], o.fields, function (f) { return [f[0], f[1], f[3] ? ref(f[3]) : f[2]]; });
      section("Referrers", ["object", "class"], o.referrers, function (r) { return [ref(r[0]), r[1]]; });
    }
    panel.hidden = false;
  }
  document.addEventListener("click", function (e) {
    var a = e.target.closest ? e.target.closest("a.oid") : null;
    if (a) { e.preventDefault(); openPanel(a.getAttribute("data-id")); }
  });
  document.getElementById("close").addEventListener("click", function () { panel.hidden = true; });

  // report.html#selftest: click through the page as a person would and note what happened
  // (the test reads these attributes from the rendered DOM)
  if (location.hash === "#selftest") {
    var b = document.body, parent = null;
    for (var i = 0; i < data.tree.k.length && !parent; i++) if (data.tree.k[i].k.length && data.tree.k[i].id) parent = data.tree.k[i];
    if (parent) {
      tm.querySelector('.tm[data-id="' + parent.id + '"]').click();
      b.setAttribute("data-selftest-descend", crumbs.querySelectorAll("a:not(.oid)").length + " " +
        tm.querySelectorAll(".tm").length);
      crumbs.querySelector("a").click();
      b.setAttribute("data-selftest-back", String(tm.querySelectorAll('.tm[data-id="' + parent.id + '"]').length));
    }
    var link = document.querySelector("#top a.oid");
    if (link) {
      link.click();
      b.setAttribute("data-selftest-panel", (panel.hidden ? "hidden" : "shown") + " " +
        pbody.querySelectorAll("h3").length + " " + (pbody.querySelector("h2") || {}).textContent);
    }
    filter.value = "zzzz-no-such-class";
    filter.dispatchEvent(new Event("input"));
    b.setAttribute("data-selftest-filter", String(tbody.querySelectorAll("tr").length));
  }
  document.body.setAttribute("data-ready", errors.length ? "errors" : "done");
})();
