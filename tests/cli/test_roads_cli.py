import json

from .support import run


def test_roads_json_is_the_documented_shape(capsys):
    status, out, _ = run(capsys, "roads", "--results", "BPPTB", "--json")
    assert status == 0
    assert json.loads(out) == {
        "bead": ["B", "P", "P", "T", "B"],
        "big_road": [["B"], ["P", "P"], ["B"]],
        "ties": [[0], [0, 1], [0]],
        "big_eye_boy": ["blue", "blue"],
        "small_road": [],
        "cockroach_pig": [],
        "ask": {
            "banker": {"big_eye_boy": "red", "small_road": "blue", "cockroach_pig": None},
            "player": {"big_eye_boy": "blue", "small_road": "red", "cockroach_pig": None},
        },
    }


def test_roads_text_draws_grids(capsys):
    status, out, _ = run(capsys, "roads", "--results", "BPPTB")
    assert status == 0
    assert "big road" in out and "cockroach pig" in out
    assert (
        "B  P  B"
        in out.splitlines()[
            out.splitlines().index("big road (a digit after the letter: ties that followed)") + 1
        ]
    )
    assert "ask banker: big eye boy red, small road blue, cockroach pig -" in out


def test_bad_results_exit_2_with_one_line(capsys):
    status, out, err = run(capsys, "roads", "--results", "BPX")
    assert status == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert "'X'" in err
