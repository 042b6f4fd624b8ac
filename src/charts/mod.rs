//! Charts: data series built from a plan (or a sweep), and their rendering.
//! Pure: no HTTP here.
pub mod data;
pub mod render;

#[cfg(test)]
mod tests;
