//! Remote catalog source URLs as logs, reports and clients may see them. Both the store
//! (which reports sources) and the fetcher (which fetches them) use it, so it lives apart from
//! either (no import cycle between `remote` and `store`).

/// A URL without user-info and query string, for logs and reports.
pub fn redact_url(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(mut u) => {
            let had_query = u.query().is_some();
            let _ = u.set_username("");
            let _ = u.set_password(None);
            u.set_query(None);
            u.set_fragment(None);
            let mut s = u.to_string();
            if had_query {
                s.push_str("?…");
            }
            s
        }
        Err(_) => "<invalid url>".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_lose_credentials_and_queries() {
        assert_eq!(
            redact_url("https://user:secret@prices.example/c.json?token=abc"),
            "https://prices.example/c.json?…"
        );
        assert_eq!(redact_url("http://h:81/c.json"), "http://h:81/c.json");
    }
}
