// Builds the page: links at once, after a fetch() of JSON, after a 300 ms timer; a router.
const root = document.getElementById("root");
const link = (href, text) => {
  const a = document.createElement("a");
  a.href = href;
  a.textContent = text || href;
  root.appendChild(a);
};
link("/js-ok.html");
link("/js-missing.html");
link("#/settings", "settings (hash route)");
link("/app/settings", "settings (pushState route)");
const img = document.createElement("img");
img.src = "/logo.png";
root.appendChild(img);
const target = document.createElement("h2");
target.id = "made-by-script";
root.appendChild(target);
fetch("/api/links.json").then((r) => r.json()).then((j) => j.links.forEach((h) => link(h)));
setTimeout(() => { link("/timer-ok.html"); link("/timer-missing.html"); }, 300);
addEventListener("click", (e) => {
  const a = e.target.closest("a");
  if (a && a.pathname.startsWith("/app/")) { e.preventDefault(); history.pushState({}, "", a.href); }
});
