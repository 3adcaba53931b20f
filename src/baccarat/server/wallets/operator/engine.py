"""The operators' runtime in one process: rounds played on an operator's wallet, their calls
sent, and a worker that resumes every unfinished round.

A round is created (``round.play`` with an ``OperatorWallet``: state ``bet``, its bet call
written) in one transaction; the bet is sent from the event loop with an asynchronous
client and its answer recorded; the player is answered by the round's state; what follows
(the win, or the rollback) is sent by a task of its own. The worker takes the rounds that
are due and held by nobody (retries, and the rounds of a process that stopped), several
processes on one database included: a round's lease keeps it to one at a time.

Every answer of play tells the player the message the operator left for them, if one waits
for their choice (``messages``: a reality check); the choice is sent back to the operator.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Protocol

from baccarat.core import Bets
from baccarat.server import history
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.errors import ServiceError
from baccarat.server.history import StoredRound
from baccarat.server.kinds.house import service as rounds
from baccarat.server.play import idempotency
from baccarat.server.play.host import Host
from baccarat.server.play.round import Dealer
from baccarat.server.profiles import position
from baccarat.server.profiles.rules import market_of
from baccarat.server.tables import Table
from baccarat.server.wallets.operator import launch, messages, outbox
from baccarat.server.wallets.operator.client import WalletClient
from baccarat.server.wallets.operator.config import Operator
from baccarat.server.wallets.operator.contract import Answer, WalletProtocol
from baccarat.server.wallets.operator.outbox import Call, OperatorSession, OperatorWallet

if TYPE_CHECKING:
    from baccarat.server.profiles import ProfileSet
    from baccarat.server.wallets.operator.config import Operators


class Casino(Host, Protocol):
    """What the desk uses of ``casino.Casino`` (not imported: the casino imports this)."""

    operators: Operators
    profiles: ProfileSet


# Bets on a shared coup (``shared.place``, its coup and bets given; the session, the table,
# the player, the lease and the operator's contract here): the answer, and the calls it
# wrote.
CoupPlacement = Callable[
    [UnitOfWork, OperatorSession, Table, int, float, WalletProtocol],
    tuple[dict[str, Any], list[Call]],
]

log = logging.getLogger("baccarat.server.wallets.operator")

WAIT_POLL_S = 0.05
MAX_IN_FLIGHT = 200  # rounds whose calls one process sends at once


def payout(state: str, win: int) -> str:
    """What the player is told of the win of a round whose bet the operator applied: "none"
    (the round returned nothing: the win call that closes it credits nothing), "pending"
    (the win call is on its way) or "paid" (it landed)."""
    if win == 0:
        return "none"
    return "paid" if state == "settled" else "pending"


def _not_played(
    state: str, status: str | None, round_id: str, rolled_back: str, contract: WalletProtocol,
    reason: str | None, message: dict[str, Any] | None,
) -> ServiceError:  # fmt: skip
    """The player's refusal of a bet the operator refused (``refused``; for its gambling
    limit, in its own words when it gave some: ``reason``), has not answered yet (``bet``:
    ask again), or did not apply (``rolled_back``: what the player is told); with the
    operator's message waiting for the player, if any."""
    told = {} if message is None else {"operator_message": message}
    if state == "refused" and status is not None and contract.limited(status):
        return ServiceError(
            "operator_limit",
            f"your casino's gambling limit: {reason or contract.reason(status)}",
            status=status, round=round_id, reason=reason or contract.reason(status), **told,
        )  # fmt: skip
    if state == "refused":
        assert status is not None
        return ServiceError(
            "operator_refused",
            f"the casino refused the bet: {reason or contract.reason(status)}",
            status=status, round=round_id, **told,
        )  # fmt: skip
    return ServiceError(
        "operator_unavailable",
        rolled_back if state != "bet" else "the casino's wallet has not answered yet: ask "
        "again with the same Idempotency-Key",
        round=round_id, state=state, **told,
    )  # fmt: skip


def _told(uow: UnitOfWork, answer: dict[str, Any], player_id: int) -> dict[str, Any]:
    """An answer of play, with the operator's message waiting for the player, if any."""
    message = messages.waiting(uow, player_id)
    return answer if message is None else answer | {"operator_message": message}


class OperatorDesk:
    def __init__(self, casino: Casino) -> None:
        self.casino = casino
        self.operators = casino.operators
        self.poll_s = casino.settings.operator_poll_s
        self.cap_s = casino.settings.operator_max_backoff_s
        self.client: WalletClient | None = None
        self._worker: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()

    async def start(self) -> None:
        if not self.operators:
            return
        self.client = WalletClient()
        self._worker = asyncio.create_task(self._work(), name="operators-worker")

    async def stop(self) -> None:
        tasks = [t for t in (self._worker, *self._tasks) if t is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self.client is not None:
            await self.client.close()

    def operator(self, operator_id: str) -> Operator:
        operator = self.operators.get(operator_id)
        if operator is None or self.client is None:
            raise ServiceError(
                "operator_unavailable", f"operator {operator_id} is not configured here"
            )
        return operator

    @property
    def _lease_s(self) -> float:
        return max((outbox.lease_for(o.timeout_s) for o in self.operators.values()), default=5)

    # -- sessions ------------------------------------------------------------------------

    async def session(self, token_hash: str | None) -> OperatorSession:
        return await self.casino.db.read(lambda uow: launch.session_of(uow, token_hash))

    async def refresh_balance(self, session: OperatorSession) -> int | None:
        """Ask the operator for the session's balance (kept with the session)."""
        if session.demo:
            return None
        operator = self.operator(session.operator_id)
        contract = operator.contract
        call = await self.casino.db.write(lambda uow: outbox.balance_call(uow, session, contract))
        answer = await self._send(operator, call)
        await self.casino.db.write(
            lambda uow: outbox.session_answered(uow, call, answer, session.token_hash)
        )
        return answer.balance if contract.outcome(answer.status) == "ok" else None

    async def waiting(self, token_hash: str | None) -> dict[str, Any] | None:
        """The operator's message waiting for the session's player, if any."""

        def read(uow: UnitOfWork) -> dict[str, Any] | None:
            return messages.waiting(uow, launch.session_of(uow, token_hash).player_id)

        return await self.casino.db.read(read)

    async def choose(self, token_hash: str | None, message: int, choice: Any) -> dict[str, Any]:
        """The player's choice on a message of the operator: kept, and sent back to the
        operator once (its answer kept with the call; a choice made already is not sent
        again)."""

        def keep(uow: UnitOfWork) -> tuple[OperatorSession, str, str, Call | None]:
            session = launch.session_of(uow, token_hash)
            theirs, chosen, new = messages.choose(uow, session.player_id, message, choice)
            contract = self.operator(session.operator_id).contract
            call = outbox.choice_call(uow, session, contract, theirs, chosen) if new else None
            return session, theirs, chosen, call

        session, theirs, chosen, call = await self.casino.db.write(keep)
        answered = None
        if call is not None:
            answer = await self._send(self.operator(session.operator_id), call)
            await self.casino.db.write(
                lambda uow: outbox.session_answered(uow, call, answer, session.token_hash)
            )
            answered = answer.status
        return {"id": message, "message_id": theirs, "choice": chosen, "sent": answered}

    # -- rounds --------------------------------------------------------------------------

    async def play(
        self, token_hash: str | None, table: Table, bets: Bets, key: str, hashed: str
    ) -> dict[str, Any]:
        """Play a round on the session's operator's wallet; the player's answer."""
        created: list[tuple[Call, Table, int, StoredRound]] = []

        def work(uow: UnitOfWork, player_id: int) -> dict[str, Any]:
            session = launch.session_of(uow, token_hash)
            operator = self.operator(session.operator_id)
            here = self._offered(operator, table, session.currency)
            lease = outbox.lease_for(operator.timeout_s)
            wallet = OperatorWallet(session, table.id, bets.to_json(), lease, operator.contract)
            dealer = Dealer(self.casino.shoes, wallet, lightning=self.casino.dealer.lightning)
            profile = self.casino.profiles.of_market(market_of(uow, token_hash))
            played = rounds.play_round(uow, dealer, player_id, here, "real", bets, profile)
            assert wallet.first is not None
            created.append((wallet.first, here, player_id, played))
            return {"round_id": played.id}

        answer, replayed = await idempotency.written_once(
            self.casino.db, token_hash, key, hashed, 201, work
        )
        round_id = json.loads(answer.body)["round_id"]
        if created and not replayed:
            # The last try is the one committed (a unit of work tried again in the next batch
            # ran ``work`` again; what an earlier try wrote was rolled back).
            call, here, player_id, played = created[-1]
            operator = self.operator(call.operator_id)
            sent = await self._send(operator, call)
            timeout, cap = operator.timeout_s, self.cap_s

            applied = outbox.bet_balance(call, sent.balance, played.win)
            if applied is not None:
                before, after_round = outbox.shown_balances(
                    applied, played.stake + played.fee, played.win
                )
                played = replace(played, balance_before=before, balance_after=after_round)

            def record(uow: UnitOfWork) -> tuple[Call | None, dict[str, Any] | ServiceError]:
                # The bet's answer, and the player's, in one transaction (the round as it was
                # written, with the operator's balances if shown: not read again).
                state, after = outbox.answered(uow, call, sent, timeout, cap)
                reply = self._answer(uow, here, bets, round_id, player_id, operator.contract,
                                     (state, sent.status, sent.reason), played)  # fmt: skip
                if isinstance(reply, dict):  # the felt's position, with the round in it
                    profile = self.casino.profiles.of_market(market_of(uow, token_hash))
                    reply |= position.after_round(uow, profile, player_id, "real")
                return after, reply

            after, reply = await self.casino.db.write(record)
            if after is not None:
                self._spawn(self._follow(operator, after))
        else:
            await self._settled_bet(round_id)

            def again(uow: UnitOfWork) -> dict[str, Any] | ServiceError:
                session = launch.session_of(uow, token_hash)
                operator = self.operator(session.operator_id)
                here = self._offered(operator, table, session.currency)
                return self._answer(uow, here, bets, round_id, session.player_id,
                                    operator.contract)  # fmt: skip

            reply = await self.casino.db.read(again)
        if isinstance(reply, ServiceError):
            raise reply
        return reply

    async def bet_on_coup(
        self, token_hash: str | None, table: Table, place: CoupPlacement, key: str,
        hashed: str, tell: Callable[[UnitOfWork, str], None],
    ) -> dict[str, Any]:  # fmt: skip
        """Place (replace, withdraw) the session's bets on a shared coup on its operator's
        wallet (``place``: ``shared.place``, which writes the calls): the earlier
        round's rollback and the new round's bet are sent now, in that order; the player is
        answered by the new round's state (its bets stand once ``placed``)."""
        created: list[list[Call]] = []

        def work(uow: UnitOfWork, player_id: int) -> dict[str, Any]:
            session = launch.session_of(uow, token_hash)
            operator = self.operator(session.operator_id)
            here = self._offered(operator, table, session.currency)
            lease = outbox.lease_for(operator.timeout_s)
            answer, calls = place(uow, session, here, player_id, lease, operator.contract)
            tell(uow, table.id)  # the totals changed: every worker's sockets hear of it
            created.append(calls)
            return answer

        stored, replayed = await idempotency.written_once(
            self.casino.db, token_hash, key, hashed, 200, work
        )
        answer: dict[str, Any] = json.loads(stored.body)
        round_id: str | None = answer.get("operator_round")
        calls = created[-1] if created and not replayed else []  # the try committed (play)

        def refused(uow: UnitOfWork, state: str) -> None:
            if state in ("rollback", "refused"):
                tell(uow, table.id)  # the bet left the coup (``outbox.unbet``): the totals

        for call in calls:
            operator = self.operator(call.operator_id)
            _, after = await self._exchange(operator, call, refused)
            if after is not None:
                self._spawn(self._follow(operator, after))
        if not calls and round_id is not None:
            await self._settled_bet(round_id)  # a replay, or the same bets again
        if round_id is None:
            return answer  # withdrawn (a rollback of the earlier bets is on its way)

        def now(uow: UnitOfWork) -> dict[str, Any] | ServiceError:
            state, status = outbox.state_of(uow, round_id)
            session = launch.session_of(uow, token_hash)
            if state in (outbox.PLACED, *outbox.SHOWN):
                placed = answer | {"balance": session.balance or 0, "operator_state": state}
                return _told(uow, placed, session.player_id)
            return _not_played(state, status, round_id, "the casino's wallet did not confirm "
                               "the bet (in time for the close): it is rolled back and not "
                               "played (nothing was lost)",
                               self.operator(session.operator_id).contract,
                               outbox.refusal_reason(uow, round_id),
                               messages.waiting(uow, session.player_id))  # fmt: skip

        reply = await self.casino.db.read(now)
        if isinstance(reply, ServiceError):
            raise reply
        return reply

    def _offered(self, operator: Operator, table: Table, currency: str) -> Table:
        """The table in the session's currency (its chips and limits), or a refusal."""
        here = launch.offer(operator, table, currency)
        if here is None:
            raise ServiceError(
                "table_not_offered",
                f"table {table.id} is not offered in {currency} by your casino",
                table=table.id,
            )
        return here

    def _answer(
        self, uow: UnitOfWork, table: Table, bets: Bets, round_id: str, player_id: int,
        contract: WalletProtocol, known: tuple[str, str | None, str | None] | None = None,
        played: StoredRound | None = None,
    ) -> dict[str, Any] | ServiceError:  # fmt: skip
        """The player's answer by the round's state (``known``: as the bet's answer just
        left it, with the operator's reason, and ``played`` the round as shown then; a
        refusal is returned, not raised: it is decided in the transaction that records the
        bet's answer)."""
        if known is None:
            known = (*outbox.state_of(uow, round_id), outbox.refusal_reason(uow, round_id))
        state, status, reason = known
        if state in outbox.SHOWN:
            if played is None:
                played = history.get_round(uow, None, round_id)
            answer = rounds.round_answer(uow, player_id, table, played, bets)
            answer["payout"] = payout(state, played.win)
            return _told(uow, answer, player_id)
        return _not_played(state, status, round_id, "the casino's wallet did not answer: the "
                           "bet is rolled back (nothing was lost)", contract, reason,
                           messages.waiting(uow, player_id))  # fmt: skip

    async def _settled_bet(self, round_id: str) -> None:
        """Wait (bounded) until the bet of a round another request sent is answered."""
        loop = asyncio.get_running_loop()
        until = loop.time() + self._lease_s
        while loop.time() < until:
            state, _ = await self.casino.db.read(lambda uow: outbox.state_of(uow, round_id))
            if state != "bet":
                return
            await asyncio.sleep(WAIT_POLL_S)

    # -- calls ---------------------------------------------------------------------------

    async def _send(self, operator: Operator, call: Call) -> Answer:
        assert self.client is not None
        return await self.client.send(operator, call)

    async def _follow(self, operator: Operator, call: Call | None) -> None:
        while call is not None:
            _, call = await self._exchange(operator, call)

    async def _exchange(
        self, operator: Operator, call: Call, then: Callable[[UnitOfWork, str], None] | None = None
    ) -> tuple[str, Call | None]:
        """Send a call and record its answer: the round's state and the next call (``then``:
        given the state, in the same transaction)."""
        answer = await self._send(operator, call)
        timeout, cap = operator.timeout_s, self.cap_s

        def record(uow: UnitOfWork) -> tuple[str, Call | None]:
            state, after = outbox.answered(uow, call, answer, timeout, cap)
            if then is not None:
                then(uow, state)
            return state, after

        return await self.casino.db.write(record)

    def _spawn(self, work: Any) -> None:
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("an operator call failed: %r", task.exception())

    async def _claim(self, room: int) -> list[Call]:
        if room <= 0:
            return []
        lease = self._lease_s
        return await self.casino.db.write(lambda uow: outbox.claim_due(uow, room, lease))

    async def _work(self) -> None:
        """Resume the unfinished rounds that are due (retries, and a stopped process's)."""
        while True:
            await asyncio.sleep(self.poll_s)
            try:
                calls = await self._claim(min(50, MAX_IN_FLIGHT - len(self._tasks)))
                for call in calls:
                    operator = self.operators.get(call.operator_id)
                    if operator is None:
                        log.error("round %s is of operator %s, not configured here",
                                  call.round_id, call.operator_id)  # fmt: skip
                        continue
                    self._spawn(self._follow(operator, call))
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("the operators' worker failed a pass")
