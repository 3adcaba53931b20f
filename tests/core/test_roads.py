"""Roads, checked against sequences worked by hand from the published rules.

Sources of the rules: Wizard of Odds, "Baccarat Score Boards" (the Venetian's signs: bead
plate, big road with tie slashes and pair dots, the derived roads' red/blue comparisons);
live-casino help pages for the start cells (e.g. sikwin, "baccarat game rules: five road
rules": big eye boy from the second row of the second column, else the first row of the
third; small road from the second row of the third column). Each expected road below was
worked out on paper from those rules, column by column, before the code ran.
"""

from hypothesis import given
from hypothesis import strategies as st

from baccarat.core import Outcome
from baccarat.core.roads import Colour, RoadResult, compute_roads, place_columns, road_stats

R, B = "red", "blue"


def roads_json(text):
    return compute_roads(RoadResult.parse_many(text)).to_json()


def cells(road):
    return [(c.col, c.row) for c in road]


def test_big_road_starts_a_column_on_each_change_and_ties_count_on_the_entry_before():
    data = roads_json("BPPTB")
    assert data["bead"] == ["B", "P", "P", "T", "B"]
    assert data["big_road"] == [["B"], ["P", "P"], ["B"]]
    assert data["ties"] == [[0], [0, 1], [0]]


def test_ties_before_the_first_win_are_marked_on_the_first_cell():
    # Live tables draw the slash in the empty first cell; the first win fills that cell.
    assert roads_json("TTBP")["ties"] == [[2], [0]]
    assert roads_json("BTTPT")["ties"] == [[2], [1]]
    only_ties = compute_roads(RoadResult.parse_many("TTT"))
    assert only_ties.to_json()["big_road"] == []
    assert only_ties.layout_json()["leading_ties"] == 3


def test_a_hand_worked_shoe_gives_all_three_derived_roads_and_the_ask():
    # Big road column lengths 1 1 1 1 2 3 3 1 (B P B P BB PPP BBB P).
    data = roads_json("BPBPBBPPPBBBP")
    # Big eye boy: col 3 row 1 (equal 1=1) red, red, red; col 5 row 2: left column ends
    # at row 1 -> blue; col 6 row 1 new column 2 vs 1 -> blue; ...
    assert data["big_eye_boy"] == [R, R, R, B, B, R, B, B, R, R, R]
    assert data["small_road"] == [R, R, B, B, B, R, B, R, B, B]
    assert data["cockroach_pig"] == [R, B, B, B, R, B, B, R, B]
    # Banker next starts column 9: 1 vs 3, 1 vs 3, 1 vs 2 -> blue everywhere; Player next
    # is row 2 of column 8, whose compared columns all reach row 2 -> red everywhere.
    assert data["ask"] == {
        "banker": {"big_eye_boy": B, "small_road": B, "cockroach_pig": B},
        "player": {"big_eye_boy": R, "small_road": R, "cockroach_pig": R},
    }


def test_derived_roads_start_at_their_published_cells():
    counts = {
        text: {
            k: len(v)
            for k, v in roads_json(text).items()
            if k in ("big_eye_boy", "small_road", "cockroach_pig")
        }
        for text in ("BP", "BPP", "BPB", "BBP", "BPBB", "BPBP", "BPBPP", "BPBPB")
    }
    # Big eye boy: column 2 row 2, or column 3 row 1 when column 2 has one entry.
    assert counts["BP"]["big_eye_boy"] == 0
    assert counts["BBP"]["big_eye_boy"] == 0
    assert counts["BPP"]["big_eye_boy"] == 1
    assert counts["BPB"]["big_eye_boy"] == 1
    # Small road one column further; cockroach pig two further.
    assert counts["BPB"]["small_road"] == 0
    assert counts["BPBB"]["small_road"] == 1
    assert counts["BPBP"]["small_road"] == 1
    assert counts["BPBP"]["cockroach_pig"] == 0
    assert counts["BPBPP"]["cockroach_pig"] == 1
    assert counts["BPBPB"]["cockroach_pig"] == 1


def test_second_row_rules_red_when_left_filled_or_both_empty_blue_when_the_left_column_just_ended():
    assert roads_json("BBPP")["big_eye_boy"] == [R]  # left cell (col 1 row 2) filled
    assert roads_json("BPP")["big_eye_boy"] == [B]  # left empty, above-left filled
    assert roads_json("BPPP")["big_eye_boy"] == [B, R]  # row 3: left and above-left empty


def test_the_dragon_tail_turns_right_when_full_or_blocked():
    roads = compute_roads(RoadResult.parse_many("B" * 8 + "P" * 9 + "B"))
    banker, player, last = roads.big_road
    assert cells(e.cell for e in banker) == [(0, r) for r in range(6)] + [(1, 5), (2, 5)]
    # The player run is blocked at row 5 by the banker's tail: it turns at row 4.
    assert cells(e.cell for e in player) == [(1, r) for r in range(5)] + [
        (c, 4) for c in range(2, 6)
    ]
    assert cells(e.cell for e in last) == [(2, 0)]
    # 7 reds while column 1 reaches beside column 0, blue at row 9, blue for 9 vs 8.
    assert roads.to_json()["big_eye_boy"] == [R] * 7 + [B, B]


def test_derived_roads_have_their_own_grid_of_colour_runs():
    roads = compute_roads(RoadResult.parse_many("BPBPBBPPPBBBP"))
    eye = roads.road("big_eye_boy")
    # Runs 3 red, 2 blue, 1 red, 2 blue, 3 red -> five columns.
    assert cells(eye.cells) == [
        (0, 0),
        (0, 1),
        (0, 2),
        (1, 0),
        (1, 1),
        (2, 0),
        (3, 0),
        (3, 1),
        (4, 0),
        (4, 1),
        (4, 2),
    ]


def test_a_column_whose_top_cell_a_tail_took_starts_further_right():
    assert cells(c for col in place_columns([2, 2, 1], rows=1) for c in col) == [
        (0, 0),
        (1, 0),
        (2, 0),
        (3, 0),
        (4, 0),
    ]


def test_statistics_count_results_pairs_naturals_and_streaks():
    results = [
        RoadResult(Outcome.BANKER, banker_pair=True, natural=True),
        RoadResult(Outcome.TIE),
        RoadResult(Outcome.BANKER, player_pair=True),
        RoadResult(Outcome.PLAYER),
        RoadResult(Outcome.TIE),
        RoadResult(Outcome.TIE, natural=True),
    ]
    stats = road_stats(results).to_json()
    assert stats["counts"] == {"banker": 2, "player": 1, "tie": 3}
    assert stats["shares"] == {"banker": 0.3333, "player": 0.1667, "tie": 0.5}
    assert (stats["player_pairs"], stats["banker_pairs"], stats["naturals"]) == (1, 1, 2)
    assert stats["longest_streak"] == {"banker": 2, "player": 1, "tie": 2}


def test_bad_letters_are_refused():
    try:
        RoadResult.parse_many("BPX")
    except ValueError as error:
        assert "'X'" in str(error)
    else:
        raise AssertionError("X accepted")


sequences = st.lists(st.sampled_from("BPT"), max_size=120).map("".join)


@given(sequences)
def test_every_win_appears_once_in_the_big_road_and_every_tie_once_in_its_counts(text):
    data = roads_json(text)
    wins = [c for c in text if c != "T"]
    assert [x for column in data["big_road"] for x in column] == wins
    assert all(len(set(column)) == 1 for column in data["big_road"])
    assert all(a[0] != b[0] for a, b in zip(data["big_road"], data["big_road"][1:], strict=False))
    assert sum(map(sum, data["ties"])) == (text.count("T") if wins else 0)
    assert [len(c) for c in data["ties"]] == [len(c) for c in data["big_road"]]


@given(sequences)
def test_each_derived_road_has_one_mark_per_entry_past_its_start(text):
    data = roads_json(text)
    lengths = [len(c) for c in data["big_road"]]
    for name, k in (("big_eye_boy", 1), ("small_road", 2), ("cockroach_pig", 3)):
        expected = sum(lengths[k:]) - (1 if len(lengths) > k else 0)
        assert len(data[name]) == expected


@given(sequences)
def test_grid_cells_are_distinct_and_six_rows_deep(text):
    layout = compute_roads(RoadResult.parse_many(text)).layout_json()
    for name in ("bead", "big_road", "big_eye_boy", "small_road", "cockroach_pig"):
        spots = [(c["col"], c["row"]) for c in layout[name]]
        assert len(set(spots)) == len(spots)
        assert all(0 <= row < 6 and col >= 0 for col, row in spots)


@given(sequences, st.sampled_from("BP"))
def test_the_ask_is_what_the_next_result_adds(text, letter):
    before = compute_roads(RoadResult.parse_many(text))
    after = roads_json(text + letter)
    ask = before.ask[Outcome.BANKER if letter == "B" else Outcome.PLAYER]
    for name, colour in ask.items():
        expected = before.to_json()[name] + ([] if colour is None else [colour.value])
        assert after[name] == expected


@given(sequences)
def test_banker_and_player_asks_are_opposite_colours(text):
    ask = compute_roads(RoadResult.parse_many(text)).ask
    for name, banker in ask[Outcome.BANKER].items():
        player = ask[Outcome.PLAYER][name]
        if banker is not None and player is not None:
            assert {banker, player} == {Colour.RED, Colour.BLUE}


@given(sequences, st.sampled_from("BP"))
def test_the_ask_cells_are_where_the_next_result_draws(text, letter):
    before = compute_roads(RoadResult.parse_many(text))
    outcome = Outcome.BANKER if letter == "B" else Outcome.PLAYER
    cells = before.layout_json()["ask"][outcome.value]
    after = compute_roads(RoadResult.parse_many(text + letter)).layout_json()
    assert cells["big_road"] == {k: after["big_road"][-1][k] for k in ("col", "row")}
    for name in ("big_eye_boy", "small_road", "cockroach_pig"):
        colour = before.ask[outcome][name]
        if colour is None:
            assert cells[name] is None
        else:
            assert cells[name] == after[name][-1] and cells[name]["colour"] == colour.value


@given(sequences)
def test_statistics_agree_with_the_roads(text):
    results = RoadResult.parse_many(text)
    stats = road_stats(results)
    data = roads_json(text)
    assert stats.banker + stats.player + stats.tie == stats.rounds == len(data["bead"])
    for letter, longest in (("B", stats.longest_banker), ("P", stats.longest_player)):
        columns = [len(c) for c in data["big_road"] if c[0] == letter]
        assert longest == max(columns, default=0)
    assert ("T" * stats.longest_tie) in text and ("T" * (stats.longest_tie + 1)) not in text
