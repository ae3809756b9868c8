"""The engine's memos: least recently used first out, a value put again kept as the latest."""

from __future__ import annotations

from d100.memo import Memo


def test_the_least_recently_used_goes_first_and_a_key_put_again_is_the_latest() -> None:
    memo: Memo[str, int] = Memo(2)
    memo.put("a", 1)
    memo.put("b", 2)
    memo.put("a", 3)  # put again: now the latest, with its new value
    memo.put("c", 4)  # over the size: "b" is the least recently used
    assert "b" not in memo and memo.get("a") == 3 and memo.get("c") == 4
    assert memo.get("a") == 3  # read: the latest again
    memo.put("d", 5)
    assert "c" not in memo and len(memo) == 2
