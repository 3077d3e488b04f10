//! The engine: the [`Checker`](checker::Checker) and its worker threads, the per-URL pipeline
//! (`run` and the files of its steps), the result cache with its placeholders, the joinable
//! work queue, live progress and the plugin host. The only layer that holds the others
//! together (see ARCHITECTURE.md).

mod admit;
mod assemble;
pub(crate) mod cache;
pub(crate) mod check_run;
mod check_task;
pub(crate) mod checker;
mod https_twin;
mod left_site;
mod login;
mod memory;
mod page_links;
mod plugin_hooks;
pub(crate) mod plugin_host;
pub(crate) mod progress;
pub(crate) mod queue;
mod queue_spill;
mod record;
mod resume;
pub(crate) mod run;
mod site_roots;
mod soft_404;
mod state_reuse;
mod state_sink;
mod task_codec;
mod wiki_index;
mod wikilinks;

#[cfg(test)]
mod fake_fetch;
#[cfg(test)]
mod gate_tests;
#[cfg(all(test, feature = "state"))]
mod spill_tests;
#[cfg(test)]
mod tests;
