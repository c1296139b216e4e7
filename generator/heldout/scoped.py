"""Named checks that serve every asset class or only some: the margins' and decoys' registry.

A check registered with ``asset_classes=("*",)`` is generic; one registered for named
classes serves only them and may share a generic check's name: for those classes it is
tried first, and the generic one runs when it does not apply (returns ``None``). So a class
refines a generic kind (e.g. its own reading of "wrong edition") without copying it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from generator.registry import Registry

T = TypeVar("T")

GENERIC = "*"


class ScopedRegistry(Generic[T]):
    """Items by (asset class or ``*``, name); lookups are per class."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._items: Registry[T] = Registry(kind)

    def add(self, name: str, item: T, asset_classes: tuple[str, ...] = (GENERIC,)) -> T:
        """Register ``item`` under ``name`` for ``asset_classes`` (``("*",)``: every class).

        Raises:
            ValueError: ``name`` is already registered for one of the classes, or
                ``asset_classes`` is empty or mixes ``*`` with class names.
        """
        if not asset_classes or (GENERIC in asset_classes and len(asset_classes) > 1):
            raise ValueError(f"{self.kind} {name!r}: asset_classes must be ('*',) or class "
                             f"names, not {asset_classes!r}")
        for cls in asset_classes:
            self._items.add(f"{cls}:{name}", item)
        return item

    def register(self, name: str, asset_classes: tuple[str, ...] = (GENERIC,)
                 ) -> Callable[[T], T]:
        """Decorator form of :meth:`add`."""

        def deco(item: T) -> T:
            return self.add(name, item, asset_classes)

        return deco

    def for_class(self, asset_class: str) -> dict[str, list[T]]:
        """Name → the items to try in order (the class's own first, then the generic one),
        for every name that serves ``asset_class``, sorted by name."""
        out: dict[str, list[T]] = {}
        for key in self._items:
            scope, name = key.split(":", 1)
            if scope == asset_class:
                out.setdefault(name, []).insert(0, self._items.get(key))
            elif scope == GENERIC:
                out.setdefault(name, []).append(self._items.get(key))
        return dict(sorted(out.items()))

    def names(self, asset_class: str) -> list[str]:
        """The names serving ``asset_class``, sorted."""
        return list(self.for_class(asset_class))
