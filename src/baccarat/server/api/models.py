"""Request and response bodies, as they appear in the OpenAPI schema."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import Query
from pydantic import BaseModel, ConfigDict, Field, RootModel, StrictInt

Mode = Literal["fun", "real"]
# A route's mode in its query string (``?mode=real``; 422 ``invalid_mode`` if neither).
ModeQuery = Annotated[Mode, Query()]
Cents = Annotated[StrictInt, Field(ge=0, le=10**12, description="an amount in cents")]
Amount = Annotated[StrictInt, Field(gt=0, le=10**13, description="a positive amount in cents")]


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


# -- requests ------------------------------------------------------------------------------


class Credentials(Body):
    nickname: str = Field(max_length=64, examples=["alice"])
    password: str = Field(max_length=256, examples=["correct horse battery"])


class Registration(Credentials):
    currency: str = Field(
        "USD", pattern=r"^[A-Z]{3}$", examples=["EUR"],
        description="ISO 4217: the currency of the player's accounts, for good (one a table "
        "has limits in; the rounds, deposits and balances are in it)",
    )  # fmt: skip


BetName = Annotated[str, Field(max_length=32, pattern=r"^[a-z0-9_]+$")]


class BetsIn(RootModel[dict[BetName, Cents]]):
    """Stakes by bet name: ``{"banker": 500, "player_pair": 100}``; a table takes the bets
    its ``"bets"`` list names (``bet_not_offered`` otherwise)."""

    root: dict[BetName, Cents] = Field(max_length=32, examples=[{"banker": 500}])


class PasswordChangeIn(Body):
    current: str = Field(max_length=256, description="the password in use now")
    new: str = Field(max_length=256, description="10-256 characters, not a common one")


class SessionInfoOut(BaseModel):
    id: str = Field(description="a public id of the session (never its token)")
    created: str
    expires: str
    current: bool = Field(description="the session of this request")


class SessionsOut(BaseModel):
    sessions: list[SessionInfoOut]


class RoundIn(Body):
    mode: Mode
    bets: BetsIn
    autoplay: StrictInt | None = Field(
        default=None, ge=1, le=10_000,
        description="the round's number in an autoplay the player started (1, 2, ...): "
        "refused where the jurisdiction profile allows no autoplay or fewer rounds "
        "(`autoplay_not_allowed`, docs/jurisdictions.md); played as any round",
    )  # fmt: skip


class CutIn(Body):
    mode: Mode
    cut: StrictInt = Field(ge=0, le=10_000, description="the cut position, 0 .. cards - 1")


class ModeIn(Body):
    mode: Mode


class ClientSeedIn(Body):
    mode: Mode
    client_seed: str = Field(max_length=64)


class AmountIn(Body):
    amount: Amount


# -- answers -------------------------------------------------------------------------------


class PlayerOut(BaseModel):
    id: int
    nickname: str


class SessionStateOut(BaseModel):
    logged_in: bool
    player: PlayerOut | None = Field(default=None, description="present when logged in")
    operator: dict[str, Any] | None = Field(
        default=None,
        description="a session an operator launched: its operator, mode (real; fun for a demo), "
        "currency, language, table and lobby_url (docs/operator-api.md)",
    )
    profile: dict[str, Any] | None = Field(
        default=None,
        description="the jurisdiction profile in force: what the page allows and shows "
        "(docs/jurisdictions.md; GET /api/profiles lists them)",
    )


class SessionOut(BaseModel):
    token: str = Field(description="send as `Authorization: Bearer TOKEN`")
    csrf_token: str = Field(description="the browser echoes it in `X-CSRF-Token`")
    expires: str
    player: PlayerOut


class LimitsOut(BaseModel):
    min: int
    max: int
    tie_min: int
    tie_min_alone: int
    tie_max: int


class BankedTermsOut(BaseModel):
    seats: int
    min_points: int = Field(description="loyalty points a banker needs at this table")
    min_banker_balance: int = Field(
        description="cents: the configured minimum, and at least 9 x max bet + 1.5% x max bet "
        "and the exposure"
    )
    exposure: int = Field(description="cents: the most one round can cost the banker (reserved)")
    fee_rate: float = Field(description="the casino's fee on the bets against the banker")
    fee_percent: str
    player_seconds: int
    banker_seconds: int


class TableBetOut(BaseModel):
    min: int
    max: int
    unit: int = Field(description="stakes are multiples of this (the smallest chip's unit)")
    min_beside: int | None = Field(
        default=None, description="the tie only: its minimum beside a Player or Banker bet"
    )
    pays: dict[str, str] = Field(
        description='the pay table: line -> pay "to one" ("11", "19/20") or "push"'
    )
    rtp: float | None = Field(description="the exact return to player; null if not known")
    rtp_exact: str | None = Field(
        default=None, description='the exact return to player as a fraction "n/d"'
    )
    rtp_percent: str | None = Field(
        default=None, description='the exact return to player in percent, "98.7654"'
    )
    multiplier: dict[str, Any] | None = Field(
        default=None,
        description="a multiplier table's bet, exactly (docs/multiplier.md): its standard "
        "deviation per unit staked (sd), its largest multiplier and how rare it is "
        "(max_multiplier, max_multiplier_one_in: 1 in N rounds), how rare a pay of 100 times "
        "the stake or more is (pays_100x_one_in); its rtp is per unit wagered (stake and fee)",
    )


class TableOut(BaseModel):
    id: str
    name: str
    rules: dict[str, Any]
    chips: list[int]
    limits: LimitsOut
    bets: dict[str, TableBetOut] = Field(
        description="every bet the table takes (main bets first): limits, pays, exact RTP"
    )
    rtp: dict[str, float]
    cut_shoe: bool
    source: str
    banked: BankedTermsOut | None = Field(
        default=None, description="present on player-banked tables (join a seat to play)"
    )
    currencies: list[str] = Field(
        default_factory=lambda: ["USD"],
        description="ISO 4217: the currencies the table has chips and limits in",
    )
    currency: str = Field(
        "USD",
        description="ISO 4217: the currency of its chips and limits here, in its minor unit: "
        "the caller's (their accounts', an operator's session's); USD for a visitor",
    )
    open: bool = Field(
        default=True,
        description="false while the back office has the table closed (no new rounds "
        "start: table_disabled); limits and bets are the ones its next round plays by",
    )
    shared: SharedTermsOut | None = Field(
        default=None,
        description="present on shared tables: one shoe on the server's clock, every player "
        "betting on the same coup (GET /api/tables/{id}/state)",
    )


class SharedTermsOut(BaseModel):
    betting_s: int = Field(description="seconds of each coup's betting window")
    result_s: int = Field(description="seconds the result stands before the next window")


class SharedSpotOut(BaseModel):
    players: int
    amount: int


class SharedBeaconOut(BaseModel):
    chain: str = Field(description="the beacon chain's hash (drand's API)")
    round: int = Field(description="named in the table's log before it was published")
    entered: bool = Field(description="false: the table waits for the round (no window)")
    randomness: str | None = Field(description="sha256 of the round's signature, once entered")


class SharedShoeOut(BaseModel):
    id: int
    commitment: str = Field(description="sha256 of the shoe's seed, fixed before any bet")
    client_seed: str
    coups_dealt: int
    cards_left: int
    finished: bool
    server_seed: str | None = Field(description="revealed when the shoe ends")
    beacon: SharedBeaconOut | None = Field(
        description="the public randomness beacon's round the shoe takes (null: none "
        "configured, the shoe is dealt from the committed seed alone)"
    )


class SharedLogHeadOut(BaseModel):
    seq: int
    hash: str = Field(description="the hash of the table log's last entry")


class SharedStateOut(BaseModel):
    """A shared table now: the same for everyone, the caller's own bets added."""

    model_config = ConfigDict(extra="allow")

    table_id: str
    phase: Literal["betting", "closed", "dealt", "idle"]
    coup: int | None = Field(description="the coup now betting, or the last dealt")
    closes_at: int | None = Field(description="microseconds since the epoch, server's clock")
    server_time: int
    players: int = Field(description="bettors on the coup (in this mode)")
    totals: dict[str, SharedSpotOut]
    shoe: SharedShoeOut | None
    log: SharedLogHeadOut | None = Field(description="the head of the table's hash-chained log")
    currency: str = Field("USD", description="ISO 4217: the currency of the pot's amounts")


class WalletOut(BaseModel):
    fun: int
    real: int
    pending_withdrawals: int = Field(description="real money reserved by withdrawal requests")
    currency: str = Field(
        "USD",
        description="ISO 4217: the real balance's currency (its "
        "amounts in its minor unit); an operator's session: the operator's",
    )


class TopUpOut(WalletOut):
    added: int
    up_to: int = Field(description="the play-money balance a top-up brings it back up to")


class HandOut(BaseModel):
    cards: list[str]
    scores: list[int] = Field(description="[two-card score, final score]: x:y")


class BetOut(BaseModel):
    stake: int
    result: Literal["win", "lose", "push", "void"]
    returned: int
    fee: int = Field(
        default=0,
        description="a multiplier table's fee, taken with the stake and never returned",
    )
    multiplier: int = Field(
        default=1, description="a multiplier table's won bet: the multiplier its pay took"
    )


class LightningOut(BaseModel):
    card: str = Field(description='a card identity (rank and suit), "Ah"')
    multiplier: int


class FairnessRecordOut(BaseModel):
    """What re-derives the round's shuffle (docs/history-format.md)."""

    server_seed: str | None = Field(description="null while the seed is not yet revealed")
    commitment: str = Field(description="the SHA-256 of the server seed, shown before play")
    client_seed: str
    nonce: int
    cut: int | None = Field(description="the player's cut on cut-shoe tables, else null")
    position: int = Field(description="where the coup starts in the shoe, after the cut")


HouseAction = Literal["deal", "rebet", "double", "new_game", "cut"]


class ShoeOut(BaseModel):
    table_id: str
    mode: str
    cut_due: bool
    cards: int
    cards_left: int
    position: int
    cut_card: int | None
    nonce: int | None
    cut: int | None
    commitment: str | None


class BankedRoundOut(BaseModel):
    """A player-banked round as one of its two participants sees it."""

    role: Literal["player", "banker"]
    seat_id: str
    opponent: str = Field(description="the other participant's nickname")
    fee: int = Field(description="the casino's fee, paid by the banker")
    net: int = Field(description="this participant's result of the round, in cents")
    points: int = Field(description="loyalty points earned (player) or lost (banker, < 0)")
    balance_before: int
    balance_after: int


class RoundOut(BaseModel):
    id: str
    table_id: str
    mode: str
    time: str
    rules: str
    player: HandOut
    banker: HandOut
    winner: Literal["player", "banker", "tie"]
    bets: dict[str, BetOut]
    lightning: list[LightningOut] = Field(
        default_factory=list,
        description="a multiplier table's round: its multiplier cards, in the order drawn",
    )
    stake: int
    fee: int = Field(
        default=0, description="a multiplier table's round: the fees taken with the stakes"
    )
    win: int
    balance_before: int
    balance_after: int
    void_reason: str | None
    fairness: FairnessRecordOut
    shoe: ShoeOut | None = None
    allowed_actions: list[HouseAction] | None = Field(
        default=None, description="at a house table, after this round: what you may do next"
    )
    role: Literal["player", "banker"] = Field(
        default="player", description="banker: a player-banked round you banked"
    )
    banked: BankedRoundOut | None = None
    currency: str | None = Field(
        default=None,
        description="at a house table, the answer to the round: the currency of its amounts",
    )
    payout: Literal["none", "pending", "paid"] | None = Field(
        default=None,
        description="a round on an operator's wallet: its win is on its way (pending), landed "
        "(paid), or the round returned nothing (none)",
    )
    position: dict[str, Any] | None = Field(
        default=None,
        description="the answer to a house round where the profile's felt shows the net "
        "position (docs/jurisdictions.md): the session's, with this round in it, as "
        "GET /api/session/position says",
    )


class HistoryOut(BaseModel):
    items: list[RoundOut]
    next: str | None
    currency: str = Field(description="ISO 4217: the currency of every amount of the items")


class ShownCommitmentOut(BaseModel):
    """A commitment as the casino shows it, signed: what the browser keeps as a receipt."""

    commitment: str
    mode: str
    time: str = Field(description="when the commitment was made (UTC)")
    signature: str = Field(
        description="the casino's Ed25519 signature (base64) of the canonical JSON "
        '{"commitment", "mode", "time", "type": "baccarat-commitment/1"} (docs/fairness.md)'
    )
    key_id: str = Field(description="the id of the key that signed it (see signing_keys)")


class ShoeSeedOut(ShownCommitmentOut):
    next_nonce: int = Field(description="the nonce the next cut shoe takes")


class PendingShoeOut(BaseModel):
    table_id: str
    cards_left: int = Field(description="the cards dealt before the shoe's cut card comes out")
    rounds_at_least: int
    rounds_at_most: int = Field(
        description="the coups those cards deal: 4 to 6 cards a coup, the last completed"
    )


class PendingSeedOut(BaseModel):
    commitment: str
    tables: list[str] = Field(description="the cut-shoe tables whose shoe in play is dealt from it")
    shoes: list[PendingShoeOut] = Field(description="those shoes, each with what is left of it")


class FairnessStateOut(ShownCommitmentOut):
    """The fresh-shuffle tables' seed's commitment, signed, with the client seed and nonces."""

    client_seed: str
    client_seed_source: Literal["client", "server"] = Field(
        description="who set the client seed: the player (after this commitment was shown), "
        "or the server's placeholder, made with every new commitment until the player sets "
        "one (PUT /api/fairness/client-seed before the first deal)"
    )
    next_nonce: int
    shoe: ShoeSeedOut | None = Field(
        default=None,
        description="the cut shoes' seed, committed with the first (null: an account made "
        "before the cut shoes had a seed of their own, until its next rotation)",
    )
    pending: list[PendingSeedOut] = Field(
        default_factory=list,
        description="your rotated seeds not revealed yet: each waits for its cut shoes to end",
    )


class SigningKeyOut(BaseModel):
    key_id: str
    public_key: str = Field(description="the Ed25519 public key: base64 of its 32 bytes")
    current: bool = Field(description="the key that signs now; the others are retired")


class FairnessOut(BaseModel):
    fun: FairnessStateOut
    real: FairnessStateOut
    signing_keys: list[SigningKeyOut]


class UndealtShoeOut(BaseModel):
    nonce: int
    table_id: str | None
    cut: int | None


class RevealedSeedOut(BaseModel):
    mode: str
    server_seed: str
    commitment: str
    nonces_used: int
    undealt_shoes: list[UndealtShoeOut] | None = Field(
        default=None,
        description="shoes cut under this seed and never dealt from: their nonces dealt no "
        "round (the verifier counts them among the nonces used)",
    )


class RotationOut(BaseModel):
    revealed: RevealedSeedOut | None = Field(
        description="the fresh-shuffle tables' retired seed, revealed now (null only for an "
        "account made before the cut shoes had a seed of their own, while a cut shoe is "
        "still dealt from it: see pending)"
    )
    revealed_shoe_seed: RevealedSeedOut | None = Field(
        default=None,
        description="the cut shoes' retired seed, revealed now; null while a cut shoe is "
        "still dealt from it (it is revealed when the last such shoe ends: see pending)",
    )
    pending: list[PendingSeedOut] = Field(
        description="your retired seeds not revealed yet, each with the tables whose shoe ends it"
    )
    current: FairnessStateOut


class CashierRequestOut(BaseModel):
    id: int
    kind: Literal["deposit", "withdrawal"]
    amount: int
    currency: str = Field(description="ISO 4217: the amount's (your accounts'), in its minor unit")
    status: Literal["pending", "approved", "rejected"]
    time: str
    decided: str | None
    note: str | None


class MovementOut(BaseModel):
    id: int
    kind: str
    mode: str
    amount: int
    time: str
    reference: str | None


class StatementOut(BaseModel):
    items: list[MovementOut]
    next: int | None


class HealthOut(BaseModel):
    status: str
    database: str
    version: str


# -- roads ---------------------------------------------------------------------------------

Colour = Literal["red", "blue"]
Letter = Literal["B", "P", "T"]


class RoadCellOut(BaseModel):
    col: int = Field(description="grid column from the left")
    row: int = Field(description="grid row from the top, 0..5")


class ResultCellOut(RoadCellOut):
    winner: Letter
    player_pair: bool
    banker_pair: bool
    natural: bool


class BigRoadCellOut(ResultCellOut):
    winner: Literal["B", "P"]
    ties: int = Field(description="ties that followed this entry (the slash and its count)")


class DerivedCellOut(RoadCellOut):
    colour: Colour


class AskCellsOut(BaseModel):
    big_road: RoadCellOut
    big_eye_boy: DerivedCellOut | None
    small_road: DerivedCellOut | None
    cockroach_pig: DerivedCellOut | None


class RoadsGridOut(BaseModel):
    rows: int
    bead: list[ResultCellOut]
    big_road: list[BigRoadCellOut]
    leading_ties: int = Field(description="ties so far when the big road has no entry yet")
    big_eye_boy: list[DerivedCellOut]
    small_road: list[DerivedCellOut]
    cockroach_pig: list[DerivedCellOut]
    ask: dict[Literal["banker", "player"], AskCellsOut] = Field(
        description="where the next result would draw on each road (null: nowhere)"
    )


class AskOut(BaseModel):
    big_eye_boy: Colour | None
    small_road: Colour | None
    cockroach_pig: Colour | None


class RoadStatsOut(BaseModel):
    rounds: int
    counts: dict[Literal["banker", "player", "tie"], int]
    shares: dict[Literal["banker", "player", "tie"], float] = Field(
        description="each count over the rounds, rounded to 4 places"
    )
    player_pairs: int
    banker_pairs: int
    naturals: int
    longest_streak: dict[Literal["banker", "player", "tie"], int] = Field(
        description="Banker and Player streaks ignore ties (as a big road column does)"
    )


class RoadsOut(BaseModel):
    table_id: str
    mode: Mode
    scope: Literal["shoe", "recent"] = Field(
        description="`shoe`: the current shoe of a cut-shoe table; `recent`: the last rounds"
    )
    limit: int = Field(description="the most rounds looked at")
    roads: RoadsGridOut
    columns: dict[Literal["big_road", "ties"], list[list[Any]]] = Field(
        description="the big road's logical columns and the ties on each entry"
    )
    ask: dict[Literal["banker", "player"], AskOut] = Field(
        description="the colour each derived road would add if the next result were ..."
    )
    stats: RoadStatsOut


class HouseTableOut(BaseModel):
    """You at a house table: what you may do now, your last round there, your shoe."""

    table_id: str
    mode: str
    open: bool = Field(description="false while the back office has the table closed")
    currency: str = Field(
        description="ISO 4217: the currency of the limits, bets and balance (your accounts')"
    )
    limits: LimitsOut = Field(description="the limits the next round plays by")
    bets: dict[str, TableBetOut] = Field(description="every bet the table takes, as now")
    allowed_actions: list[HouseAction] = Field(
        description="deal: a deal can be made now (with the bets sent); rebet, double: your "
        "last bets (twice them) fit the table and your balance; new_game: a round (not void) "
        "is on the felt to clear; cut: a new shoe waits for your cut (no deal before it)"
    )
    balance: int
    last_round: RoundOut | None
    shoe: ShoeOut | None = Field(description="cut-shoe tables only")
