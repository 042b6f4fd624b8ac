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

/// Adds a warning unless the list already says it (a plan says each once).
pub fn push_unique(warnings: &mut Vec<String>, w: String) {
    if !warnings.contains(&w) {
        warnings.push(w);
    }
}

/// A number's decimal text on the stack, `n.to_string()` without the allocation: the catalog's
/// profile maps are keyed by speeds as text (`"400"`), looked up for every fabric of every plan.
pub struct DecimalText {
    digits: [u8; 10],
    start: usize,
}

impl DecimalText {
    pub fn new(mut n: u32) -> DecimalText {
        let mut digits = [b'0'; 10];
        let mut start = digits.len();
        // From the last digit back; u32::MAX has 10 digits, so the slots never run out.
        for (i, d) in digits.iter_mut().enumerate().rev() {
            // n % 10 < 10: the cast keeps it exactly.
            *d = b'0' + (n % 10) as u8;
            n /= 10;
            start = i;
            if n == 0 {
                break;
            }
        }
        DecimalText { digits, start }
    }

    pub fn as_str(&self) -> &str {
        std::str::from_utf8(self.digits.get(self.start..).unwrap_or_default()).unwrap_or_default()
    }
}

/// The wire name of a unit enum: its serde form (`nvls_tree`, `infiniband`); empty when it
/// does not serialize to a string.
pub fn wire_name<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
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
