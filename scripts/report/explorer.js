// The explorer (hprofkit serve): one page per view, each at its own address (#/object/0x…), each
// a view of the JSON API's answers (/api/query/NAME runs the query `hprofkit NAME --json` runs).
// Shares ui.js and report.css with the triage report.  No library, no network but this server.
(function () {
  "use strict";
  var el = HK.el, size = HK.size, num = HK.num;
  var page = document.getElementById("page"), info = {}, facts = null, seq = 0;
  HK.idHref = function (id) { return "#/object/" + id; };
  HK.classHref = function (name) { return "#/class/" + encodeURIComponent(name); };
  if (location.search.indexOf("token=") >= 0) history.replaceState(null, "", "/" + location.hash);

  function api(path, params, body) {
    var qs = Object.keys(params || {}).filter(function (k) { return params[k] !== undefined && params[k] !== ""; })
      .map(function (k) { return encodeURIComponent(k) + "=" + encodeURIComponent(params[k]); }).join("&");
    var opts = body === undefined ? { credentials: "same-origin" }
      : { method: "POST", body: body, credentials: "same-origin", headers: { "Content-Type": "text/plain" } };
    return fetch("/api/" + path + (qs ? "?" + qs : ""), opts).then(function (r) {
      return r.json().then(function (j) {
        if (!r.ok) { var e = new Error(j.error || ("HTTP " + r.status)); e.status = r.status; throw e; }
        return j;
      });
    });
  }
  function q(name, params) { return api("query/" + name, params); }

  // ---- rendering helpers ----
  function h2(text) { return el("h2", {}, text); }
  function para(text, cls) { return el("p", cls ? { "class": cls } : {}, text); }
  function link(href, text) { return el("a", { href: href }, text); }
  var idKeys = { id: 1, object: 1, holder: 1, buffer: 1, value_id: 1 };
  function isId(v) { return typeof v === "string" && /^0x[0-9a-f]+$/.test(v); }
  // a listing of flat rows, every id and class a link, nested values as their text
  function autoTable(rows) {
    if (!Array.isArray(rows)) rows = [rows];
    var keys = [];
    rows.forEach(function (r) { Object.keys(r || {}).forEach(function (k) { if (keys.indexOf(k) < 0) keys.push(k); }); });
    return HK.table(keys.map(function (k) {
      var numeric = rows.some(function (r) { return typeof r[k] === "number"; });
      return { k: k, h: k, n: numeric, bytes: /bytes$/.test(k), f: function (r) {
        var v = r[k];
        if (k === "change") return markOf(r);
        if (k === "baseline_id") return v || "";
        if (isId(v) && (idKeys[k] || /_id$|^id$/.test(k))) return HK.idLink(v);
        if ((k === "class" || k === "holder_class") && typeof v === "string") return HK.classLink(v);
        if (k === "reference") return HK.reference(v);
        if (/bytes$/.test(k) && typeof v === "number") return size(v);
        if (v && typeof v === "object") return JSON.stringify(v);
        return v;
      } };
    }), rows);
  }
  function cols(spec) {
    return spec.map(function (s) {
      var c = { k: s[0], h: s[1] };
      if (s[2] === "id") c.f = function (r) { return r[s[0]] ? HK.idLink(r[s[0]]) : ""; };
      if (s[2] === "class") c.f = function (r) { return HK.classLink(r[s[0]]); };
      if (s[2] === "bytes") { c.n = true; c.bytes = true; c.f = function (r) { return size(r[s[0]]); }; }
      if (s[2] === "num") { c.n = true; c.f = function (r) { return num(r[s[0]]); }; }
      if (s[2] === "ref") c.f = function (r) { return HK.reference(r[s[0]]); };
      if (typeof s[2] === "function") c.f = s[2];
      return c;
    });
  }
  // diff mode (serve --baseline): every list's rows carry change, base_X and delta_X (the API
  // adds them); a table shows the mark first and, after its own columns, each figure before and
  // its change.  A REMOVED row's object is the baseline's (baseline_id), not a link here.
  function markOf(r) { return r.change ? el("span", { "class": "mark " + r.change }, r.change) : ""; }
  function withBase(spec, figures) {
    if (!info.baseline) return spec;
    var out = [["change", "", markOf]].concat(spec.map(function (x) {
      if (x[2] !== "id") return x;
      return [x[0], x[1], function (r) { return r[x[0]] ? HK.idLink(r[x[0]]) : el("span", { "class": "base-id", title: "in the baseline" }, r.baseline_id || ""); }];
    }));
    (figures || []).forEach(function (f) {
      var bytes = /bytes$/.test(f), short = f.replace(/_bytes$/, "");
      out.push(["base_" + f, short + " before", bytes ? "bytes" : "num"]);
      out.push(["delta_" + f, "Δ " + short, bytes ? "bytes" : "num"]);
    });
    return out;
  }
  function fail(where, e) {
    where.appendChild(el("p", { "class": "error" }, e.message));
    if (e.status === 404) where.setAttribute("data-notfound", "1");
  }
  function section(title, promise, render) {
    var box = el("section");
    box.appendChild(h2(title));
    var wait = para("loading…", "busy");
    box.appendChild(wait);
    page.appendChild(box);
    return promise.then(function (v) { wait.remove(); render(box, v); }, function (e) { wait.remove(); fail(box, e); });
  }
  function pager(box, params, go) {
    var p = el("p", { "class": "pager" }), off = params.offset || 0, n = params.n;
    if (off > 0) { var a = link("#", "◀ previous " + n); a.onclick = function (e) { e.preventDefault(); go(Math.max(0, off - n)); }; p.appendChild(a); }
    if (params.got === n) {
      var b = link("#", "next " + n + " ▶");
      b.onclick = function (e) { e.preventDefault(); go(off + n); };
      p.appendChild(b);
    }
    box.appendChild(p);
  }
  function hashParams(s) {
    var o = {};
    (s || "").split("&").forEach(function (kv) { if (kv) { var i = kv.indexOf("="); o[decodeURIComponent(kv.slice(0, i < 0 ? kv.length : i))] = i < 0 ? "" : decodeURIComponent(kv.slice(i + 1)); } });
    return o;
  }
  var diffResult = null; // the diff against --baseline, asked for once a page load (it indexes both dumps)
  function getDiff() { return diffResult ? Promise.resolve(diffResult) : q("diff", { n: 1000000 }).then(function (d) { return (diffResult = d); }); }
  function getFacts() { return facts ? Promise.resolve(facts) : q("triage").then(function (f) { return (facts = f); }); }

  // ---- Overview ----
  function card(box, label, value, sub) {
    var c = el("div", { "class": "card" });
    c.appendChild(el("div", { "class": "v" }, value));
    c.appendChild(el("div", { "class": "l" }, label + (sub ? " · " + sub : "")));
    box.appendChild(c);
  }
  function overview() {
    return section("Overview", getFacts(), function (box, f) {
      var o = f.origin || {}, t = f.totals || {};
      var app = f.app || {};
      box.appendChild(para([app.package, app.version_name ? "version " + app.version_name + (app.version_code ? " (" + app.version_code + ")" : "") : null,
        o.process, o.sdk ? "SDK " + o.sdk : null, o.manufacturer, o.model, o.fingerprint]
        .filter(function (x) { return x; }).join(" · "), "origin"));
      var cards = el("div", { "class": "cards" });
      card(cards, "objects", num(t.objects), size(t.shallow_bytes));
      (t.heaps || []).forEach(function (h) { card(cards, "heap " + h.heap, size(h.shallow_bytes), num(h.count) + " objects"); });
      (t.reachability || []).forEach(function (r) { if (r.count) card(cards, r.reachability, size(r.shallow_bytes), num(r.count) + " objects"); });
      card(cards, "native", size(t.native_bytes));
      box.appendChild(cards);
      if (f.diff && f.diff.totals_base) baseCards(box, f.diff, t);
      box.appendChild(el("h3", {}, "Top retainers"));
      var topSpec = [["id", "object", "id"], ["class", "class", "class"], ["retained_bytes", "retained", "bytes"],
        ["shallow_bytes", "shallow", "bytes"], ["native_bytes", "native", "bytes"]];
      if (!info.baseline) box.appendChild(HK.table(cols(topSpec), (f.top || []).slice(0, 10), { id: "top" }));
      else {
        var tb = el("div");
        box.appendChild(tb);
        q("top", { n: 10 }).then(function (rows) {
          tb.appendChild(HK.table(cols(withBase(topSpec, ["retained_bytes"])), rows, { id: "top" }));
        }, function (e) { fail(tb, e); });
      }
      var lk = f.leaks || {};
      box.appendChild(el("h3", {}, "Leaks by signature"));
      if (!(lk.leaks || []).length) box.appendChild(para("no leaks found"));
      else {
        var fresh = {};
        ((f.diff && f.diff.leak_signatures && f.diff.leak_signatures.new) || []).forEach(function (g) { fresh[g.signature] = 1; });
        var lspec = [["description", "leak", function (r) { return link("#/leaks", r.description || r.signature); }],
          ["kind", "kind"], ["count", "count", "num"], ["retained_bytes", "retained", "bytes"]];
        if (f.diff) lspec.unshift(["change", "", function (r) { return el("span", { "class": "mark " + (fresh[r.signature] ? "NEW" : "SAME") }, fresh[r.signature] ? "NEW" : "SAME"); }]);
        box.appendChild(HK.table(cols(lspec), lk.leaks, { id: "leaksig" }));
        var gone = (f.diff && f.diff.leak_signatures && f.diff.leak_signatures.gone) || [];
        if (gone.length) box.appendChild(para("Gone since the baseline: " + gone.map(function (g) { return g.description || g.signature; }).join("; "), "note"));
      }
      box.appendChild(el("h3", {}, "Duplicates"));
      var d = el("ul");
      [["bitmaps", f.bitmaps, "#/bitmaps"], ["strings", f.duplicate_strings, "#/strings"], ["arrays", f.duplicate_arrays, "#/arrays"]]
        .forEach(function (x) {
          var li = el("li");
          li.appendChild(link(x[2], "duplicate " + x[0]));
          li.appendChild(document.createTextNode(": " + size(x[1] ? x[1].wasted_bytes : null) + " wasted"));
          d.appendChild(li);
        });
      box.appendChild(d);
      if (f.meminfo) {
        box.appendChild(el("h3", {}, "dumpsys meminfo beside the dump"));
        box.appendChild(HK.table(cols([["name", "what"], ["meminfo_kb", "meminfo KiB", "num"], ["dump_bytes", "in the dump", "bytes"],
          ["gap_bytes", "gap", "bytes"], ["sentence", ""]]), f.meminfo.joins || [], { id: "meminfo" }));
      }
      if (f.native) nativeSection(box, f.native);
    });
  }

  // diff mode: the totals of both dumps, the baseline's first (triage --baseline's facts.diff)
  function baseCards(box, d, t) {
    var b = d.totals_base, cards = el("div", { "class": "cards", id: "basecards" });
    var pair = function (x, y) { return x + " → " + y; };
    card(cards, "objects, baseline → now", pair(num(b.objects), num(t.objects)), pair(size(b.shallow_bytes), size(t.shallow_bytes)));
    var hb = {};
    (b.heaps || []).forEach(function (h) { hb[h.heap] = h; });
    (t.heaps || []).forEach(function (h) { var x = hb[h.heap] || { shallow_bytes: 0, count: 0 }; card(cards, "heap " + h.heap, pair(size(x.shallow_bytes), size(h.shallow_bytes)), pair(num(x.count), num(h.count)) + " objects"); });
    card(cards, "native", pair(size(b.native_bytes), size(t.native_bytes)));
    box.appendChild(el("h3", {}, "Against the baseline (" + num(d.summary.added_objects) + " objects added, " + num(d.summary.removed_objects) + " removed)"));
    box.appendChild(cards);
  }

  // the native heap profile (serve --native TRACE): the figures, a flame graph of the bytes not
  // freed (outermost caller on top, width by bytes, the figures in each box's title) and the
  // hotspots
  function nativeSection(box, n) {
    box.appendChild(el("h3", {}, "Native heap (heapprofd)"));
    box.appendChild(el("p", {}, (n.process || "pid " + n.pid) + ", heap " + n.heap + ", dump " + n.dump + " of " + n.dumps +
      ": " + size(n.unreleased_bytes) + " unreleased (" + size(n.allocated_bytes) + " allocated, " +
      size(n.freed_bytes) + " freed)."));
    if (n.process_mismatch) box.appendChild(el("p", { "class": "warn" }, "Warning: " + n.process_mismatch + "."));
    if (n.meminfo_sentence) box.appendChild(el("p", {}, n.meminfo_sentence));
    var NS = "http://www.w3.org/2000/svg", W = 1000, H = 17, depth = 0;
    var svg = document.createElementNS(NS, "svg");
    svg.setAttribute("id", "native-flame");
    svg.setAttribute("width", "100%");
    function draw(node, x, d, scale) {
      if (d > 0 && node.total_bytes * scale >= 1) {
        var g = document.createElementNS(NS, "g"), r = document.createElementNS(NS, "rect"), t = document.createElementNS(NS, "title");
        var w = node.total_bytes * scale, hue = 0;
        for (var i = 0; i < node.name.length; i++) hue = (hue * 31 + node.name.charCodeAt(i)) % 360;
        t.textContent = node.name + ": " + size(node.total_bytes) + " (" + size(node.self_bytes) + " in itself)";
        r.setAttribute("x", x); r.setAttribute("y", (d - 1) * H); r.setAttribute("width", w); r.setAttribute("height", H - 1);
        r.setAttribute("fill", "hsl(" + (20 + hue % 40) + ",70%,60%)"); r.setAttribute("stroke", "#fff");
        g.appendChild(t); g.appendChild(r);
        if (w > 40) {
          var tx = document.createElementNS(NS, "text");
          tx.setAttribute("x", x + 3); tx.setAttribute("y", d * H - 5); tx.setAttribute("font-size", "11");
          tx.textContent = node.name.length > w / 6.5 ? node.name.slice(0, Math.floor(w / 6.5) - 1) + "…" : node.name;
          g.appendChild(tx);
        }
        svg.appendChild(g);
        depth = Math.max(depth, d);
      }
      node.children.forEach(function (c) { draw(c, x, d + 1, scale); x += c.total_bytes * scale; });
    }
    draw(n.flame, 0, 0, n.flame.total_bytes > 0 ? W / n.flame.total_bytes : 0);
    svg.setAttribute("viewBox", "0 0 " + W + " " + Math.max(1, depth) * H);
    box.appendChild(svg);
    box.appendChild(HK.table(cols([["unreleased_bytes", "unreleased", "bytes"], ["allocated_bytes", "allocated", "bytes"],
      ["alloc_count", "allocations", "num"], ["top", "stack (the top 8 frames)"]]),
      n.hotspots.map(function (h) { var r = Object.assign({}, h); r.top = h.frames.join(" < "); return r; }), { id: "native-hotspots" }));
  }

  // ---- Classes ----
  function globRe(g) {
    return new RegExp("^" + g.replace(/[.+^${}()|\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".") + "$", "i");
  }
  function packageTree(rows) {
    var groups = {};
    rows.forEach(function (r) {
      var pkg = r.class.replace(/^class /, "").replace(/\[\]/g, "");
      pkg = pkg.indexOf(".") >= 0 ? pkg.replace(/\.[^.]*$/, "") : "(default)";
      var g = groups[pkg] || (groups[pkg] = { class: pkg, count: 0, shallow_bytes: 0, retained_bytes: 0, native_bytes: 0, rows: [] });
      g.count += r.count; g.shallow_bytes += r.shallow_bytes; g.retained_bytes += r.retained_bytes || 0; g.native_bytes += r.native_bytes || 0; g.rows.push(r);
    });
    return Object.keys(groups).map(function (k) { return groups[k]; })
      .sort(function (a, b) { return b.retained_bytes - a.retained_bytes; });
  }
  function classes(rest, params) {
    return getFacts().catch(function () { return null; }).then(function () { return classList(params); });
  }
  function classList(params) {
    var heaps = (facts && facts.totals.heaps || []).map(function (h) { return h.heap; });
    var heap = params.heap !== undefined ? params.heap : (heaps.indexOf("app") >= 0 ? "app" : "");
    var bar = el("p", { "class": "controls" });
    bar.appendChild(document.createTextNode("heap: "));
    ["all"].concat(heaps).forEach(function (h) {
      var v = h === "all" ? "" : h, a = link("#/classes?heap=" + v + "&filter=" + encodeURIComponent(params.filter || "") + (params.tree ? "&tree=1" : ""), h);
      if (v === heap) a.className = "on";
      bar.appendChild(a);
      bar.appendChild(document.createTextNode(" "));
    });
    var input = el("input", { id: "filter", placeholder: "class glob, e.g. com.example.*", value: params.filter || "" });
    bar.appendChild(input);
    var tree = link("#/classes?heap=" + heap + "&filter=" + encodeURIComponent(params.filter || "") + (params.tree ? "" : "&tree=1"),
      params.tree ? "flat list" : "group by package");
    bar.appendChild(document.createTextNode(" "));
    bar.appendChild(tree);
    page.appendChild(bar);
    input.addEventListener("change", function () {
      location.hash = "#/classes?heap=" + heap + "&filter=" + encodeURIComponent(input.value) + (params.tree ? "&tree=1" : "");
    });
    var load = q("histogram", { heap: heap });
    return section(heap ? "Classes on the " + heap + " heap" : "Classes (all heaps)", load, function (box, rows) {
      var re = params.filter ? globRe(params.filter) : null;
      rows = rows.filter(function (r) { return !re || re.test(r.class.replace(/^class /, "")); });
      box.appendChild(para(rows.length + " classes"));
      var spec = [["class", "class", "class"], ["count", "count", "num"], ["shallow_bytes", "shallow", "bytes"], ["retained_bytes", "retained", "bytes"],
        ["native_bytes", "native", "bytes"]];
      if (info.baseline) {
        box.appendChild(para("Beside each class: the baseline's figures (of the same heap) and the change; REMOVED: classes with instances only in the baseline.", "note"));
        spec = withBase(spec, ["count", "shallow_bytes", "retained_bytes", "native_bytes"]);
      }
      if (!params.tree) { box.appendChild(HK.table(cols(spec), rows, { id: "classes" })); return; }
      packageTree(rows).forEach(function (g) {
        var d = el("details");
        d.appendChild(el("summary", {}, g.class + " — " + g.rows.length + " classes, " + num(g.count) + " objects, retained " + size(g.retained_bytes) +
          (g.native_bytes ? ", native " + size(g.native_bytes) : "")));
        d.appendChild(HK.table(cols(spec), g.rows));
        box.appendChild(d);
      });
    });
  }

  // ---- Class ----
  function classPage(rest, params) {
    var name = decodeURIComponent(rest[0] || ""), off = +(params.offset || 0), sort = params.sort || "retained_bytes";
    var go = function (o, s) { location.hash = "#/class/" + encodeURIComponent(name) + "?offset=" + o + "&sort=" + (s || sort); };
    section(name, q("class", { name: name }), function (box, c) {
      var p = el("p");
      p.appendChild(document.createTextNode("class object "));
      p.appendChild(HK.idLink(c.id));
      if (c.super) { p.appendChild(document.createTextNode(" · extends ")); p.appendChild(HK.classLink(c.super)); }
      p.appendChild(document.createTextNode(" · loader "));
      if (c.loader) {
        var ld = el("span", { id: "loader" });
        ld.appendChild(HK.idLink(c.loader));
        ld.appendChild(document.createTextNode(" "));
        ld.appendChild(HK.classLink(c.loader_class));
        p.appendChild(ld);
      } else p.appendChild(document.createTextNode("the boot class loader"));
      p.appendChild(document.createTextNode(" · instance size " + size(c.instance_size) + " · " + num(c.instance_count) +
        " instances · retained " + size(c.retained_bytes) + " · native " + size(c.native_bytes)));
      box.appendChild(p);
      box.appendChild(el("h3", {}, "Fields"));
      box.appendChild(HK.table(cols([["name", "name"], ["type", "type"], ["class", "declared in", "class"]]), c.fields));
      box.appendChild(el("h3", {}, "Statics"));
      box.appendChild(HK.table(cols([["name", "name"], ["type", "type"], ["value", "value", function (r) { return isId(r.value) ? HK.idLink(r.value) : r.value; }],
        ["class", "class", "class"]]), c.statics));
    });
    return section("Instances", q("instances", { "class": name, n: 50, offset: off, sort: sort }), function (box, rows) {
      var s = el("p", { "class": "controls" }, "sorted by ");
      ["retained_bytes", "shallow_bytes", "id"].forEach(function (k) {
        var a = link("#", k); if (k === sort) a.className = "on";
        a.onclick = function (e) { e.preventDefault(); go(0, k); };
        s.appendChild(a); s.appendChild(document.createTextNode(" "));
      });
      box.appendChild(s);
      if (info.baseline) box.appendChild(para("Each instance beside the object the diff pairs it with in the baseline (NEW: none); REMOVED: the baseline's instances on this page with no counterpart.", "note"));
      box.appendChild(HK.table(cols(withBase([["id", "object", "id"], ["heap", "heap"], ["shallow_bytes", "shallow", "bytes"],
        ["retained_bytes", "retained", "bytes"], ["reachability", "reachability"], ["value", "value"]], ["retained_bytes"])), rows, { id: "instances" }));
      pager(box, { offset: off, n: 50, got: rows.filter(function (r) { return r.change !== "REMOVED"; }).length }, function (o) { go(o); });
    });
  }

  // ---- Object ----
  var ELEMENTS = 100;
  function objectPage(rest, params) {
    var id = rest[0], off = Math.max(0, +(params.offset || 0) || 0);
    var head = section("Object " + id, Promise.all([q("object", { id: id, elements: ELEMENTS, offset: off }), q("dominators", { id: id, n: 0 })]), function (box, r) {
      var o = r[0], self = r[1].filter(function (x) { return x.relation === "object"; })[0] || {};
      var p = el("p", { "class": "objhead" });
      p.appendChild(HK.classLink(o.kind === "class" ? "class " + (o.class || "") : o.class));
      p.appendChild(document.createTextNode(" · " + o.kind + (o.heap ? " · heap " + o.heap : "") +
        (o.reachability ? " · " + o.reachability : "") + " · shallow " + size(o.shallow_bytes) +
        " · retained " + size(self.retained_bytes) + (o.native_bytes ? " · native " + size(o.native_bytes) : "") +
        (self.retained_native_bytes ? " · retained native " + size(self.retained_native_bytes) : "") +
        (o.length !== null && o.length !== undefined ? " · length " + num(o.length) : "")));
      box.appendChild(p);
      if (o.value !== null && o.value !== undefined) box.appendChild(el("pre", { "class": "value" }, typeof o.value === "string" ? o.value : JSON.stringify(o.value)));
      if (/^android\.graphics\.Bitmap$/.test(o.class)) {
        var fig = el("figure", { "class": "bitmap big" });
        var img = el("img", { src: "/api/bitmap?id=" + id, alt: "pixels of " + id });
        img.onerror = function () { fig.replaceChild(el("div", { "class": "noimg" }, "no pixels for this Bitmap"), img); };
        fig.appendChild(img);
        var fv = {};
        (o.fields || []).forEach(function (x) { if (fv[x.name] === undefined) fv[x.name] = x; });
        var ptr = fv.mNativePtr || fv.mNativeBitmap, val = function (k) { return fv[k] ? fv[k].value : "?"; };
        fig.appendChild(el("figcaption", { id: "bmcaption" }, val("mWidth") + "×" + val("mHeight") +
          (o.native_bytes ? " · " + size(o.native_bytes) + " native" : "") +
          (ptr ? " · pointer 0x" + BigInt.asUintN(ptr.type === "int" ? 32 : 64, BigInt(ptr.value)).toString(16) : "")));
        box.appendChild(fig);
      }
      if (o.fields) { box.appendChild(el("h3", {}, "Fields")); box.appendChild(fieldTable(o.fields)); }
      if (o.statics) { box.appendChild(el("h3", {}, "Statics")); box.appendChild(fieldTable(o.statics)); }
      if (o.elements) elementsPart(box, id, o, off, params);
      if (o.allocation_stack) { box.appendChild(el("h3", {}, "Allocated at")); box.appendChild(autoTable(o.allocation_stack)); }
      box.appendChild(el("h3", {}, "Dominator chain"));
      var chain = r[1].filter(function (x) { return x.relation === "dominator"; });
      box.appendChild(chain.length ? HK.table(cols([["id", "object", "id"], ["class", "class", "class"], ["retained_bytes", "retained", "bytes"]]), chain)
        : para("held by the root set itself"));
    });
    section("Path from a GC root", q("path", { id: id }), function (box, rows) {
      box.appendChild(HK.table(cols([["step", "#"], ["reference", "via", "ref"], ["object", "object", "id"], ["class", "class", "class"],
        ["retained_bytes", "retained", "bytes"], ["thread", "thread"]]), rows, { id: "path" }));
    });
    if (info.baseline) {
      var db = el("section"), btn = el("button", { id: "matchbtn" }, "Was it in the baseline? (runs the diff)");
      db.appendChild(h2("Against the baseline"));
      db.appendChild(btn);
      btn.addEventListener("click", function () {
        btn.disabled = true;
        q("diff", { object: id }).then(function (d) {
          var o = d.object || {};
          var p = el("p", { id: "matched" }, o.status === "same" ? "matched to " + o.counterpart + " in the baseline" + (o.path ? ", at " + o.path : "")
            : o.status === "added" ? "not in the baseline: added" + (o.path ? " under " + o.path : "") : JSON.stringify(o));
          db.appendChild(p);
          if ((o.changes || []).length) db.appendChild(HK.table(cols([["field", "field"], ["base", "in the baseline"], ["dump", "now"]]), o.changes));
        }, function (e) { fail(db, e); });
      });
      page.appendChild(db);
    }
    var lb = el("section"), trace = leakTrace(id);
    lb.appendChild(h2("Leak trace (as leaks judges it)"));
    if (trace) lb.appendChild(traceList(trace));
    else {
      var lbtn = el("button", { id: "leakbtn" }, "Is it a leak? (runs the leak search)");
      lbtn.addEventListener("click", function () {
        lbtn.disabled = true;
        q("leaks").then(function (res) {
          var t = null;
          (res.leaks || []).forEach(function (g) { (g.traces || []).forEach(function (x) { if (x.object === id) t = x; }); });
          lb.appendChild(t ? traceList(t) : para("not among the leaks the finders report", "leakno"));
        }, function (e) { fail(lb, e); });
      });
      lb.appendChild(lbtn);
    }
    page.appendChild(lb);
    var roff = Math.max(0, +(params.roff || 0) || 0);
    section("Referrers" + (roff ? " from " + num(roff) : ""), q("referrers", { id: id, n: 50, offset: roff }), function (box, rows) {
      box.appendChild(rows.length ? HK.table(cols([["id", "object", "id"], ["class", "class", "class"], ["reference", "points with", "ref"],
        ["retained_bytes", "retained", "bytes"], ["reachability", "reachability"]]), rows, { id: "referrers" }) : para(roff ? "no more referrers" : "nothing refers to it"));
      pager(box, { offset: roff, n: 50, got: rows.length }, function (o) { location.hash = "#/object/" + id + "?offset=" + off + "&roff=" + o; });
    });
    section("Immediately dominated", q("dominators", { id: id, n: 50 }), function (box, rows) {
      rows = rows.filter(function (x) { return x.relation === "dominated"; });
      box.appendChild(rows.length ? HK.table(cols([["id", "object", "id"], ["class", "class", "class"], ["retained_bytes", "retained", "bytes"]]), rows)
        : para("it dominates nothing"));
    });
    return head;
  }
  // an array's elements, ELEMENTS a page from index off (any index one jump away), and a char[]
  // or byte[] page also as text
  function elementsPart(box, id, o, off, params) {
    var last = off + o.elements.length - 1;
    box.appendChild(el("h3", {}, o.elements.length ? "Elements " + num(off) + "–" + num(last) + " of " + num(o.length) : "Elements (none from " + num(off) + ")"));
    var go = function (i) { location.hash = "#/object/" + id + "?offset=" + i + (params.roff ? "&roff=" + params.roff : ""); };
    var bar = el("p", { "class": "pager", id: "elempager" });
    if (off > 0) { var a = link("#", "◀ previous " + ELEMENTS); a.onclick = function (e) { e.preventDefault(); go(Math.max(0, off - ELEMENTS)); }; bar.appendChild(a); }
    if (off + ELEMENTS < o.length) { var b = link("#", "next " + ELEMENTS + " ▶"); b.onclick = function (e) { e.preventDefault(); go(off + ELEMENTS); }; bar.appendChild(b); }
    if (o.length > ELEMENTS) {
      var f = el("form", { id: "elemjump" }), i = el("input", { id: "elemindex", type: "number", min: 0, max: o.length - 1, placeholder: "index" });
      f.appendChild(document.createTextNode(" from index ")); f.appendChild(i); f.appendChild(el("button", {}, "go"));
      f.addEventListener("submit", function (e) { e.preventDefault(); if (i.value !== "") go(Math.min(Math.max(0, +i.value), o.length - 1)); });
      bar.appendChild(f);
    }
    box.appendChild(bar);
    if (typeof o.text === "string") box.appendChild(el("pre", { "class": "value", id: "elemtext" }, o.text));
    box.appendChild(HK.table(cols([["index", "index"], ["value", "value", valueCell]]), o.elements, { id: "elements" }));
  }
  // a field's or an element's value: a reference as its id with its class and a String's text
  function valueCell(r) {
    if (isId(r.value) && r.type !== "long") {
      var s = el("span");
      s.appendChild(HK.idLink(r.value));
      if (r.class) { s.appendChild(document.createTextNode(" ")); s.appendChild(HK.classLink(r.class)); }
      if (r.string !== undefined) s.appendChild(el("span", { "class": "str" }, " " + JSON.stringify(r.string)));
      return s;
    }
    return r.value === null ? "null" : r.value;
  }
  function fieldTable(fields) {
    return HK.table(cols([["name", "name"], ["type", "type"], ["value", "value", valueCell]]), fields, { "class": "fields" });
  }

  // ---- Dominators ----
  // one level of the tree as nested lists: a row opens to what it dominates, fetched when opened
  function domList(rows) {
    var ul = el("ul", { "class": "domtree" });
    rows.forEach(function (r) {
      var li = el("li"), d = el("details"), sum = el("summary");
      if (r.change) { sum.appendChild(markOf(r)); sum.appendChild(document.createTextNode(" ")); }
      sum.appendChild(el("span", { "class": "n" }, size(r.retained_bytes)));
      if (r.change && r.change !== "NEW") sum.appendChild(el("span", { "class": "was" }, " (was " + size(r.base_retained_bytes) + ")"));
      sum.appendChild(document.createTextNode(" "));
      sum.appendChild(HK.classLink(r.class));
      sum.appendChild(document.createTextNode(" "));
      if (!r.id) { sum.appendChild(el("span", { "class": "base-id" }, r.baseline_id + " in the baseline")); li.appendChild(sum); ul.appendChild(li); return; }
      sum.appendChild(HK.idLink(r.id));
      sum.appendChild(document.createTextNode(" "));
      sum.appendChild(link("#/dominators/" + r.id, "treemap ▸"));
      d.appendChild(sum);
      d.addEventListener("toggle", function () {
        if (!d.open || d.getAttribute("data-loaded")) return;
        d.setAttribute("data-loaded", "1");
        q("dominated", { id: r.id, n: 100 }).then(function (kids) {
          d.appendChild(kids.length ? domList(kids) : para("it dominates nothing"));
        }, function (e) { fail(d, e); });
      });
      li.appendChild(d);
      ul.appendChild(li);
    });
    return ul;
  }
  function dominators(rest) {
    var root = rest[0];
    return section(root ? "Dominated by " + root : "Dominator tree", q("dominated", { id: root || "", n: 200 }), function (box, rows) {
      var p = el("p");
      if (root) {
        p.appendChild(link("#/dominators", "the tops of the tree"));
        p.appendChild(document.createTextNode(" › "));
        p.appendChild(HK.idLink(root));
        p.appendChild(document.createTextNode(" · "));
      }
      p.appendChild(document.createTextNode("Each rectangle is an object " + (root ? "it" : "no other object") +
        " immediately dominates, its area what it retains; click one to drill in. Below, the same as a list that opens level by level."));
      box.appendChild(p);
      box.appendChild(treemap(rows));
      box.appendChild(domList(rows));
    });
  }

  // the report's treemap layout (ui.js), one level: every rectangle drills into its object
  function treemap(rows) {
    var tm = el("div", { id: "tm" }), w = Math.min(page.clientWidth || 1000, 1200), h = 420;
    tm.style.width = w + "px"; tm.style.height = h + "px";
    HK.squarify(rows.filter(function (r) { return r.id; }).map(function (r) { return { r: r.retained_bytes, row: r }; }), 0, 0, w, h).forEach(function (b) {
      var r = b.n.row, d = el("a", { "class": "tm" + (r.change ? " " + r.change : ""), href: "#/dominators/" + r.id,
        title: (r.change ? r.change + " " : "") + r.class + " " + r.id + " retains " + size(r.retained_bytes) + (r.change && r.change !== "NEW" ? ", was " + size(r.base_retained_bytes) : "") });
      d.style.left = b.x + "px"; d.style.top = b.y + "px"; d.style.width = b.w + "px"; d.style.height = b.h + "px";
      var hue = 0;
      for (var i = 0; i < r.class.length; i++) hue = (hue * 31 + r.class.charCodeAt(i)) % 360;
      d.style.background = "hsl(" + hue + ",45%,42%)";
      if (b.w > 40 && b.h > 14) d.textContent = r.class.replace(/^.*\./, "") + " " + size(r.retained_bytes);
      tm.appendChild(d);
    });
    return tm;
  }

  // ---- Leaks ----
  // the leak trace whose leaking object is id, when the overview's facts are loaded
  function leakTrace(id) {
    var found = null;
    ((facts && facts.leaks && facts.leaks.leaks) || []).forEach(function (g) {
      (g.traces || []).forEach(function (t) { if (t.object === id) found = t; });
    });
    return found;
  }
  function traceList(t) {
    var ol = el("ol", { "class": "trace" });
    ol.appendChild(el("li", {}, "GC root " + (t.root && t.root.type || "") + (t.root && t.root.thread ? " (thread " + t.root.thread + ")" : "")));
    t.steps.forEach(function (s) {
      var li = el("li", { "class": (s.suspect ? "suspect " : "") + (s.status === "LEAKING" ? "leaking" : "") });
      li.appendChild(HK.classLink(s.class));
      li.appendChild(document.createTextNode(" "));
      li.appendChild(HK.idLink(s.object));
      li.appendChild(el("span", { "class": "step" }, " " + HK.reference(s.reference)));
      li.appendChild(el("span", { "class": "status" }, s.status));
      if (s.reasons && s.reasons.length) li.appendChild(el("span", { "class": "why" }, " " + s.reasons.join("; ")));
      ol.appendChild(li);
    });
    return ol;
  }
  function leaks() {
    return section("Leaks", q("leaks"), function (box, res) {
      var groups = res.leaks || [];
      if (!groups.length) box.appendChild(para("no leaks found"));
      groups.forEach(function (g) {
        var d = el("div", { "class": "leak " + g.kind });
        d.appendChild(el("h3", {}, (g.description || g.kind) + " — " + g.count + " × , " + size(g.retained_bytes)));
        d.appendChild(el("div", { "class": "sig" }, g.kind + " · signature " + g.signature));
        g.traces.forEach(function (t) {
          var ol = traceList(t);
          d.appendChild(ol);
        });
        box.appendChild(d);
      });
    });
  }

  // ---- Bitmaps, Strings, Arrays ----
  function bitmaps() {
    return section("Bitmaps", q("bitmaps"), function (box, res) {
      var list = res.bitmaps || res, g = el("div", { "class": "gallery" });
      box.appendChild(para(list.filter(function (b) { return b.id; }).length + " bitmaps, " + size(list.reduce(function (s, b) { return s + (b.bytes || 0); }, 0)) +
        (info.baseline ? "; the baseline's: " + size(list.reduce(function (s, b) { return s + (b.base_bytes || 0); }, 0)) + " (each Bitmap beside the one the diff pairs it with)" : "")));
      list.forEach(function (b) {
        var f = el("figure", { "class": "bitmap" });
        if (!b.id) { // REMOVED: the baseline's, no picture here
          f.appendChild(el("div", { "class": "noimg" }, "in the baseline only"));
          f.insertBefore(markOf(b), f.firstChild);
          f.appendChild(el("figcaption", {}, [b.width + "×" + b.height, size(b.base_bytes), "was " + b.baseline_id].join(" · ")));
          g.appendChild(f);
          return;
        }
        if (b.change) f.appendChild(markOf(b));
        var a = el("a", { href: HK.idHref(b.id) }), img = el("img", { src: "/api/bitmap?id=" + b.id, alt: b.id, loading: "lazy" });
        img.onerror = function () { a.replaceChild(el("div", { "class": "noimg" }, b.reason || "no pixels"), img); };
        a.appendChild(img);
        f.appendChild(a);
        f.appendChild(el("figcaption", {}, b.width + "×" + b.height + " · " + size(b.bytes) + " · " + (b.source || "") + " · ptr " + (b.native_ptr || "–")));
        g.appendChild(f);
      });
      box.appendChild(g);
    });
  }
  function dups(kind) {
    return section("Duplicate " + kind, q("duplicate-" + kind, { n: 100 }), function (box, rows) {
      box.appendChild(autoTable(rows));
    });
  }

  // ---- Diff ----
  function mark(r) {
    if (!r.count_base) return "NEW";
    if (!r.count_dump) return "REMOVED";
    var d = r.retained_delta !== undefined ? r.retained_delta : r.shallow_delta;
    return d > 0 ? "GREW" : d < 0 ? "SHRANK" : "SAME";
  }
  function diff() {
    if (!info.baseline) { page.appendChild(para("diff mode needs hprofkit serve DUMP --baseline EARLIER")); return Promise.resolve(); }
    return section("Diff: " + info.baseline + " → " + info.dump, getDiff(), function (box, d) {
      var s = d.summary || {}, cards = el("div", { "class": "cards" });
      card(cards, "bytes", (s.bytes_delta >= 0 ? "+" : "") + size(s.bytes_delta), size(s.bytes_base) + " → " + size(s.bytes_dump));
      card(cards, "objects", num(s.objects_base) + " → " + num(s.objects_dump), num(s.added_objects) + " added, " + num(s.removed_objects) + " removed");
      card(cards, "matched", num(s.same_objects), "objects the same");
      box.appendChild(cards);
      if (s.top_grower) box.appendChild(para("top grower: " + s.top_grower, "note"));
      box.appendChild(el("h3", {}, "Growers"));
      box.appendChild((d.growers || []).length ? HK.table(cols([["path", "path"], ["class", "class", "class"],
        ["count_base", "elements before", "num"], ["count_dump", "now", "num"], ["count_delta", "grew by", "num"],
        ["retained_delta", "retained grew", "bytes"], ["id_dump", "object", "id"], ["id_base", "in the baseline"]]), d.growers, { id: "growers" })
        : para("no collection or array grew past the thresholds"));
      box.appendChild(el("h3", {}, "Classes (baseline beside current)"));
      var classes = (d.classes || []).slice(0, 200);
      classes.forEach(function (r) { r.change = mark(r); });
      box.appendChild(HK.table(cols([["change", "", function (r) { return el("span", { "class": "mark " + r.change }, r.change); }],
        ["class", "class", "class"], ["count_base", "count before", "num"], ["count_dump", "now", "num"], ["count_delta", "Δ", "num"],
        ["retained_base", "retained before", "bytes"], ["retained_dump", "now", "bytes"], ["retained_delta", "Δ retained", "bytes"]]), classes, { id: "diffclasses" }));
      [["added_by_path", "Added, by the path that holds them"], ["removed_by_path", "Removed, by the path that held them"]].forEach(function (x) {
        box.appendChild(el("h3", {}, x[1]));
        box.appendChild((d[x[0]] || []).length ? autoTable(d[x[0]]) : para("none"));
      });
      var ls = d.leak_signatures || {};
      box.appendChild(el("h3", {}, "Leak signatures"));
      box.appendChild(para((ls.new || []).length + " new, " + (ls.gone || []).length + " gone"));
    });
  }

  // ---- Console ----
  function consolePage() {
    page.appendChild(h2("Console"));
    page.appendChild(para("Run any query with its arguments, or Lua with `dump` bound to the open dump. A snippet may run " +
      (info.time_limit || 10) + " s; while one runs, other API requests wait for it (one Lua state).", "note"));
    var form = el("form", { id: "qform" }), sel = el("select", { id: "qname" }), args = el("div", { id: "qargs" });
    form.appendChild(sel); form.appendChild(args); form.appendChild(el("button", {}, "Run query"));
    page.appendChild(form);
    var lua = el("textarea", { id: "lua", rows: 6, cols: 80 }, "local n = 0\nfor _ in dump:class('java.lang.String'):instances() do n = n + 1 end\nreturn {strings = n}");
    var lform = el("form", { id: "lform" });
    lform.appendChild(lua); lform.appendChild(el("br")); lform.appendChild(el("button", {}, "Run Lua"));
    page.appendChild(lform);
    var out = el("div", { id: "out" });
    page.appendChild(out);
    function show(p) {
      out.textContent = "";
      var w = para("running…", "busy");
      out.appendChild(w);
      return p.then(function (r) {
        w.remove();
        if (r && r.output !== undefined && r.result !== undefined) {
          if (r.output) out.appendChild(el("pre", {}, r.output));
          r = r.result;
        }
        if (Array.isArray(r) && r.length && typeof r[0] === "object") out.appendChild(autoTable(r));
        else if (r && typeof r === "object" && !Array.isArray(r)) out.appendChild(autoTable([r]));
        else out.appendChild(el("pre", {}, JSON.stringify(r, null, 1)));
        document.body.setAttribute("data-console", "ok");
      }, function (e) { w.remove(); fail(out, e); document.body.setAttribute("data-console", "error"); });
    }
    lform.addEventListener("submit", function (e) { e.preventDefault(); show(api("lua", {}, lua.value)); });
    form.addEventListener("submit", function (e) {
      e.preventDefault();
      var p = {};
      args.querySelectorAll("input").forEach(function (i) { if (i.value !== "") p[i.name] = i.type === "checkbox" ? String(i.checked) : i.value; });
      show(q(sel.value, p));
    });
    return api("queries").then(function (list) {
      list.forEach(function (x) { sel.appendChild(el("option", { value: x.name, title: x.help }, x.name)); });
      function fill() {
        args.textContent = "";
        var d = list.filter(function (x) { return x.name === sel.value; })[0], props = d.input_schema.properties;
        args.appendChild(el("p", { "class": "help" }, d.help));
        Object.keys(props).forEach(function (k) {
          var l = el("label", {}, k + " "), pr = props[k];
          var i = el("input", { name: k, placeholder: pr.default !== undefined ? String(pr.default) : (d.input_schema.required.indexOf(k) >= 0 ? "required" : "") });
          l.appendChild(i);
          args.appendChild(l);
        });
      }
      sel.addEventListener("change", fill);
      sel.value = "histogram";
      fill();
    });
  }

  // ---- Search ----
  function search(rest) {
    var s = decodeURIComponent(rest.join("/"));
    if (/^0x[0-9a-f]+$/i.test(s) || /^\d+$/.test(s)) {
      var id = /^\d+$/.test(s) ? "0x" + BigInt(s).toString(16) : s.toLowerCase();
      location.replace("#/object/" + id);
      return Promise.resolve();
    }
    var glob = /[*?]/.test(s) ? s : "*" + s + "*";
    var a = section("Classes matching " + glob, q("histogram", { "class": glob }), function (box, rows) {
      box.appendChild(rows.length ? HK.table(cols(withBase([["class", "class", "class"], ["count", "count", "num"], ["retained_bytes", "retained", "bytes"]], ["count", "retained_bytes"])), rows)
        : para("no class matches"));
    });
    var b = section("Strings containing " + JSON.stringify(s), q("instances", { "class": "java.lang.String", text: s, n: 100 }), function (box, rows) {
      box.appendChild(rows.length ? HK.table(cols([["id", "object", "id"], ["value", "text"], ["retained_bytes", "retained", "bytes"]]), rows)
        : para("no String contains it"));
    });
    return Promise.all([a, b]);
  }

  var routes = { "": overview, classes: classes, "class": classPage, object: objectPage, dominators: dominators, leaks: leaks,
    bitmaps: bitmaps, strings: function () { return dups("strings"); }, arrays: function () { return dups("arrays"); },
    diff: diff, console: consolePage, search: search };
  function route() {
    var h = location.hash.replace(/^#\/?/, ""), qi = h.indexOf("?");
    var params = hashParams(qi >= 0 ? h.slice(qi + 1) : ""), parts = (qi >= 0 ? h.slice(0, qi) : h).split("/");
    var name = parts.shift(), fn = routes[name], mine = ++seq;
    page.textContent = "";
    document.body.removeAttribute("data-ready");
    document.body.setAttribute("data-page", name || "overview");
    document.querySelectorAll("#tabs a").forEach(function (a) { a.classList.toggle("on", a.getAttribute("href") === "#/" + name); });
    if (!fn) { page.appendChild(para("404: no page " + h + " (the tabs above list them)", "error")); document.body.setAttribute("data-ready", "1"); return; }
    Promise.resolve(fn(parts, params)).then(function () { if (mine === seq) document.body.setAttribute("data-ready", "1"); });
  }
  document.getElementById("search").addEventListener("submit", function (e) {
    e.preventDefault();
    location.hash = "#/search/" + encodeURIComponent(document.getElementById("q").value.trim());
  });
  window.addEventListener("hashchange", route);
  api("info").then(function (i) {
    info = i;
    document.getElementById("dumpname").textContent = i.dump + (i.baseline ? " vs " + i.baseline : "");
    document.getElementById("difftab").hidden = !i.baseline;
  }).then(route, function (e) { fail(page, e); });
})();
