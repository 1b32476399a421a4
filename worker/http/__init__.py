"""The HTTP edge: the Flask app, serving dist/, request checks, limits, drain and metrics."""
