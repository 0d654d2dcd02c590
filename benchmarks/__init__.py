"""s2sad's benchmarks: generated gradients against hand-written ones and other AD tools.

Run ``python -m benchmarks`` (see ``run.py``); workloads are in ``workloads.py``.
"""
