"""Handwork: what a person does to a store by hand, and what they need to see to do it.

Everything here is headless and synchronous; the faces reach it through
:class:`kura_core.kura.Kura`. The values that cross into a face are frozen dataclasses.
One module per concern: ``memories`` (viewing, editing by hand, retiring), ``quotes``,
``maps`` (the map and the weave preview), ``drafts``, ``seeds``, ``tidy``, ``runs``
(distilling and draining by hand), ``tender`` and ``journals``."""
