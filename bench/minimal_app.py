"""The bench's baseline: the smallest Streamlit app with one slider and one plotly chart."""

import plotly.graph_objects as go
import streamlit as st

value = st.slider("value", 0.0, 1.0, 0.5, step=0.01, key="value")
st.plotly_chart(go.Figure(go.Bar(x=["a", "b"], y=[value, 1 - value])), key="chart", alt="Two bars: value and 1 - value")
