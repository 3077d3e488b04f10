// Runs before the page's own scripts in every document of the tab: counts the requests in
// flight (fetch, XHR) and the short timers pending, notes when the DOM last changed, and keeps
// the errors the page's scripts throw, so linkpatrol can tell when the page has settled.
(() => {
  if (window.__linkpatrol) return;
  const s = { inflight: 0, timers: 0, last: Date.now(), errors: [], wait: window.setTimeout };
  Object.defineProperty(window, "__linkpatrol", { value: s });
  const note = () => { s.last = Date.now(); };
  const keep = (m) => { if (s.errors.length < 10) s.errors.push(String(m).slice(0, 300)); };
  addEventListener("error", (e) => keep(e.message || e));
  addEventListener("unhandledrejection", (e) => keep("unhandled rejection: " + ((e.reason && e.reason.message) || e.reason)));
  const f = window.fetch;
  if (f) {
    window.fetch = function (...a) {
      s.inflight++; note();
      return f.apply(this, a).finally(() => { s.inflight--; note(); });
    };
  }
  const send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function (...a) {
    s.inflight++; note();
    this.addEventListener("loadend", () => { s.inflight--; note(); });
    return send.apply(this, a);
  };
  // A timer of up to 2 s is part of loading the page; longer ones (polling) are not waited for.
  const pending = new Set();
  window.setTimeout = function (fn, ms, ...a) {
    const short = !(ms > 2000);
    let id;
    const run = function () {
      if (pending.delete(id)) s.timers--;
      note();
      return typeof fn === "function" ? fn.apply(this, a) : undefined;
    };
    id = s.wait.call(window, run, ms);
    if (short) { pending.add(id); s.timers++; }
    return id;
  };
  const clear = window.clearTimeout;
  window.clearTimeout = function (id) {
    if (pending.delete(id)) s.timers--;
    return clear.call(window, id);
  };
  new MutationObserver(note).observe(document, { subtree: true, childList: true, attributes: true });
})();
