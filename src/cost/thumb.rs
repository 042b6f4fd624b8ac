//! Rules of thumb buyers quote, checked against one plan's own figures
//! (`comparison.rules_of_thumb[]`): the cost gap between RoCE and InfiniBand, RoCE's share of
//! InfiniBand's throughput, the size bands, and the 30 %-of-step-time threshold. Each verdict
//! is derived from the plan's capex, TCO, step times and totals; its `why` says which figures
//! make the claim hold or fail here. docs/cost.md ("Rules of thumb") has the claims' sources.

use rust_decimal::Decimal;
use serde::Serialize;
use utoipa::ToSchema;

use super::Capex;
use super::money::{approx_f64 as to_f64, format_usd_short};
use crate::fabric::Fabric;

/// One fabric's figures the rules read.
#[derive(Debug, Clone, Copy)]
pub struct ThumbFabric<'a> {
    pub fabric: Fabric,
    pub capex: &'a Capex,
    pub tco_usd: Decimal,
    /// GPU-idle cost over the horizon (`gpu_idle.cost_total_usd`).
    pub gpu_idle_usd: Decimal,
    pub step_time_ms: f64,
    /// Network communication compute does not hide, ms per step.
    pub network_exposed_ms: f64,
}

/// The plan the rules are checked against.
#[derive(Debug, Clone)]
pub struct ThumbPlan<'a> {
    pub gpus: u32,
    pub years: u32,
    /// `topology.roce_tuning` in effect (`default`, `tuned`).
    pub roce_tuning: &'a str,
    pub cheapest: Fabric,
    pub fabrics: Vec<ThumbFabric<'a>>,
}

/// Whether a claim holds for this plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Holds,
    Fails,
    /// The plan lacks what the claim compares (InfiniBand and an Ethernet fabric side by side).
    NotApplicable,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Holds => "holds",
            Verdict::Fails => "fails",
            Verdict::NotApplicable => "not_applicable",
        }
    }
}

/// One rule of thumb against this plan.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct RuleOfThumb {
    /// `cost_gap`, `throughput_share`, `size_band` or `comm_threshold`.
    pub rule: &'static str,
    /// The claim, as buyers' articles state it.
    pub claim: &'static str,
    /// Where the claim is quoted.
    pub source: &'static str,
    pub verdict: Verdict,
    /// The plan's own figure the claim is about, a fraction (the cost gap, the throughput share,
    /// the communication share); null for `size_band` and when not applicable.
    pub plan_value: Option<f64>,
    /// What this plan says for the same cluster.
    pub plan_says: String,
    /// Why the claim holds or fails here, from the plan's figures.
    pub why: String,
}

/// The claims and their sources (docs/cost.md, "Rules of thumb").
pub const COST_GAP_CLAIM: &str = "RoCE is 20–30 % cheaper than InfiniBand";
pub const COST_GAP_RANGE: (f64, f64) = (0.20, 0.30);
const COST_GAP_SOURCE: &str = "buyers' articles as quoted in issue #46; not found in a retrievable public page (docs/cost.md)";
pub const THROUGHPUT_CLAIM: &str =
    "Properly tuned RoCE delivers 85–95 % of InfiniBand's training throughput";
pub const THROUGHPUT_RANGE: (f64, f64) = (0.85, 0.95);
const THROUGHPUT_SOURCE: &str = "FirstPassLab, \"RoCE vs InfiniBand\" (2026-03-09), firstpasslab.com; \"according to industry benchmarks\"";
pub const SIZE_BAND_CLAIM: &str = "Ethernet up to 512 GPUs, InfiniBand above 2,048; in between it depends on whether communication exceeds ~30 % of step time";
/// The band's edges, GPUs: Ethernet at or below the first, InfiniBand above the second.
pub const SIZE_BAND_GPUS: (u32, u32) = (512, 2048);
const SIZE_BAND_SOURCE: &str = "buyers' articles as quoted in issue #46; not found in a retrievable public page (docs/cost.md)";
pub const COMM_THRESHOLD_CLAIM: &str =
    "Choose InfiniBand when communication exceeds ~30 % of step time, Ethernet below it";
pub const COMM_THRESHOLD: f64 = 0.30;
const COMM_THRESHOLD_SOURCE: &str = SIZE_BAND_SOURCE;

/// The rules, in the order above.
pub fn rules_of_thumb(p: &ThumbPlan<'_>) -> Vec<RuleOfThumb> {
    let ib = p.fabrics.iter().find(|f| f.fabric == Fabric::Infiniband);
    // The claims are about RoCE: ECMP RoCE when planned, else adaptive-routing Ethernet.
    let eth = p
        .fabrics
        .iter()
        .find(|f| f.fabric == Fabric::Roce)
        .or_else(|| p.fabrics.iter().find(|f| f.fabric == Fabric::RoceAdaptive));
    let (Some(ib), Some(eth)) = (ib, eth) else {
        return not_applicable();
    };
    let pair = Pair { p, ib, eth };
    vec![
        pair.cost_gap(),
        pair.throughput_share(),
        pair.size_band(),
        pair.comm_threshold(),
    ]
}

fn not_applicable() -> Vec<RuleOfThumb> {
    let says = "this plan has no InfiniBand and Ethernet fabric side by side to compare";
    let rule = |rule, claim, source| RuleOfThumb {
        rule,
        claim,
        source,
        verdict: Verdict::NotApplicable,
        plan_value: None,
        plan_says: says.to_string(),
        why: "plan both (fabrics: infiniband and roce) to check it".to_string(),
    };
    vec![
        rule("cost_gap", COST_GAP_CLAIM, COST_GAP_SOURCE),
        rule("throughput_share", THROUGHPUT_CLAIM, THROUGHPUT_SOURCE),
        rule("size_band", SIZE_BAND_CLAIM, SIZE_BAND_SOURCE),
        rule(
            "comm_threshold",
            COMM_THRESHOLD_CLAIM,
            COMM_THRESHOLD_SOURCE,
        ),
    ]
}

fn verdict(holds: bool) -> Verdict {
    if holds {
        Verdict::Holds
    } else {
        Verdict::Fails
    }
}

fn ratio(a: Decimal, b: Decimal) -> f64 {
    let (a, b) = (to_f64(a), to_f64(b));
    if b > 0.0 { a / b } else { 0.0 }
}

fn pct(x: f64) -> String {
    let v = x * 100.0;
    if v.abs() >= 10.0 {
        format!("{v:.1} %")
    } else {
        format!("{v:.2} %")
    }
}

fn is_ethernet(f: Fabric) -> bool {
    matches!(f, Fabric::Roce | Fabric::RoceAdaptive)
}

fn family(ethernet: bool) -> &'static str {
    if ethernet { "Ethernet" } else { "InfiniBand" }
}

struct Pair<'a> {
    p: &'a ThumbPlan<'a>,
    ib: &'a ThumbFabric<'a>,
    eth: &'a ThumbFabric<'a>,
}

impl Pair<'_> {
    fn eth_name(&self) -> &'static str {
        self.eth.fabric.display_name()
    }

    fn cost_gap(&self) -> RuleOfThumb {
        let (ib, eth) = (self.ib.capex, self.eth.capex);
        let gap = 1.0 - ratio(eth.total_usd, ib.total_usd);
        let tco_gap = 1.0 - ratio(self.eth.tco_usd, self.ib.tco_usd);
        let parts = [
            ("switches", ib.switches_usd, eth.switches_usd),
            ("NICs", ib.nics_usd, eth.nics_usd),
            ("optics", ib.optics_usd, eth.optics_usd),
            ("cables", ib.cables_usd, eth.cables_usd),
            ("licences", ib.licenses_usd, eth.licenses_usd),
        ];
        let mut lines = Vec::new();
        let mut alike = Decimal::ZERO;
        for (name, i, e) in parts {
            if i.is_zero() && e.is_zero() {
                continue;
            }
            let change = if i.is_zero() {
                "new".to_string()
            } else {
                let c = ratio(e, i) - 1.0;
                if c.abs() <= 0.10 {
                    alike += i;
                }
                format!("{:+.0} %", c * 100.0).replace('-', "−")
            };
            lines.push(format!(
                "{name} {} vs {} ({change})",
                format_usd_short(i),
                format_usd_short(e)
            ));
        }
        let alike_share = ratio(alike, ib.total_usd);
        let (lo, hi) = COST_GAP_RANGE;
        let holds = (lo..=hi).contains(&gap);
        let less = |g: f64| if g >= 0.0 { "less" } else { "more" };
        let plan_says = format!(
            "fabric capex: {} {}, InfiniBand {}, {} {}; over {} years (TCO) {} {}",
            self.eth_name(),
            format_usd_short(eth.total_usd),
            format_usd_short(ib.total_usd),
            pct(gap.abs()),
            less(gap),
            self.p.years,
            pct(tco_gap.abs()),
            less(tco_gap),
        );
        let verdict_words = if holds {
            "within the claim's range".to_string()
        } else if gap < lo {
            format!(
                "so the gap is smaller than the claim: parts priced within 10 % on both fabrics are {} of InfiniBand's capex",
                pct(alike_share)
            )
        } else {
            "so the gap is larger than the claim: the switches' and optics' price gap dominates"
                .to_string()
        };
        RuleOfThumb {
            rule: "cost_gap",
            claim: COST_GAP_CLAIM,
            source: COST_GAP_SOURCE,
            verdict: verdict(holds),
            plan_value: Some(gap),
            plan_says,
            why: format!(
                "InfiniBand vs {}: {}; {verdict_words}",
                self.eth_name(),
                lines.join(", ")
            ),
        }
    }

    fn throughput_share(&self) -> RuleOfThumb {
        let share = if self.eth.step_time_ms > 0.0 {
            self.ib.step_time_ms / self.eth.step_time_ms
        } else {
            0.0
        };
        let (lo, hi) = THROUGHPUT_RANGE;
        let holds = (lo..=hi).contains(&share);
        let ib_share = exposed_share(self.ib);
        let plan_says = format!(
            "{} delivers {} of InfiniBand's throughput here (a step of {:.1} ms against {:.1} ms; topology.roce_tuning = {})",
            self.eth_name(),
            pct(share),
            self.eth.step_time_ms,
            self.ib.step_time_ms,
            self.p.roce_tuning
        );
        let figures = format!(
            "network communication compute does not hide is {:.1} ms of InfiniBand's step ({}) and {:.1} ms on {}: a slower network lengthens only that part",
            self.ib.network_exposed_ms,
            pct(ib_share),
            self.eth.network_exposed_ms,
            self.eth_name()
        );
        let why = if holds {
            format!("{figures}, here by as much as the claim says")
        } else if share > hi {
            format!(
                "{figures}, and it is too small a part of the step for the claim's loss (the claim holds for jobs whose step is mostly exposed communication on a congested fabric)"
            )
        } else {
            format!(
                "{figures}; here it grows by more than the claim allows (congestion, oversubscription or a model term lowers the bandwidth of {})",
                self.eth_name()
            )
        };
        RuleOfThumb {
            rule: "throughput_share",
            claim: THROUGHPUT_CLAIM,
            source: THROUGHPUT_SOURCE,
            verdict: verdict(holds),
            plan_value: Some(share),
            plan_says,
            why,
        }
    }

    /// The plan's choice and why, in money: the network's cost against the GPU time it loses.
    fn economics(&self) -> (bool, String) {
        let eth_choice = is_ethernet(self.p.cheapest);
        let tco = self.ib.tco_usd - self.eth.tco_usd;
        let idle = self.eth.gpu_idle_usd - self.ib.gpu_idle_usd;
        let net = format!(
            "over {} years InfiniBand's network costs {} {} than {} and its GPU-idle cost (waiting on the network, network failures) is {} {}",
            self.p.years,
            format_usd_short(tco.abs()),
            if tco >= Decimal::ZERO { "more" } else { "less" },
            self.eth_name(),
            format_usd_short(idle.abs()),
            if idle >= Decimal::ZERO {
                "lower"
            } else {
                "higher"
            },
        );
        (eth_choice, net)
    }

    fn size_band(&self) -> RuleOfThumb {
        let (small, large) = SIZE_BAND_GPUS;
        let gpus = self.p.gpus;
        let comm_share = exposed_share(self.ib);
        let (band_eth, band_words) = if gpus <= small {
            (
                true,
                format!("at {gpus} GPUs (≤ {small}) the band says Ethernet"),
            )
        } else if gpus > large {
            (
                false,
                format!("at {gpus} GPUs (> {large}) the band says InfiniBand"),
            )
        } else {
            let eth = comm_share <= COMM_THRESHOLD;
            (
                eth,
                format!(
                    "at {gpus} GPUs (between {small} and {large}) the band defers to communication, {} of the step here: {}",
                    pct(comm_share),
                    family(eth)
                ),
            )
        };
        let (plan_eth, money) = self.economics();
        let holds = band_eth == plan_eth;
        RuleOfThumb {
            rule: "size_band",
            claim: SIZE_BAND_CLAIM,
            source: SIZE_BAND_SOURCE,
            verdict: verdict(holds),
            plan_value: None,
            plan_says: format!(
                "{band_words}; this plan's cheapest fabric is {} (total cost with GPU idle)",
                self.p.cheapest.display_name()
            ),
            why: if holds {
                format!("{money}, and the plan agrees with the band")
            } else {
                format!(
                    "{money}: at this size the money decides for {}, not the cluster's size",
                    family(plan_eth)
                )
            },
        }
    }

    fn comm_threshold(&self) -> RuleOfThumb {
        let share = exposed_share(self.ib);
        let rule_eth = share <= COMM_THRESHOLD;
        let (plan_eth, money) = self.economics();
        let holds = rule_eth == plan_eth;
        let slower = self.eth.step_time_ms - self.ib.step_time_ms;
        RuleOfThumb {
            rule: "comm_threshold",
            claim: COMM_THRESHOLD_CLAIM,
            source: COMM_THRESHOLD_SOURCE,
            verdict: verdict(holds),
            plan_value: Some(share),
            plan_says: format!(
                "network communication compute does not hide is {} of InfiniBand's step here, so the rule picks {}; this plan's cheapest fabric is {}",
                pct(share),
                family(rule_eth),
                self.p.cheapest.display_name()
            ),
            why: if holds {
                format!("{money}, and the plan agrees with the rule")
            } else {
                format!(
                    "a step on {} is {:+.1} ms ({}) against InfiniBand's, and {money}: what decides is how much slower the Ethernet fabric is and what its GPU time is worth, not the communication share alone",
                    self.eth_name(),
                    slower,
                    pct(if self.ib.step_time_ms > 0.0 {
                        slower / self.ib.step_time_ms
                    } else {
                        0.0
                    }),
                )
            },
        }
    }
}

/// Exposed network communication as a share of the fabric's step.
fn exposed_share(f: &ThumbFabric<'_>) -> f64 {
    if f.step_time_ms > 0.0 {
        f.network_exposed_ms / f.step_time_ms
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn capex(switches: i64, others: i64) -> Capex {
        Capex {
            nics_usd: Decimal::from(others),
            switches_usd: Decimal::from(switches),
            optics_usd: Decimal::ZERO,
            cables_usd: Decimal::ZERO,
            licenses_usd: Decimal::ZERO,
            hardware_usd: Decimal::from(switches + others),
            total_usd: Decimal::from(switches + others),
        }
    }

    fn fabric(f: Fabric, c: &Capex, step: f64, exposed: f64, total: i64) -> ThumbFabric<'_> {
        ThumbFabric {
            fabric: f,
            capex: c,
            tco_usd: c.total_usd,
            gpu_idle_usd: Decimal::from(total) - c.total_usd,
            step_time_ms: step,
            network_exposed_ms: exposed,
        }
    }

    fn plan<'a>(gpus: u32, cheapest: Fabric, fabrics: Vec<ThumbFabric<'a>>) -> ThumbPlan<'a> {
        ThumbPlan {
            gpus,
            years: 5,
            roce_tuning: "default",
            cheapest,
            fabrics,
        }
    }

    fn verdicts(rules: &[RuleOfThumb]) -> Vec<(&str, Verdict)> {
        rules.iter().map(|r| (r.rule, r.verdict)).collect()
    }

    #[test]
    fn each_claim_holds_where_the_figures_say_so() {
        // RoCE's capex 25 % below; its step 10 % longer (90.9 % of the throughput); 256 GPUs
        // and communication 5 % of the step: Ethernet, and RoCE is the cheapest.
        let ib = capex(500, 500);
        let eth = capex(250, 500);
        let rules = rules_of_thumb(&plan(
            256,
            Fabric::Roce,
            vec![
                fabric(Fabric::Infiniband, &ib, 100.0, 5.0, 2000),
                fabric(Fabric::Roce, &eth, 110.0, 15.0, 1900),
            ],
        ));
        assert!(
            rules.iter().all(|r| r.verdict == Verdict::Holds),
            "{rules:#?}"
        );
        assert!((rules[0].plan_value.unwrap() - 0.25).abs() < 1e-12);
        assert!((rules[1].plan_value.unwrap() - 100.0 / 110.0).abs() < 1e-12);
        assert!((rules[3].plan_value.unwrap() - 0.05).abs() < 1e-12);
    }

    #[test]
    fn each_claim_fails_where_the_figures_say_otherwise() {
        // Capex 5 % apart (switches are a small share); the same step; 4,096 GPUs with 40 %
        // of the step exposed communication, yet RoCE is the cheapest.
        let ib = capex(100, 900);
        let eth = capex(50, 900);
        let rules = rules_of_thumb(&plan(
            4096,
            Fabric::Roce,
            vec![
                fabric(Fabric::Infiniband, &ib, 100.0, 40.0, 2000),
                fabric(Fabric::Roce, &eth, 100.1, 40.1, 1900),
            ],
        ));
        assert_eq!(
            verdicts(&rules),
            vec![
                ("cost_gap", Verdict::Fails),
                ("throughput_share", Verdict::Fails),
                ("size_band", Verdict::Fails),
                ("comm_threshold", Verdict::Fails),
            ]
        );
        assert!(
            rules[0].why.contains("90.0 % of InfiniBand's capex"),
            "{}",
            rules[0].why
        );
    }

    #[test]
    fn the_size_band_defers_to_communication_in_between() {
        let ib = capex(500, 500);
        let eth = capex(250, 500);
        for (exposed, cheapest, holds) in [
            (40.0, Fabric::Infiniband, true),
            (40.0, Fabric::Roce, false),
            (10.0, Fabric::Roce, true),
        ] {
            let rules = rules_of_thumb(&plan(
                1024,
                cheapest,
                vec![
                    fabric(Fabric::Infiniband, &ib, 100.0, exposed, 2000),
                    fabric(Fabric::Roce, &eth, 101.0, exposed + 1.0, 1900),
                ],
            ));
            assert_eq!(rules[2].verdict == Verdict::Holds, holds, "{:?}", rules[2]);
        }
    }

    #[test]
    fn without_both_families_no_claim_applies() {
        let ib = capex(500, 500);
        let rules = rules_of_thumb(&plan(
            1024,
            Fabric::Infiniband,
            vec![fabric(Fabric::Infiniband, &ib, 100.0, 5.0, 2000)],
        ));
        assert_eq!(rules.len(), 4);
        assert!(rules.iter().all(|r| r.verdict == Verdict::NotApplicable));
    }
}
