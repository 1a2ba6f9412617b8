/* optrace offline bundle: fills the sidebar's groups and runs the search
 * over op and aten names, from window.OPTRACE_INDEX (search-index.js).
 * Plain script, no library, nothing fetched: it works from file://. */
(function () {
  "use strict";
  var data = window.OPTRACE_INDEX;
  var body = document.body;
  var root = body.getAttribute("data-root") || "";
  var page = body.getAttribute("data-page") || "";
  var input = document.getElementById("search");
  var results = document.getElementById("results");
  var MAX = 50;

  if (!data || !input || !results)
    return;

  function link(op) {
    var a = document.createElement("a");
    a.href = root + op.p;
    a.textContent = op.n;
    if (op.p === page)
      a.setAttribute("aria-current", "page");
    return a;
  }

  /* the sidebar: every op under its group */
  var lists = {};
  var details = document.querySelectorAll("details[data-group]");
  for (var i = 0; i < details.length; i++)
    lists[details[i].getAttribute("data-group")] = details[i].querySelector("ul.ops");
  for (var k = 0; k < data.ops.length; k++) {
    var op = data.ops[k], list = lists[String(op.g)];
    if (!list)
      continue;
    var li = document.createElement("li");
    li.appendChild(link(op));
    list.appendChild(li);
  }

  /* the search: an op's name (or the name it was asked by) first, exact,
   * then at the start, then anywhere; then its aten overloads */
  function plain(s) {
    s = s.toLowerCase().replace(/^\s+|\s+$/g, "");
    return s.replace(/^torch\.ops\.aten\./, "").replace(/^aten::/, "");
  }

  function rank(op, q) {
    var names = [op.n.toLowerCase()];
    if (op.i)
      names.push(op.i.toLowerCase());
    var best = -1;
    for (var j = 0; j < names.length; j++) {
      var n = names[j], short = n.replace(/^(nn\.|f\.|tensor\.|torch\.|aten::)/, "");
      var r = n === q || short === q ? 0 : short.indexOf(q) === 0 ? 1 : n.indexOf(q) >= 0 ? 2 : -1;
      if (r >= 0 && (best < 0 || r < best))
        best = r;
    }
    if (best >= 0)
      return {rank: best, aten: null};
    for (var a = 0; a < op.a.length; a++)
      if (op.a[a].toLowerCase().indexOf(q) >= 0)
        return {rank: 3, aten: op.a[a]};
    return null;
  }

  function search(text) {
    var q = plain(text), hits = [];
    results.textContent = "";
    if (!q) {
      results.hidden = true;
      return hits;
    }
    for (var k = 0; k < data.ops.length; k++) {
      var r = rank(data.ops[k], q);
      if (r)
        hits.push({op: data.ops[k], rank: r.rank, aten: r.aten, order: k});
    }
    hits.sort(function (x, y) { return x.rank - y.rank || x.order - y.order; });
    for (var h = 0; h < hits.length && h < MAX; h++) {
      var li = document.createElement("li");
      li.appendChild(link(hits[h].op));
      if (hits[h].aten) {
        var s = document.createElement("span");
        s.className = "aten";
        s.textContent = " aten::" + hits[h].aten;
        li.appendChild(s);
      }
      results.appendChild(li);
    }
    if (hits.length > MAX || !hits.length) {
      var more = document.createElement("li");
      more.className = "none";
      more.textContent = hits.length ? (hits.length - MAX) + " more: type more of the name"
                                     : "No op or aten name matches";
      results.appendChild(more);
    }
    results.hidden = false;
    return hits;
  }

  input.addEventListener("input", function () { search(input.value); });
  input.form.addEventListener("submit", function (ev) {
    var hits = search(input.value);
    ev.preventDefault();
    if (hits.length)
      window.location.href = root + hits[0].op.p;
  });

  /* index.html?q=LSTM searches at once */
  var m = /[?&]q=([^&#]*)/.exec(window.location.search);
  if (m) {
    input.value = decodeURIComponent(m[1].replace(/\+/g, " "));
    search(input.value);
  }
})();
