//! [`Text`]: catalog text shared, not copied.

use std::borrow::Borrow;
use std::cmp::Ordering;
use std::collections::HashSet;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::sync::{Arc, LazyLock, Mutex};

use serde::{Deserialize, Serialize};

/// Catalog text (SKU ids, vendors, descriptions, sources), shared by every plan line that cites
/// it instead of copied into each. A catalog's text is interned when the catalog is read: one
/// copy of each distinct string for the life of the process, so a clone is a pointer copy and
/// a drop is nothing. (It was an `Arc<str>`: every BOM line of every plan counted the same
/// SKUs' references up and down, and a sweep's threads fought over those counts — 18 % of a
/// one-thread sweep, 23 % of a two-thread one, as profiled.) Interning
/// stops at [`INTERN_CAP_BYTES`]: text read after that (remote catalogs whose text keeps
/// changing) is shared by reference count as before, so memory stays bounded. In JSON it is a
/// plain string; a schema field of this type says so with `#[schema(value_type = String)]`
/// (it has no schema of its own, so a field that forgets does not compile).
#[derive(Clone)]
pub struct Text(Repr);

#[derive(Clone)]
enum Repr {
    Interned(&'static str),
    Shared(Arc<str>),
}

/// Most bytes of catalog text interned for the process's life (the embedded catalog's
/// distinct strings are under 20 KB; a catalog whose text is unchanged adds nothing when
/// reloaded).
pub const INTERN_CAP_BYTES: usize = 16 << 20;

struct Interner {
    strings: HashSet<&'static str>,
    bytes: usize,
}

static INTERNED: LazyLock<Mutex<Interner>> = LazyLock::new(|| {
    Mutex::new(Interner {
        strings: HashSet::new(),
        bytes: 0,
    })
});

impl Text {
    /// `s` interned: the one copy of it, made on its first use (up to [`INTERN_CAP_BYTES`];
    /// beyond, a shared copy of its own).
    pub fn intern(s: &str) -> Text {
        let Ok(mut interner) = INTERNED.lock() else {
            return Text::shared(s);
        };
        if let Some(&t) = interner.strings.get(s) {
            return Text(Repr::Interned(t));
        }
        if interner.bytes.saturating_add(s.len()) > INTERN_CAP_BYTES {
            return Text::shared(s);
        }
        let t: &'static str = Box::leak(Box::<str>::from(s));
        interner.bytes += s.len();
        interner.strings.insert(t);
        Text(Repr::Interned(t))
    }

    fn shared(s: &str) -> Text {
        Text(Repr::Shared(Arc::from(s)))
    }

    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Interned(s) => s,
            Repr::Shared(s) => s,
        }
    }
}

impl Default for Text {
    fn default() -> Text {
        Text(Repr::Interned(""))
    }
}

impl PartialEq for Text {
    fn eq(&self, other: &Text) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Text {}

impl PartialOrd for Text {
    fn partial_cmp(&self, other: &Text) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Text {
    fn cmp(&self, other: &Text) -> Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl Hash for Text {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl Serialize for Text {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// Read from a catalog: interned.
impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Text, D::Error> {
        std::borrow::Cow::<'de, str>::deserialize(d).map(|s| Text::intern(&s))
    }
}

impl Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for Text {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

/// Text made in code (tests, words): shared, not interned.
impl From<&str> for Text {
    fn from(s: &str) -> Text {
        Text::shared(s)
    }
}

impl From<String> for Text {
    fn from(s: String) -> Text {
        Text(Repr::Shared(Arc::from(s)))
    }
}

impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for Text {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other.as_str()
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
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
    fn catalog_text_is_interned_once_and_code_text_is_not() {
        let a: Text = serde_json::from_str("\"interned-sku-test\"").unwrap_or_default();
        let b: Text = serde_json::from_str("\"interned-sku-test\"").unwrap_or_default();
        assert!(matches!(a.0, Repr::Interned(_)));
        assert!(
            std::ptr::eq(a.as_str(), b.as_str()),
            "one copy for both reads"
        );
        // Escaped on the wire, the same text.
        let c: Text = serde_json::from_str("\"interned-sku-\\u0074est\"").unwrap_or_default();
        assert!(std::ptr::eq(a.as_str(), c.as_str()));
        assert!(matches!(Text::from("made in code").0, Repr::Shared(_)));
        assert_eq!(a, Text::from("interned-sku-test"));
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
