"""hylo-memory: a personal long-term memory pipeline."""
