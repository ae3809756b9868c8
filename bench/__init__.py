"""d100 benchmarks: ``python -m bench [--quick] [--only a,b,c,d,e]`` (``make bench``).

Every figure is printed with its ratio to baselines measured in the same run, because the
machine is shared and only same-run ratios mean anything. Each baseline is checked to give the
same numbers as d100 before it is timed.
"""
