"""The citation gate: every quote judged on the rendered page (verify, fragments), and the
deep links written once the gate has run."""
