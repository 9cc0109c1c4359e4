"""Whether this process is served by server.py, with its HTTP routes beside the app (the class version route,
the component code route). server.py says so before the server starts; ``streamlit run app.py`` and AppTest do
not, and their pages then do without: a timed fragment follows the teacher, the components' code stays inline."""

routes_mounted = False


def mark_routes_mounted() -> None:
    global routes_mounted
    routes_mounted = True
