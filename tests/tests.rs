//! The one integration-test binary: real HTTP over loopback sockets, the real CLI binary.

/// Servers, proxies, desktop tools and report readers shared by the test modules.
pub mod support;

/// Memory bounded by the limits: links past --max-urls counted, not stored; a prompt exit
/// after Ctrl-C with many URLs queued.
mod bounded;
/// Where a browser and linkpatrol could disagree: HTML without a Content-Type, a HEAD that lies.
mod browser_agreement;
/// Cancel: prompt return, interrupted report with every finished result.
mod cancel;
/// `--changed-since` in an untrusted checkout: its git configuration runs nothing, no changed
/// file outside it is read, names that are not UTF-8 are checked.
mod changed_untrusted;
/// Files a checkout supplies (ignore files, `book.toml`, a local config) as FIFOs, devices and
/// links out of the folder: never read, no hang, no line of theirs printed.
mod checkout_files;
/// The binary: exit codes, CSV shape, Ctrl-C, the bundled example site.
mod cli;
/// The config file through the binary: discovery, precedence, round trip, errors.
mod config_file;
/// Which config files are read: several `-c` merged in order, `pyproject.toml` and
/// `Cargo.toml` tables named or found (untrusted), a named file without its table.
mod config_sources;
/// `--cookie-jar`: cookies servers set saved (0600, never through a link) and sent next run,
/// to their own host only.
mod cookie_jar;
/// Whole crawls: each URL once, every referrer, 1 vs 16 threads, scope.
mod crawl;
/// Credentials: masked in every report format, error message and plugin program; `[[auth]]`
/// only for its own origin.
mod credentials;
/// Hostile PDFs and Office documents: read within their document's budgets, never a bomb.
mod document_budgets;
/// A server that fails: refused, dropped and reset connections, hangs, 429/503 with
/// Retry-After, slow, huge and compressed bodies; each fault a clear row, retried as it should.
mod faults;
/// How one URL is requested: redirects, HEAD then GET, proxies, a self-signed certificate.
mod fetching;
/// A folder check reads only its folders: `..%2F`, `../`, symbolic links pointing out.
mod folder_scope;
/// `--login-url`: a form login before the crawl (CSRF token, session cookie), logout links
/// never followed, a lost session said once, a refused password exits 2, no password shown.
mod form_login;
/// `--check-anchors`: missing fragments are errors; Markdown heading slugs; start URL fragments.
mod fragments;
/// One folder through the command line and the Rust API: the same rows.
mod front_doors;
/// GitHub through --remap to loopback: line and `user-content-` anchors, --github-token sent
/// to GitHub only and never shown.
mod github;
/// `-h` fits a screen, `--help` and `linkpatrol help` are the full reference.
mod help_text;
/// The HTML report parsed back (summary, broken links by page, escaping) and shown in Chromium.
mod html_report;
/// Every input kind: several URLs, stdin, lists, sitemaps, Markdown, CSS, text, local sites.
mod inputs;
/// Install integrations: completions in bash/zsh/fish, the man page in groff, the pre-commit
/// hook over several staged files.
mod install;
/// Query strings of links on a page in a legacy charset take its encoding.
mod legacy_charset;
/// The library embedded from plain threads: streaming, in-memory HTML, two checkers.
mod library;
/// Out-of-range settings: refused with one line or clamped, never a panic.
mod limits;
/// A local folder and its index.html, a file and its query strings: one document each.
mod local_documents;
/// URLs over 8,192 characters: never requested, an error for every page linking one.
mod long_urls;
/// --check-mx against a fake DNS resolver on loopback UDP.
mod mail_dns;
/// Links inside Office documents the test builds: each at its slide or sheet.
mod office_documents;
/// Results independent of link order: a page first found nofollow or beyond -r is parsed.
mod parse_order;
/// Plugins: anchors (each page fetched once), regex, command timeout and process group,
/// cert-expiry (deadline, proxy), formats.
mod plugins;
/// Per-host interval and in-flight caps, from the server's timestamps.
mod politeness;
/// `--preprocess`: local files read through a program; a failing, slow or verbose program is
/// an error row for its file.
mod preprocess;
/// Loopback, private and link-local addresses: left out for public start sites, and on request.
mod private_addresses;
/// Servers that behave like well-known real sites: HEAD answered wrongly, cookie redirects,
/// bot walls, login pages, dead hosts.
mod real_web;
/// One redirect chain, one budget: `--max-redirects` and loops across hosts.
mod redirect_budget;
/// --remap: production links checked on a loopback server, both URLs in the report.
mod remap;
/// --render-js: the single-page-app fixture rendered in headless Chromium.
mod render_js;
/// A repository checked as its renderer shows it: extensions swapped only where the renderer
/// swaps them, undefined reference labels, anchors in another case, did-you-mean hints.
mod renderer_rules;
/// Where reports go: -F files opened before any is truncated; a closed stdout keeps the status.
mod report_files;
/// Every format's content: parsed back, golden files, verbosity, Ctrl-C; compact, github,
/// markdown, text by page, colour, SARIF paths.
mod report_formats;
/// A repository as input: `../` links under --internal-only, the walk (ignore files, hidden
/// files, symbolic links, globs), folder links, autolinks and ignore comments in Markdown.
mod repository;
/// Cookies, basic auth, --accept, --method, other schemes, input errors (exit 2, one line).
mod request_options;
/// `--resume`: a crawl killed with SIGKILL continues where it stopped.
mod resume;
/// `--resume`: robots.txt, stylesheets and redirects of the interrupted run are not requested again.
mod resume_replay;
/// Large-crawl settings: problem-only entries, the bounded result channel.
mod scale;
/// Host-aware scheduling across 22 loopback hosts: a host answering 429 holds only its own tasks.
mod scheduling;
/// Sharding by host: three shards in two phases give the rows of one run, each URL requested once.
mod sharding;
/// Signals to the binary and cancel bookkeeping: whole rows, no lost rows, exact counts.
mod signals;
/// No silent passes: folders without index.html, unparseable starts, robots.txt agent, --max-urls 0.
mod silent_passes;
/// Links that leave the checked folder: anchors up to the git work tree's root, links out of a
/// book's or site's root judged on the deployed site, GitHub links to the checked repository.
mod site_bounds;
/// URLs not checked are counted by reason; a start URL robots.txt refuses is warned about.
mod skipped_urls;
/// One host with a long Crawl-delay or Retry-After parks no worker: other hosts finish as fast.
mod slow_host;
/// --detect-soft-404: one probe per host, shared by the threads; "not found" pages that
/// answer 200 warned about, real pages and correct servers not.
mod soft_404;
/// The CSV in spreadsheets: --csv-bom, and LibreOffice Calc opening it with LinkChecker's 17
/// columns, then ours.
mod spreadsheet;
/// Every format prints the same bytes on every run, whatever the thread count.
mod stable_order;
/// The state file (`--cache`): reuse, history, bad files.
mod state;
/// Crafted state files: links, schemas, times, options; and whose file is reused.
mod state_untrusted;
/// `--max-run-time`: the run stops at its limit, every report written and saying so first,
/// exit 124; from the config file too.
mod time_limit;
/// Typos get a hint: flags, --format, config keys, negative numbers.
mod typo_hints;
/// Text that pages and files choose: spelled out on the terminal, no forged lines.
mod untrusted_text;
/// One "URLs checked": a single run, a resumed run and merged shards agree.
mod url_counts;
/// Which local files are read: --extensions, named files of any extension,
/// --default-extension, --glob-ignore-case, --index-files, a page named through a link.
mod which_files;
