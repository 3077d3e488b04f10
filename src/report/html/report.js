// linkpatrol HTML report: row filters and sortable columns. Plain DOM, no data, no network.
(function () {
  "use strict";
  var table = document.getElementById("entries");
  if (!table) {
    return;
  }
  var body = table.tBodies[0];
  var rows = Array.prototype.slice.call(body.rows);
  var heads = Array.prototype.slice.call(table.tHead.rows[0].cells);
  var buttons = Array.prototype.slice.call(document.querySelectorAll("[data-filter]"));
  var counter = document.getElementById("shown-count");

  function filter(name) {
    var visible = 0;
    rows.forEach(function (row) {
      row.hidden = name !== "all" && !row.classList.contains(name);
      if (!row.hidden) {
        visible += 1;
      }
    });
    buttons.forEach(function (b) {
      b.setAttribute("aria-pressed", String(b.getAttribute("data-filter") === name));
    });
    if (counter) {
      counter.textContent = "showing " + visible + " of " + rows.length;
    }
  }

  function key(row, column, numeric) {
    var cell = row.cells[column];
    var value = cell.hasAttribute("data-sort") ? cell.getAttribute("data-sort") : cell.textContent;
    if (!numeric) {
      return value.toLowerCase();
    }
    var n = parseFloat(value);
    return isNaN(n) ? -Infinity : n;
  }

  function sortBy(column) {
    var th = heads[column];
    var ascending = th.getAttribute("aria-sort") !== "ascending";
    var numeric = th.getAttribute("data-type") === "num";
    var keyed = rows.map(function (row, i) {
      return { row: row, key: key(row, column, numeric), i: i };
    });
    keyed.sort(function (a, b) {
      var c = a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
      return (ascending ? c : -c) || a.i - b.i;
    });
    heads.forEach(function (h) {
      h.removeAttribute("aria-sort");
    });
    th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
    rows = keyed.map(function (k) {
      return k.row;
    });
    rows.forEach(function (row) {
      body.appendChild(row);
    });
  }

  heads.forEach(function (th, column) {
    var button = document.createElement("button");
    button.type = "button";
    button.title = "Sort by this column";
    while (th.firstChild) {
      button.appendChild(th.firstChild);
    }
    th.appendChild(button);
    button.addEventListener("click", function () {
      sortBy(column);
    });
  });
  buttons.forEach(function (b) {
    b.addEventListener("click", function () {
      filter(b.getAttribute("data-filter"));
    });
  });
  filter("all");
}());
