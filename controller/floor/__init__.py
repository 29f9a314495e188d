"""The casino floor: every table's journal in PostgreSQL, the pit's live view, shift reports.

Floors of this package: :mod:`~controller.floor.schema` (the migrations and the roles),
:mod:`~controller.floor.shipper` (the table's side: journal rows to PostgreSQL),
:mod:`~controller.floor.chain` and :mod:`~controller.floor.live` (what the floor makes of the
rows), :mod:`~controller.floor.report`, :mod:`~controller.floor.audit`,
:mod:`~controller.floor.web` (the floor page) and :mod:`~controller.floor.cluster` (a throwaway
PostgreSQL for the demo, the tests and the benchmark). See ``docs/floor.md``.
"""
