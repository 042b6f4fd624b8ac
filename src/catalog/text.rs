//! [`Text`]: catalog text shared, not copied.

use std::borrow::Borrow;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// Catalog text (SKU ids, vendors, descriptions, sources), shared by every plan line that cites
/// it instead of copied into each: a clone is a reference count (`Arc<str>`). In JSON it is a
/// plain string; a schema field of this type says so with `#[schema(value_type = String)]`
/// (it has no schema of its own, so a field that forgets does not compile).
#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Text(Arc<str>);

impl Text {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for Text {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Text {
        Text(Arc::from(s))
    }
}

impl From<String> for Text {
    fn from(s: String) -> Text {
        Text(Arc::from(s))
    }
}

impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        &*self.0 == other
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        &*self.0 == *other
    }
}

impl PartialEq<String> for Text {
    fn eq(&self, other: &String) -> bool {
        *self.0 == **other
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&*self.0, f)
    }
}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

/// Catalog text with a fixed ending, such as a switch's description with ` — leaf` or a
/// cable's with ` — node_leaf`. The text is shared like [`Text`] and the ending is static, so
/// making one copies nothing. The two parts are written one after the other when shown; in
/// JSON it is one plain string.
/// Two labels are equal when they read the same, however split.
#[derive(Clone, Default)]
pub struct Label {
    text: Text,
    ending: &'static str,
}

impl Label {
    /// `text` followed by `ending`.
    pub fn new(text: Text, ending: &'static str) -> Label {
        Label { text, ending }
    }

    fn bytes(&self) -> impl Iterator<Item = u8> + '_ {
        self.text.bytes().chain(self.ending.bytes())
    }
}

impl PartialEq for Label {
    fn eq(&self, other: &Label) -> bool {
        self.bytes().eq(other.bytes())
    }
}

impl Eq for Label {}

impl From<Text> for Label {
    fn from(text: Text) -> Label {
        Label::new(text, "")
    }
}

impl From<&str> for Label {
    fn from(s: &str) -> Label {
        Text::from(s).into()
    }
}

impl From<String> for Label {
    fn from(s: String) -> Label {
        Text::from(s).into()
    }
}

impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)?;
        f.write_str(self.ending)
    }
}

impl fmt::Debug for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.to_string(), f)
    }
}

crate::json::serialized_as_text!(Label);

impl<'de> Deserialize<'de> for Label {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Label, D::Error> {
        Text::deserialize(d).map(Label::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_a_plain_string_on_the_wire_and_shares_on_clone() {
        let t = Text::from("nvidia-qm9700");
        let u = t.clone();
        assert!(
            std::ptr::eq(t.as_str(), u.as_str()),
            "a clone shares the text"
        );
        assert_eq!(
            serde_json::to_string(&t).ok().as_deref(),
            Some("\"nvidia-qm9700\"")
        );
        let back: Text = serde_json::from_str("\"x\"").unwrap_or_default();
        assert_eq!(back, "x");
    }

    #[test]
    fn a_label_is_its_text_and_ending_as_one_string() {
        let l = Label::new(Text::from("QM9700 \"64-port\""), " — leaf");
        assert_eq!(l.to_string(), "QM9700 \"64-port\" — leaf");
        assert_eq!(
            serde_json::to_string(&l).ok().as_deref(),
            Some("\"QM9700 \\\"64-port\\\" — leaf\"")
        );
        let back: Label = serde_json::from_str("\"x — y\"").unwrap_or_default();
        assert_eq!(back.to_string(), "x — y");
        assert_eq!(back, Label::new(Text::from("x"), " — y"));
        assert_ne!(back, Label::new(Text::from("x"), " — z"));
    }
}
