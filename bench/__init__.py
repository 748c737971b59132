"""scripts/bench's modules: common (shared helpers), world (the services), measure (each row),
report (the table and BENCHMARKS.md text)."""
