//! Achievable compute efficiency by GPU: the share of the precision's dense peak a GPU
//! sustains while it computes a transformer's forward and backward (GEMMs, attention, and the
//! element-wise work between them), before the pipeline bubble and exposed communication,
//! which the model adds itself.
//!
//! A dense FP8 figure is derived, not fitted to the rows it is checked on: it is the efficiency
//! that makes the model reproduce one named *calibration* run of the GPU (Llama 3 70B on 64
//! GPUs where one is published, a job whose network and pipeline cost little), and the
//! validation table then checks the model on the GPU's other runs — other model sizes, GPU
//! counts, parallelism, MXFP8 — with that figure fixed (`tests/data/perf_calibration.json`,
//! group `step_time`; calibration rows have status `calibration`, shown and not counted).
//! `validation::tests::the_efficiency_table_is_what_its_calibration_rows_imply` re-derives
//! every such figure from its row.

/// A GPU's compute efficiency by job class and precision, fractions of the precision's dense
/// peak (the BF16 peak for BF16, twice it for FP8).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ComputeEfficiency {
    /// Dense transformer, BF16.
    pub dense_bf16: f64,
    /// Dense transformer, FP8.
    pub dense_fp8: f64,
    /// Mixture of experts, BF16.
    pub moe_bf16: f64,
    /// Mixture of experts, FP8.
    pub moe_fp8: f64,
}

impl ComputeEfficiency {
    /// One figure for every class (a GPU without a sourced entry).
    pub const fn uniform(e: f64) -> Self {
        ComputeEfficiency {
            dense_bf16: e,
            dense_fp8: e,
            moe_bf16: e,
            moe_fp8: e,
        }
    }

    /// The figure for a job: a mixture of experts or dense, in FP8 or BF16.
    pub fn get(&self, mixture_of_experts: bool, fp8: bool) -> f64 {
        match (mixture_of_experts, fp8) {
            (false, false) => self.dense_bf16,
            (false, true) => self.dense_fp8,
            (true, false) => self.moe_bf16,
            (true, true) => self.moe_fp8,
        }
    }
}

/// One GPU's entry: the catalog GPU id, its figures, and where each comes from.
#[derive(Debug, Clone, Copy)]
pub struct EfficiencyEntry {
    /// Catalog GPU id.
    pub gpu: &'static str,
    /// The figures.
    pub efficiency: ComputeEfficiency,
    /// Validation-table id of the run the dense FP8 figure reproduces (`None`: borrowed, said
    /// in `source`).
    pub calibration_row: Option<&'static str>,
    /// Where every figure comes from.
    pub source: &'static str,
}

/// Dense BF16 on every GPU: no Megatron-Bridge table prints a dense BF16 run, and the BF16
/// runs that are published (Llama 3 paper Table 4: 38–43 % MFU on 8,192–16,384 H100;
/// Megatron-LM's README: 42–47 % on 768–6,144 H100) do not state their pipeline schedule, so no
/// compute efficiency can be separated from their bubble. 0.40, the Llama 3 figure, is assumed.
const DENSE_BF16_ASSUMED: f64 = 0.40;

/// H100's figures, which H200 (the same GH100 silicon and peak) takes as well.
const HOPPER: ComputeEfficiency = ComputeEfficiency {
    dense_bf16: DENSE_BF16_ASSUMED,
    dense_fp8: 0.388,
    // MoE BF16: no DeepSeek-V3 BF16 run on H100 published; the FP8 share is taken.
    moe_bf16: 0.171,
    moe_fp8: 0.171,
};

/// B200's dense FP8 figure, which B300 (the catalog gives it B200's dense peaks) takes too.
const B200_DENSE_FP8: f64 = 0.372;

/// The table. The dense FP8 figure is the efficiency at which the model reproduces its
/// calibration row (to 0.0005); the mixture-of-experts figures are the published end-to-end
/// MFU of DeepSeek-V3 on the GPU (Megatron-Bridge, model TFLOP/s/GPU ÷ the precision's dense
/// peak): the bubble and the exposed all-to-all are inside them, so a MoE step is modelled
/// slower than the runs measured, by what the model adds on top, until all-to-all validation
/// rows let the two be separated (docs/model.md §7).
pub const TABLE: &[EfficiencyEntry] = &[
    EfficiencyEntry {
        gpu: "h100",
        efficiency: HOPPER,
        calibration_row: Some("S-llama370b-H100-64-FP8-26.04.01"),
        source: "dense FP8: Megatron-Bridge 26.04.01, Llama 3 70B on 64 H100 (TP4 PP8 VP5), 1,664 tokens/s/GPU; MoE FP8: Megatron-Bridge 25.09, DeepSeek-V3 on 1,024 H100, 338 TFLOP/s/GPU of 1,979",
    },
    EfficiencyEntry {
        gpu: "h200",
        efficiency: HOPPER,
        calibration_row: None,
        source: "H100's figures: the same GH100 silicon and peak (H200 changes the memory only); no Megatron-Bridge table prints an H200 run",
    },
    EfficiencyEntry {
        gpu: "b200",
        efficiency: ComputeEfficiency {
            dense_bf16: DENSE_BF16_ASSUMED,
            dense_fp8: B200_DENSE_FP8,
            moe_bf16: 0.192,
            moe_fp8: 0.192,
        },
        calibration_row: Some("S-llama38b-B200-8-FP8-CS-25.11"),
        source: "dense FP8: Megatron-Bridge 25.11, Llama 3 8B on 8 B200 (FP8-CS), 30,624 tokens/s/GPU (no Llama 3 70B B200 row is published); MoE FP8: Megatron-Bridge 26.04.01, DeepSeek-V3 on 256 B200, 864 TFLOP/s/GPU of 4,500",
    },
    EfficiencyEntry {
        gpu: "b300",
        efficiency: ComputeEfficiency {
            dense_bf16: DENSE_BF16_ASSUMED,
            dense_fp8: B200_DENSE_FP8,
            moe_bf16: 0.204,
            moe_fp8: 0.204,
        },
        calibration_row: None,
        source: "dense: B200's figure (no dense B300 run is published; the catalog gives B300 B200's dense BF16 and FP8 peaks); MoE FP8: Megatron-Bridge 26.06, DeepSeek-V3 on 256 B300, 920 TFLOP/s/GPU of 4,500",
    },
    EfficiencyEntry {
        gpu: "gb200-nvl72",
        efficiency: ComputeEfficiency {
            dense_bf16: DENSE_BF16_ASSUMED,
            dense_fp8: 0.385,
            moe_bf16: 0.313,
            moe_fp8: 0.258,
        },
        calibration_row: Some("S-llama370b-GB200-64-FP8-26.04.01"),
        source: "dense FP8: Megatron-Bridge 26.04.01, Llama 3 70B on 64 GB200 (FSDP), 4,224 tokens/s/GPU; MoE: Megatron-Bridge DeepSeek-V3 on 256 GB200, 1,292 TFLOP/s/GPU of 5,000 (MXFP8, 26.06) and 782 of 2,500 (BF16, 25.11)",
    },
    EfficiencyEntry {
        gpu: "gb300-nvl72",
        efficiency: ComputeEfficiency {
            dense_bf16: DENSE_BF16_ASSUMED,
            dense_fp8: 0.479,
            moe_bf16: 0.384,
            moe_fp8: 0.330,
        },
        calibration_row: Some("S-llama370b-GB300-64-FP8-26.04.01"),
        source: "dense FP8: Megatron-Bridge 26.04.01, Llama 3 70B on 64 GB300 (FSDP), 5,248 tokens/s/GPU; MoE: Megatron-Bridge DeepSeek-V3 on 256 GB300, 1,648 TFLOP/s/GPU of 5,000 (MXFP8, 26.06) and 961 of 2,500 (BF16, 25.11)",
    },
];

/// A GPU's entry; `None` for a GPU the table does not list.
pub fn entry(gpu: &str) -> Option<&'static EfficiencyEntry> {
    TABLE.iter().find(|e| e.gpu.eq_ignore_ascii_case(gpu))
}

/// Compute efficiency of a GPU the table does not list: 0.40 of the precision's dense peak
/// (Llama 3 paper, Table 4: 38–43% BF16 MFU on 8,192–16,384 H100; an assumption for any other
/// GPU).
pub const DEFAULT_MFU: f64 = 0.40;

/// A GPU's figures, or [`DEFAULT_MFU`] for every class when it is not listed.
pub fn for_gpu(gpu: &str) -> ComputeEfficiency {
    entry(gpu).map_or(ComputeEfficiency::uniform(DEFAULT_MFU), |e| e.efficiency)
}
