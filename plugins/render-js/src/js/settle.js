// Resolves once the page has settled (no request in flight, no short timer pending, the DOM
// unchanged for QUIET ms, the document loaded), or at the deadline; `true` when it settled.
new Promise((done) => {
  const s = window.__linkpatrol;
  const wait = s ? s.wait : window.setTimeout;
  const end = Date.now() + LEFT;
  const tick = () => {
    const now = Date.now();
    const idle = document.readyState === "complete" &&
      (!s || (s.inflight <= 0 && s.timers <= 0 && now - s.last >= QUIET));
    if (idle || now >= end) done(idle);
    else wait.call(window, tick, 50);
  };
  tick();
})
