//! Where a wikilink of a local Markdown page goes (`--include-wikilinks`): the file of the run
//! named by it (a start file, or one a folder walk kept), in any folder, as Obsidian finds it;
//! made a link relative to the page, so reports show a path a reader can follow. A name no
//! such file has stays the page-relative link the extractor made (`extract::wikilink`).

use std::borrow::Cow;

use url::Url;

use super::run::Run;
use crate::fetch::real_path::real_path;
use crate::policy::mail::percent_decode;

impl Run {
    /// The link a wikilink's `value` (`Page.md#heading`) on `page` stands for.
    pub(super) fn wikilink_value<'v>(&self, page: &Url, value: Cow<'v, str>) -> Cow<'v, str> {
        if page.scheme() != "file" {
            return value;
        }
        let (path, fragment) = match value.split_once('#') {
            Some((path, fragment)) => (path, Some(fragment)),
            None => (value.as_ref(), None),
        };
        if path.is_empty() {
            return value;
        }
        let Some(found) = self.wiki.named(&percent_decode(path)) else {
            return value;
        };
        let target = real_path(found)
            .ok()
            .and_then(|real| Url::from_file_path(real).ok());
        let Some(mut link) = target.and_then(|t| page.make_relative(&t)) else {
            return value;
        };
        if link.is_empty() {
            // The page itself.
            let name = page.path_segments().and_then(|mut s| s.next_back());
            link = name.unwrap_or_default().to_owned();
        }
        if let Some(f) = fragment {
            link.push('#');
            link.push_str(f);
        }
        Cow::Owned(link)
    }
}
