"""The dealer display: the table state as JSON (:mod:`.state`) and the web page serving it
live over a WebSocket (:mod:`.web`, :mod:`.messages`, ``static/``)."""
