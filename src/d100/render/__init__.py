"""Renderers: results never format themselves. ``view`` builds what to show; ``plain``,
``terminal`` and ``json_out`` are the output formats."""
