"""KUMO's games, one task family among the others (docs/architecture.md).

Its engine core is plain Python, like every family's: domains as data (``domain_io``),
knowledge books (``book``), the exact optimal search (``search``, with its compiled twin
``_fastsearch.c``), SAT-based generation (``generate``), the game (``game``), the reader of
the original release's files (``kumo_release``), its metrics (``metrics``) and the domain
analysis (``analysis``). ``family.KumoFamily`` puts them behind the family interface.

This module imports nothing, so that importing one part does not load the others.
"""
