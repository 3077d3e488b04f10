//! The engine: the [`Checker`](checker::Checker) and its worker threads, the per-URL pipeline
//! (`run`), the result cache with its placeholders, the joinable work queue, live progress and
//! the plugin host. The only layer that holds the others together (see ARCHITECTURE.md).

pub(crate) mod cache;
pub(crate) mod checker;
pub(crate) mod plugin_host;
pub(crate) mod progress;
pub(crate) mod queue;
pub(crate) mod run;
