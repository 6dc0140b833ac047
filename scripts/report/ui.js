// What the triage report and the explorer share: sizes in human units, building elements,
// object ids and class names as links, sortable tables.  No library: both pages work offline.
// The page says where a link goes (HK.idHref, HK.classHref); the report keeps "#" and opens
// its panel, the explorer goes to the object's page.
var HK = (function () {
  "use strict";
  function size(n) {
    if (n === null || n === undefined) return "–";
    var u = ["B", "KiB", "MiB", "GiB"], i = 0, v = n;
    while (Math.abs(v) >= 1024 && i < u.length - 1) { v /= 1024; i++; }
    return i === 0 ? n + " B" : v.toFixed(1) + " " + u[i];
  }
  function num(n) { return n === null || n === undefined ? "–" : String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ","); }
  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    for (var k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }
  var hk = { size: size, num: num, el: el };
  hk.idHref = function () { return "#"; };
  hk.classHref = null;
  hk.idLink = function (id) { return el("a", { "class": "oid", href: hk.idHref(id), "data-id": id }, id); };
  // a class name ("class a.B" is the class object's label) as a link to the class, where the page has one
  hk.classLink = function (name) {
    if (!hk.classHref || typeof name !== "string") return document.createTextNode(name === null ? "" : String(name));
    var bare = name.replace(/^class /, "");
    return el("a", { "class": "cls", href: hk.classHref(bare) }, name);
  };
  // a step of a path or a referrer: {type, name} as the CLI prints it
  hk.reference = function (r) {
    if (!r || typeof r !== "object") return r === null || r === undefined ? "" : String(r);
    return r.type === "field" ? "." + r.name : r.type === "array" ? r.name : r.type + " " + r.name;
  };
  // cols: [{k: key, h: heading, f: function(row) -> text or node, n: numeric}]; click a heading to sort
  hk.table = function (cols, rows, attrs) {
    var t = el("table", attrs || {}), head = el("tr"), body = el("tbody"), key = null, desc = true;
    cols.forEach(function (c) {
      var th = el("th", { "data-k": c.k }, c.h || c.k);
      th.addEventListener("click", function () {
        desc = key === c.k ? !desc : !!c.n;
        key = c.k;
        rows.sort(function (a, b) {
          var x = a[c.k], y = b[c.k], d = typeof x === "number" && typeof y === "number" ? x - y
            : String(x === null || x === undefined ? "" : x).localeCompare(String(y === null || y === undefined ? "" : y));
          return desc ? -d : d;
        });
        fill();
      });
      head.appendChild(th);
    });
    var thead = el("thead");
    thead.appendChild(head);
    t.appendChild(thead);
    t.appendChild(body);
    function fill() {
      body.textContent = "";
      rows.forEach(function (r) {
        var tr = el("tr");
        cols.forEach(function (c) {
          var v = c.f ? c.f(r) : r[c.k], td = el("td", c.n ? { "class": "n" } : {});
          if (v && v.nodeType) td.appendChild(v);
          else td.textContent = v === null || v === undefined ? "" : String(v);
          if (c.n && typeof r[c.k] === "number") td.title = r[c.k] + (c.bytes ? " bytes" : "");
          tr.appendChild(td);
        });
        body.appendChild(tr);
      });
    }
    fill();
    return t;
  };
  // the squarified treemap layout of items {r: size} in the box x, y, w, h (the report's and the explorer's)
  function worst(row, side, scale) {
    var s = 0, mx = 0, mn = Infinity;
    for (var i = 0; i < row.length; i++) { var v = row[i].r * scale; s += v; mx = Math.max(mx, v); mn = Math.min(mn, v); }
    return Math.max(side * side * mx / (s * s), s * s / (side * side * mn));
  }
  function squarify(items, x, y, w, h) {
    var out = [], rest = items.filter(function (n) { return n.r > 0; }), total = 0;
    rest.forEach(function (n) { total += n.r; });
    while (rest.length && w > 0 && h > 0) {
      var scale = w * h / total, side = Math.min(w, h), row = [], best = Infinity;
      for (var i = 0; i < rest.length; i++) {
        var cand = row.concat([rest[i]]), r = worst(cand, side, scale);
        if (r > best) break;
        best = r; row = cand;
      }
      var sum = 0;
      row.forEach(function (n) { sum += n.r; });
      var thick = sum * scale / side, off = 0;
      row.forEach(function (n) {
        var len = n.r * scale / thick;
        if (w >= h) out.push({ n: n, x: x, y: y + off, w: thick, h: len });
        else out.push({ n: n, x: x + off, y: y, w: len, h: thick });
        off += len;
      });
      if (w >= h) { x += thick; w -= thick; } else { y += thick; h -= thick; }
      total -= sum;
      rest = rest.slice(row.length);
    }
    return out;
  }
  hk.squarify = squarify;
  return hk;
})();
