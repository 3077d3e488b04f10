//! Policy: the decisions about a URL that need no I/O of their own — scope and patterns
//! (`filter`), cache keys (`url_norm`), the longest URL
//! requested (`url_cap`), robots.txt rules (`robots`, handed its fetch),
//! mail address syntax (`mail`), the text join of a plain relative link (`local_join`), a URL
//! parsed near another of the same site (`parse_near`), a URL's origin as text (`origin`),
//! link rewriting (`remap`), whether a redirect ended on a login page (`login_page`), the web archive's answer for a
//! broken link (`wayback`) and
//! per-host politeness (`host_table`; `host_gate`, the slots
//! `wait_for_host` hands out; `wait_spans`, the wall time a host was waited for). Depends on
//! the model and the config (see ARCHITECTURE.md). Which addresses may be connected to
//! (`address`: loopback, private, link-local).

pub(crate) mod address;
pub(crate) mod filter;
pub(crate) mod github_checkout;
pub(crate) mod host_gate;
pub(crate) mod host_table;
pub(crate) mod local_join;
pub(crate) mod login_page;
pub(crate) mod mail;
pub(crate) mod origin;
pub(crate) mod parse_near;
pub(crate) mod remap;
pub(crate) mod robots;
pub(crate) mod robots_group;
pub(crate) mod url_cap;
pub(crate) mod url_norm;
pub(crate) mod wait_spans;
pub(crate) mod wayback;
