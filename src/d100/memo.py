"""Bounded memos that know each other: every cache the engine keeps is an LRU of a fixed size,
safe to share between threads, and ``clear_all`` forgets them all (no hand-kept list)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from functools import lru_cache
from typing import Any, Generic, Protocol, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
F = TypeVar("F", bound=Callable[..., Any])


class _Clearable(Protocol):
    def cache_clear(self) -> None: ...


_ALL: list[_Clearable] = []


class Memo(Generic[K, V]):
    """A least-recently-used map of at most ``size`` entries. Values are computed outside the
    lock: two threads may both compute a missing value, and either result is kept (values
    are pure functions of their keys)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()
        _ALL.append(self)

    def get(self, key: K) -> V | None:
        found = self._items.get(key)  # a miss, the cold path's usual answer, takes no lock
        if found is not None:
            # nor a hit: moving one key to the end is one step of the ordered dict itself,
            # which no ``put`` sees half done (a check's odds read four memos)
            try:
                self._items.move_to_end(key)
            except KeyError:  # evicted meanwhile: still a good value
                return found
        return found

    def put(self, key: K, value: V) -> V:
        with self._lock:
            items = self._items
            before = len(items)
            items[key] = value  # a new key goes last: hashed once, as a cold request's is
            if len(items) == before:
                items.move_to_end(key)
            while len(items) > self.size:
                items.popitem(last=False)
        return value

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def __len__(self) -> int:
        return len(self._items)

    def cache_clear(self) -> None:
        with self._lock:
            self._items.clear()


def memoised(size: int) -> Callable[[F], F]:
    """``functools.lru_cache`` of ``size`` (thread-safe), registered for ``clear_all``."""

    def wrap(fn: F) -> F:
        cached = lru_cache(maxsize=size)(fn)
        _ALL.append(cached)
        return cached  # type: ignore[return-value]

    return wrap


def clear_all() -> None:
    """Forget every memo: for benchmarks that time a cold start, and for tests."""
    for memo in _ALL:
        memo.cache_clear()
