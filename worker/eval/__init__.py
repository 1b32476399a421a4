"""Evaluation: answers scored on the golden set, and `citavial calibrate`."""
