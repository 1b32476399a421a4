"""The answer path: read the question, pick the span, decide, cite — from the allowlist only."""
