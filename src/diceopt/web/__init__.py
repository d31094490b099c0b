"""The web advisor: FastAPI app (``create_app``) and its static page."""
