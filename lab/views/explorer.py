"""Residual explorer (placeholder until the lab pages land)."""

import streamlit as st

from lab.formatting import both_text
from lab.residual import residual
from lab.scenarios import load_scenario

scenario = load_scenario("bernoulli-residual")
result = residual(scenario.p, scenario.q)
st.title("Residual explorer")
st.caption(scenario.title)
st.table(
    {
        "token": list(result.tokens),
        "p": [both_text(v) for v in result.p],
        "q": [both_text(v) for v in result.q],
        "residual r": [both_text(v) for v in result.residual],
    }
)
st.write(f"alpha = {both_text(result.alpha)}, Z = {both_text(result.z)}")
