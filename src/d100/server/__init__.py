"""The table server: a game master and players roll together over HTTP, live.

Framework code (``app``, ``api``, ``live``) stays thin; what a table is and who may do or see
what lives in plain modules (``tables``, ``access``, ``rolls``, ``flow``, ``characters``)."""
