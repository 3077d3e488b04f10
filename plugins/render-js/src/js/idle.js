// `true` once the page has settled: the document loaded, no fetch() or XHR in flight, no
// timer of up to 2 s pending, and the DOM unchanged for QUIET ms (see instrument.js).
(() => {
  const s = window.__linkpatrol;
  return location.href !== "about:blank" && document.readyState === "complete" &&
    (!s || (s.inflight <= 0 && s.timers <= 0 && Date.now() - s.last >= QUIET));
})()
