//! The job the plan times: a preset or the default job, the request's fields over either,
//! fitted to the cluster and checked.

use crate::error_code::ErrorCode;
use crate::perf::{self, Workload};
use crate::plan::error::PlanError;
use crate::plan::request::*;

use super::experts;

/// The workload of one plan, and what fitting it to the cluster found.
pub(super) struct Job {
    pub workload: Workload,
    /// Data-parallel replicas the cluster holds.
    pub dp: u64,
    /// GPUs of one data-parallel replica (TP·PP·CP).
    pub replica: u64,
    /// The warning that a preset's expert degree was refitted.
    pub expert_note: Option<String>,
    /// The preset's expert degree was refitted to this cluster (echoed as not set).
    pub ep_refitted: bool,
    /// The refitted degree splits the experts unevenly (echoed as not set).
    pub experts_uneven: bool,
    /// `workload.train_tokens`: the run to time, tokens.
    pub train_tokens: Option<f64>,
}

/// The parallel degrees of the job.
struct Degrees {
    tensor: u32,
    pipeline: u32,
    context: u32,
}

/// A field the request gives, else the preset's (or the default job's) value; with `fitted`,
/// the default job's value is that instead (a preset keeps its own).
macro_rules! given_or_preset {
    ($w:ident, $base:ident, $field:ident) => {
        $w.$field.map(|v| v.get()).unwrap_or($base.$field)
    };
    ($w:ident, $base:ident, $field:ident, fitted: $fit:expr) => {
        $w.$field.map(|v| v.get()).unwrap_or_else(|| {
            if $w.preset.is_some() {
                $base.$field
            } else {
                $fit
            }
        })
    };
}

/// The same for an optional figure (`None` in both: not given).
macro_rules! given_or_preset_if_any {
    ($w:ident, $base:ident, $field:ident) => {
        $w.$field.map(|v| v.get()).or($base.$field)
    };
}

/// The request's workload on `gpus` GPUs in servers of `gpus_per_node`, fitted and checked.
pub(super) fn resolve(req: &PlanRequest, gpus: u32, gpus_per_node: u32) -> Result<Job, PlanError> {
    let w = req.workload.clone().unwrap_or_default();
    let mut workload = shape(&w, gpus, gpus_per_node);
    workload.nccl = nccl(req);
    workload.model_terms = model_terms(req);
    grow_preset_batch(&w, gpus, &mut workload);
    check_preset_replica(&w, gpus, &workload)?;
    let replica = perf::data_parallel_replica_gpus(&workload);
    check_given_replica(&w, gpus, &workload, replica)?;
    let dp = perf::data_parallel_replicas(gpus, &workload);
    let refit = experts::fit(&w, gpus, dp, &mut workload)?;
    experts::check_divides(&w, &workload, refit.is_some(), dp)?;
    check_active_params(&workload)?;
    Ok(Job {
        workload,
        dp,
        replica,
        ep_refitted: refit.is_some(),
        experts_uneven: refit.as_ref().is_some_and(|r| r.experts_uneven),
        expert_note: refit.map(|r| r.note),
        train_tokens: w.train_tokens.map(TrainTokens::get),
    })
}

/// Workload: a preset, else the default job; explicit fields override either. The default
/// job needs TP·PP GPUs; on a smaller cluster its TP/PP shrink to fit (TP within the node,
/// PP to what is left) unless the user set them. A preset keeps its published shape.
fn shape(w: &WorkloadRequest, gpus: u32, gpus_per_node: u32) -> Workload {
    let base = w.preset.map(|p| p.workload()).unwrap_or_default();
    let degrees = degrees(w, &base, gpus, gpus_per_node);
    Workload {
        message_bytes: w.message_bytes.map(MessageBytes::get),
        preset: w.preset,
        model_params_billion: given_or_preset!(w, base, model_params_billion),
        active_params_billion: given_or_preset_if_any!(w, base, active_params_billion),
        bytes_per_gradient: given_or_preset!(w, base, bytes_per_gradient),
        tensor_parallel: degrees.tensor,
        pipeline_parallel: degrees.pipeline,
        context_parallel: degrees.context,
        expert_parallel: given_or_preset!(w, base, expert_parallel),
        moe_top_k: given_or_preset!(w, base, moe_top_k),
        kv_heads: given_or_preset!(w, base, kv_heads),
        data_parallel: w.data_parallel.map(DataParallelDegree::get),
        data_parallel_mode: w.data_parallel_mode.unwrap_or(base.data_parallel_mode),
        sequence_length: given_or_preset!(w, base, sequence_length),
        global_batch_tokens: given_or_preset_if_any!(w, base, global_batch_tokens),
        hidden_size: given_or_preset_if_any!(w, base, hidden_size),
        layers: given_or_preset_if_any!(w, base, layers),
        experts: given_or_preset_if_any!(w, base, experts),
        precision: w.precision.unwrap_or(base.precision),
        mfu: given_or_preset_if_any!(w, base, mfu),
        micro_batch_sequences: given_or_preset!(w, base, micro_batch_sequences),
        virtual_stages: given_or_preset!(w, base, virtual_stages),
        pipeline_schedule: schedule(w, &base),
        tp_comm_overlap: w.tp_comm_overlap.unwrap_or(base.tp_comm_overlap),
        step_compute_ms: given_or_preset_if_any!(w, base, step_compute_ms),
        bucket_mb: given_or_preset!(w, base, bucket_mb),
        background_load: given_or_preset!(w, base, background_load),
        nccl: perf::NcclSettings::default(),
        a2a_overlap: w.a2a_overlap.unwrap_or(base.a2a_overlap),
        moe_dispatcher: w.moe_dispatcher.unwrap_or(base.moe_dispatcher),
        moe_node_limit: given_or_preset_if_any!(w, base, moe_node_limit),
        model_terms: perf::ModelTerms::default(),
    }
}

/// The pipeline schedule: the request's, else interleaved when it gives virtual stages beyond
/// one, else the preset's (or 1F1B).
fn schedule(w: &WorkloadRequest, base: &Workload) -> perf::PipelineSchedule {
    match (w.pipeline_schedule, w.virtual_stages.map(|v| v.get())) {
        (Some(s), _) => s,
        (None, Some(v)) if v > 1 => perf::PipelineSchedule::Interleaved,
        (None, _) => base.pipeline_schedule,
    }
}

/// The request's model terms (absent: 1, the model as validated).
fn model_terms(req: &PlanRequest) -> perf::ModelTerms {
    let m = req.model.clone().unwrap_or_default();
    let get = |t: Option<ModelTerm>| t.map_or(1.0, ModelTerm::get);
    perf::ModelTerms {
        nic_efficiency: get(m.nic_efficiency),
        ecmp_efficiency: get(m.ecmp_efficiency),
        a2a_efficiency: get(m.a2a_efficiency),
    }
}

/// The model terms as the plan echoes them: every one, 1 when not given.
pub(super) fn echo_model(job: &Job) -> ModelRequest {
    let t = &job.workload.model_terms;
    ModelRequest {
        nic_efficiency: Some(ModelTerm::echo(t.nic_efficiency)),
        ecmp_efficiency: Some(ModelTerm::echo(t.ecmp_efficiency)),
        a2a_efficiency: Some(ModelTerm::echo(t.a2a_efficiency)),
    }
}

/// The request's NCCL settings (absent: NCCL's own choices).
fn nccl(req: &PlanRequest) -> perf::NcclSettings {
    let n = req.nccl.clone().unwrap_or_default();
    perf::NcclSettings {
        algorithm: n.algorithm.unwrap_or_default(),
        protocol: n.protocol.unwrap_or_default(),
        channels: n.channels.map(NcclChannels::get),
        qps_per_connection: n.qps_per_connection.map(QpsPerConnection::get),
    }
}

/// The NCCL settings as the plan echoes them: algorithm and protocol always (`auto` when not
/// forced), channels and queue pairs when given.
pub(super) fn echo_nccl(job: &Job) -> NcclRequest {
    let n = &job.workload.nccl;
    NcclRequest {
        algorithm: Some(n.algorithm),
        protocol: Some(n.protocol),
        channels: n.channels.map(NcclChannels::echo),
        qps_per_connection: n.qps_per_connection.map(QpsPerConnection::echo),
    }
}

/// The job's TP, PP and CP. The context-parallel degree first: the default job's TP and PP
/// shrink around it.
fn degrees(w: &WorkloadRequest, base: &Workload, gpus: u32, gpus_per_node: u32) -> Degrees {
    let context = given_or_preset!(w, base, context_parallel).max(1);
    let tensor = given_or_preset!(
        w,
        base,
        tensor_parallel,
        fitted: perf::DEFAULT_TENSOR_PARALLEL
            .min(gpus_per_node)
            .min(gpus / context)
            .max(1)
    );
    let pipeline = given_or_preset!(
        w,
        base,
        pipeline_parallel,
        fitted: default_pipeline_parallel(
            gpus,
            tensor.max(1).saturating_mul(context),
            w.data_parallel.map(DataParallelDegree::get),
        )
    );
    Degrees {
        tensor,
        pipeline,
        context,
    }
}

/// A preset's published batch feeds at least one sequence to every data-parallel replica:
/// beyond the cluster it was published for (FSDP Llama 2 70B: 1,024 sequences) it grows
/// with the replicas, as a larger job's batch does, instead of leaving a replica a fraction
/// of a sequence. The value used is echoed in `inputs`. A batch the user gives is kept (and
/// refused by the performance model when it is too small).
fn grow_preset_batch(w: &WorkloadRequest, gpus: u32, workload: &mut Workload) {
    if w.global_batch_tokens.is_none()
        && let Some(published) = workload.global_batch_tokens
    {
        let floor = perf::one_sequence_per_replica_tokens(gpus, workload)
            .min(perf::MAX_GLOBAL_BATCH_TOKENS);
        workload.global_batch_tokens = Some(published.max(floor));
    }
}

/// A preset whose published replica (TP·PP·CP GPUs) is larger than the cluster: the preset
/// is at fault, not a degree the user did not write.
fn check_preset_replica(
    w: &WorkloadRequest,
    gpus: u32,
    workload: &Workload,
) -> Result<(), PlanError> {
    if let Some(preset) = w.preset
        && w.tensor_parallel.is_none()
        && w.pipeline_parallel.is_none()
        && w.context_parallel.is_none()
    {
        let (tp, pp, cp) = (
            workload.tensor_parallel.max(1),
            workload.pipeline_parallel.max(1),
            workload.context_parallel.max(1),
        );
        let replica = perf::data_parallel_replica_gpus(workload);
        if u64::from(gpus) < replica {
            return Err(PlanError::field(
                "/workload/preset",
                ErrorCode::PerformanceModel,
                format!(
                    "the preset {} runs one model replica on TP {tp} x PP {pp} x CP {cp} = {replica} GPUs; {gpus} GPUs cannot hold one: plan at least {replica} GPUs, or set workload.tensor_parallel and workload.pipeline_parallel to a shape that fits",
                    preset.as_str()
                ),
            ));
        }
    }
    Ok(())
}

/// A replica larger than the cluster, with degrees the user wrote: the error points at the
/// largest of them.
fn check_given_replica(
    w: &WorkloadRequest,
    gpus: u32,
    workload: &Workload,
    replica: u64,
) -> Result<(), PlanError> {
    if workload.message_bytes.is_none() && u64::from(gpus) < replica {
        let given = [
            ("tensor_parallel", w.tensor_parallel),
            ("pipeline_parallel", w.pipeline_parallel),
            ("context_parallel", w.context_parallel),
        ];
        if let Some((field, _)) = given
            .iter()
            .filter_map(|(f, d)| d.map(|d| (*f, d.get())))
            .max_by_key(|(_, d)| *d)
        {
            return Err(PlanError::field(
                &format!("/workload/{field}"),
                ErrorCode::PerformanceModel,
                format!(
                    "one replica of TP {} x PP {} x CP {} = {replica} GPUs does not fit in {gpus} GPUs",
                    workload.tensor_parallel.max(1),
                    workload.pipeline_parallel.max(1),
                    workload.context_parallel.max(1),
                ),
            ));
        }
    }
    Ok(())
}

/// Active parameters are part of the model's.
fn check_active_params(workload: &Workload) -> Result<(), PlanError> {
    if let Some(a) = workload.active_params_billion
        && a > workload.model_params_billion
    {
        return Err(PlanError::field(
            "/workload/active_params_billion",
            ErrorCode::Range,
            format!(
                "{a} active billions exceed model_params_billion {}",
                workload.model_params_billion
            ),
        ));
    }
    Ok(())
}

/// The default job's pipeline degree, over `tp_cp` = TP·CP GPUs per pipeline stage: the
/// degree that gives the data-parallel degree asked for when one is (48 GPUs at TP 8 and DP 6:
/// PP 1), else [`perf::DEFAULT_PIPELINE_PARALLEL`] (4), or what a smaller cluster leaves
/// (16 GPUs at TP 8: PP 2). Not fitted to each cluster size: a sweep over `gpus` then compares
/// one job (fitting PP to divide every size made 992, 1,000 and 1,008 GPUs run PP 4, 1 and 3,
/// and the idle fraction jump six-fold between neighbours); GPUs a shape leaves out are warned.
fn default_pipeline_parallel(gpus: u32, tp_cp: u32, data_parallel: Option<u32>) -> u32 {
    let stage = tp_cp.max(1);
    if let Some(dp) = data_parallel
        && let Some(replica) = stage.checked_mul(dp.max(1))
        && gpus.is_multiple_of(replica)
        && gpus >= replica
        && gpus / replica <= perf::MAX_PARALLEL
    {
        return gpus / replica;
    }
    perf::DEFAULT_PIPELINE_PARALLEL.min(gpus / stage).max(1)
}

/// The workload as echoed in the normalized request: a refitted expert degree, and the
/// experts it splits unevenly, as not set (so that the echo posted back refits it again).
pub(super) fn echo(job: &Job) -> WorkloadRequest {
    let workload = &job.workload;
    WorkloadRequest {
        message_bytes: workload.message_bytes.map(MessageBytes::echo),
        model_params_billion: Some(ModelParamsBillion::echo(workload.model_params_billion)),
        bytes_per_gradient: Some(BytesPerGradient::echo(workload.bytes_per_gradient)),
        tensor_parallel: Some(ParallelDegree::echo(workload.tensor_parallel)),
        pipeline_parallel: Some(ParallelDegree::echo(workload.pipeline_parallel)),
        step_compute_ms: workload.step_compute_ms.map(StepComputeMs::echo),
        bucket_mb: Some(BucketMb::echo(workload.bucket_mb)),
        preset: workload.preset,
        active_params_billion: workload.active_params_billion.map(ModelParamsBillion::echo),
        context_parallel: Some(ParallelDegree::echo(workload.context_parallel)),
        expert_parallel: (!job.ep_refitted).then(|| ParallelDegree::echo(workload.expert_parallel)),
        moe_top_k: Some(MoeTopK::echo(workload.moe_top_k)),
        kv_heads: Some(KvHeads::echo(workload.kv_heads)),
        layers: workload.layers.map(Layers::echo),
        experts: workload
            .experts
            .filter(|_| !job.experts_uneven)
            .map(Experts::echo),
        data_parallel: workload.data_parallel.map(DataParallelDegree::echo),
        data_parallel_mode: Some(workload.data_parallel_mode),
        sequence_length: Some(SequenceLength::echo(workload.sequence_length)),
        global_batch_tokens: workload.global_batch_tokens.map(GlobalBatchTokens::echo),
        hidden_size: workload.hidden_size.map(HiddenSize::echo),
        precision: Some(workload.precision),
        mfu: workload.mfu.map(Mfu::echo),
        micro_batch_sequences: Some(MicroBatchSequences::echo(workload.micro_batch_sequences)),
        pipeline_schedule: Some(workload.pipeline_schedule),
        virtual_stages: Some(VirtualStages::echo(workload.virtual_stages)),
        tp_comm_overlap: Some(workload.tp_comm_overlap),
        moe_dispatcher: Some(workload.moe_dispatcher),
        moe_node_limit: workload.moe_node_limit.map(MoeNodeLimit::echo),
        background_load: Some(BackgroundLoad::echo(workload.background_load)),
        a2a_overlap: Some(workload.a2a_overlap),
        train_tokens: job.train_tokens.map(TrainTokens::echo),
    }
}
