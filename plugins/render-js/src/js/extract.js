// The rendered page's links (as the static extractor reads them: a, area, link, iframe, img,
// srcset), its anchors (ids, <a name>, the hash it routed to) and its scripts' errors, as one
// JSON string.
JSON.stringify((() => {
  const links = [];
  const add = (v) => {
    if (typeof v !== "string" || !v.trim() || links.length >= 50000) return;
    try { links.push(new URL(v.trim(), document.baseURI).href); } catch (e) {}
  };
  const attr = (sel, name) => {
    for (const e of document.querySelectorAll(sel)) add(e.getAttribute(name));
  };
  attr("a[href]", "href");
  attr("area[href]", "href");
  attr("link[href]", "href");
  attr("iframe[src]", "src");
  attr("img[src]", "src");
  for (const e of document.querySelectorAll("img[srcset], source[srcset]")) {
    for (const part of e.getAttribute("srcset").split(/,\s+/)) add(part.trim().split(/\s+/)[0]);
  }
  const anchors = [];
  for (const e of document.querySelectorAll("[id]")) if (e.id && anchors.length < 50000) anchors.push(e.id);
  for (const e of document.querySelectorAll("a[name]")) if (e.name && anchors.length < 50000) anchors.push(e.name);
  const s = window.__linkpatrol;
  return { links, anchors, hash: location.hash.slice(1), errors: s ? s.errors : [] };
})())
