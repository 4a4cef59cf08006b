"""Agent proposals in the page (SPEC §14): every window of the user shows them, with Apply.

The `agent-proposals` strip sits under the top bar. While the page is visible it polls
`GET /api/proposals?status=pending` every few seconds (agent_proposals_model says what to
add and drop), so a proposal an agent makes shows in every open window without a reload.
Each `agent-proposal` is a ProposalCard (proposal_card.py): Apply goes through the live
editor as one undoable transaction when the note is open in this window, else through
`POST /api/proposals/{id}/apply`.
"""

from __future__ import annotations

import asyncio
from urllib.parse import quote

from js import document
from pyscript.js_modules import editor

from app.agents.agent_proposals_model import PENDING_QUERY, POLL_SECONDS, URL, reconcile, title
from app.chat.proposal_card import PENDING, ProposalCard
from app.dom import h, spawn
from app.latest_model import Latest


class AgentProposals:
    """The strip of agent proposals for one window; `el` goes under the top bar."""

    def __init__(self, ctx, listeners) -> None:
        self.ctx, self.listeners = ctx, listeners
        self.cards: dict[str, tuple[ProposalCard, object]] = {}
        self.settled: set[str] = set()
        self._reads = Latest()  # moved by each read: an older read answering last is not drawn
        self.el = h(
            "section",
            {
                "class": "agent-proposals",
                "data-testid": "agent-proposals",
                "aria-label": "Edits proposed by your agents",
                "hidden": True,
            },
        )
        listeners.on(document, "visibilitychange", self._on_visibility)
        spawn(self._poll())

    async def _on_visibility(self, event) -> None:
        if editor.pageVisible() and self.el.isConnected:  # back in view: look at once
            await self.refresh()

    async def _poll(self) -> None:
        await asyncio.sleep(0)  # let the shell attach `el` first
        while self.el.isConnected:
            if editor.pageVisible():
                await self.refresh()
            await asyncio.sleep(POLL_SECONDS)

    async def refresh(self) -> None:
        latest = self._reads.start()
        try:
            reply = await self.ctx.api.call("GET", URL + PENDING_QUERY)
        except Exception:  # noqa: BLE001 - offline: the next poll asks again
            return
        if reply.status != 200 or not latest():  # a poll and a return to view overlap
            return
        pending = (reply.json() or {}).get("proposals") or []
        working = {pid for pid, (card, _) in self.cards.items() if card.busy}
        add, drop = reconcile(list(self.cards), self.settled, pending, working)
        for pid in drop:
            self.cards.pop(pid)[1].remove()
        for proposal in add:
            self._add(proposal)
        self.el.hidden = not self.cards

    def _add(self, proposal: dict) -> None:
        pid = proposal["proposalId"]
        card = ProposalCard(
            self.ctx, self.listeners, None, {"result": proposal}, url=f"{URL}/{quote(pid, safe='')}"
        )
        card.el.dataset.testid = "agent-proposal"
        card.el.dataset.path = card.path  # the contract names the note on the card
        card.el.setAttribute("aria-label", title(proposal))
        card.el.querySelector(".proposal-title").textContent = title(proposal)
        if proposal.get("summary"):
            card.diff.before(h("p", {"class": "proposal-summary", "text": proposal["summary"]}))
        dismiss = h(
            "button",
            {
                "type": "button",
                "class": "small",
                "data-testid": "agent-proposal-dismiss",
                "text": "Dismiss",
                "hidden": True,
            },
        )
        card.el.querySelector(".proposal-actions").append(dismiss)
        shown = card.show

        def show(status: str, note: str = "") -> None:  # remember what this window settled
            shown(status, note)
            if status != PENDING:
                self.settled.add(pid)
                dismiss.hidden = False

        card.show = show
        self.listeners.on(dismiss, "click", lambda event: self._dismiss(pid))
        self.cards[pid] = (card, card.el)
        self.el.append(card.el)

    def _dismiss(self, pid: str) -> None:
        if pid in self.cards:
            self.cards.pop(pid)[1].remove()
        self.el.hidden = not self.cards
