"""Whether this process is served by server.py, with its HTTP routes beside the app (the class version route,
the component code route). server.py says so before the server starts; ``streamlit run app.py`` and AppTest do
not, and their pages then do without: a timed fragment follows the teacher, the components' code stays inline."""

routes_mounted = False


def mark_routes_mounted() -> None:
    global routes_mounted
    routes_mounted = True


UVICORN_PROXY_ENV = "FORWARDED_ALLOW_IPS"  # uvicorn's own list of proxies whose X-Forwarded-For it believes


def warn_if_uvicorn_believes_forwarded_headers() -> None:
    """One log line when this server was started without ``FORWARDED_ALLOW_IPS`` set (./run, deploy/serve and the
    container image set it empty): uvicorn then believes X-Forwarded-For from 127.0.0.1 and ::1 whatever
    RESIDUAL_LAB_TRUSTED_PROXIES says, so a local process could pose as any address (docs/security.md). uvicorn
    reads it before this module is imported, so it can only be said, not set, here."""
    import logging
    import os

    if UVICORN_PROXY_ENV not in os.environ:
        logging.getLogger("residual_lab").warning(
            "%s is not set: uvicorn believes X-Forwarded-For from loopback; start the app with ./run, or set %s=''",
            UVICORN_PROXY_ENV,
            UVICORN_PROXY_ENV,
        )
