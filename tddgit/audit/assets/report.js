/* tddgit audit report: builds the timeline, charts and findings table from the JSON data
   block. Repository text is only ever set with textContent (never innerHTML), so a commit
   message cannot become markup. Nothing is fetched. */
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("tddgit-data").textContent);
  var PH = {
    r: ["red", "R"], g: ["green", "G"], f: ["refactor", "F"], o: ["other", "O"], n: ["none", "\u2013"]
  };
  var SEV = { error: "\u2716", warning: "\u25B2", note: "i" };
  var RANK = { error: 0, warning: 1, note: 2 };
  var CYCLE = { complete: "\u2713 complete", open: "\u2026 open", broken: "\u2717 broken" };
  var chipOf = {};
  var pinned = null;
  var selectedBar = null;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function put(parent) {
    for (var i = 1; i < arguments.length; i++) if (arguments[i]) parent.appendChild(arguments[i]);
    return parent;
  }
  function pad(n) { return (n < 10 ? "0" : "") + n; }
  function day(t) {
    var d = new Date(t * 1000);
    return d.getUTCFullYear() + "-" + pad(d.getUTCMonth() + 1) + "-" + pad(d.getUTCDate());
  }
  function when(t) {
    var d = new Date(t * 1000);
    return day(t) + " " + pad(d.getUTCHours()) + ":" + pad(d.getUTCMinutes()) + " UTC";
  }
  function dur(s) {
    if (s === null || s === undefined) return "\u2013";
    if (s < 120) return Math.round(s) + " s";
    if (s < 7200) return (s / 60).toFixed(1) + " min";
    if (s < 172800) return (s / 3600).toFixed(1) + " h";
    return (s / 86400).toFixed(1) + " d";
  }
  function num(v, suffix) { return v === null || v === undefined ? "\u2013" : v + (suffix || ""); }
  function glyph(code, extra) {
    var b = el("span", "cm ph-" + code + (extra ? " " + extra : ""), PH[code][1]);
    b.setAttribute("aria-hidden", "true");
    return b;
  }
  function meter(value, max) {
    var m = el("div", "meter");
    var s = el("span");
    s.style.width = (max > 0 && value ? Math.min(100, 100 * value / max) : 0) + "%";
    return put(m, s);
  }
  function author(c) { var a = D.authors[c.a] || ["?", ""]; return a[0] + " <" + a[1] + ">"; }
  function worst(list) {
    var best = "note";
    for (var i = 0; i < list.length; i++) {
      var s = D.findings[list[i]][1];
      if (RANK[s] < RANK[best]) best = s;
    }
    return best;
  }

  /* ---- legend and timeline ---- */
  function legend() {
    var box = document.getElementById("legend");
    ["r", "g", "f", "o", "n"].forEach(function (k) {
      var label = { r: "red (failing test)", g: "green (passing)", f: "refactor",
        o: "other (merge, attempt)", n: "no phase" }[k];
      put(box, put(el("span", "item"), glyph(k), el("span", null, label)));
    });
    var fx = el("span", "cm ph-n");
    put(fx, el("span", "fx fx-error", "!"));
    put(box, put(el("span", "item"), fx, el("span", null, "has findings (\u2716 error, \u25B2 warning)")));
    put(box, el("span", "item muted", "boxes = cycles (\u2713 complete, \u2026 open, \u2717 broken)"));
  }

  function chip(c, i) {
    var b = el("button", "cm ph-" + c.p, PH[c.p][1]);
    b.type = "button";
    b.id = "c-" + c.s;
    b.title = c.s.slice(0, 10) + " \u00B7 " + PH[c.p][0] + " \u00B7 " + c.m;
    b.setAttribute("aria-label", PH[c.p][0] + " commit " + c.s.slice(0, 10) + ": " + c.m);
    if (c.x) {
      var w = worst(c.x);
      put(b, el("span", "fx fx-" + w, "!"));
      b.setAttribute("data-findings", String(c.x.length));
    }
    b.addEventListener("mouseenter", function () { showCommit(i); });
    b.addEventListener("focus", function () { showCommit(i); });
    b.addEventListener("click", function () { location.hash = "c-" + c.s; select(c.s); });
    chipOf[c.s] = b;
    return b;
  }

  function group(cycle, seen) {
    var g = el("div", "grp"), cap = el("span", "cap", "\u00A0");
    put(g, cap);
    if (cycle === null) {
      g.className += " free";
    } else {
      var info = D.cycles[String(cycle)] || ["?", null];
      g.className += " st-" + info[0];
      g.setAttribute("data-cycle", String(cycle));
      cap.textContent = (seen ? "\u21B3 " : "") + "cycle " + cycle + " " + (CYCLE[info[0]] || info[0]).split(" ")[0];
      g.title = "cycle " + cycle + ": " + info[0] + (info[1] !== null ? ", time in red " + dur(info[1]) : "");
    }
    var row = el("div", "row");
    put(g, row);
    return row;
  }

  function timeline() {
    var tl = document.getElementById("tl");
    if (D.dense) {
      put(tl, buckets());
      put(tl, el("h3", null, "The most recent " + (D.commits.length - D.strip) + " commits"));
    }
    if (!D.commits.length) { put(tl, el("p", "hint", "No commits in this range.")); return; }
    var strip = el("div", "strip");
    strip.setAttribute("aria-label", "commits, oldest first");
    var g = null, current, seen = {};
    for (var i = D.strip; i < D.commits.length; i++) {
      var c = D.commits[i];
      var cy = c.c === undefined ? null : c.c;
      if (g === null || cy !== current) {
        g = group(cy, seen[cy]);
        seen[cy] = true;
        current = cy;
        put(strip, g.parentNode);
      }
      put(g, chip(c, i));
    }
    strip.addEventListener("mouseleave", function () { if (pinned !== null) showCommit(pinned); });
    put(tl, strip);
  }

  /* ---- per day / week / month bars for dense histories ---- */
  function buckets() {
    var B = D.buckets;
    var box = el("div", "buckets");
    put(box, el("p", "hint", D.total.commits + " commits, drawn per " + B.unit +
      ". Per-commit detail is kept for the most recent commits and for commits with findings."));
    var bars = el("div", "bars"), fbars = el("div", "fbars"), axis = el("div", "axis");
    var codes = ["r", "g", "f", "o", "n"], max = 1, fmax = 1;
    B.counts.forEach(function (row) {
      max = Math.max(max, row[0] + row[1] + row[2] + row[3] + row[4]);
      fmax = Math.max(fmax, row[5]);
    });
    B.counts.forEach(function (row, k) {
      var total = row[0] + row[1] + row[2] + row[3] + row[4];
      var col = el("div", "bar");
      col.style.height = (100 * total / max) + "%";
      col.tabIndex = 0;
      col.title = bucketLabel(k) + ": " + total + " commits, " + row[5] + " findings";
      for (var s = 0; s < 5; s++) {
        if (!row[s]) continue;
        var seg = el("div", "seg ph-" + codes[s]);
        seg.style.height = (100 * row[s] / total) + "%";
        put(col, seg);
      }
      var show = function () { showBucket(k, col); };
      col.addEventListener("mouseenter", show);
      col.addEventListener("focus", show);
      col.addEventListener("click", show);
      put(bars, col);
      var fb = el("div", "fbar" + (row[6] ? " err" : ""));
      fb.style.height = (row[5] ? Math.max(6, 100 * row[5] / fmax) : 0) + "%";
      put(fbars, fb);
    });
    var n = B.start.length, step = Math.max(1, Math.ceil(n / 6));
    for (var k = 0; k < n; k += step) {
      var lab = el("span", null, day(B.start[k]));
      lab.style.left = (100 * (k + 0.5) / n) + "%";
      if (k === 0) lab.style.transform = "none";
      put(axis, lab);
    }
    return put(box, bars, axis, el("div", "rowlabel", "findings per " + B.unit + " (dark = has errors)"), fbars);
  }

  function bucketLabel(k) {
    var B = D.buckets;
    return B.unit + " of " + day(B.start[k]);
  }

  function showBucket(k, col) {
    if (selectedBar) selectedBar.classList.remove("sel");
    selectedBar = col; col.classList.add("sel");
    var B = D.buckets, row = B.counts[k], lo = B.start[k];
    var hi = k + 1 < B.start.length ? B.start[k + 1] : Infinity;
    var box = document.getElementById("detail");
    box.textContent = "";
    put(box, el("h3", null, bucketLabel(k)));
    var dl = el("dl");
    ["r", "g", "f", "o", "n"].forEach(function (code, s) {
      put(dl, put(el("dt"), glyph(code)), el("dd", null, row[s] + " " + PH[code][0]));
    });
    put(dl, el("dt", null, "findings"), el("dd", null, row[5] + " (" + row[6] + " errors)"));
    put(box, dl);
    var ul = el("ul"), shown = 0;
    D.commits.forEach(function (c) {
      if (c.t < lo || c.t >= hi || shown >= 60) return;
      shown++;
      var a = el("a", null, c.s.slice(0, 10) + " " + c.m);
      a.href = "#c-" + c.s;
      put(ul, put(el("li"), a));
    });
    if (shown) put(box, el("p", "muted", "Commits with detail in this " + B.unit + ":"), ul);
  }

  /* ---- the detail panel ---- */
  function showCommit(i) {
    var c = D.commits[i];
    var box = document.getElementById("detail");
    box.textContent = "";
    var head = el("h3");
    put(head, glyph(c.p), el("span", null, (c.ph || PH[c.p][0]) + (c.at ? " (" + c.at + ")" : "")));
    put(box, head, el("p", "subject", c.m || "(no subject)"));
    var dl = el("dl");
    function row(k, v) { put(dl, el("dt", null, k), el("dd", null, v)); }
    row("commit", c.s);
    row("author", author(c));
    row("time", when(c.t));
    row("phase from", c.src + (c.r ? " (" + c.r + ")" : ""));
    row("files say", c.k + (c.mg ? " (" + c.mg + " parents)" : ""));
    if (c.c !== undefined) {
      var info = D.cycles[String(c.c)] || ["?", null];
      row("cycle", c.c + ", " + info[0] + (info[1] !== null ? ", time in red " + dur(info[1]) : ""));
    }
    put(box, dl);
    if (c.x) {
      put(box, el("h3", null, "Findings (" + c.x.length + ")"));
      var fl = el("ul");
      c.x.forEach(function (n) {
        var f = D.findings[n];
        put(fl, el("li", null, SEV[f[1]] + " " + f[1] + " \u00B7 " + f[0] + ": " + f[4]));
      });
      put(box, fl);
    }
    put(box, el("h3", null, "Evidence"));
    put(box, evidence(c.e));
    put(box, el("h3", null, "Files (" + (c.nf || c.f.length) + ")"));
    var ul = el("ul");
    c.f.forEach(function (f) { put(ul, el("li", null, f[0] + "  " + f[1] + "  (" + f[2] + ")")); });
    if (c.nf) put(ul, el("li", "muted", "\u2026 and " + (c.nf - c.f.length) + " more"));
    if (!c.f.length) put(ul, el("li", "muted", "no files"));
    put(box, ul);
  }

  function evidence(e) {
    if (!e) return el("p", "muted", "no tddgit evidence note");
    if (!e.valid) return el("p", null, "invalid evidence note: " + e.error);
    var wrap = el("div");
    put(wrap, el("p", null, e.phase + " evidence, runner " + e.runner + "; suite: " +
      Object.keys(e.suite).map(function (k) { return k + " " + e.suite[k]; }).join(", ")));
    var ul = el("ul");
    e.targets.forEach(function (t) {
      put(ul, el("li", null, t.id + " \u2192 " + t.outcome + (t.cause ? " (" + t.cause + ")" : "") +
        (t.light ? ", " + t.light : "")));
    });
    if (e.more) put(ul, el("li", "muted", "\u2026 and " + e.more + " more targets"));
    return put(wrap, ul);
  }

  function select(sha) {
    var i = -1;
    for (var n = 0; n < D.commits.length; n++) if (D.commits[n].s === sha) { i = n; break; }
    if (i < 0) return;
    if (pinned !== null && chipOf[D.commits[pinned].s]) chipOf[D.commits[pinned].s].classList.remove("sel");
    pinned = i;
    if (chipOf[sha]) chipOf[sha].classList.add("sel");
    showCommit(i);
  }

  function fromHash() {
    var h = decodeURIComponent(location.hash.slice(1));
    if (h.indexOf("c-") !== 0) return;
    select(h.slice(2));
    if (!chipOf[h.slice(2)]) document.getElementById("timeline").scrollIntoView();
  }

  /* ---- metrics ---- */
  function card(title, body) {
    var c = el("div", "card");
    put(c, el("h3", null, title));
    for (var i = 1; i < arguments.length; i++) put(c, arguments[i]);
    return c;
  }
  function hbar(label, value, max, text) {
    return put(el("div", "hb"), el("span", null, label), meter(value, max), el("span", "v", text));
  }
  function stack(parts) {
    var total = 0, s = el("div", "stack");
    parts.forEach(function (p) { total += p[1]; });
    parts.forEach(function (p) {
      if (!p[1]) return;
      var seg = el("span", p[0]);
      seg.style.width = (100 * p[1] / total) + "%";
      seg.title = p[2] + ": " + p[1];
      put(s, seg);
    });
    return s;
  }
  function keys(parts) {
    var k = el("div", "keys");
    parts.forEach(function (p) {
      put(k, put(el("span", "key"), el("i", p[0]), el("span", null, p[2] + " " + p[1])));
    });
    return k;
  }
  function phaseParts(ph) {
    return [["ph-r", ph.red, "R red"], ["ph-g", ph.green, "G green"],
      ["ph-f", ph.refactor, "F refactor"], ["ph-n", ph.none, "\u2013 none"]];
  }

  function metrics() {
    var m = D.metrics, box = document.getElementById("charts");
    var cards = el("div", "cards");
    var conf = el("div", "big", m.conformance === null ? "\u2013" : m.conformance);
    put(cards, card("Conformance (0\u2013100)", conf, meter(m.conformance, 100),
      el("p", "muted", m.code_commits + " code commits judged")));
    var p = m.process;
    var gmax = Math.max(p.gra || 0, p.uni || 0, 1);
    put(cards, card("Process (Fucci et al. 2017)",
      hbar("SEQ test-first", p.seq, 100, num(p.seq, "%")),
      hbar("REF refactoring", p.ref, 100, num(p.ref, "%")),
      hbar("GRA median", p.gra, gmax, num(p.gra, " min")),
      hbar("UNI MAD", p.uni, gmax, num(p.uni, " min"))));
    put(cards, card("Phases", stack(phaseParts(m.phases)), keys(phaseParts(m.phases)),
      hbar("trailer coverage", m.trailer_coverage, 100, num(m.trailer_coverage, "%")),
      hbar("evidence coverage", m.evidence_coverage, 100, num(m.evidence_coverage, "%"))));
    var ep = m.episodes, epmax = Math.max(1, ep.total);
    var epCard = card("Episodes (" + ep.total + ")");
    ["test-first", "test-last", "test-addition", "refactoring", "production", "unknown"].forEach(function (k) {
      put(epCard, hbar(k, ep[k], epmax, String(ep[k])));
    });
    put(cards, epCard);
    var cy = m.cycles;
    var cparts = [["ok", cy.complete, "\u2713 complete"], ["wait", cy.open, "\u2026 open"], ["bad", cy.broken, "\u2717 broken"]];
    put(cards, card("Cycles (" + cy.total + ")", stack(cparts), keys(cparts)));
    var tr = m.time_in_red, hmax = 1;
    D.red_hist.forEach(function (b) { hmax = Math.max(hmax, b[1]); });
    var red = card("Time in red", el("p", null, "median " + dur(tr.median_seconds) + " \u00B7 mean " +
      dur(tr.mean_seconds) + " \u00B7 max " + dur(tr.max_seconds)));
    D.red_hist.forEach(function (b) { put(red, hbar(b[0], b[1], hmax, String(b[1]))); });
    put(cards, red);
    put(box, cards);
    authors();
  }

  function authors() {
    var list = D.metrics.authors, box = document.getElementById("authors");
    var t = el("table", "authors");
    var head = el("tr");
    ["author", "commits", "phases", "conformance", "SEQ", "GRA", "UNI", "REF", "trailers", "cycles done", "time in red"]
      .forEach(function (h) { put(head, el("th", null, h)); });
    put(t, put(el("thead"), head));
    var body = el("tbody");
    list.forEach(function (a) {
      var r = el("tr");
      put(r, el("td", "name", a.name + " <" + a.email + ">"), el("td", "num", a.commits),
        put(el("td"), stack(phaseParts(a.phases))),
        put(el("td"), put(el("div", "cmeter"), el("span", null, num(a.conformance)), meter(a.conformance, 100))),
        el("td", "num", num(a.process.seq, "%")), el("td", "num", num(a.process.gra, " min")),
        el("td", "num", num(a.process.uni, " min")), el("td", "num", num(a.process.ref, "%")),
        el("td", "num", num(a.trailer_coverage, "%")),
        el("td", "num", a.cycles.complete + "/" + a.cycles.total),
        el("td", "num", dur(a.time_in_red.median_seconds)));
      put(body, r);
    });
    put(box, put(t, body));
    if (D.total.authors > list.length)
      put(box, el("p", "muted", "\u2026 and " + (D.total.authors - list.length) + " more authors (see --format json)"));
  }

  /* ---- findings table ---- */
  function findings() {
    var box = document.getElementById("ftable"), filters = document.getElementById("ffilters");
    if (!D.findings.length) { put(box, el("p", null, "No findings.")); return; }
    var rules = {}, sevs = {};
    D.findings.forEach(function (f) { rules[f[0]] = (rules[f[0]] || 0) + 1; sevs[f[1]] = (sevs[f[1]] || 0) + 1; });
    function choice(label, counts, all) {
      var s = el("select"), first = el("option", null, all + " (" + D.findings.length + ")");
      first.value = "";
      put(s, first);
      Object.keys(counts).sort().forEach(function (k) {
        var o = el("option", null, k + " (" + counts[k] + ")");
        o.value = k;
        put(s, o);
      });
      put(filters, put(el("label", null, label + " "), s));
      return s;
    }
    var rule = choice("rule", rules, "all rules"), sev = choice("severity", sevs, "all severities");
    rule.id = "f-rule"; sev.id = "f-sev";
    var text = el("input");
    text.type = "search"; text.placeholder = "message, path or sha"; text.id = "f-text";
    put(filters, put(el("label", null, "search "), text));
    var count = el("span", "muted");
    count.id = "f-count";
    put(filters, count);
    if (D.total.findings > D.findings.length)
      put(filters, el("span", "muted", "The " + D.findings.length + " most important of " + D.total.findings +
        " findings are listed (errors first, then the most recent); --format json has all."));
    var t = el("table", "findings"), head = el("tr");
    ["severity", "rule", "commit", "time", "author", "message"].forEach(function (h) { put(head, el("th", null, h)); });
    put(t, put(el("thead"), head));
    var body = el("tbody"), rows = [];
    D.findings.forEach(function (f) {
      var c = f[2] >= 0 ? D.commits[f[2]] : null;
      var r = el("tr");
      r.setAttribute("data-rule", f[0]);
      r.setAttribute("data-severity", f[1]);
      var link = el("a", "mono", f[3].slice(0, 10));
      link.href = "#c-" + f[3];
      put(r, put(el("td"), el("span", "sev sev-" + f[1], SEV[f[1]] + " " + f[1])), el("td", "mono", f[0]),
        put(el("td"), link), el("td", null, c ? when(c.t) : ""), el("td", null, c ? D.authors[c.a][0] : ""),
        el("td", "msg", f[4] + (f[5].length ? " \u2014 " + f[5].join(", ") : "")));
      rows.push([r, (f[4] + " " + f[5].join(" ") + " " + f[3]).toLowerCase(), f]);
      put(body, r);
    });
    put(box, put(t, body));
    function apply() {
      var q = text.value.toLowerCase(), shown = 0;
      rows.forEach(function (x) {
        var ok = (!rule.value || x[2][0] === rule.value) && (!sev.value || x[2][1] === sev.value) &&
          (!q || x[1].indexOf(q) >= 0);
        x[0].hidden = !ok;
        if (ok) shown++;
      });
      count.textContent = "showing " + shown + " of " + rows.length;
    }
    rule.addEventListener("change", apply);
    sev.addEventListener("change", apply);
    text.addEventListener("input", apply);
    apply();
  }

  legend();
  timeline();
  metrics();
  findings();
  window.addEventListener("hashchange", fromHash);
  if (location.hash) fromHash();
  else if (D.commits.length) showCommit(D.commits.length - 1);
  document.body.setAttribute("data-ready", "1");
})();
