"""Benchmarks behind `scenariogen bench ...`: synthetic inputs, timed experiments, reports."""
