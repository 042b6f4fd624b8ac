//! Documented training jobs a user can name instead of spelling out the parallelism. Each
//! preset is a published configuration; where a figure is not published it says so. The jobs
//! themselves (`WorkloadPreset::workload`) are written beside the default job in `input`.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A named, sourced training job (`workload.preset`). Explicit `workload.*` fields override
/// the preset's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub enum WorkloadPreset {
    /// Dense 3D-parallel LLM: Llama 3 405B (Llama 3 paper, Meta 2024, §3.3 and Table 4):
    /// 405 B parameters, hidden 16,384, TP 8, PP 16, CP 1 at 8K sequences, global batch 16 M
    /// tokens, FP32 gradient reduction, 41% BF16 MFU. Needs at least 128 GPUs.
    #[serde(rename = "dense-llama3-405b")]
    DenseLlama3_405b,
    /// FSDP / ZeRO-3 job: a 70 B dense model (Llama 2 70B: hidden 8,192, 4k context, 4 M-token
    /// global batch, Touvron et al. 2023, Table 1) fully sharded over all GPUs, no TP/PP
    /// (PyTorch FSDP, Zhao et al. VLDB 2023). MFU 40% (Llama 3 range; assumption).
    #[serde(rename = "fsdp-llama2-70b")]
    FsdpLlama2_70b,
    /// Mixture of experts with expert parallelism across nodes: DeepSeek-V3 (DeepSeek-AI
    /// technical report, 2024, §3.2): 671 B parameters, 37 B active, hidden 7,168, top-8
    /// routed experts, EP 64 spanning 8 nodes, PP 16, TP 1, 4k sequences, global batch 15,360
    /// sequences. Modelled without DualPipe overlap, node-limited routing or FP8 dispatch (a
    /// Megatron-Core-style MoE job), so all-to-all is exposed; MFU 40% (assumption). Needs at
    /// least 1,024 GPUs.
    #[serde(rename = "moe-deepseek-v3")]
    MoeDeepseekV3,
}

impl WorkloadPreset {
    /// Wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            WorkloadPreset::DenseLlama3_405b => "dense-llama3-405b",
            WorkloadPreset::FsdpLlama2_70b => "fsdp-llama2-70b",
            WorkloadPreset::MoeDeepseekV3 => "moe-deepseek-v3",
        }
    }
}
