"""Live classes and saved self-study: storage and class logic (layer 2; no Streamlit).

Every function takes a SQLAlchemy engine, so the page passes ``st.connection("classroom", type="sql").engine``
and the tests pass SQLite files and PostgreSQL."""
