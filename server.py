"""What ./run and deploy/serve start: the app (app.py, the pages) plus two small HTTP routes. Through
``GET /_class_version`` a student's page in a live class asks whether the teacher moved on
(lab.views.live_class.follow),
so that a waiting class costs the server a dictionary lookup per page every few seconds instead of a script run;
``GET /_ready`` is the readiness check, whether the class database answers (lab.views.serving.readiness;
``/_stcore/health`` stays the liveness check). ``streamlit run server.py`` takes the same options as
``streamlit run app.py``; app.py alone still runs every page (the class page then follows the teacher with a
timed fragment)."""

import streamlit as st
from starlette.middleware import Middleware

from lab.views import patches
from lab.views.live_class import follow
from lab.views.serving import component_code, headers, readiness, served

# before any session: the first message a page sends to a restarted server may be a press inside a fragment
patches.install_all(before_pages=True)

served.warn_if_uvicorn_believes_forwarded_headers()  # X-Forwarded-For: RESIDUAL_LAB_TRUSTED_PROXIES only

served.mark_routes_mounted()  # the pages of this process use the routes below

app = st.App(
    "app.py",
    routes=follow.routes() + readiness.routes() + component_code.routes(),
    # Referrer-Policy on every response (outermost, so the version shortcut's answers have it too); then the version
    # route answered before Streamlit's middleware
    middleware=[Middleware(headers.SecurityHeaders), Middleware(follow.VersionShortcut)],
)
