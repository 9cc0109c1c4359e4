"""Every figure builder of the lab by name (the registry behind lab.views.ui.charts.figure)."""

from lab.charts import classroom, drafts, pitfalls, residual, sampling

# The pages' one cached path, lab.views.ui.charts.figure, looks builders up here by name: a new figure is a
# function in one of the chart modules plus one line below.
FIGURES = {
    builder.__name__: builder
    for builder in (
        # one step: p and q, the residual, the reconstruction, the binomial lab
        residual.pq_bars,
        residual.pq_bars_projected,
        residual.prediction_vs_residual,
        residual.reconstruction_bars,
        residual.binomial_bars,
        residual.worked_example_stack,
        # simulation and blocks
        sampling.empirical_vs_target,
        sampling.branch_counts,
        sampling.convergence,
        sampling.block_trace,
        sampling.speedup_chart,
        # several drafts
        drafts.stage_stack,
        drafts.acceptance_by_k,
        # numerics and pitfalls
        pitfalls.error_vs_z,
        pitfalls.processed_bars,
        pitfalls.law_vs_target,
        pitfalls.tv_by_variant,
        # the live class
        classroom.class_predictions_figure,
    )
}
