"""Property: any interleaving of mount, unmount, activate and workspace switch matches a
plain reference model of SPEC §2."""

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from ambient.store import AmbientStore
from tests.unit.fakes import FakeRuntime

FRAMES = st.sampled_from(["f1", "f2", "f3", "f4"])
KINDS = st.sampled_from(["inbox", "assistant", "files"])


class Reference:
    """SPEC §2 read literally: a log of Inbox activations and a set of mounted frames."""

    def __init__(self) -> None:
        self.mounted: dict[str, str] = {}  # frame id -> path
        self.log: list[str] = []
        self.mount_order: list[str] = []

    def expected(self) -> str | None:
        if not self.mounted:
            return None
        if len(self.mounted) == 1:
            return next(iter(self.mounted))
        for frame in reversed(self.log):
            if frame in self.mounted:
                return frame
        return self.mount_order[-1]


class StoreMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.store = AmbientStore()
        self.ref = Reference()

    @rule(frame=FRAMES, path=st.sampled_from(["a.md", "b.md", "日記/c.md"]))
    def mount(self, frame, path):
        self.store.publish(FakeRuntime(frame, path))
        self.ref.mounted[frame] = path
        if frame in self.ref.mount_order:
            self.ref.mount_order.remove(frame)
        self.ref.mount_order.append(frame)

    @rule(frame=FRAMES)
    def unmount(self, frame):
        self.store.withdraw(frame)
        self.ref.mounted.pop(frame, None)
        if frame in self.ref.mount_order:
            self.ref.mount_order.remove(frame)

    @rule(frame=FRAMES)
    def close(self, frame):
        self.store.forget(frame)
        self.ref.mounted.pop(frame, None)
        self.ref.log = [f for f in self.ref.log if f != frame]
        if frame in self.ref.mount_order:
            self.ref.mount_order.remove(frame)

    @rule(frame=FRAMES, kind=KINDS)
    def activate(self, frame, kind):
        self.store.activate(frame, kind)
        if kind == "inbox":
            self.ref.log.append(frame)

    @rule()
    def switch_workspace(self):
        self.store.boundary()
        self.ref = Reference()

    @invariant()
    def resolves_like_the_reference(self):
        resolved = self.store.resolve()
        expected = self.ref.expected()
        assert (resolved.frame_id if resolved else None) == expected
        if resolved:
            assert resolved.path == self.ref.mounted[expected]


StoreMachine.TestCase.settings = settings(max_examples=300, stateful_step_count=40, deadline=None)
test_store_matches_reference_model = StoreMachine.TestCase
