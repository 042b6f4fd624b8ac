//! The catalog's operating figures graded placeholder (grade P), said where a plan counts them.

use rust_decimal::Decimal;

use crate::catalog::{Catalog, Figure, Operations};
use crate::cost::Economics;

use super::NoteScope;

/// A catalog operating figure a plan counts, which the catalog may grade placeholder.
struct CountedFigure {
    figure: fn(&Operations) -> &Figure,
    /// The value the plan uses (the request's, else the catalog's).
    used: fn(&Economics) -> Decimal,
    /// The request input that sets it.
    input: &'static str,
    scope: NoteScope,
    counted_by: &'static str,
}

/// One [`CountedFigure`]: `section.field` is the request input and names the field of
/// [`crate::catalog::Operations`] and of [`Economics`] alike.
macro_rules! counted {
    ($section:ident . $field:ident, $scope:ident, $counted_by:literal) => {
        CountedFigure {
            figure: |o| &o.$field,
            used: |e| e.$field,
            input: concat!(stringify!($section), ".", stringify!($field)),
            scope: NoteScope::$scope,
            counted_by: $counted_by,
        }
    };
}

/// The operating figures whose placeholders a plan says, one table for the catalog's side and
/// the plan's ([`placeholder_notes`] indexes it).
const PLACEHOLDER_FIGURES: [CountedFigure; 4] = [
    counted!(economics.discount_rate, Any, "the TCO's present value"),
    counted!(economics.spares_rate, Any, "opex"),
    counted!(utilization.busy_fraction, Any, "GPU-idle cost"),
    counted!(
        economics.gpus_per_ib_specialist,
        Infiniband,
        "InfiniBand staff opex"
    ),
];

/// Catalog operating figures that are placeholders (grade P), where the plan counts them:
/// said as a placeholder part price is, where a fabric the plan builds counts them. By value,
/// not by whether the request gave it: the echoed inputs, posted back, give the figure and
/// must give the same plan. The sentences are written once a catalog (`Catalog::notes`):
/// formatting them in every plan was 3.6 % of a figures plan.
pub(super) fn note_used(
    catalog: &Catalog,
    economics: &Economics,
    fabric_notes: &mut Vec<(NoteScope, String)>,
) {
    let notes = catalog
        .notes
        .get_or_init(|| placeholder_notes(&catalog.data.operations));
    for (i, value, scope, text) in notes {
        if PLACEHOLDER_FIGURES.get(*i).map(|f| (f.used)(economics)) == Some(*value) {
            fabric_notes.push((*scope, text.clone()));
        }
    }
}

/// The catalog's [`PLACEHOLDER_FIGURES`] graded placeholder, each as (its index, the catalog's
/// value, the fabrics it concerns, the sentence said when a plan uses that value).
fn placeholder_notes(ops: &Operations) -> Vec<(usize, Decimal, NoteScope, String)> {
    PLACEHOLDER_FIGURES
        .iter()
        .enumerate()
        .map(|(i, c)| (i, (c.figure)(ops), c))
        .filter(|(_, figure, _)| figure.provenance.is_placeholder())
        .map(|(i, figure, c)| {
            let (input, scope, counted_by) = (c.input, c.scope, c.counted_by);
            (
                i,
                figure.value,
                scope,
                format!(
                    "{}{input}: {} ({}) is the catalog's placeholder figure (grade P, no public source) — {counted_by} counts it; set your own {input}",
                    scope.prefix(),
                    figure.value.normalize(),
                    figure.unit
                ),
            )
        })
        .collect()
}
