//! How much of a plan to write out, and how an uncertainty analysis may compute.

/// How much of a plan to write out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detail {
    /// Everything: the BOM lines with their text, the comparison's recommendation and reasons.
    Full,
    /// The figures a sweep row reads (costs, performance, the cheapest fabric, warnings, the
    /// plan id): no BOM lines, no suggestions for infeasible fabrics, no recommendation or
    /// reasons, no RoCE tunings side by side. Every figure is the one `Full` gives for the
    /// same request.
    Figures,
}

/// How an uncertainty analysis may compute: until when, and on how many threads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Effort {
    /// Past it the analysis stops with `analysis_too_slow`; `None`, no limit.
    pub deadline: Option<std::time::Instant>,
    /// Threads drawing its samples (0 or 1: the calling thread alone). The answer does not
    /// depend on it.
    pub threads: usize,
}
