"""One generic registry for tools, checks, task families and backends."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

from generator.errors import UserError

T = TypeVar("T")


class Registry(Generic[T]):
    """A name → item mapping that rejects duplicates and suggests names on a miss."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._items: dict[str, T] = {}

    def add(self, name: str, item: T) -> T:
        """Register ``item`` under ``name``; a second registration of a name is a bug."""
        if name in self._items:
            raise ValueError(f"{self.kind} {name!r} is already registered")
        self._items[name] = item
        return item

    def register(self, name: str) -> Callable[[T], T]:
        """Decorator form of :meth:`add`."""

        def deco(item: T) -> T:
            return self.add(name, item)

        return deco

    def get(self, name: str) -> T:
        """Return the item named ``name`` or raise a :class:`UserError` with suggestions."""
        try:
            return self._items[name]
        except KeyError:
            close = difflib.get_close_matches(name, self._items, n=3, cutoff=0.5)
            hint = f"did you mean {' or '.join(repr(c) for c in close)}?" if close else None
            raise UserError(
                f"unknown {self.kind} {name!r}" + (f" ({hint})" if hint else ""),
                options=sorted(self._items),
                fix=f"use one of the registered {self.kind} names",
            ) from None

    def names(self) -> list[str]:
        """Registered names, sorted."""
        return sorted(self._items)

    def __contains__(self, name: object) -> bool:
        return name in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        return len(self._items)
