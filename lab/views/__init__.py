"""Streamlit pages (thin views): read controls, call the core in lab/, draw. No math here."""
