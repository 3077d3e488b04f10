//! The elements and attributes that can hold a link, and the tokenizer state each start tag
//! switches to.

use html5gum::State;

/// The state the tokenizer must switch to after the start tag `name`, if any.
///
/// Like `html5gum::naive_next_state`, except that `<noscript>` stays markup (we behave as a user
/// agent with scripting disabled) and `<noframes>` is spelled correctly.
pub(super) fn next_state(name: &[u8]) -> Option<State> {
    match name {
        b"script" => Some(State::ScriptData),
        b"style" | b"xmp" | b"iframe" | b"noembed" | b"noframes" => Some(State::RawText),
        b"textarea" | b"title" => Some(State::RcData),
        b"plaintext" => Some(State::PlainText),
        _ => None,
    }
}

/// Elements whose attributes can matter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Tag {
    A,
    Area,
    Link,
    Base,
    Meta,
    Img,
    Script,
    Iframe,
    Frame,
    Embed,
    Source,
    Track,
    Audio,
    Video,
    Input,
    Object,
    Form,
    Button,
    Blockquote,
    Q,
    Del,
    Ins,
    /// Any other element: only its `id` matters.
    Other,
}

impl Tag {
    pub(super) fn from_name(name: &[u8]) -> Tag {
        match name {
            b"a" => Tag::A,
            b"area" => Tag::Area,
            b"link" => Tag::Link,
            b"base" => Tag::Base,
            b"meta" => Tag::Meta,
            b"img" => Tag::Img,
            b"script" => Tag::Script,
            b"iframe" => Tag::Iframe,
            b"frame" => Tag::Frame,
            b"embed" => Tag::Embed,
            b"source" => Tag::Source,
            b"track" => Tag::Track,
            b"audio" => Tag::Audio,
            b"video" => Tag::Video,
            b"input" => Tag::Input,
            b"object" => Tag::Object,
            b"form" => Tag::Form,
            b"button" => Tag::Button,
            b"blockquote" => Tag::Blockquote,
            b"q" => Tag::Q,
            b"del" => Tag::Del,
            b"ins" => Tag::Ins,
            _ => Tag::Other,
        }
    }

    pub(super) fn as_str(self) -> &'static str {
        match self {
            Tag::A => "a",
            Tag::Area => "area",
            Tag::Link => "link",
            Tag::Base => "base",
            Tag::Meta => "meta",
            Tag::Img => "img",
            Tag::Script => "script",
            Tag::Iframe => "iframe",
            Tag::Frame => "frame",
            Tag::Embed => "embed",
            Tag::Source => "source",
            Tag::Track => "track",
            Tag::Audio => "audio",
            Tag::Video => "video",
            Tag::Input => "input",
            Tag::Object => "object",
            Tag::Form => "form",
            Tag::Button => "button",
            Tag::Blockquote => "blockquote",
            Tag::Q => "q",
            Tag::Del => "del",
            Tag::Ins => "ins",
            Tag::Other => "",
        }
    }
}

/// Attributes whose values can matter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Attr {
    Href,
    Src,
    Srcset,
    Data,
    Action,
    FormAction,
    Poster,
    Cite,
    Content,
    HttpEquiv,
    Name,
    Rel,
    Type,
    Alt,
    Title,
    Id,
    /// Inline CSS, on any element.
    Style,
}

impl Attr {
    pub(super) fn from_name(name: &[u8]) -> Option<Attr> {
        Some(match name {
            b"href" => Attr::Href,
            b"src" => Attr::Src,
            b"srcset" => Attr::Srcset,
            b"data" => Attr::Data,
            b"action" => Attr::Action,
            b"formaction" => Attr::FormAction,
            b"poster" => Attr::Poster,
            b"cite" => Attr::Cite,
            b"content" => Attr::Content,
            b"http-equiv" => Attr::HttpEquiv,
            b"name" => Attr::Name,
            b"rel" => Attr::Rel,
            b"type" => Attr::Type,
            b"alt" => Attr::Alt,
            b"title" => Attr::Title,
            b"id" => Attr::Id,
            b"style" => Attr::Style,
            _ => return None,
        })
    }
}

/// The `RawLink::attr` name under which `attr` of `tag` is reported, if it is a link there.
/// `<input src>` and `<meta content>` are further filtered at the tag's end.
pub(super) fn link_attr(tag: Tag, attr: Attr) -> Option<&'static str> {
    use Tag::*;
    Some(match (tag, attr) {
        (A | Area | Link, Attr::Href) => "href",
        (
            Img | Script | Iframe | Frame | Embed | Source | Track | Audio | Video | Input,
            Attr::Src,
        ) => "src",
        (Img | Source, Attr::Srcset) => "srcset",
        (Object, Attr::Data) => "data",
        (Form, Attr::Action) => "action",
        (Button | Input, Attr::FormAction) => "formaction",
        (Video, Attr::Poster) => "poster",
        (Blockquote | Q | Del | Ins, Attr::Cite) => "cite",
        (Meta, Attr::Content) => "content",
        _ => return None,
    })
}
