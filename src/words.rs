//! Small helpers for the sentences the service writes.

/// `s` with its first letter lower-cased to run on inside a sentence ("Value of one GPU-hour"
/// → "value of one GPU-hour"), unless its first word is an acronym or a name in capitals
/// ("GPU-hour value", "NVIDIA UFM", "Ethernet NOS" stay as they are: they read "gPU-hour",
/// "nVIDIA" and "ethernet" before).
pub fn lower_first(s: &str) -> String {
    let mut c = s.chars();
    match (c.next(), c.clone().next()) {
        (Some(f), Some(second)) if !second.is_uppercase() && !is_proper(s) => {
            f.to_lowercase().chain(c).collect()
        }
        (Some(f), None) => f.to_lowercase().collect(),
        _ => s.to_string(),
    }
}

/// Words a sentence keeps capitalised wherever they stand.
fn is_proper(s: &str) -> bool {
    let first = s.split([' ', '-', ',']).next().unwrap_or_default();
    matches!(
        first,
        "Ethernet" | "InfiniBand" | "Spectrum" | "Quantum" | "Arista" | "Llama"
    )
}

#[cfg(test)]
mod tests {
    use super::lower_first;

    #[test]
    fn acronyms_and_names_keep_their_capitals() {
        assert_eq!(
            lower_first("Value of one GPU-hour"),
            "value of one GPU-hour"
        );
        assert_eq!(lower_first("GPU-hour value"), "GPU-hour value");
        assert_eq!(lower_first("NVIDIA UFM licence"), "NVIDIA UFM licence");
        assert_eq!(lower_first("Ethernet NOS support"), "Ethernet NOS support");
        assert_eq!(lower_first("A"), "a");
        assert_eq!(lower_first(""), "");
    }
}
