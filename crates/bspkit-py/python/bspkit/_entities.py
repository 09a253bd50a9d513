"""The list type of ``bsp.ENTITIES`` (and of Respawn ``bsp.ENTITIES_<kind>`` partitions).

A ``list`` of :class:`bspkit.Entity` in every way, except that each method that changes it also
tells the compiled module, so the ``(key, value)`` index behind ``bsp.search_all_entities`` is
rebuilt on the next search. Edits through ``list``'s own functions called on it directly
(``list.append(ents, e)``) bypass this and are not seen by an index built before.
"""

from ._bspkit import _entities_edited as _edited


class EntityList(list):
    """The map's entities, in lump order: edit them (or the list) and ``save_as``."""

    __slots__ = ()

    def append(self, entity):
        super().append(entity)
        _edited()

    def extend(self, entities):
        super().extend(entities)
        _edited()

    def insert(self, index, entity):
        super().insert(index, entity)
        _edited()

    def remove(self, entity):
        super().remove(entity)
        _edited()

    def pop(self, index=-1):
        try:
            return super().pop(index)
        finally:
            _edited()

    def clear(self):
        super().clear()
        _edited()

    def sort(self, *, key=None, reverse=False):
        try:
            super().sort(key=key, reverse=reverse)
        finally:
            _edited()

    def reverse(self):
        super().reverse()
        _edited()

    def __setitem__(self, index, value):
        try:
            super().__setitem__(index, value)
        finally:
            _edited()

    def __delitem__(self, index):
        try:
            super().__delitem__(index)
        finally:
            _edited()

    def __iadd__(self, entities):
        try:
            return super().__iadd__(entities)
        finally:
            _edited()

    def __imul__(self, n):
        try:
            return super().__imul__(n)
        finally:
            _edited()
