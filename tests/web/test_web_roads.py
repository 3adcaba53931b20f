"""The scoreboards in chromium: the five roads, the ask and the statistics drawn for the
rounds actually played, compared cell by cell with the API and with core.roads."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from baccarat.core import Outcome
from baccarat.core.roads import RoadResult, compute_roads

from .webtools import Player, fresh_table, open_table, place

pytestmark = pytest.mark.browser

ROADS = ("bead", "big_road", "big_eye_boy", "small_road", "cockroach_pig")
LETTER = {"banker": "B", "player": "P", "tie": "T"}


def play_by_api(player: Player, table: str, rounds: int) -> None:
    for i in range(rounds):
        answer = player.context.request.post(
            f"{player.base_url}/api/tables/{table}/rounds",
            data={"mode": "fun", "bets": {"banker": 500}},
            headers={"Idempotency-Key": f"roads-{player.nickname}-{i}", **player.csrf()},
        )
        assert answer.status == 201, answer.text()


def history_results(player: Player, table: str) -> list[RoadResult]:
    items = player.api("GET", "/api/history?mode=fun&limit=200")["items"]
    results = []
    for item in reversed(items):
        assert item["table_id"] == table
        p, b = item["player"], item["banker"]
        results.append(
            RoadResult(
                Outcome(item["winner"]),
                player_pair=p["cards"][0][0] == p["cards"][1][0],
                banker_pair=b["cards"][0][0] == b["cards"][1][0],
                natural=max(p["scores"][0], b["scores"][0]) >= 8,
            )
        )
    return results


def drawn(page: Any, road: str) -> list[dict[str, Any]]:
    return page.eval_on_selector_all(
        f'[data-roads] [data-road="{road}"] [data-cell]',
        """els => els.map(e => ({col: Number(e.style.gridColumnStart) - 1,
            row: Number(e.style.gridRowStart) - 1, winner: e.dataset.winner || null,
            colour: e.dataset.colour || null, ties: Number(e.dataset.ties || 0),
            cls: e.className}))""",
    )


def check_board(player: Player, table: str, rounds: int) -> None:
    page = player.page
    page.wait_for_selector(f'[data-roads][data-rounds="{rounds}"]')
    results = history_results(player, table)
    assert len(results) == rounds
    core = compute_roads(results)
    layout = core.layout_json()
    served = player.api("GET", f"/api/tables/{table}/roads?mode=fun")
    assert served["roads"] == layout
    for road in ROADS:
        cells = drawn(page, road)
        assert [(c["col"], c["row"]) for c in cells] == [(c["col"], c["row"]) for c in layout[road]]
        if road in ("bead", "big_road"):
            assert [c["winner"] for c in cells] == [c["winner"] for c in layout[road]]
        else:
            assert [c["colour"] for c in cells] == [c["colour"] for c in layout[road]]
            # Big eye boy hollow rings, small road solid dots, cockroach pig slashes.
            assert all(
                f"mark-{road}" in c["cls"] and f"mark-{c['colour']}" in c["cls"] for c in cells
            )
    big = drawn(page, "big_road")
    assert [c["ties"] for c in big] == [c["ties"] for c in layout["big_road"]]
    tie_slashes = page.locator('[data-road="big_road"] .tie-slash').count()
    assert tie_slashes == sum(1 for c in layout["big_road"] if c["ties"])
    assert page.locator('[data-road="bead"] .pair-player').count() == sum(
        r.player_pair for r in results
    )
    for who, ask in core.to_json()["ask"].items():
        for road, colour in ask.items():
            shown = page.get_attribute(
                f'[data-ask="{who}"] [data-ask-road="{road}"]', "data-colour"
            )
            assert shown == (colour or "none"), (who, road)
    # Pointing at an ask shows where that result would draw on every road; leaving hides it.
    for who, cells in layout["ask"].items():
        page.hover(f'[data-ask="{who}"]')
        ghosts = page.eval_on_selector_all(
            "[data-roads] .ghost",
            """els => els.map(e => [e.parentElement.dataset.road,
                Number(e.style.gridColumnStart) - 1, Number(e.style.gridRowStart) - 1])""",
        )
        expected = [[road, cell["col"], cell["row"]] for road, cell in cells.items() if cell]
        assert ghosts == expected, who
        page.mouse.move(0, 0)
        assert page.locator("[data-roads] .ghost").count() == 0
    stats = served["stats"]
    for who in ("banker", "player", "tie"):
        assert sum(r.letter == LETTER[who] for r in results) == stats["counts"][who]
        text = str(page.text_content(f'[data-stat="{who}"]'))
        assert f" {stats['counts'][who]} " in text


def test_the_five_roads_the_ask_and_the_statistics_follow_the_rounds_played(
    make_player: Any, tables: list[dict[str, Any]], screenshots: Path
) -> None:
    player = make_player()
    console: list[str] = []
    player.page.on("console", lambda m: console.append(m.text) if m.type == "error" else None)
    table = fresh_table(tables)
    played = 30
    play_by_api(player, table["id"], played)
    open_table(player, table)
    check_board(player, table["id"], played)
    # 30 rounds leave at least three big road columns in all but freak shoes: every road
    # has marks (the chance of fewer than 5 columns in 27+ wins is below 1e-4).
    for road in ROADS:
        assert player.page.locator(f'[data-road="{road}"] [data-cell]').count() > 0, road
    # A round dealt at the table redraws the board after its reveal.
    place(player, 500, "banker")
    player.page.click('[data-action="deal"]')
    player.wait_round()
    check_board(player, table["id"], played + 1)
    page = player.page
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]
    page.locator("[data-roads]").screenshot(path=str(screenshots / "roads-desktop.jpg"))
    page.hover('[data-ask="banker"]')
    page.locator("[data-roads]").screenshot(path=str(screenshots / "roads-ask-banker.jpg"))
    page.mouse.move(0, 0)
    page.screenshot(path=str(screenshots / "roads-table-desktop.jpg"), full_page=True)
    assert player.errors == [] and console == []


@pytest.mark.parametrize("size", [(390, 844), (844, 390)], ids=["portrait", "landscape"])
def test_the_scoreboard_fits_a_phone_and_scrolls_inside(
    make_player: Any, tables: list[dict[str, Any]], screenshots: Path, size: tuple[int, int]
) -> None:
    width, height = size
    player = make_player(
        viewport={"width": width, "height": height}, is_mobile=True, has_touch=True
    )
    table = fresh_table(tables)
    play_by_api(player, table["id"], 40)
    open_table(player, table)
    check_board(player, table["id"], 40)
    page = player.page
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    box = page.locator("[data-roads]").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width
    # About six rows of small cells: compact enough for the one-screen table.
    assert box["height"] <= 140
    # Every road and the ask in view without a swipe (the statistics may need one).
    beyond = page.locator("[data-road], [data-ask]").evaluate_all(
        "els => els.filter(e => { const r = e.getBoundingClientRect();"
        " return r.left < 0 || r.right > window.innerWidth; })"
        ".map(e => e.dataset.road || e.dataset.ask)"
    )
    assert beyond == []
    page.locator("[data-roads]").scroll_into_view_if_needed()
    page.locator("[data-roads]").screenshot(
        path=str(screenshots / f"roads-phone-{width}x{height}.jpg")
    )
    assert player.errors == []


def test_the_rules_page_explains_the_roads_and_that_past_results_do_not_change_the_odds(
    make_player: Any, catalogs: dict[str, dict[str, str]]
) -> None:
    keys = [k for k in catalogs["en"] if k.startswith(("roads.", "rules.roads_"))]
    assert len(keys) > 20
    for lang, catalog in catalogs.items():
        missing = [k for k in keys if not catalog.get(k)]
        assert not missing, (lang, missing)
    player = make_player(locale="de-DE")
    player.goto("rules")
    player.page.wait_for_selector("#roads-help")
    assert catalogs["de"]["rules.roads_odds"] == player.page.text_content("#roads-help .roads-odds")


# A known shoe: the sequence of tests/core/test_roads.py, worked by hand from the rules.
KNOWN = "BPBPBBPPPBBBP"
R, B = "red", "blue"
KNOWN_BIG_ROAD = [(0, 0), (1, 0), (2, 0), (3, 0), (4, 0), (4, 1), (5, 0), (5, 1), (5, 2),
                  (6, 0), (6, 1), (6, 2), (7, 0)]  # fmt: skip
KNOWN_DERIVED = {
    "big_eye_boy": [R, R, R, B, B, R, B, B, R, R, R],
    "small_road": [R, R, B, B, B, R, B, R, B, B],
    "cockroach_pig": [R, B, B, B, R, B, B, R, B],
}
# Big eye boy runs 3 red, 2 blue, 1 red, 2 blue, 3 red: five columns of its own grid.
KNOWN_EYE_CELLS = [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (2, 0), (3, 0), (3, 1), (4, 0),
                   (4, 1), (4, 2)]  # fmt: skip


@pytest.fixture
def stacked_server(tmp_path: Path) -> Any:
    """A server whose cut shoe deals the coups of KNOWN in order (tests.server.apps:stacked)."""
    from ..harness import free_port, live, uvicorn_argv
    from ..server.support import BANKER_WINS, PLAYER_WINS

    coups = {"B": BANKER_WINS, "P": PLAYER_WINS}
    env = {
        "BACCARAT_DATABASE_URL": f"sqlite:///{tmp_path / 'known.db'}",
        "BACCARAT_DATA_DIR": str(tmp_path),
        "BACCARAT_TEST_STACK": " ".join(coups[c] for c in KNOWN),
    }
    port = free_port()
    with live(
        uvicorn_argv("tests.server.apps:stacked", port), env, tmp_path / "server.log", port
    ) as server:
        yield server.url


def test_a_known_shoe_draws_the_hand_worked_roads(
    make_player: Any, stacked_server: str, screenshots: Path
) -> None:
    player = make_player(at=stacked_server)
    player.api("POST", "/api/tables/mini/shoe", {"mode": "fun", "cut": 10})
    play_by_api(player, "mini", len(KNOWN) - 1)
    open_table(player, {"id": "mini"})
    page = player.page
    page.wait_for_selector(f'[data-roads][data-rounds="{len(KNOWN) - 1}"]')
    place(player, 500, "banker")
    page.click('[data-action="deal"]')
    player.wait_round()
    page.wait_for_selector(f'[data-roads][data-rounds="{len(KNOWN)}"]')
    assert [c["winner"] for c in drawn(page, "bead")] == list(KNOWN)
    big = drawn(page, "big_road")
    assert [(c["col"], c["row"]) for c in big] == KNOWN_BIG_ROAD
    assert all(
        "big-banker" in c["cls"] if c["winner"] == "B" else "big-player" in c["cls"] for c in big
    )
    for road, colours in KNOWN_DERIVED.items():
        assert [c["colour"] for c in drawn(page, road)] == colours, road
    eye = drawn(page, "big_eye_boy")
    assert [(c["col"], c["row"]) for c in eye] == KNOWN_EYE_CELLS
    # Banker next starts a column beside a 1 after 3s: blue on all three; Player next
    # goes down beside columns that reach that row: red on all three.
    for road in KNOWN_DERIVED:
        assert (
            page.get_attribute(f'[data-ask="banker"] [data-ask-road="{road}"]', "data-colour") == B
        )
        assert (
            page.get_attribute(f'[data-ask="player"] [data-ask-road="{road}"]', "data-colour") == R
        )
    assert " 7 " in str(page.text_content('[data-stat="banker"]'))
    assert " 6 " in str(page.text_content('[data-stat="player"]'))
    page.locator("[data-roads]").screenshot(path=str(screenshots / "roads-known-shoe.jpg"))
    assert player.errors == []
