"""Passwords: every argon2 hash and check runs on the one thread kept for them."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from argon2 import PasswordHasher

from backend.services.users import Passwords


class RecordingHasher(PasswordHasher):
    """A cheap hasher that notes the thread each hash and check ran on."""

    def __init__(self) -> None:
        super().__init__(time_cost=1, memory_cost=8, parallelism=1)
        self.threads: set[str] = set()

    def hash(self, password, *, salt=None):  # type: ignore[override]
        self.threads.add(threading.current_thread().name)
        return super().hash(password, salt=salt)

    def verify(self, hash, password):  # type: ignore[override]
        self.threads.add(threading.current_thread().name)
        return super().verify(hash, password)


def test_checks_from_many_threads_all_run_on_one_thread_and_answer_right() -> None:
    # argon2 takes its memory from the allocator arena of the thread it runs in, and an
    # arena keeps it: checks spread over the server's worker threads held 19 MiB in each.
    hasher = RecordingHasher()
    passwords = Passwords(hasher)
    stored = passwords.hash("correct horse")
    with ThreadPoolExecutor(max_workers=8) as workers:
        answers = list(
            workers.map(
                lambda i: passwords.verify(stored, "correct horse" if i % 2 else f"wrong {i}"),
                range(16),
            )
        )
        workers.submit(passwords.burn, "anything").result()
    assert answers == [bool(i % 2) for i in range(16)]
    assert len(hasher.threads) == 1
    assert next(iter(hasher.threads)).startswith("ana-argon2")


def test_a_damaged_hash_is_a_failed_check_not_an_error() -> None:
    assert Passwords(RecordingHasher()).verify("not an argon2 hash", "x") is False
