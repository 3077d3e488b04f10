use linkpatrol_plugin_api::testing::FakeServices;
use linkpatrol_plugin_api::{ContentView, LinkView, Options, Plugin, Remark, Url};

use super::{Anchors, TAG};

/// The plugin with `severity=warning`: remarks come as warnings, whose messages tests read.
fn warning_only() -> Anchors {
    Anchors::from_options(&Options::new("anchors").with("severity", "warning")).unwrap()
}

fn url(s: &str) -> Url {
    Url::parse(s).unwrap()
}

fn link<'a>(target: &'a Url, fragment: &'a str) -> LinkView<'a> {
    LinkView {
        target,
        real_target: None,
        written_target: None,
        fragment,
        parent: "http://h.test/from.html",
        target_ok: true,
        target_content_type: Some("text/html"),
        from_mdbook: false,
    }
}

fn feed(plugin: &Anchors, page: &Url, anchors: &[&str]) {
    let anchors: Vec<String> = anchors.iter().map(|a| (*a).to_owned()).collect();
    let view = ContentView {
        url: page,
        final_url: page,
        content_type: Some("text/html"),
        body: b"",
        links: &[],
        anchors: &anchors,
        internal: true,
    };
    assert!(plugin.check_content(&view, &FakeServices::new()).is_empty());
}

fn tags(remarks: &[Remark]) -> Vec<&'static str> {
    remarks
        .iter()
        .map(|r| match r {
            Remark::Warning { tag, .. } => *tag,
            other => panic!("unexpected {other:?}"),
        })
        .collect()
}

#[test]
fn parsed_pages_are_never_fetched_again() {
    let plugin = warning_only();
    let page = url("http://h.test/p.html");
    feed(&plugin, &page, &["intro", "usage"]);
    let services = FakeServices::new();
    for fragment in ["intro", "usage", "missing", "intro"] {
        let _ = plugin.check_link(&link(&page, fragment), &services);
    }
    assert!(services.fetched().is_empty(), "{:?}", services.fetched());
    assert_eq!(
        tags(&plugin.check_link(&link(&page, "missing"), &services)),
        [TAG]
    );
    assert!(
        plugin
            .check_link(&link(&page, "usage"), &services)
            .is_empty()
    );
}

#[test]
fn other_pages_are_fetched_once_however_many_fragments_point_in() {
    let plugin = warning_only();
    let services = FakeServices::new().html("http://other.test/doc", &["a", "b"]);
    let target = url("http://other.test/doc");
    for fragment in ["a", "b", "c", "a", "d"] {
        let _ = plugin.check_link(&link(&target, fragment), &services);
    }
    assert_eq!(services.fetched(), ["http://other.test/doc"]);
}

#[test]
fn encoded_and_unicode_fragments_compare_decoded() {
    let plugin = warning_only();
    let page = url("http://h.test/p.html");
    feed(&plugin, &page, &["café", "a b", "100%", "x%41"]);
    let s = FakeServices::new();
    // The url crate percent-encodes non-ASCII and spaces in fragments.
    for ok in ["caf%C3%A9", "café", "a%20b", "100%", "x%41", "xA"] {
        let r = plugin.check_link(&link(&page, ok), &s);
        if ok == "xA" {
            // `x%41` as written is an id; `xA` is not (only the link side is decoded).
            assert_eq!(tags(&r), [TAG]);
        } else {
            assert!(r.is_empty(), "`{ok}' should match: {r:?}");
        }
    }
    let r = plugin.check_link(&link(&page, "caf%C3%A8"), &s);
    let Remark::Warning { message, .. } = &r[0] else {
        panic!("{r:?}")
    };
    assert!(message.contains("(decoded: `cafè')"), "{message}");
}

#[test]
fn top_and_broken_or_non_html_targets_are_not_checked() {
    let plugin = warning_only();
    let page = url("http://h.test/p.html");
    feed(&plugin, &page, &[]);
    let s = FakeServices::new();
    for f in ["top", "TOP", "Top", ""] {
        assert!(plugin.check_link(&link(&page, f), &s).is_empty(), "{f}");
    }
    let mut broken = link(&page, "nowhere");
    broken.target_ok = false;
    assert!(plugin.check_link(&broken, &s).is_empty());
    let pdf = url("http://h.test/doc.pdf");
    let mut l = link(&pdf, "page=2");
    l.target_content_type = Some("application/pdf");
    assert!(plugin.check_link(&l, &s).is_empty());
    assert!(s.fetched().is_empty());
    // An id named `top` is still fine, and a page without anchors says so.
    let r = plugin.check_link(&link(&page, "nav"), &s);
    let Remark::Warning { message, .. } = &r[0] else {
        panic!("{r:?}")
    };
    assert!(message.contains("has no anchors"), "{message}");
}

#[test]
fn the_message_names_the_closest_anchors_not_the_first_in_order() {
    let plugin = warning_only();
    let page = url("http://h.test/p.html");
    let mut many: Vec<String> = (0..100).map(|i| format!("a{i:02}")).collect();
    many.extend(["TyCtxt", "instalation-guide"].map(String::from));
    let refs: Vec<&str> = many.iter().map(String::as_str).collect();
    feed(&plugin, &page, &refs);
    let message = |fragment: &str| {
        let r = plugin.check_link(&link(&page, fragment), &FakeServices::new());
        let Remark::Warning { message, .. } = &r[0] else {
            panic!("{r:?}")
        };
        message.clone()
    };
    let m = message("tyctxt");
    assert!(
        m.starts_with("Anchor `tyctxt' not found on http://h.test/p.html."),
        "{m}"
    );
    assert!(m.ends_with("Did you mean `TyCtxt'?"), "an HTML page: {m}");
    assert!(
        message("installation-guide").ends_with("Did you mean `instalation-guide'?"),
        "edit distance"
    );
    assert!(
        message("nothing-like-these").ends_with("None of its 102 anchors is close."),
        "no list of every anchor"
    );
}

/// The anchors plugin's remarks on a link to a Markdown page `page` (anchors `summary`,
/// `setup`) with `fragment`, from an mdBook source or not.
fn on_markdown(fragment: &str, from_mdbook: bool) -> Vec<Remark> {
    let plugin = Anchors::default();
    let page = url("file:///repo/guide.md");
    let anchors = ["summary".to_owned(), "setup".to_owned()];
    let view = ContentView {
        url: &page,
        final_url: &page,
        content_type: Some("text/markdown"),
        body: b"",
        links: &[],
        anchors: &anchors,
        internal: true,
    };
    plugin.check_content(&view, &FakeServices::new());
    let mut l = link(&page, fragment);
    l.target_content_type = Some("text/markdown");
    l.from_mdbook = from_mdbook;
    plugin.check_link(&l, &FakeServices::new())
}

#[test]
fn a_case_only_match_on_markdown_is_valid_as_github_shows_it() {
    let r = on_markdown("Summary", false);
    let [Remark::Warning { tag, message }] = &r[..] else {
        panic!("{r:?}")
    };
    assert_eq!(*tag, super::TAG_CASE);
    assert!(
        message.contains("matches `summary' only in another case"),
        "{message}"
    );
    assert!(on_markdown("summary", false).is_empty());
    // In an mdBook the fragment must match exactly; the message names the id meant.
    let r = on_markdown("Summary", true);
    let [Remark::Broken(message)] = &r[..] else {
        panic!("{r:?}")
    };
    assert!(message.ends_with("Did you mean `summary'?"), "{message}");
    // Another word is missing either way.
    assert!(matches!(
        &on_markdown("Sumary-x", false)[..],
        [Remark::Broken(_)]
    ));
}

#[test]
fn a_redirected_target_uses_the_anchors_of_where_it_landed() {
    let plugin = warning_only();
    let landed = url("http://h.test/new.html");
    feed(&plugin, &landed, &["here"]);
    let old = url("http://h.test/old.html");
    let mut l = link(&old, "here");
    l.real_target = Some(&landed);
    let s = FakeServices::new();
    assert!(plugin.check_link(&l, &s).is_empty());
    assert!(s.fetched().is_empty());
}

#[test]
fn only_severity_is_a_setting() {
    let with = |k: &str, v: &str| Anchors::from_options(&Options::new("anchors").with(k, v));
    assert!(Anchors::from_options(&Options::new("anchors")).is_ok());
    assert!(with("x", "1").is_err());
    assert!(with("severity", "error").is_ok());
    let err = with("severity", "fatal").unwrap_err();
    assert!(err.contains("severity=fatal"), "{err}");
}

#[test]
fn a_missing_fragment_breaks_the_link_by_default() {
    let plugin = Anchors::from_options(&Options::new("anchors")).unwrap();
    let page = url("http://h.test/p.html");
    feed(&plugin, &page, &["intro"]);
    let s = FakeServices::new();
    assert!(plugin.check_link(&link(&page, "intro"), &s).is_empty());
    let r = plugin.check_link(&link(&page, "missing"), &s);
    let [Remark::Broken(message)] = r.as_slice() else {
        panic!("{r:?}")
    };
    assert!(message.contains("Anchor `missing' not found"), "{message}");
}

#[test]
fn markdown_pages_have_anchors_and_other_text_has_none() {
    let plugin = Anchors::default();
    let readme = url("file:///repo/README.md");
    let view = ContentView {
        url: &readme,
        final_url: &readme,
        content_type: Some("text/markdown"),
        body: b"",
        links: &[],
        anchors: &["setup".to_owned()],
        internal: true,
    };
    let s = FakeServices::new();
    assert!(plugin.check_content(&view, &s).is_empty());
    let mut l = link(&readme, "setup");
    l.target_content_type = Some("text/markdown");
    assert!(plugin.check_link(&l, &s).is_empty());
    l.fragment = "set-up";
    assert!(matches!(
        plugin.check_link(&l, &s).as_slice(),
        [Remark::Broken(_)]
    ));
    let notes = url("file:///repo/notes.txt");
    let mut l = link(&notes, "x");
    l.target_content_type = Some("text/plain");
    assert!(plugin.check_link(&l, &s).is_empty());
    assert!(s.fetched().is_empty());
}

#[test]
fn github_line_anchors_and_user_content_headings_are_found() {
    let plugin = warning_only();
    let blob = url("https://github.com/o/r/blob/main/README.md");
    feed(&plugin, &blob, &["user-content-install", "top-bar"]);
    let services = FakeServices::new();
    for fragment in [
        "L10",
        "L10-L20",
        "L3C2-L4C1",
        "install",
        "Install",
        "top-bar",
    ] {
        let remarks = plugin.check_link(&link(&blob, fragment), &services);
        assert!(remarks.is_empty(), "{fragment}: {remarks:?}");
    }
    for fragment in ["L10-20", "usage", "user-content"] {
        let remarks = plugin.check_link(&link(&blob, fragment), &services);
        assert_eq!(tags(&remarks), [TAG], "{fragment}");
    }
    // The same page elsewhere: no GitHub rules.
    let mirror = url("http://mirror.test/o/r/blob/main/README.md");
    feed(&plugin, &mirror, &["user-content-install"]);
    for fragment in ["L10", "install"] {
        let remarks = plugin.check_link(&link(&mirror, fragment), &services);
        assert_eq!(tags(&remarks), [TAG], "{fragment}");
    }
    // ... unless a remap rule made it of a GitHub link.
    let written = url("https://github.com/o/r/blob/main/README.md");
    for fragment in ["L10", "install"] {
        let mut view = link(&mirror, fragment);
        view.written_target = Some(&written);
        assert!(plugin.check_link(&view, &services).is_empty(), "{fragment}");
    }
    // Line anchors belong to file views only.
    let tree = url("https://github.com/o/r/tree/main");
    feed(&plugin, &tree, &[]);
    assert_eq!(
        tags(&plugin.check_link(&link(&tree, "L10"), &services)),
        [TAG]
    );
}

#[test]
fn hash_routes_are_not_anchors_and_say_so() {
    let plugin = warning_only();
    let page = url("http://h.test/app");
    feed(&plugin, &page, &["root"]);
    let services = FakeServices::new();
    for fragment in ["/settings", "!/page", "!page"] {
        let remarks = plugin.check_link(&link(&page, fragment), &services);
        assert!(
            matches!(&remarks[..], [Remark::Info(i)] if i.contains("client-side route")),
            "{fragment}: {remarks:?}"
        );
    }
    assert_eq!(
        tags(&plugin.check_link(&link(&page, "nope"), &services)),
        [TAG]
    );
}

#[test]
fn text_fragments_must_match_the_page_text_once_fetched() {
    let plugin = warning_only();
    let page = url("http://h.test/t.html");
    feed(&plugin, &page, &["usage"]);
    let s = FakeServices::new().html_with_text(
        page.as_str(),
        &["usage"],
        "Getting started\nInstall the tool, then run it.",
    );
    for f in [
        ":~:text=install%20the",
        ":~:text=Getting,run%20it",
        "usage:~:text=the-,tool",
        ":~:text=run&unknown=x",
    ] {
        assert!(plugin.check_link(&link(&page, f), &s).is_empty(), "{f}");
    }
    let r = plugin.check_link(&link(&page, ":~:text=started%20install"), &s);
    assert_eq!(
        tags(&r),
        ["text-fragment-not-found"],
        "blocks are not joined"
    );
    let r = plugin.check_link(&link(&page, "nope:~:text=tool&text=gone"), &s);
    assert_eq!(tags(&r), ["text-fragment-not-found", "anchor-not-found"]);
    let Remark::Warning { message, .. } = &r[0] else {
        panic!("{r:?}")
    };
    assert!(
        message.contains("`text=gone'") && !message.contains("text=tool"),
        "{message}"
    );
    let r = plugin.check_link(&link(&page, ":~:text=a,b,c"), &s);
    assert_eq!(tags(&r), ["text-fragment-not-found"]);
    // A missing text is an error under the default severity.
    let strict = Anchors::default();
    let r = strict.check_link(&link(&page, ":~:text=gone"), &s);
    assert!(matches!(&r[..], [Remark::Broken(_)]), "{r:?}");
}
